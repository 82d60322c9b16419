// SPDX-License-Identifier: GPL-2.0
/*
 * Terminate messages, RFC 5040 section 4.8. The Terminate Control word is
 *   Layer(4) EType(4) ErrorCode(8) M D R Reserved(13)
 * so in octets: [layer << 4 | etype] [ecode] [M 0x80 | D 0x40 | R 0x20] [0].
 * The DDP Segment Length and the echoed headers follow, in that order.
 */
#include "unit.h"
#include "ddp_wire.h"

/* the Terminate's own DDP header: untagged, last, QN 2, MSN 1, MO 0 */
static const u8 term_ddp_hdr[18] = {
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00,
};

static const u8 write_hdr[14] = {
	0xc1, 0x40, 0x12, 0x34, 0x56, 0x78,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
};

static const u8 rreq_hdr[46] = {
	0x41, 0x41, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00,
	0xaa, 0xbb, 0xcc, 0xdd,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x00, 0x01, 0x00, 0x00,
	0x01, 0x02, 0x03, 0x04,
	0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11,
};

#define M	RDMAP_TERM_HDRCT_M
#define D	RDMAP_TERM_HDRCT_D
#define R	RDMAP_TERM_HDRCT_R

static void term_hdrct_bit_values(void)
{
	CHECK_EQ(M << RDMAP_TERM_HDRCT_SHIFT, 0x8000);
	CHECK_EQ(D << RDMAP_TERM_HDRCT_SHIFT, 0x4000);
	CHECK_EQ(R << RDMAP_TERM_HDRCT_SHIFT, 0x2000);
	CHECK_EQ(IW_TERM_LAYER_RDMAP, 0);
	CHECK_EQ(IW_TERM_LAYER_DDP, 1);
	CHECK_EQ(IW_TERM_LAYER_LLP, 2);
}

/* A tagged bounds violation on a 114-octet RDMA Write segment. */
static void term_build_ddp_tagged(void)
{
	static const u8 body[20] = {
		0x11, 0x01, 0xc0, 0x00,
		0x00, 0x72,
		0xc1, 0x40, 0x12, 0x34, 0x56, 0x78,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};
	struct iw_term t = { 1, IW_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
			     DDP_TECODE_BASE_BOUNDS, M | D };
	u8 want[38], b[80];

	memcpy(want, term_ddp_hdr, 18);
	memcpy(want + 18, body, 20);
	memset(b, 0xee, sizeof(b));
	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 1, &t, write_hdr,
				       sizeof(write_hdr), 114), 38);
	CHECK_MEM(b, want, 38);
	CHECK_EQ(b[38], 0xee);
}

/* An access violation on a Read Request: everything is echoed. */
static void term_build_rdmap_read_request(void)
{
	struct iw_term t = { 1, IW_TERM_LAYER_RDMAP,
			     RDMAP_ETYPE_REMOTE_PROTECTION,
			     RDMAP_ECODE_ACCESS_RIGHTS, M | D | R };
	u8 want[70], b[80];

	memcpy(want, term_ddp_hdr, 18);
	memcpy(want + 18, "\x01\x02\xe0\x00\x00\x2e", 6);
	memcpy(want + 24, rreq_hdr, 46);
	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 1, &t, rreq_hdr,
				       sizeof(rreq_hdr), 46), 70);
	CHECK_MEM(b, want, 70);
	CHECK_EQ(rdmap_build_terminate(b, 69, 1, &t, rreq_hdr,
				       sizeof(rreq_hdr), 46), -ENOSPC);
}

/* A CRC error: nothing of the corrupted FPDU is echoed. */
static void term_build_llp_crc(void)
{
	struct iw_term t = { 1, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
			     MPA_ECODE_CRC, 0 };
	u8 b[22];

	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 1, &t, NULL, 0, 0), 22);
	CHECK_MEM(b, term_ddp_hdr, 18);
	CHECK_MEM(b + 18, "\x20\x02\x00\x00", 4);
}

static void term_build_msn(void)
{
	struct iw_term t = { 1, IW_TERM_LAYER_RDMAP,
			     RDMAP_ETYPE_LOCAL_CATASTROPHIC, 0, 0 };
	u8 b[22];

	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 0x01020304, &t, NULL, 0,
				       0), 22);
	CHECK_MEM(b + 10, "\x01\x02\x03\x04", 4);
	CHECK_MEM(b + 18, "\x00\x00\x00\x00", 4);
}

/* Parts the offending bytes cannot supply are dropped with their bit. */
static void term_build_degrades(void)
{
	struct iw_term t = { 1, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			     DDP_UECODE_INVALID_QN, M | D };
	u8 b[80];

	/* header not at hand */
	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 1, &t, rreq_hdr, 10,
				       46), 24);
	CHECK_MEM(b + 18, "\x12\x01\x80\x00\x00\x2e", 6);
	/* segment shorter than the header it claims */
	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 1, &t, write_hdr, 14,
				       13), 24);
	CHECK_EQ(b[20], 0x80);
	/* R on a message that is not a Read Request */
	t.hdrct = M | D | R;
	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 1, &t, write_hdr, 14,
				       14), 38);
	CHECK_EQ(b[20], 0xc0);
	/* R alone implies D and M */
	t.hdrct = R;
	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 1, &t, rreq_hdr, 46,
				       46), 70);
	CHECK_EQ(b[20], 0xe0);
}

static void term_build_errors(void)
{
	struct iw_term t = { 0 };
	u8 b[80];

	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 1, &t, NULL, 0, 0),
		 -EINVAL);
	t.valid = 1;
	t.layer = 0x10;
	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 1, &t, NULL, 0, 0),
		 -EINVAL);
	t.layer = 0;
	t.hdrct = 0x8;
	CHECK_EQ(rdmap_build_terminate(b, sizeof(b), 1, &t, NULL, 0, 0),
		 -EINVAL);
	t.hdrct = 0;
	CHECK_EQ(rdmap_build_terminate(b, 21, 1, &t, NULL, 0, 0), -ENOSPC);
}

static void term_parse_tagged(void)
{
	static const u8 body[20] = {
		0x11, 0x03, 0xc0, 0x00,
		0x00, 0x72,
		0xc1, 0x40, 0x12, 0x34, 0x56, 0x78,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};
	struct rdmap_term_info ti;

	CHECK_EQ(rdmap_parse_terminate(body, sizeof(body), &ti), 0);
	CHECK_EQ(ti.layer, IW_TERM_LAYER_DDP);
	CHECK_EQ(ti.etype, DDP_ETYPE_TAGGED);
	CHECK_EQ(ti.ecode, DDP_TECODE_TO_WRAP);
	CHECK_EQ(ti.hdrct, M | D);
	CHECK_EQ(ti.seg_len, 114);
	CHECK(ti.ddp_hdr == body + 6);
	CHECK_EQ(ti.ddp_hdr_len, 14);
	CHECK(!ti.rdmap_hdr);
}

static void term_parse_read_request(void)
{
	u8 body[52] = { 0x01, 0x00, 0xe0, 0x00, 0x00, 0x2e };
	struct rdmap_term_info ti;

	memcpy(body + 6, rreq_hdr, 46);
	CHECK_EQ(rdmap_parse_terminate(body, sizeof(body), &ti), 0);
	CHECK_EQ(ti.layer, IW_TERM_LAYER_RDMAP);
	CHECK_EQ(ti.etype, RDMAP_ETYPE_REMOTE_PROTECTION);
	CHECK_EQ(ti.ecode, RDMAP_ECODE_INVALID_STAG);
	CHECK_EQ(ti.ddp_hdr_len, 18);
	CHECK(ti.rdmap_hdr == body + 24);
	CHECK_EQ(ti.rdmap_hdr_len, 28);
	CHECK_EQ(rdmap_parse_terminate(body, sizeof(body) - 1, &ti),
		 -EBADMSG);
}

static void term_parse_bare(void)
{
	struct rdmap_term_info ti;

	CHECK_EQ(rdmap_parse_terminate("\x20\x02\x00\x00", 4, &ti), 0);
	CHECK_EQ(ti.layer, IW_TERM_LAYER_LLP);
	CHECK_EQ(ti.ecode, MPA_ECODE_CRC);
	CHECK_EQ(ti.hdrct, 0);
	CHECK(!ti.ddp_hdr);
	/* reserved bits are reported, not checked */
	CHECK_EQ(rdmap_parse_terminate("\x20\x02\x1f\xff", 4, &ti), 0);
	CHECK_EQ(ti.rsvd, 0x1fff);
	/* M alone: the DDP Segment Length follows */
	CHECK_EQ(rdmap_parse_terminate("\x20\x03\x80\x00\x00\x0d", 6, &ti), 0);
	CHECK_EQ(ti.seg_len, 13);
}

/* A peer setting R for a Send echoes only the DDP header. */
static void term_parse_r_on_send(void)
{
	static const u8 body[24] = {
		0x01, 0x02, 0xe0, 0x00, 0x00, 0x16,
		0x41, 0x43, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x00,
	};
	struct rdmap_term_info ti;

	CHECK_EQ(rdmap_parse_terminate(body, sizeof(body), &ti), 0);
	CHECK_EQ(ti.ddp_hdr_len, 18);
	CHECK(!ti.rdmap_hdr);
}

static void term_parse_malformed(void)
{
	struct rdmap_term_info ti;

	CHECK_EQ(rdmap_parse_terminate("\x20\x02\x00", 3, &ti), -EBADMSG);
	/* layer 3 is undefined */
	CHECK_EQ(rdmap_parse_terminate("\x30\x00\x00\x00", 4, &ti), -EBADMSG);
	/* D without M, R without D */
	CHECK_EQ(rdmap_parse_terminate("\x10\x00\x40\x00", 4, &ti), -EBADMSG);
	CHECK_EQ(rdmap_parse_terminate("\x10\x00\xa0\x00\x00\x10", 6, &ti),
		 -EBADMSG);
	/* M but no room for the segment length */
	CHECK_EQ(rdmap_parse_terminate("\x10\x00\x80\x00\x00", 5, &ti),
		 -EBADMSG);
	/* trailing octets */
	CHECK_EQ(rdmap_parse_terminate("\x20\x02\x00\x00\x00", 5, &ti),
		 -EBADMSG);
	/* D with a truncated tagged header */
	CHECK_EQ(rdmap_parse_terminate("\x10\x00\xc0\x00\x00\x10\xc1\x40",
				       8, &ti), -EBADMSG);
}

const struct unit_test term_tests[] = {
	UNIT_TEST(term_hdrct_bit_values),
	UNIT_TEST(term_build_ddp_tagged),
	UNIT_TEST(term_build_rdmap_read_request),
	UNIT_TEST(term_build_llp_crc),
	UNIT_TEST(term_build_msn),
	UNIT_TEST(term_build_degrades),
	UNIT_TEST(term_build_errors),
	UNIT_TEST(term_parse_tagged),
	UNIT_TEST(term_parse_read_request),
	UNIT_TEST(term_parse_bare),
	UNIT_TEST(term_parse_r_on_send),
	UNIT_TEST(term_parse_malformed),
};

const size_t term_tests_n = ARRAY_LEN(term_tests);
