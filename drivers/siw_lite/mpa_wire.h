/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPA (RFC 5044) connection setup frames, RFC 6581 enhanced connection
 * setup, and FPDU framing helpers. Pure functions over byte buffers: no
 * sockets, no allocation, no locking; usable from any context.
 */
#ifndef _SIW_LITE_MPA_WIRE_H
#define _SIW_LITE_MPA_WIRE_H

#include "iwarp.h"

enum mpa_rr_type {
	MPA_RR_REQUEST,
	MPA_RR_REPLY,
};

/* Host form of the RFC 6581 section 5 IRD/ORD block. */
struct mpa_v2_params {
	u16 ird;		/* 0..MPA_V2_IRD_ORD_MASK */
	u16 ord;		/* 0..MPA_V2_IRD_ORD_MASK */
	u8 p2p;			/* peer-to-peer: an RTR message will follow */
	u8 rtr;			/* enum mpa_rtr set */
};

/* What the receiver of a Request or Reply is prepared to accept. */
struct mpa_rr_policy {
	u8 rev_min;		/* lowest acceptable Rev, normally 1 */
	u8 rev_max;		/* highest; for a Reply: the Rev we sent */
	u8 markers_ok;		/* we can send Markers if the peer wants them */
	u8 need_enhanced;	/* RFC 6581 IRD/ORD block must be present */
};

/* A parsed Request or Reply; pointers point into the parsed buffer. */
struct mpa_rr_info {
	u8 rev;
	u8 flags;		/* raw flag octet, Res bits included */
	u8 markers;		/* peer wants Markers from us */
	u8 crc;			/* peer's C bit */
	u8 reject;		/* Reply only */
	u8 enhanced;		/* Rev 2 with the Enhanced flag: v2 is valid */
	u16 pd_len;		/* PD_Length, including the v2 block */
	u32 frame_len;		/* header + Private Data: bytes to consume */
	struct mpa_v2_params v2;
	const u8 *ulp_pd;	/* Private Data for the ULP, after any v2 block */
	u16 ulp_pd_len;
};

/* What mpa_rr_build() puts on the wire. */
struct mpa_rr_build {
	u8 rev;			/* MPA_REVISION_1 or MPA_REVISION_2 */
	u8 markers;
	u8 crc;
	u8 reject;		/* Reply only */
	u8 enhanced;		/* Rev 2 only: prepend the v2 block */
	struct mpa_v2_params v2;
	const void *ulp_pd;
	u16 ulp_pd_len;
};

int mpa_rr_parse(const void *buf, size_t avail, enum mpa_rr_type type,
		 const struct mpa_rr_policy *pol, struct mpa_rr_info *info,
		 struct iw_term *term);
ssize_t mpa_rr_build(void *buf, size_t size, enum mpa_rr_type type,
		     const struct mpa_rr_build *b);

int mpa_v2_encode(const struct mpa_v2_params *p, u8 *block);
void mpa_v2_decode(const u8 *block, struct mpa_v2_params *p);

int mpa_v2_negotiate_responder(const struct mpa_v2_params *req,
			       const struct mpa_v2_params *local,
			       struct mpa_v2_params *rep, struct iw_term *term);
int mpa_v2_check_reply(const struct mpa_v2_params *sent,
		       const struct mpa_v2_params *rep, bool relaxed_ord,
		       struct mpa_v2_params *res, struct iw_term *term);

/*
 * RFC 5044 section 7.1, C bit: CRCs are generated and checked in both
 * directions as soon as either side asked for them.
 */
static inline bool mpa_crc_negotiate(bool req_crc, bool rep_crc)
{
	return req_crc || rep_crc;
}

/* ---- FPDU framing ----------------------------------------------------- */

/* RFC 5044 section 4.1: PAD makes ULPDU_Length + ULPDU a multiple of 4. */
static inline u32 mpa_pad_len(u32 ulpdu_len)
{
	return (MPA_ALIGN - ((ulpdu_len + MPA_HDR_SIZE) & (MPA_ALIGN - 1))) &
	       (MPA_ALIGN - 1);
}

/* Octets the FPDU occupies in the TCP stream (no Markers). */
static inline u32 mpa_fpdu_len(u32 ulpdu_len)
{
	return MPA_HDR_SIZE + ulpdu_len + mpa_pad_len(ulpdu_len) +
	       MPA_CRC_SIZE;
}

u32 mpa_mulpdu(u32 emss);

/*
 * Streaming CRC for FPDUs that are not contiguous: start from
 * MPA_CRC_SEED, feed ULPDU_Length, ULPDU and PAD through mpa_crc_update(),
 * then store mpa_crc_final() as the four CRC octets.
 */
#define MPA_CRC_SEED	0xffffffffU

static inline u32 mpa_crc_update(u32 crc, const void *buf, u32 len)
{
	return crc32c(crc, buf, len);
}

static inline __le32 mpa_crc_final(u32 crc)
{
	return cpu_to_le32(~crc);
}

__le32 mpa_fpdu_crc(const void *fpdu, u32 ulpdu_len);
int mpa_fpdu_check_crc(const void *fpdu, size_t avail, struct iw_term *term);
ssize_t mpa_fpdu_finish(void *fpdu, size_t size, u32 ulpdu_len, bool crc);
u32 mpa_fpdu_trailer(void *trailer, u32 ulpdu_len, const u32 *crc);

#endif /* _SIW_LITE_MPA_WIRE_H */
