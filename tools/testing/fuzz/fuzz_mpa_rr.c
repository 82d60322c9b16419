// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: mpa_rr_parse() on arbitrary bytes.
 *
 * Input: one octet choosing frame type and policy, then the frame. Beyond
 * memory safety (ASan/UBSan) it checks that results are self-consistent
 * and that re-building an accepted frame reproduces its bytes, with only
 * the Res bits (not checked on reception) allowed to differ.
 */
#include "fuzz_common.h"
#include "mpa_wire.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct mpa_rr_policy pol;
	struct mpa_rr_build b;
	struct mpa_rr_info i;
	enum mpa_rr_type type;
	struct iw_term t;
	const u8 *f;
	u8 out[MPA_MAX_PRIVDATA + 32];
	ssize_t n;
	int rv;

	if (size < 1)
		return 0;
	type = data[0] & 1 ? MPA_RR_REPLY : MPA_RR_REQUEST;
	pol.markers_ok = !!(data[0] & 2);
	pol.need_enhanced = !!(data[0] & 4);
	pol.rev_min = (data[0] >> 3) & 3;
	pol.rev_max = (data[0] >> 5) & 3;
	f = data + 1;
	size--;

	rv = mpa_rr_parse(f, size, type, &pol, &i, &t);
	FUZZ_ASSERT(rv == 0 || rv == -EAGAIN || rv == -EPROTO ||
		    rv == -EOPNOTSUPP || rv == -ECONNREFUSED);
	FUZZ_ASSERT(!!t.valid == (rv == -EPROTO || rv == -EOPNOTSUPP));
	if (t.valid)
		FUZZ_ASSERT(t.layer == IW_TERM_LAYER_LLP &&
			    t.etype == MPA_ETYPE_MPA &&
			    t.ecode == MPA_ECODE_INVALID_RR && !t.hdrct);
	if (rv == -EAGAIN)
		FUZZ_ASSERT(i.frame_len > size);
	if (rv == -ECONNREFUSED)
		FUZZ_ASSERT(type == MPA_RR_REPLY && i.reject);
	if (rv != 0 && rv != -ECONNREFUSED)
		return 0;

	FUZZ_ASSERT(i.frame_len == 20 + i.pd_len && i.frame_len <= size);
	FUZZ_ASSERT(i.pd_len <= MPA_MAX_PRIVDATA);
	FUZZ_ASSERT(i.ulp_pd >= f + 20 && i.ulp_pd + i.ulp_pd_len ==
		    f + i.frame_len);
	FUZZ_ASSERT(i.ulp_pd_len + (i.enhanced ? 4 : 0) == i.pd_len);
	FUZZ_ASSERT(i.rev >= pol.rev_min && i.rev <= pol.rev_max);
	FUZZ_ASSERT(i.v2.ird <= MPA_V2_IRD_ORD_MASK &&
		    i.v2.ord <= MPA_V2_IRD_ORD_MASK);

	memset(&b, 0, sizeof(b));
	b.rev = i.rev;
	b.markers = i.markers;
	b.crc = i.crc;
	b.reject = i.reject;
	b.enhanced = i.enhanced;
	b.v2 = i.v2;
	b.ulp_pd = i.ulp_pd;
	b.ulp_pd_len = i.ulp_pd_len;
	n = mpa_rr_build(out, sizeof(out), type, &b);
	if (n == -EINVAL) {
		/* only revisions and RFC 6581 blocks we never send */
		FUZZ_ASSERT(i.rev < 1 || i.rev > 2 ||
			    (i.enhanced && !i.v2.p2p && i.v2.rtr));
		return 0;
	}
	FUZZ_ASSERT(n == (ssize_t)i.frame_len);
	FUZZ_ASSERT(!memcmp(out, f, 16));
	FUZZ_ASSERT(out[16] == ((f[16] & 0xe0) | (i.enhanced ? 0x10 : 0)));
	FUZZ_ASSERT(!memcmp(out + 17, f + 17, i.frame_len - 17));
	return 0;
}
