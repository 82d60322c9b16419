// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: ddp_parse_hdr() on arbitrary bytes, plus the
 * Terminate path a failed parse leads to.
 *
 * Input: the DDP Segment Length (2 octets, big-endian), then the segment's
 * leading bytes. An accepted header must re-build to the same bytes apart
 * from reserved fields; a rejected one must yield a Terminate that builds,
 * frames and parses back to the same error.
 */
#include "fuzz_common.h"
#include "ddp_wire.h"
#include "mpa_wire.h"

static void check_roundtrip(const u8 *p, const struct ddp_hdr_info *h)
{
	u8 out[64], in[64];
	int n;

	n = ddp_build_hdr(out, sizeof(out), h);
	FUZZ_ASSERT(n == h->hdr_len);
	memcpy(in, p, n);
	/* reserved: DDP Rsvd, RDMAP Rsvd, RsvdULP unless an Invalidate STag */
	in[0] &= ~0x3c;
	in[1] &= ~0x30;
	if (!h->tagged && h->opcode != RDMAP_SEND_INVAL &&
	    h->opcode != RDMAP_SEND_SE_INVAL)
		memset(in + 2, 0, 4);
	FUZZ_ASSERT(!memcmp(in, out, n));
}

static void check_terminate(const u8 *p, size_t avail, u16 seg_len,
			    const struct iw_term *t)
{
	u8 fpdu[MPA_HDR_SIZE + 128];
	struct rdmap_term_info ti;
	struct ddp_hdr_info th;
	struct iw_term t2;
	ssize_t n, total;

	n = rdmap_build_terminate(fpdu + MPA_HDR_SIZE, 100, 1, t, p, avail,
				  seg_len);
	FUZZ_ASSERT(n >= 22 && n <= 70);
	total = mpa_fpdu_finish(fpdu, sizeof(fpdu), n, true);
	FUZZ_ASSERT(total == (ssize_t)mpa_fpdu_len(n));
	FUZZ_ASSERT(!mpa_fpdu_check_crc(fpdu, total, &t2));

	FUZZ_ASSERT(!ddp_parse_hdr(fpdu + MPA_HDR_SIZE, n, n, &th, &t2));
	FUZZ_ASSERT(th.opcode == RDMAP_TERMINATE && th.qn == 2 && th.last);
	FUZZ_ASSERT(!rdmap_parse_terminate(fpdu + MPA_HDR_SIZE + th.hdr_len,
					   th.payload_len, &ti));
	FUZZ_ASSERT(ti.layer == t->layer && ti.etype == t->etype &&
		    ti.ecode == t->ecode);
	FUZZ_ASSERT(!(ti.hdrct & ~t->hdrct));
	if (ti.hdrct & RDMAP_TERM_HDRCT_M)
		FUZZ_ASSERT(ti.seg_len == seg_len);
	if (ti.ddp_hdr)
		FUZZ_ASSERT(!memcmp(ti.ddp_hdr, p, ti.ddp_hdr_len));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct ddp_hdr_info h;
	struct iw_term t;
	u16 seg_len;
	int rv;

	if (size < 2)
		return 0;
	seg_len = get_unaligned_be16(data);
	data += 2;
	size -= 2;

	rv = ddp_parse_hdr(data, size, seg_len, &h, &t);
	FUZZ_ASSERT(rv == 0 || rv == -EAGAIN || rv == -EPROTO ||
		    rv == -EBADMSG);
	FUZZ_ASSERT(!!t.valid == (rv == -EPROTO || rv == -EBADMSG));
	if (rv == -EAGAIN) {
		FUZZ_ASSERT(h.hdr_len > size && h.hdr_len <= seg_len);
		return 0;
	}
	if (rv) {
		check_terminate(data, size, seg_len, &t);
		return 0;
	}
	FUZZ_ASSERT(h.hdr_len == ddp_hdr_len(h.opcode));
	FUZZ_ASSERT(h.hdr_len <= size && h.hdr_len <= seg_len);
	FUZZ_ASSERT(h.payload_len == seg_len - h.hdr_len);
	FUZZ_ASSERT(h.tagged == rdmap_opcode_tagged(h.opcode));
	check_roundtrip(data, &h);
	return 0;
}
