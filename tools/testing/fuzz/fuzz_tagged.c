// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: iw_tagged_check() against a 128-bit reference model.
 *
 * Input: base, region length, TO and access length (8 octets each), then
 * one octet of flags. The model computes region end and access end in 128
 * bits where nothing can wrap, so any 64-bit shortcut in the checked code
 * that overflows shows up as a disagreement.
 */
#include "fuzz_common.h"
#include "ddp_wire.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct iw_tagged_region r;
	u64 to, len;
	u32 need;
	u8 layer, fl;
	struct iw_term t;
	__uint128_t end;
	int rv, want;
	bool wrap;

	if (size < 33)
		return 0;
	r.base = get_unaligned_be64(data);
	r.len = get_unaligned_be64(data + 8);
	to = get_unaligned_be64(data + 16);
	len = get_unaligned_be64(data + 24);
	fl = data[32];
	r.access = fl & 3;
	need = (fl >> 2) & 3;
	r.stag_valid = !!(fl & 0x10);
	r.stag_assoc = !!(fl & 0x20);
	layer = fl & 0x40 ? IW_TERM_LAYER_RDMAP : IW_TERM_LAYER_DDP;

	end = (__uint128_t)to + len;
	wrap = end > ((__uint128_t)1 << 64);
	if (!r.stag_valid || !r.stag_assoc || (r.access & need) != need)
		want = -EACCES;
	else if (wrap || to < r.base || end > (__uint128_t)r.base + r.len)
		want = -ERANGE;
	else
		want = 0;

	rv = iw_tagged_check(&r, need, to, len, layer, &t);
	FUZZ_ASSERT(rv == want);
	FUZZ_ASSERT(!!t.valid == !!rv);
	if (rv == -ERANGE) {
		u8 wcode = layer == IW_TERM_LAYER_DDP ? DDP_TECODE_TO_WRAP :
						       RDMAP_ECODE_TO_WRAP;

		FUZZ_ASSERT((t.ecode == wcode) == wrap);
	}
	return 0;
}
