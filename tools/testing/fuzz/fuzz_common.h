/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets of the iWARP wire-format layer. A broken
 * invariant aborts, which libFuzzer reports as a crash with the input.
 */
#ifndef _SIW_LITE_FUZZ_COMMON_H
#define _SIW_LITE_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include "wire_compat.h"
#include "iwarp.h"

#define FUZZ_ASSERT(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant broken: %s\n",\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#endif /* _SIW_LITE_FUZZ_COMMON_H */
