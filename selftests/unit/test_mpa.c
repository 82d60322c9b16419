// SPDX-License-Identifier: GPL-2.0
/*
 * MPA Request/Reply frames (RFC 5044 section 7.1) and the RFC 6581
 * enhanced connection setup. Frames are written out byte by byte here.
 */
#include "unit.h"
#include "mpa_wire.h"

/* RFC 5044 section 7.1 spells both keys out in hex. */
static const u8 key_req[16] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
};

static const u8 key_rep[16] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
};

static const struct mpa_rr_policy pol_v1 = { .rev_min = 1, .rev_max = 1 };
static const struct mpa_rr_policy pol_v12 = { .rev_min = 1, .rev_max = 2 };

/* Key, flags, rev, PD_Length, then @pd_len octets of @pd. */
static size_t frame(u8 *buf, const u8 *key, u8 flags, u8 rev, u16 pd_len,
		    const void *pd, size_t pd_copy)
{
	memcpy(buf, key, 16);
	buf[16] = flags;
	buf[17] = rev;
	buf[18] = pd_len >> 8;
	buf[19] = pd_len & 0xff;
	if (pd_copy)
		memcpy(buf + 20, pd, pd_copy);
	return 20 + pd_copy;
}

static void mpa_keys_are_rfc_bytes(void)
{
	CHECK_EQ(strlen(MPA_KEY_REQ), 16);
	CHECK_EQ(strlen(MPA_KEY_REP), 16);
	CHECK_MEM(MPA_KEY_REQ, key_req, 16);
	CHECK_MEM(MPA_KEY_REP, key_rep, 16);
}

static void mpa_build_request_v1(void)
{
	struct mpa_rr_build b = {
		.rev = 1, .crc = 1, .ulp_pd = "hello", .ulp_pd_len = 5,
	};
	u8 want[25], buf[64];

	frame(want, key_req, 0x40, 1, 5, "hello", 5);
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REQUEST, &b), 25);
	CHECK_MEM(buf, want, 25);
}

/* Enhanced Request: P2P with Write and Read RTR, IRD 16, ORD 8, "xy". */
static void mpa_build_request_v2(void)
{
	static const u8 pd[6] = { 0x80, 0x10, 0xc0, 0x08, 'x', 'y' };
	struct mpa_rr_build b = {
		.rev = 2, .crc = 1, .enhanced = 1,
		.v2 = { .ird = 16, .ord = 8, .p2p = 1,
			.rtr = MPA_RTR_WRITE | MPA_RTR_READ },
		.ulp_pd = "xy", .ulp_pd_len = 2,
	};
	u8 want[26], buf[64];

	frame(want, key_req, 0x50, 2, 6, pd, 6);
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REQUEST, &b), 26);
	CHECK_MEM(buf, want, 26);
}

static void mpa_build_reply_reject(void)
{
	struct mpa_rr_build b = { .rev = 1, .reject = 1 };
	u8 want[20], buf[20];

	frame(want, key_rep, 0x20, 1, 0, NULL, 0);
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REPLY, &b), 20);
	CHECK_MEM(buf, want, 20);
}

static void mpa_build_errors(void)
{
	static u8 big[600];
	struct mpa_rr_build b = { .rev = 1 };
	u8 buf[700];

	b.ulp_pd = big;
	b.ulp_pd_len = 512;
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REQUEST, &b), 532);
	b.ulp_pd_len = 513;
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REQUEST, &b),
		 -EMSGSIZE);
	/* the RFC 6581 block counts against the 512 */
	b.rev = 2;
	b.enhanced = 1;
	b.ulp_pd_len = 509;
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REQUEST, &b),
		 -EMSGSIZE);
	b.ulp_pd_len = 508;
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REQUEST, &b), 532);
	CHECK_EQ(mpa_rr_build(buf, 531, MPA_RR_REQUEST, &b), -ENOSPC);
	/* Enhanced needs Rev 2 */
	b.rev = 1;
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REQUEST, &b), -EINVAL);
	b.rev = 3;
	b.enhanced = 0;
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REQUEST, &b), -EINVAL);
	/* a Request cannot reject */
	b.rev = 1;
	b.reject = 1;
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REQUEST, &b), -EINVAL);
	/* 14-bit IRD */
	b.reject = 0;
	b.rev = 2;
	b.enhanced = 1;
	b.ulp_pd_len = 0;
	b.v2.ird = 0x4000;
	CHECK_EQ(mpa_rr_build(buf, sizeof(buf), MPA_RR_REQUEST, &b), -EINVAL);
}

static void mpa_parse_request_v1(void)
{
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n = frame(buf, key_req, 0x40, 1, 5, "hello", 5);

	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v12, &i, &t), 0);
	CHECK_NO_TERM(&t);
	CHECK_EQ(i.rev, 1);
	CHECK_EQ(i.crc, 1);
	CHECK_EQ(i.markers, 0);
	CHECK_EQ(i.reject, 0);
	CHECK_EQ(i.enhanced, 0);
	CHECK_EQ(i.pd_len, 5);
	CHECK_EQ(i.frame_len, 25);
	CHECK_EQ(i.ulp_pd_len, 5);
	CHECK(i.ulp_pd == buf + 20);
}

static void mpa_parse_request_v2_block(void)
{
	/* IRD word 0xC010: P2P, Send RTR, IRD 16; ORD word 0x8008 */
	static const u8 pd[6] = { 0xc0, 0x10, 0x80, 0x08, 'x', 'y' };
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n = frame(buf, key_req, 0x10, 2, 6, pd, 6);

	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v12, &i, &t), 0);
	CHECK_EQ(i.enhanced, 1);
	CHECK_EQ(i.crc, 0);
	CHECK_EQ(i.v2.ird, 16);
	CHECK_EQ(i.v2.ord, 8);
	CHECK_EQ(i.v2.p2p, 1);
	CHECK_EQ(i.v2.rtr, MPA_RTR_SEND | MPA_RTR_WRITE);
	CHECK_EQ(i.ulp_pd_len, 2);
	CHECK(i.ulp_pd == buf + 24);
}

/* RFC 6581 section 5 bit positions, one at a time. */
static void mpa_v2_bit_positions(void)
{
	struct mpa_v2_params p = { 0 };
	u8 b[4];

	CHECK_EQ(mpa_v2_encode(&p, b), 0);
	CHECK_MEM(b, "\x00\x00\x00\x00", 4);
	p.ird = 0x3fff;
	CHECK_EQ(mpa_v2_encode(&p, b), 0);
	CHECK_MEM(b, "\x3f\xff\x00\x00", 4);
	p.ird = 0;
	p.ord = 0x3fff;
	CHECK_EQ(mpa_v2_encode(&p, b), 0);
	CHECK_MEM(b, "\x00\x00\x3f\xff", 4);
	p.ord = 0;
	p.p2p = 1;
	CHECK_EQ(mpa_v2_encode(&p, b), 0);
	CHECK_MEM(b, "\x80\x00\x00\x00", 4);
	p.rtr = MPA_RTR_SEND;
	CHECK_EQ(mpa_v2_encode(&p, b), 0);
	CHECK_MEM(b, "\xc0\x00\x00\x00", 4);
	p.rtr = MPA_RTR_WRITE;
	CHECK_EQ(mpa_v2_encode(&p, b), 0);
	CHECK_MEM(b, "\x80\x00\x80\x00", 4);
	p.rtr = MPA_RTR_READ;
	CHECK_EQ(mpa_v2_encode(&p, b), 0);
	CHECK_MEM(b, "\x80\x00\x40\x00", 4);
	p.rtr = MPA_RTR_ALL;
	p.ird = 0x1234;
	p.ord = 0x0abc;
	CHECK_EQ(mpa_v2_encode(&p, b), 0);
	CHECK_MEM(b, "\xd2\x34\xca\xbc", 4);
}

static void mpa_v2_decode_bits(void)
{
	struct mpa_v2_params p;

	mpa_v2_decode((const u8 *)"\xd2\x34\xca\xbc", &p);
	CHECK_EQ(p.ird, 0x1234);
	CHECK_EQ(p.ord, 0x0abc);
	CHECK_EQ(p.p2p, 1);
	CHECK_EQ(p.rtr, MPA_RTR_ALL);
	mpa_v2_decode((const u8 *)"\x3f\xff\x3f\xff", &p);
	CHECK_EQ(p.ird, 0x3fff);
	CHECK_EQ(p.ord, 0x3fff);
	CHECK_EQ(p.p2p, 0);
	CHECK_EQ(p.rtr, 0);
}

static void mpa_v2_encode_errors(void)
{
	struct mpa_v2_params p = { .ord = 0x4000 };
	u8 b[4];

	CHECK_EQ(mpa_v2_encode(&p, b), -EINVAL);
	p.ord = 0;
	p.rtr = 0x8;
	p.p2p = 1;
	CHECK_EQ(mpa_v2_encode(&p, b), -EINVAL);
	/* RTR type without peer-to-peer mode */
	p.rtr = MPA_RTR_WRITE;
	p.p2p = 0;
	CHECK_EQ(mpa_v2_encode(&p, b), -EINVAL);
}

/* Every parse failure below is MPA error 0x04 with no echoed headers. */
#define CHECK_BAD_RR(t)							\
	CHECK_TERM(t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,			\
		   MPA_ECODE_INVALID_RR, 0)

static void mpa_parse_wrong_key(void)
{
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n;

	/* a Reply key where a Request is expected */
	n = frame(buf, key_rep, 0, 1, 0, NULL, 0);
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v1, &i, &t),
		 -EPROTO);
	CHECK_BAD_RR(&t);
	/* last key octet off by one */
	n = frame(buf, key_req, 0, 1, 0, NULL, 0);
	buf[15] ^= 1;
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v1, &i, &t),
		 -EPROTO);
	CHECK_BAD_RR(&t);
	/* first key octet lower case */
	n = frame(buf, key_rep, 0, 1, 0, NULL, 0);
	buf[0] = 'm';
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REPLY, &pol_v1, &i, &t),
		 -EPROTO);
	CHECK_BAD_RR(&t);
}

static void mpa_parse_revision_policy(void)
{
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n;

	n = frame(buf, key_req, 0, 0, 0, NULL, 0);
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v12, &i, &t),
		 -EPROTO);
	CHECK_BAD_RR(&t);
	n = frame(buf, key_req, 0, 3, 0, NULL, 0);
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v12, &i, &t),
		 -EPROTO);
	CHECK_BAD_RR(&t);
	n = frame(buf, key_req, 0, 2, 0, NULL, 0);
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v1, &i, &t),
		 -EPROTO);
	CHECK_BAD_RR(&t);
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v12, &i, &t), 0);
	CHECK_EQ(i.rev, 2);
	/* Rev 2 without the Enhanced flag carries no IRD/ORD block */
	CHECK_EQ(i.enhanced, 0);
}

static void mpa_parse_markers_policy(void)
{
	struct mpa_rr_policy pol = pol_v1;
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n = frame(buf, key_req, 0x80, 1, 0, NULL, 0);

	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol, &i, &t),
		 -EOPNOTSUPP);
	CHECK_BAD_RR(&t);
	CHECK_EQ(i.markers, 1);
	pol.markers_ok = 1;
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol, &i, &t), 0);
	CHECK_NO_TERM(&t);
}

static void mpa_parse_reject_bit_in_request(void)
{
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n = frame(buf, key_req, 0x20, 1, 0, NULL, 0);

	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v1, &i, &t),
		 -EPROTO);
	CHECK_BAD_RR(&t);
}

static void mpa_parse_reply_rejected(void)
{
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n = frame(buf, key_rep, 0x20, 1, 3, "bye", 3);

	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REPLY, &pol_v1, &i, &t),
		 -ECONNREFUSED);
	CHECK_NO_TERM(&t);
	CHECK_EQ(i.reject, 1);
	CHECK_EQ(i.ulp_pd_len, 3);
	CHECK_MEM(i.ulp_pd, "bye", 3);
}

static void mpa_parse_pd_len_limit(void)
{
	static u8 buf[20 + 600];
	struct mpa_rr_info i;
	struct iw_term t;

	frame(buf, key_req, 0, 1, 513, NULL, 0);
	CHECK_EQ(mpa_rr_parse(buf, sizeof(buf), MPA_RR_REQUEST, &pol_v1, &i,
			      &t), -EPROTO);
	CHECK_BAD_RR(&t);
	frame(buf, key_req, 0, 1, 512, NULL, 0);
	CHECK_EQ(mpa_rr_parse(buf, 532, MPA_RR_REQUEST, &pol_v1, &i, &t), 0);
	CHECK_EQ(i.ulp_pd_len, 512);
	/* the length limit is checked before waiting for the bytes */
	frame(buf, key_req, 0, 1, 0xffff, NULL, 0);
	CHECK_EQ(mpa_rr_parse(buf, 20, MPA_RR_REQUEST, &pol_v1, &i, &t),
		 -EPROTO);
}

static void mpa_parse_incomplete(void)
{
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n = frame(buf, key_req, 0, 1, 5, "hello", 5);

	CHECK_EQ(mpa_rr_parse(buf, 19, MPA_RR_REQUEST, &pol_v1, &i, &t),
		 -EAGAIN);
	CHECK_NO_TERM(&t);
	CHECK_EQ(i.frame_len, 20);
	CHECK_EQ(mpa_rr_parse(buf, n - 1, MPA_RR_REQUEST, &pol_v1, &i, &t),
		 -EAGAIN);
	CHECK_NO_TERM(&t);
	CHECK_EQ(i.frame_len, 25);
}

static void mpa_parse_enhanced_too_short(void)
{
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n = frame(buf, key_req, 0x10, 2, 3, "\x00\x01\x00", 3);

	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v12, &i, &t),
		 -EPROTO);
	CHECK_BAD_RR(&t);
}

/*
 * Res bits are "not checked on reception" (RFC 5044 section 7.1); in
 * Rev 1 that includes the bit RFC 6581 later took for Enhanced.
 */
static void mpa_parse_res_bits_ignored(void)
{
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n = frame(buf, key_req, 0x1f, 1, 4, "\x80\x01\x00\x01", 4);

	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REQUEST, &pol_v12, &i, &t), 0);
	CHECK_EQ(i.flags, 0x1f);
	CHECK_EQ(i.enhanced, 0);
	CHECK_EQ(i.ulp_pd_len, 4);
}

static void mpa_parse_need_enhanced(void)
{
	struct mpa_rr_policy pol = { .rev_min = 1, .rev_max = 2,
				     .need_enhanced = 1 };
	struct mpa_rr_info i;
	struct iw_term t;
	u8 buf[32];
	size_t n;

	n = frame(buf, key_rep, 0x40, 1, 0, NULL, 0);
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REPLY, &pol, &i, &t), -EPROTO);
	CHECK_BAD_RR(&t);
	n = frame(buf, key_rep, 0x40, 2, 0, NULL, 0);
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REPLY, &pol, &i, &t), -EPROTO);
	CHECK_BAD_RR(&t);
	n = frame(buf, key_rep, 0x50, 2, 4, "\x00\x04\x00\x02", 4);
	CHECK_EQ(mpa_rr_parse(buf, n, MPA_RR_REPLY, &pol, &i, &t), 0);
	CHECK_EQ(i.v2.ird, 4);
	CHECK_EQ(i.v2.ord, 2);
	CHECK_EQ(i.ulp_pd_len, 0);
}

static void mpa_crc_negotiation(void)
{
	CHECK_EQ(mpa_crc_negotiate(false, false), false);
	CHECK_EQ(mpa_crc_negotiate(true, false), true);
	CHECK_EQ(mpa_crc_negotiate(false, true), true);
	CHECK_EQ(mpa_crc_negotiate(true, true), true);
}

static void mpa_v2_responder_ird_ord(void)
{
	struct mpa_v2_params req = { .ird = 4, .ord = 8 };
	struct mpa_v2_params local = { .ird = 16, .ord = 2 };
	struct mpa_v2_params rep;
	struct iw_term t;

	CHECK_EQ(mpa_v2_negotiate_responder(&req, &local, &rep, &t), 0);
	CHECK_NO_TERM(&t);
	CHECK_EQ(rep.ord, 2);	/* our ORD, within their IRD 4 */
	CHECK_EQ(rep.ird, 8);	/* enough for their ORD */
	CHECK_EQ(rep.p2p, 0);
	CHECK_EQ(rep.rtr, 0);

	local.ird = 3;
	local.ord = 100;
	CHECK_EQ(mpa_v2_negotiate_responder(&req, &local, &rep, &t), 0);
	CHECK_EQ(rep.ord, 4);
	CHECK_EQ(rep.ird, 3);	/* short: the Initiator has to adapt */
}

static void mpa_v2_responder_rtr_choice(void)
{
	struct mpa_v2_params req = { .ird = 1, .ord = 1, .p2p = 1,
				     .rtr = MPA_RTR_ALL };
	struct mpa_v2_params local = { .ird = 1, .ord = 1,
				       .rtr = MPA_RTR_ALL };
	struct mpa_v2_params rep;
	struct iw_term t;

	CHECK_EQ(mpa_v2_negotiate_responder(&req, &local, &rep, &t), 0);
	CHECK_EQ(rep.p2p, 1);
	CHECK_EQ(rep.rtr, MPA_RTR_WRITE);
	req.rtr = MPA_RTR_READ | MPA_RTR_SEND;
	CHECK_EQ(mpa_v2_negotiate_responder(&req, &local, &rep, &t), 0);
	CHECK_EQ(rep.rtr, MPA_RTR_READ);
	/* no read slot on the Initiator: a Read RTR is impossible */
	req.ord = 0;
	CHECK_EQ(mpa_v2_negotiate_responder(&req, &local, &rep, &t), 0);
	CHECK_EQ(rep.rtr, MPA_RTR_SEND);
}

static void mpa_v2_responder_no_rtr(void)
{
	struct mpa_v2_params req = { .ird = 1, .ord = 0, .p2p = 1,
				     .rtr = MPA_RTR_READ };
	struct mpa_v2_params local = { .ird = 4, .ord = 4,
				       .rtr = MPA_RTR_ALL };
	struct mpa_v2_params rep;
	struct iw_term t;

	CHECK_EQ(mpa_v2_negotiate_responder(&req, &local, &rep, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_NO_MATCHING_RTR, 0);
	req.rtr = MPA_RTR_SEND;
	req.ord = 1;
	local.rtr = MPA_RTR_WRITE | MPA_RTR_READ;
	CHECK_EQ(mpa_v2_negotiate_responder(&req, &local, &rep, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_NO_MATCHING_RTR, 0);
	req.rtr = 0;
	CHECK_EQ(mpa_v2_negotiate_responder(&req, &local, &rep, &t), -EPROTO);
}

static void mpa_v2_initiator_ird_ord(void)
{
	struct mpa_v2_params sent = { .ird = 8, .ord = 4 };
	struct mpa_v2_params rep = { .ird = 4, .ord = 8 };
	struct mpa_v2_params res;
	struct iw_term t;

	CHECK_EQ(mpa_v2_check_reply(&sent, &rep, false, &res, &t), 0);
	CHECK_NO_TERM(&t);
	CHECK_EQ(res.ird, 8);
	CHECK_EQ(res.ord, 4);

	/* the Responder's ORD exceeds our IRD */
	rep.ord = 9;
	CHECK_EQ(mpa_v2_check_reply(&sent, &rep, true, &res, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_INSUFFICIENT_IRD, 0);

	/* the Responder's IRD is below our ORD */
	rep.ord = 2;
	rep.ird = 3;
	CHECK_EQ(mpa_v2_check_reply(&sent, &rep, false, &res, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_INSUFFICIENT_IRD, 0);
	CHECK_EQ(mpa_v2_check_reply(&sent, &rep, true, &res, &t), 0);
	CHECK_EQ(res.ord, 3);
	CHECK_EQ(res.ird, 2);
}

static void mpa_v2_initiator_rtr(void)
{
	struct mpa_v2_params sent = { .ird = 1, .ord = 1, .p2p = 1,
				      .rtr = MPA_RTR_WRITE | MPA_RTR_READ };
	struct mpa_v2_params rep = { .ird = 1, .ord = 1, .p2p = 1,
				     .rtr = MPA_RTR_READ };
	struct mpa_v2_params res;
	struct iw_term t;

	CHECK_EQ(mpa_v2_check_reply(&sent, &rep, false, &res, &t), 0);
	CHECK_EQ(res.p2p, 1);
	CHECK_EQ(res.rtr, MPA_RTR_READ);

	rep.rtr = MPA_RTR_WRITE | MPA_RTR_READ;	/* must pick one */
	CHECK_EQ(mpa_v2_check_reply(&sent, &rep, false, &res, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_NO_MATCHING_RTR, 0);
	rep.rtr = MPA_RTR_SEND;			/* not offered */
	CHECK_EQ(mpa_v2_check_reply(&sent, &rep, false, &res, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_NO_MATCHING_RTR, 0);
	rep.rtr = MPA_RTR_WRITE;
	rep.p2p = 0;				/* P2P dropped */
	CHECK_EQ(mpa_v2_check_reply(&sent, &rep, false, &res, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_NO_MATCHING_RTR, 0);

	/* P2P in a Reply to a Request without it */
	sent.p2p = 0;
	sent.rtr = 0;
	rep.p2p = 1;
	CHECK_EQ(mpa_v2_check_reply(&sent, &rep, false, &res, &t), -EPROTO);
	CHECK_BAD_RR(&t);
}

/* A Read RTR needs an outbound read slot after ORD negotiation. */
static void mpa_v2_initiator_read_rtr_needs_ord(void)
{
	struct mpa_v2_params sent = { .ird = 1, .ord = 1, .p2p = 1,
				      .rtr = MPA_RTR_READ };
	struct mpa_v2_params rep = { .ird = 0, .ord = 0, .p2p = 1,
				     .rtr = MPA_RTR_READ };
	struct mpa_v2_params res;
	struct iw_term t;

	CHECK_EQ(mpa_v2_check_reply(&sent, &rep, true, &res, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		   MPA_ECODE_NO_MATCHING_RTR, 0);
}

const struct unit_test mpa_tests[] = {
	UNIT_TEST(mpa_keys_are_rfc_bytes),
	UNIT_TEST(mpa_build_request_v1),
	UNIT_TEST(mpa_build_request_v2),
	UNIT_TEST(mpa_build_reply_reject),
	UNIT_TEST(mpa_build_errors),
	UNIT_TEST(mpa_parse_request_v1),
	UNIT_TEST(mpa_parse_request_v2_block),
	UNIT_TEST(mpa_v2_bit_positions),
	UNIT_TEST(mpa_v2_decode_bits),
	UNIT_TEST(mpa_v2_encode_errors),
	UNIT_TEST(mpa_parse_wrong_key),
	UNIT_TEST(mpa_parse_revision_policy),
	UNIT_TEST(mpa_parse_markers_policy),
	UNIT_TEST(mpa_parse_reject_bit_in_request),
	UNIT_TEST(mpa_parse_reply_rejected),
	UNIT_TEST(mpa_parse_pd_len_limit),
	UNIT_TEST(mpa_parse_incomplete),
	UNIT_TEST(mpa_parse_enhanced_too_short),
	UNIT_TEST(mpa_parse_res_bits_ignored),
	UNIT_TEST(mpa_parse_need_enhanced),
	UNIT_TEST(mpa_crc_negotiation),
	UNIT_TEST(mpa_v2_responder_ird_ord),
	UNIT_TEST(mpa_v2_responder_rtr_choice),
	UNIT_TEST(mpa_v2_responder_no_rtr),
	UNIT_TEST(mpa_v2_initiator_ird_ord),
	UNIT_TEST(mpa_v2_initiator_rtr),
	UNIT_TEST(mpa_v2_initiator_read_rtr_needs_ord),
};

const size_t mpa_tests_n = ARRAY_LEN(mpa_tests);
