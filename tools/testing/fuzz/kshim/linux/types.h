/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim: the system's <linux/types.h> (__u8, __be16, ...) plus the kernel
 * names on top of it. wire_compat.h includes <linux/types.h> itself before
 * defining u8 ... u64, hence the guard around the include of kshim.h.
 */
#ifndef KSHIM_LINUX_TYPES_H
#define KSHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include "../kshim.h"

#endif /* KSHIM_LINUX_TYPES_H */
