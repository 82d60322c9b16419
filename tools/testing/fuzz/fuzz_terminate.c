// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: rdmap_parse_terminate() on arbitrary bytes (the
 * payload of a received Terminate). An accepted body must point only
 * inside the input and, re-built from what was parsed, reproduce the same
 * bytes apart from the 13 reserved bits.
 */
#include "fuzz_common.h"
#include "ddp_wire.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct rdmap_term_info ti, ti2;
	struct iw_term t;
	u8 out[128];
	size_t echoed;
	ssize_t n;
	int rv;

	rv = rdmap_parse_terminate(data, size, &ti);
	FUZZ_ASSERT(rv == 0 || rv == -EBADMSG);
	if (rv)
		return 0;

	FUZZ_ASSERT(size >= 4 && size <= RDMAP_TERM_MAX_BODY);
	FUZZ_ASSERT(ti.layer <= IW_TERM_LAYER_LLP);
	echoed = ti.ddp_hdr_len + ti.rdmap_hdr_len;
	if (ti.ddp_hdr) {
		FUZZ_ASSERT(ti.ddp_hdr == data + 6);
		FUZZ_ASSERT(ti.ddp_hdr_len == 14 || ti.ddp_hdr_len == 18);
	}
	if (ti.rdmap_hdr)
		FUZZ_ASSERT(ti.rdmap_hdr == ti.ddp_hdr + ti.ddp_hdr_len &&
			    ti.rdmap_hdr_len == 28);
	FUZZ_ASSERT(4 + (ti.hdrct & RDMAP_TERM_HDRCT_M ? 2 : 0) + echoed ==
		    size);

	iw_term_set(&t, ti.layer, ti.etype, ti.ecode, ti.hdrct);
	n = rdmap_build_terminate(out, sizeof(out), 1, &t, ti.ddp_hdr, echoed,
				  ti.seg_len);
	FUZZ_ASSERT(n >= 22);
	FUZZ_ASSERT(!rdmap_parse_terminate(out + 18, n - 18, &ti2));
	FUZZ_ASSERT(ti2.layer == ti.layer && ti2.etype == ti.etype &&
		    ti2.ecode == ti.ecode && !ti2.rsvd);
	/* the builder drops what the echoed segment cannot back up */
	FUZZ_ASSERT(!(ti2.hdrct & ~ti.hdrct));
	if (ti2.hdrct == ti.hdrct && (size_t)(n - 18) == size) {
		FUZZ_ASSERT(!memcmp(out + 18, data, 2));
		FUZZ_ASSERT((out[20] & 0xe0) == (data[2] & 0xe0));
		FUZZ_ASSERT(!memcmp(out + 22, data + 4, size - 4));
	}
	return 0;
}
