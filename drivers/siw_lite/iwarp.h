/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iWARP on-wire formats: MPA (RFC 5044) with Enhanced RDMA Connection
 * Establishment (RFC 6581), DDP (RFC 5041) and RDMAP (RFC 5040).
 *
 * Everything on the wire is big-endian ("network order") except the MPA
 * CRC, which is sent as the iSCSI CRC32c is (least significant byte first,
 * RFC 5044 section 4.4 by way of RFC 3385 / RFC 3720 appendix B.4).
 *
 * The header structures start at the MPA ULPDU_Length field, i.e. at the
 * first byte of an FPDU, like a receive buffer the data path fills from
 * TCP. Starting there makes every 32- and 64-bit field naturally aligned,
 * so no structure needs packing; the static_assert()s pin each size to the
 * RFC figure. The DDP header proper begins at offset MPA_HDR_SIZE.
 */
#ifndef _SIW_LITE_IWARP_H
#define _SIW_LITE_IWARP_H

#include "wire_compat.h"

/* ---- MPA, RFC 5044 ---------------------------------------------------- */

/* Section 7.1: both keys are 16 octets, no terminating NUL on the wire. */
#define MPA_KEY_REQ		"MPA ID Req Frame"
#define MPA_KEY_REP		"MPA ID Rep Frame"
#define MPA_KEY_SIZE		16

#define MPA_REVISION_1		1	/* RFC 5044 */
#define MPA_REVISION_2		2	/* RFC 6581, Enhanced MPA frames */

/* Section 7.1: PD_Length "MUST NOT be larger than 512". */
#define MPA_MAX_PRIVDATA	512

/* Section 7.1: first octet after the key; the remaining bits are Res. */
enum mpa_rr_flag {
	MPA_RR_FLAG_MARKERS	= 0x80,	/* M */
	MPA_RR_FLAG_CRC		= 0x40,	/* C */
	MPA_RR_FLAG_REJECT	= 0x20,	/* R */
	/*
	 * RFC 6581 takes the top Res bit for its Enhanced frame: set when the
	 * Private Data begins with the IRD/ORD block below.
	 */
	MPA_RR_FLAG_ENHANCED	= 0x10,
	MPA_RR_MASK_RESERVED	= 0x0f,
};

/* MPA Request / Reply frame header, RFC 5044 section 7.1. */
struct mpa_rr_hdr {
	u8 key[MPA_KEY_SIZE];
	u8 flags;		/* enum mpa_rr_flag */
	u8 rev;
	__be16 pd_len;		/* Private Data octets that follow */
};

static_assert(sizeof(struct mpa_rr_hdr) == 20);

/*
 * RFC 6581 section 5: the first four Private Data octets when the
 * Enhanced flag is set. Each 16-bit word carries a 14-bit depth in its low
 * bits and two control bits on top.
 */
struct mpa_v2_ird_ord {
	__be16 ird;
	__be16 ord;
};

static_assert(sizeof(struct mpa_v2_ird_ord) == 4);

#define MPA_V2_IRD_ORD_MASK	0x3fff
#define MPA_V2_IRD_PEER2PEER	0x8000	/* in ird: peer-to-peer mode */
#define MPA_V2_IRD_RTR_SEND	0x4000	/* in ird: zero-length Send RTR */
#define MPA_V2_ORD_RTR_WRITE	0x8000	/* in ord: zero-length Write RTR */
#define MPA_V2_ORD_RTR_READ	0x4000	/* in ord: zero-length Read RTR */

/*
 * Host-side set of RTR (Ready To Receive) message types, decoupled from
 * the wire bit positions above which sit in two different words.
 */
enum mpa_rtr {
	MPA_RTR_SEND	= 0x1,
	MPA_RTR_WRITE	= 0x2,
	MPA_RTR_READ	= 0x4,
	MPA_RTR_ALL	= 0x7,
};

/*
 * FPDU framing, RFC 5044 section 4.1: ULPDU_Length (2), ULPDU, PAD (0..3,
 * to a multiple of 4 for the whole FPDU), CRC (4). The CRC field is present
 * even when CRCs were not negotiated (section 7.1, C bit).
 */
#define MPA_HDR_SIZE		2
#define MPA_CRC_SIZE		4
#define MPA_ALIGN		4
#define MPA_MAX_ULPDU		0xffff

struct mpa_trailer {
	u8 pad[MPA_ALIGN];	/* only the first mpa_pad_len() are sent */
	__le32 crc;
};

/* ---- DDP, RFC 5041 / RDMAP, RFC 5040 ---------------------------------- */

#define DDP_VERSION		1	/* RFC 5041 section 4.1: DV = 01b */
#define RDMAP_VERSION		1	/* RFC 5040 section 4.1: RV = 01b */

/*
 * The 16-bit DDP control field (RFC 5041 section 4.1) whose low octet,
 * RsvdULP, RDMAP uses as its own control field (RFC 5040 section 4.1).
 */
#define DDP_CTRL_TAGGED		0x8000	/* T */
#define DDP_CTRL_LAST		0x4000	/* L */
#define DDP_CTRL_RSVD		0x3c00	/* Rsvd: zero on send, not checked */
#define DDP_CTRL_DV_MASK	0x0300
#define DDP_CTRL_DV_SHIFT	8
#define RDMAP_CTRL_RV_MASK	0x00c0
#define RDMAP_CTRL_RV_SHIFT	6
#define RDMAP_CTRL_RSVD		0x0030	/* zero on send, not checked */
#define RDMAP_CTRL_OPCODE_MASK	0x000f

/* RFC 5040 section 4.2, RDMA Message Definitions */
enum rdmap_opcode {
	RDMAP_RDMA_WRITE	= 0x0,
	RDMAP_RDMA_READ_REQ	= 0x1,
	RDMAP_RDMA_READ_RESP	= 0x2,
	RDMAP_SEND		= 0x3,
	RDMAP_SEND_INVAL	= 0x4,
	RDMAP_SEND_SE		= 0x5,
	RDMAP_SEND_SE_INVAL	= 0x6,
	RDMAP_TERMINATE		= 0x7,
	RDMAP_OPCODE_MAX	= RDMAP_TERMINATE,
};

/* RFC 5040 section 4.2: the three untagged queues RDMAP uses. */
enum rdmap_qn {
	RDMAP_QN_SEND		= 0,
	RDMAP_QN_READ_REQ	= 1,
	RDMAP_QN_TERMINATE	= 2,
	RDMAP_QN_COUNT		= 3,
};

/* Header sizes from the start of the DDP header (RFC 5041 4.2, 4.3). */
#define DDP_TAGGED_HDR_SIZE	14	/* ctrl 2, STag 4, TO 8 */
#define DDP_UNTAGGED_HDR_SIZE	18	/* ctrl 2, RsvdULP 4, QN, MSN, MO */
#define RDMAP_RREQ_SIZE		28	/* RFC 5040 section 4.4 */
#define RDMAP_TERM_CTRL_SIZE	4	/* RFC 5040 section 4.8 */

/* FPDU start through the end of the tagged DDP header. */
struct iwarp_tagged_hdr {
	__be16 mpa_len;
	__be16 ctrl;
	__be32 stag;		/* Data Sink STag */
	__be64 to;		/* Data Sink Tagged Offset */
};

static_assert(sizeof(struct iwarp_tagged_hdr) ==
	      MPA_HDR_SIZE + DDP_TAGGED_HDR_SIZE);

/* FPDU start through the end of the untagged DDP header. */
struct iwarp_untagged_hdr {
	__be16 mpa_len;
	__be16 ctrl;
	__be32 rsvd_ulp;	/* Invalidate STag for Send with Invalidate */
	__be32 qn;
	__be32 msn;
	__be32 mo;
};

static_assert(sizeof(struct iwarp_untagged_hdr) ==
	      MPA_HDR_SIZE + DDP_UNTAGGED_HDR_SIZE);

/* RDMA Read Request, RFC 5040 section 4.4: untagged header + 28 octets. */
struct iwarp_rdma_rreq {
	struct iwarp_untagged_hdr hdr;
	__be32 sink_stag;
	__be64 sink_to;
	__be32 read_size;	/* RDMA Read Message Size */
	__be32 source_stag;
	__be64 source_to;
};

static_assert(sizeof(struct iwarp_rdma_rreq) ==
	      MPA_HDR_SIZE + DDP_UNTAGGED_HDR_SIZE + RDMAP_RREQ_SIZE);

/*
 * Terminate Control, RFC 5040 section 4.8, one 32-bit word:
 * Layer (4) | EType (4) | Error Code (8) | Hdrct M,D,R (3) | Reserved (13)
 */
#define RDMAP_TERM_LAYER_SHIFT	28
#define RDMAP_TERM_ETYPE_SHIFT	24
#define RDMAP_TERM_ECODE_SHIFT	16
#define RDMAP_TERM_HDRCT_SHIFT	13
#define RDMAP_TERM_RSVD_MASK	0x1fff

/*
 * Hdrct bits, as a 3-bit value (M is the most significant). M: the DDP
 * Segment Length field is valid; D: the terminated DDP header follows;
 * R: the terminated RDMAP header (an RDMA Read Request's) follows.
 */
#define RDMAP_TERM_HDRCT_M	0x4
#define RDMAP_TERM_HDRCT_D	0x2
#define RDMAP_TERM_HDRCT_R	0x1

/* Terminate message up to and including the Terminate Control word. */
struct iwarp_terminate_hdr {
	struct iwarp_untagged_hdr hdr;
	__be32 term_ctrl;
};

static_assert(sizeof(struct iwarp_terminate_hdr) == 24);

/*
 * Longest Terminate body: control 4, DDP Segment Length 2, an untagged DDP
 * header 18 and a Read Request header 28.
 */
#define RDMAP_TERM_MAX_BODY	(RDMAP_TERM_CTRL_SIZE + 2 + \
				 DDP_UNTAGGED_HDR_SIZE + RDMAP_RREQ_SIZE)

/* Every header a received FPDU can start with. */
union iwarp_hdr {
	struct iwarp_tagged_hdr tagged;
	struct iwarp_untagged_hdr untagged;
	struct iwarp_rdma_rreq rreq;
	struct iwarp_terminate_hdr terminate;
};

/* ---- Terminate error numbers ------------------------------------------ */

/* RFC 5040 section 4.8, Layer field */
enum iw_term_layer {
	IW_TERM_LAYER_RDMAP	= 0x0,
	IW_TERM_LAYER_DDP	= 0x1,
	IW_TERM_LAYER_LLP	= 0x2,	/* MPA here */
};

/* RFC 5040 section 7, RDMAP error types */
enum rdmap_etype {
	RDMAP_ETYPE_LOCAL_CATASTROPHIC	= 0x0,
	RDMAP_ETYPE_REMOTE_PROTECTION	= 0x1,
	RDMAP_ETYPE_REMOTE_OPERATION	= 0x2,
};

/*
 * RFC 5040 section 7, RDMAP error codes. 0x00-0x04 are Remote Protection
 * errors, 0x05-0x08 Remote Operation errors; 0x09 and 0xFF are listed under
 * both (a failed invalidation is a protection error when rights were
 * lacking). Local Catastrophic uses 0x00.
 */
enum rdmap_ecode {
	RDMAP_ECODE_INVALID_STAG	= 0x00,
	RDMAP_ECODE_BASE_BOUNDS		= 0x01,
	RDMAP_ECODE_ACCESS_RIGHTS	= 0x02,
	RDMAP_ECODE_STAG_NOT_ASSOC	= 0x03,
	RDMAP_ECODE_TO_WRAP		= 0x04,
	RDMAP_ECODE_INVALID_VERSION	= 0x05,
	RDMAP_ECODE_UNEXPECTED_OPCODE	= 0x06,
	RDMAP_ECODE_CATASTROPHIC_STREAM	= 0x07,
	RDMAP_ECODE_CATASTROPHIC_GLOBAL	= 0x08,
	RDMAP_ECODE_CANNOT_INVALIDATE	= 0x09,
	RDMAP_ECODE_UNSPECIFIED		= 0xff,
};

/* RFC 5041 section 7.2, DDP error types */
enum ddp_etype {
	DDP_ETYPE_LOCAL_CATASTROPHIC	= 0x0,
	DDP_ETYPE_TAGGED		= 0x1,
	DDP_ETYPE_UNTAGGED		= 0x2,
	DDP_ETYPE_RSVD_LLP		= 0x3,	/* reserved for the LLP */
};

/* RFC 5041 section 7.2, Tagged Buffer errors */
enum ddp_tagged_ecode {
	DDP_TECODE_INVALID_STAG		= 0x00,
	DDP_TECODE_BASE_BOUNDS		= 0x01,
	DDP_TECODE_STAG_NOT_ASSOC	= 0x02,
	DDP_TECODE_TO_WRAP		= 0x03,
	DDP_TECODE_INVALID_VERSION	= 0x04,
};

/* RFC 5041 section 7.2, Untagged Buffer errors */
enum ddp_untagged_ecode {
	DDP_UECODE_INVALID_QN		= 0x01,
	DDP_UECODE_MSN_NO_BUFFER	= 0x02,
	DDP_UECODE_MSN_RANGE		= 0x03,
	DDP_UECODE_INVALID_MO		= 0x04,
	DDP_UECODE_TOO_LONG		= 0x05,
	DDP_UECODE_INVALID_VERSION	= 0x06,
};

/* RFC 5044 section 8: the LLP error type for MPA */
enum mpa_etype {
	MPA_ETYPE_MPA			= 0x0,
};

/* RFC 5044 section 8; 0x05-0x07 were added by RFC 6581 */
enum mpa_ecode {
	MPA_ECODE_TCP_LOST		= 0x01,
	MPA_ECODE_CRC			= 0x02,
	MPA_ECODE_MARKER_LEN		= 0x03,	/* Marker/ULPDU_Length mismatch */
	MPA_ECODE_INVALID_RR		= 0x04,	/* bad Request or Reply frame */
	MPA_ECODE_LOCAL_CATASTROPHIC	= 0x05,
	MPA_ECODE_INSUFFICIENT_IRD	= 0x06,
	MPA_ECODE_NO_MATCHING_RTR	= 0x07,
};

/*
 * What a failed check owes the peer: the Terminate Control of RFC 5040
 * section 4.8 plus the Hdrct bits telling the Terminate builder which parts
 * of the offending segment to echo. @valid is 0 when nothing is to be sent
 * (success, "need more bytes", or the peer itself rejected or terminated).
 */
struct iw_term {
	u8 valid;
	u8 layer;		/* enum iw_term_layer */
	u8 etype;		/* enum rdmap_etype / ddp_etype / mpa_etype */
	u8 ecode;		/* matching *_ecode */
	u8 hdrct;		/* RDMAP_TERM_HDRCT_* */
};

static inline void iw_term_set(struct iw_term *t, u8 layer, u8 etype,
			       u8 ecode, u8 hdrct)
{
	t->valid = 1;
	t->layer = layer;
	t->etype = etype;
	t->ecode = ecode;
	t->hdrct = hdrct;
}

static inline void iw_term_clear(struct iw_term *t)
{
	memset(t, 0, sizeof(*t));
}

#endif /* _SIW_LITE_IWARP_H */
