/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DDP (RFC 5041) and RDMAP (RFC 5040) headers: parse and validate inbound
 * headers, build outbound ones, build and parse Terminate messages, and the
 * placement checks for tagged and untagged buffers. Pure functions over
 * byte buffers and plain numbers.
 *
 * All buffers here start at the DDP header, i.e. at the MPA ULPDU (an FPDU
 * plus MPA_HDR_SIZE); the DDP Segment Length is the MPA ULPDU_Length.
 */
#ifndef _SIW_LITE_DDP_WIRE_H
#define _SIW_LITE_DDP_WIRE_H

#include "iwarp.h"

/* Reserved fields found non-zero: legal, they are not checked on receive. */
enum ddp_rsvd_seen {
	DDP_RSVD_DDP_CTRL	= 0x1,	/* RFC 5041 section 4.1 Rsvd */
	DDP_RSVD_RDMAP_CTRL	= 0x2,	/* RFC 5040 section 4.1 reserved */
	DDP_RSVD_ULP		= 0x4,	/* RsvdULP of a Send / Read Request */
};

/* RFC 5040 section 4.4, host order. */
struct rdmap_rreq_info {
	u32 sink_stag;
	u64 sink_to;
	u32 read_size;
	u32 source_stag;
	u64 source_to;
};

/* One DDP segment's headers, host order. */
struct ddp_hdr_info {
	u8 opcode;		/* enum rdmap_opcode */
	u8 tagged;
	u8 last;
	u8 rsvd_seen;		/* enum ddp_rsvd_seen */
	u16 seg_len;		/* DDP Segment Length (MPA ULPDU_Length) */
	u16 hdr_len;		/* DDP + RDMAP header octets */
	u16 payload_len;	/* seg_len - hdr_len */
	u32 stag;		/* tagged: STag; Send w/ Invalidate: its STag */
	u64 to;			/* tagged only */
	u32 qn;			/* untagged only */
	u32 msn;		/* untagged only */
	u32 mo;			/* untagged only */
	struct rdmap_rreq_info rreq;	/* RDMA Read Request only */
};

/* A received Terminate body (RFC 5040 section 4.8). */
struct rdmap_term_info {
	u8 layer;
	u8 etype;
	u8 ecode;
	u8 hdrct;		/* RDMAP_TERM_HDRCT_* */
	u16 rsvd;		/* the 13 reserved bits, not checked */
	u16 seg_len;		/* valid if hdrct has M */
	const u8 *ddp_hdr;	/* terminated DDP header, NULL unless D */
	u8 ddp_hdr_len;
	const u8 *rdmap_hdr;	/* terminated Read Request header or NULL */
	u8 rdmap_hdr_len;
};

/* Access a peer may be granted to a tagged buffer. */
#define IW_ACCESS_REMOTE_READ	0x1
#define IW_ACCESS_REMOTE_WRITE	0x2

/* What the STag lookup found, reduced to plain numbers. */
struct iw_tagged_region {
	u64 base;		/* lowest Tagged Offset the STag covers */
	u64 len;		/* octets covered; base + len may be 2^64 */
	u32 access;		/* IW_ACCESS_* granted to the peer */
	u8 stag_valid;		/* the STag names a valid region */
	u8 stag_assoc;		/* ... usable on this stream (PD/QP) */
};

bool rdmap_opcode_tagged(u8 opcode);
unsigned int ddp_hdr_len(u8 opcode);

int ddp_parse_hdr(const void *ulpdu, size_t avail, u16 seg_len,
		  struct ddp_hdr_info *h, struct iw_term *term);
int ddp_build_hdr(void *ulpdu, size_t size, const struct ddp_hdr_info *h);

ssize_t rdmap_build_terminate(void *ulpdu, size_t size, u32 msn,
			      const struct iw_term *term, const void *bad,
			      size_t bad_avail, u16 bad_seg_len);
int rdmap_parse_terminate(const void *body, size_t len,
			  struct rdmap_term_info *t);

int iw_tagged_check(const struct iw_tagged_region *r, u32 need, u64 to,
		    u64 len, u8 layer, struct iw_term *term);
int ddp_untagged_check(u32 mo, u32 len, u32 buf_len, struct iw_term *term);
int ddp_msn_check(u32 msn, u32 expected, u32 posted, u32 window,
		  u32 *index, struct iw_term *term);

#endif /* _SIW_LITE_DDP_WIRE_H */
