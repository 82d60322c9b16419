/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: a page piece, named by mem.h and qp_obj.h; RX never builds one. */
#ifndef KSHIM_LINUX_BVEC_H
#define KSHIM_LINUX_BVEC_H

#include "../kshim.h"

struct bio_vec {
	struct page *bv_page;
	unsigned int bv_len;
	unsigned int bv_offset;
};

#endif /* KSHIM_LINUX_BVEC_H */
