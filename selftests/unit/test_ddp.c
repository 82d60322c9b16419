// SPDX-License-Identifier: GPL-2.0
/*
 * DDP (RFC 5041 section 4) and RDMAP (RFC 5040 section 4) headers.
 *
 * Control field octets, from the RFC figures:
 *   octet 0: T(0x80) L(0x40) Rsvd(0x3c) DV(0x03, = 01b)
 *   octet 1: RV(0xc0, = 01b) Rsvd(0x30) OpCode(0x0f)
 * so a last tagged RDMA Write starts C1 40 and a last Send 41 43.
 */
#include "unit.h"
#include "ddp_wire.h"

/* RDMA Write, last, STag 0x12345678, TO 0x0102030405060708 */
static const u8 hdr_write[14] = {
	0xc1, 0x40, 0x12, 0x34, 0x56, 0x78,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
};

/* Send, not last, QN 0, MSN 7, MO 4096 */
static const u8 hdr_send[18] = {
	0x01, 0x43, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x07,
	0x00, 0x00, 0x10, 0x00,
};

/* Send with Solicited Event and Invalidate, last, STag 0xcafef00d, MSN 1 */
static const u8 hdr_send_se_inv[18] = {
	0x41, 0x46, 0xca, 0xfe, 0xf0, 0x0d,
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00,
};

/*
 * RDMA Read Request, QN 1, MSN 1, MO 0; sink STag 0xaabbccdd, sink TO
 * 0x1122334455667788, size 0x10000, source STag 0x01020304, source TO
 * 0x0a0b0c0d0e0f1011 (RFC 5040 section 4.4 field order).
 */
static const u8 hdr_rreq[46] = {
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

/* Terminate, QN 2, MSN 1, followed by an LLP CRC error control word */
static const u8 seg_term[22] = {
	0x41, 0x47, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00,
	0x20, 0x02, 0x00, 0x00,
};

#define MD	(RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D)

static void ddp_header_sizes(void)
{
	CHECK_EQ(sizeof(struct mpa_rr_hdr), 20);
	CHECK_EQ(sizeof(struct iwarp_tagged_hdr), 2 + 14);
	CHECK_EQ(sizeof(struct iwarp_untagged_hdr), 2 + 18);
	CHECK_EQ(sizeof(struct iwarp_rdma_rreq), 2 + 18 + 28);
	CHECK_EQ(offsetof(struct iwarp_tagged_hdr, to), 2 + 6);
	CHECK_EQ(offsetof(struct iwarp_untagged_hdr, msn), 2 + 10);
	CHECK_EQ(offsetof(struct iwarp_rdma_rreq, source_to), 2 + 18 + 20);
	CHECK_EQ(ddp_hdr_len(RDMAP_RDMA_WRITE), 14);
	CHECK_EQ(ddp_hdr_len(RDMAP_RDMA_READ_REQ), 46);
	CHECK_EQ(ddp_hdr_len(RDMAP_RDMA_READ_RESP), 14);
	CHECK_EQ(ddp_hdr_len(RDMAP_SEND_SE_INVAL), 18);
	CHECK_EQ(ddp_hdr_len(RDMAP_TERMINATE), 18);
	CHECK_EQ(ddp_hdr_len(8), 0);
}

static void ddp_opcode_values(void)
{
	CHECK_EQ(RDMAP_RDMA_WRITE, 0);
	CHECK_EQ(RDMAP_RDMA_READ_REQ, 1);
	CHECK_EQ(RDMAP_RDMA_READ_RESP, 2);
	CHECK_EQ(RDMAP_SEND, 3);
	CHECK_EQ(RDMAP_SEND_INVAL, 4);
	CHECK_EQ(RDMAP_SEND_SE, 5);
	CHECK_EQ(RDMAP_SEND_SE_INVAL, 6);
	CHECK_EQ(RDMAP_TERMINATE, 7);
	CHECK(rdmap_opcode_tagged(RDMAP_RDMA_WRITE));
	CHECK(rdmap_opcode_tagged(RDMAP_RDMA_READ_RESP));
	CHECK(!rdmap_opcode_tagged(RDMAP_RDMA_READ_REQ));
	CHECK(!rdmap_opcode_tagged(RDMAP_SEND));
	CHECK(!rdmap_opcode_tagged(RDMAP_TERMINATE));
	CHECK(!rdmap_opcode_tagged(9));
}

static void ddp_parse_write(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;

	CHECK_EQ(ddp_parse_hdr(hdr_write, sizeof(hdr_write), 114, &h, &t), 0);
	CHECK_NO_TERM(&t);
	CHECK_EQ(h.opcode, RDMAP_RDMA_WRITE);
	CHECK_EQ(h.tagged, 1);
	CHECK_EQ(h.last, 1);
	CHECK_EQ(h.stag, 0x12345678);
	CHECK_EQ(h.to, 0x0102030405060708ULL);
	CHECK_EQ(h.hdr_len, 14);
	CHECK_EQ(h.seg_len, 114);
	CHECK_EQ(h.payload_len, 100);
	CHECK_EQ(h.rsvd_seen, 0);
}

static void ddp_parse_send(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;

	CHECK_EQ(ddp_parse_hdr(hdr_send, sizeof(hdr_send), 18 + 1000, &h,
			       &t), 0);
	CHECK_EQ(h.opcode, RDMAP_SEND);
	CHECK_EQ(h.tagged, 0);
	CHECK_EQ(h.last, 0);
	CHECK_EQ(h.qn, 0);
	CHECK_EQ(h.msn, 7);
	CHECK_EQ(h.mo, 4096);
	CHECK_EQ(h.hdr_len, 18);
	CHECK_EQ(h.payload_len, 1000);
}

static void ddp_parse_send_inval_stag(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;

	CHECK_EQ(ddp_parse_hdr(hdr_send_se_inv, 18, 18, &h, &t), 0);
	CHECK_EQ(h.opcode, RDMAP_SEND_SE_INVAL);
	CHECK_EQ(h.stag, 0xcafef00d);
	CHECK_EQ(h.rsvd_seen, 0);
	CHECK_EQ(h.payload_len, 0);
}

static void ddp_parse_read_request(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;

	CHECK_EQ(ddp_parse_hdr(hdr_rreq, sizeof(hdr_rreq), 46, &h, &t), 0);
	CHECK_EQ(h.opcode, RDMAP_RDMA_READ_REQ);
	CHECK_EQ(h.qn, 1);
	CHECK_EQ(h.hdr_len, 46);
	CHECK_EQ(h.payload_len, 0);
	CHECK_EQ(h.rreq.sink_stag, 0xaabbccdd);
	CHECK_EQ(h.rreq.sink_to, 0x1122334455667788ULL);
	CHECK_EQ(h.rreq.read_size, 0x10000);
	CHECK_EQ(h.rreq.source_stag, 0x01020304);
	CHECK_EQ(h.rreq.source_to, 0x0a0b0c0d0e0f1011ULL);
}

static void ddp_parse_terminate_hdr(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;

	CHECK_EQ(ddp_parse_hdr(seg_term, sizeof(seg_term), 22, &h, &t), 0);
	CHECK_EQ(h.opcode, RDMAP_TERMINATE);
	CHECK_EQ(h.qn, 2);
	CHECK_EQ(h.hdr_len, 18);
	CHECK_EQ(h.payload_len, 4);
}

/* Reserved fields are reported, not rejected (not checked on receive). */
static void ddp_parse_reserved_bits(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;
	u8 b[18];

	memcpy(b, hdr_send, 18);
	b[0] |= 0x3c;
	b[1] |= 0x30;
	b[5] = 0x01;
	CHECK_EQ(ddp_parse_hdr(b, 18, 18, &h, &t), 0);
	CHECK_NO_TERM(&t);
	CHECK_EQ(h.rsvd_seen,
		 DDP_RSVD_DDP_CTRL | DDP_RSVD_RDMAP_CTRL | DDP_RSVD_ULP);
	CHECK_EQ(h.opcode, RDMAP_SEND);
}

static void ddp_parse_bad_ddp_version(void)
{
	static const u8 dv[] = { 0x00, 0x02, 0x03 };
	struct ddp_hdr_info h;
	struct iw_term t;
	u8 b[46];
	size_t i;

	for (i = 0; i < ARRAY_LEN(dv); i++) {
		memcpy(b, hdr_write, 14);
		b[0] = (b[0] & ~0x03) | dv[i];
		CHECK_EQ(ddp_parse_hdr(b, 14, 14, &h, &t), -EPROTO);
		CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
			   DDP_TECODE_INVALID_VERSION, RDMAP_TERM_HDRCT_M);

		memcpy(b, hdr_rreq, 46);
		b[0] = (b[0] & ~0x03) | dv[i];
		CHECK_EQ(ddp_parse_hdr(b, 46, 46, &h, &t), -EPROTO);
		CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			   DDP_UECODE_INVALID_VERSION, RDMAP_TERM_HDRCT_M);
	}
}

static void ddp_parse_bad_rdmap_version(void)
{
	static const u8 rv[] = { 0x00, 0x80, 0xc0 };
	struct ddp_hdr_info h;
	struct iw_term t;
	u8 b[18];
	size_t i;

	for (i = 0; i < ARRAY_LEN(rv); i++) {
		memcpy(b, hdr_send, 18);
		b[1] = (b[1] & ~0xc0) | rv[i];
		CHECK_EQ(ddp_parse_hdr(b, 18, 18, &h, &t), -EPROTO);
		CHECK_TERM(&t, IW_TERM_LAYER_RDMAP,
			   RDMAP_ETYPE_REMOTE_OPERATION,
			   RDMAP_ECODE_INVALID_VERSION, MD);
	}
}

static void ddp_parse_bad_opcode(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;
	u8 b[18];
	int op;

	for (op = 8; op <= 15; op++) {
		memcpy(b, hdr_send, 18);
		b[1] = 0x40 | op;
		CHECK_EQ(ddp_parse_hdr(b, 18, 18, &h, &t), -EPROTO);
		CHECK_TERM(&t, IW_TERM_LAYER_RDMAP,
			   RDMAP_ETYPE_REMOTE_OPERATION,
			   RDMAP_ECODE_UNEXPECTED_OPCODE, MD);
	}
}

/* RFC 5040 section 4.2 fixes the buffer model of each opcode. */
static void ddp_parse_tagged_mismatch(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;
	u8 b[18];

	/* untagged RDMA Write */
	memcpy(b, hdr_send, 18);
	b[1] = 0x40;
	CHECK_EQ(ddp_parse_hdr(b, 18, 18, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OPERATION,
		   RDMAP_ECODE_UNEXPECTED_OPCODE, MD);
	/* untagged Read Response */
	b[1] = 0x42;
	CHECK_EQ(ddp_parse_hdr(b, 18, 18, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OPERATION,
		   RDMAP_ECODE_UNEXPECTED_OPCODE, MD);
	/* tagged Send */
	memcpy(b, hdr_write, 14);
	b[1] = 0x43;
	CHECK_EQ(ddp_parse_hdr(b, 14, 14, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OPERATION,
		   RDMAP_ECODE_UNEXPECTED_OPCODE, MD);
	/* tagged Terminate */
	b[1] = 0x47;
	CHECK_EQ(ddp_parse_hdr(b, 14, 14, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OPERATION,
		   RDMAP_ECODE_UNEXPECTED_OPCODE, MD);
}

static void ddp_parse_bad_qn(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;
	u8 b[46];

	memcpy(b, hdr_send, 18);
	b[9] = 1;			/* Send on the Read Request queue */
	CHECK_EQ(ddp_parse_hdr(b, 18, 18, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_INVALID_QN, MD);
	b[9] = 3;			/* no such queue */
	CHECK_EQ(ddp_parse_hdr(b, 18, 18, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_INVALID_QN, MD);
	b[9] = 0;
	b[6] = 0x80;			/* QN 0x80000000 */
	CHECK_EQ(ddp_parse_hdr(b, 18, 18, &h, &t), -EPROTO);
	CHECK_EQ(t.ecode, DDP_UECODE_INVALID_QN);

	memcpy(b, hdr_rreq, 46);
	b[9] = 0;			/* Read Request on the Send queue */
	CHECK_EQ(ddp_parse_hdr(b, 46, 46, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_INVALID_QN, MD);

	memcpy(b, seg_term, 22);
	b[9] = 0;			/* Terminate on the Send queue */
	CHECK_EQ(ddp_parse_hdr(b, 22, 22, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_INVALID_QN, MD);
}

static void ddp_parse_read_request_shape(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;
	u8 b[48];

	memcpy(b, hdr_rreq, 46);
	b[17] = 4;			/* MO != 0 */
	CHECK_EQ(ddp_parse_hdr(b, 46, 46, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_INVALID_MO, MD);

	memcpy(b, hdr_rreq, 46);
	b[0] &= ~0x40;			/* not last: spills over its buffer */
	CHECK_EQ(ddp_parse_hdr(b, 46, 46, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_TOO_LONG, MD);

	memcpy(b, hdr_rreq, 46);
	CHECK_EQ(ddp_parse_hdr(b, 46, 47, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_TOO_LONG, MD);

	/* a segment too short for its Read Request header */
	CHECK_EQ(ddp_parse_hdr(b, 46, 45, &h, &t), -EBADMSG);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_MARKER_LEN, MD);
}

static void ddp_parse_terminate_shape(void)
{
	static u8 b[80];
	struct ddp_hdr_info h;
	struct iw_term t;

	memcpy(b, seg_term, 22);
	CHECK_EQ(ddp_parse_hdr(b, 22, 21, &h, &t), -EBADMSG);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_MARKER_LEN, MD);
	CHECK_EQ(ddp_parse_hdr(b, sizeof(b), 70, &h, &t), 0);
	CHECK_EQ(ddp_parse_hdr(b, sizeof(b), 71, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_TOO_LONG, MD);
	b[17] = 1;
	CHECK_EQ(ddp_parse_hdr(b, 22, 22, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_INVALID_MO, MD);
	b[17] = 0;
	b[0] = 0x01;
	CHECK_EQ(ddp_parse_hdr(b, 22, 22, &h, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_TOO_LONG, MD);
}

/* ULPDU_Length shorter than the DDP header: only M can be echoed. */
static void ddp_parse_short_segment(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;

	CHECK_EQ(ddp_parse_hdr(hdr_write, 14, 13, &h, &t), -EBADMSG);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_MARKER_LEN, RDMAP_TERM_HDRCT_M);
	CHECK_EQ(ddp_parse_hdr(hdr_send, 18, 17, &h, &t), -EBADMSG);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_MARKER_LEN, RDMAP_TERM_HDRCT_M);
	CHECK_EQ(ddp_parse_hdr(hdr_send, 18, 1, &h, &t), -EBADMSG);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_MARKER_LEN, RDMAP_TERM_HDRCT_M);
	CHECK_EQ(ddp_parse_hdr(hdr_send, 18, 0, &h, &t), -EBADMSG);
	CHECK_EQ(ddp_parse_hdr(hdr_write, 14, 14, &h, &t), 0);
	CHECK_EQ(h.payload_len, 0);
}

/* Fewer header bytes at hand than the opcode needs: gather and retry. */
static void ddp_parse_needs_more(void)
{
	struct ddp_hdr_info h;
	struct iw_term t;

	CHECK_EQ(ddp_parse_hdr(hdr_rreq, 1, 46, &h, &t), -EAGAIN);
	CHECK_NO_TERM(&t);
	CHECK_EQ(h.hdr_len, 2);
	CHECK_EQ(ddp_parse_hdr(hdr_rreq, 2, 46, &h, &t), -EAGAIN);
	CHECK_NO_TERM(&t);
	CHECK_EQ(h.hdr_len, 46);
	CHECK_EQ(ddp_parse_hdr(hdr_rreq, 45, 46, &h, &t), -EAGAIN);
	CHECK_EQ(ddp_parse_hdr(hdr_write, 13, 1000, &h, &t), -EAGAIN);
	CHECK_EQ(h.hdr_len, 14);
}

static void ddp_build_write(void)
{
	struct ddp_hdr_info h = {
		.opcode = RDMAP_RDMA_WRITE, .last = 1,
		.stag = 0x12345678, .to = 0x0102030405060708ULL,
	};
	u8 b[32];

	memset(b, 0xee, sizeof(b));
	CHECK_EQ(ddp_build_hdr(b, sizeof(b), &h), 14);
	CHECK_MEM(b, hdr_write, 14);
	CHECK_EQ(b[14], 0xee);
}

static void ddp_build_send(void)
{
	struct ddp_hdr_info h = {
		.opcode = RDMAP_SEND, .msn = 7, .mo = 4096,
		.stag = 0xdeadbeef,	/* not an Invalidate: ignored */
		.qn = 5,		/* follows from the opcode */
	};
	u8 b[18];

	CHECK_EQ(ddp_build_hdr(b, sizeof(b), &h), 18);
	CHECK_MEM(b, hdr_send, 18);
}

static void ddp_build_send_se_inval(void)
{
	struct ddp_hdr_info h = {
		.opcode = RDMAP_SEND_SE_INVAL, .last = 1, .msn = 1,
		.stag = 0xcafef00d,
	};
	u8 b[18];

	CHECK_EQ(ddp_build_hdr(b, sizeof(b), &h), 18);
	CHECK_MEM(b, hdr_send_se_inv, 18);
}

static void ddp_build_read_request(void)
{
	struct ddp_hdr_info h = {
		.opcode = RDMAP_RDMA_READ_REQ, .last = 1, .msn = 1,
		.rreq = {
			.sink_stag = 0xaabbccdd,
			.sink_to = 0x1122334455667788ULL,
			.read_size = 0x10000,
			.source_stag = 0x01020304,
			.source_to = 0x0a0b0c0d0e0f1011ULL,
		},
	};
	u8 b[46];

	CHECK_EQ(ddp_build_hdr(b, sizeof(b), &h), 46);
	CHECK_MEM(b, hdr_rreq, 46);
}

static void ddp_build_errors(void)
{
	struct ddp_hdr_info h = { .opcode = 8, .last = 1 };
	u8 b[64];

	CHECK_EQ(ddp_build_hdr(b, sizeof(b), &h), -EINVAL);
	h.opcode = RDMAP_RDMA_READ_REQ;
	CHECK_EQ(ddp_build_hdr(b, 45, &h), -ENOSPC);
	h.last = 0;
	CHECK_EQ(ddp_build_hdr(b, sizeof(b), &h), -EINVAL);
	h.last = 1;
	h.mo = 28;
	CHECK_EQ(ddp_build_hdr(b, sizeof(b), &h), -EINVAL);
	h.opcode = RDMAP_RDMA_WRITE;
	CHECK_EQ(ddp_build_hdr(b, 13, &h), -ENOSPC);
}

const struct unit_test ddp_tests[] = {
	UNIT_TEST(ddp_header_sizes),
	UNIT_TEST(ddp_opcode_values),
	UNIT_TEST(ddp_parse_write),
	UNIT_TEST(ddp_parse_send),
	UNIT_TEST(ddp_parse_send_inval_stag),
	UNIT_TEST(ddp_parse_read_request),
	UNIT_TEST(ddp_parse_terminate_hdr),
	UNIT_TEST(ddp_parse_reserved_bits),
	UNIT_TEST(ddp_parse_bad_ddp_version),
	UNIT_TEST(ddp_parse_bad_rdmap_version),
	UNIT_TEST(ddp_parse_bad_opcode),
	UNIT_TEST(ddp_parse_tagged_mismatch),
	UNIT_TEST(ddp_parse_bad_qn),
	UNIT_TEST(ddp_parse_read_request_shape),
	UNIT_TEST(ddp_parse_terminate_shape),
	UNIT_TEST(ddp_parse_short_segment),
	UNIT_TEST(ddp_parse_needs_more),
	UNIT_TEST(ddp_build_write),
	UNIT_TEST(ddp_build_send),
	UNIT_TEST(ddp_build_send_se_inval),
	UNIT_TEST(ddp_build_read_request),
	UNIT_TEST(ddp_build_errors),
};

const size_t ddp_tests_n = ARRAY_LEN(ddp_tests);
