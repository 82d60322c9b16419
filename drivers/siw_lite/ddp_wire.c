// SPDX-License-Identifier: GPL-2.0
/*
 * DDP (RFC 5041) and RDMAP (RFC 5040) header handling.
 *
 * Inbound checks run in the order the layers process a segment: DDP first
 * (its version decides how the rest of the header is laid out), then
 * RDMAP, then the fields each opcode defines. The first failure wins and
 * names the Terminate the peer is owed, together with the Hdrct bits that
 * say how much of the offending segment can be echoed back meaningfully.
 */
#include "ddp_wire.h"

#define HDRCT_M		RDMAP_TERM_HDRCT_M
#define HDRCT_D		RDMAP_TERM_HDRCT_D
#define HDRCT_R		RDMAP_TERM_HDRCT_R

#define TERM_SEGLEN_SIZE	2
#define TERM_MIN_SEG	(DDP_UNTAGGED_HDR_SIZE + RDMAP_TERM_CTRL_SIZE)
#define TERM_MAX_SEG	(DDP_UNTAGGED_HDR_SIZE + RDMAP_TERM_MAX_BODY)

/* RFC 5040 section 4.2, RDMA Message Definitions. */
struct rdmap_op_desc {
	u8 tagged;
	u8 qn;
	u8 rdmap_len;		/* RDMAP header after the DDP header */
};

static const struct rdmap_op_desc rdmap_ops[RDMAP_OPCODE_MAX + 1] = {
	[RDMAP_RDMA_WRITE]	= { .tagged = 1 },
	[RDMAP_RDMA_READ_REQ]	= { .qn = RDMAP_QN_READ_REQ,
				    .rdmap_len = RDMAP_RREQ_SIZE },
	[RDMAP_RDMA_READ_RESP]	= { .tagged = 1 },
	[RDMAP_SEND]		= { .qn = RDMAP_QN_SEND },
	[RDMAP_SEND_INVAL]	= { .qn = RDMAP_QN_SEND },
	[RDMAP_SEND_SE]		= { .qn = RDMAP_QN_SEND },
	[RDMAP_SEND_SE_INVAL]	= { .qn = RDMAP_QN_SEND },
	[RDMAP_TERMINATE]	= { .qn = RDMAP_QN_TERMINATE },
};

static bool rdmap_opcode_inval(u8 opcode)
{
	return opcode == RDMAP_SEND_INVAL || opcode == RDMAP_SEND_SE_INVAL;
}

/* Messages that RDMAP sends as exactly one DDP segment at MO 0. */
static bool rdmap_opcode_single(u8 opcode)
{
	return opcode == RDMAP_RDMA_READ_REQ || opcode == RDMAP_TERMINATE;
}

bool rdmap_opcode_tagged(u8 opcode)
{
	return opcode <= RDMAP_OPCODE_MAX && rdmap_ops[opcode].tagged;
}

/**
 * ddp_hdr_len - DDP plus RDMAP header octets a segment of @opcode starts with
 * @opcode: RDMAP opcode
 *
 * Return: the length, or 0 for an undefined opcode.
 */
unsigned int ddp_hdr_len(u8 opcode)
{
	if (opcode > RDMAP_OPCODE_MAX)
		return 0;
	return (rdmap_ops[opcode].tagged ? DDP_TAGGED_HDR_SIZE :
					   DDP_UNTAGGED_HDR_SIZE) +
	       rdmap_ops[opcode].rdmap_len;
}

/* Fills @h's flags and opcode from the DDP/RDMAP control field @ctrl. */
static void ddp_parse_ctrl(u16 ctrl, struct ddp_hdr_info *h)
{
	h->tagged = !!(ctrl & DDP_CTRL_TAGGED);
	h->last = !!(ctrl & DDP_CTRL_LAST);
	h->opcode = ctrl & RDMAP_CTRL_OPCODE_MASK;
	if (ctrl & DDP_CTRL_RSVD)
		h->rsvd_seen |= DDP_RSVD_DDP_CTRL;
	if (ctrl & RDMAP_CTRL_RSVD)
		h->rsvd_seen |= DDP_RSVD_RDMAP_CTRL;
}

/* Return: 0, or -EPROTO with @term set for an unknown DDP version. */
static int ddp_check_version(u16 ctrl, bool tagged, u8 hdrct,
			     struct iw_term *term)
{
	/*
	 * RFC 5041 section 7.2 has a version error per buffer model. With an
	 * unknown DDP version nothing past the control field has a known
	 * layout, so only the segment length is echoed.
	 */
	if (((ctrl & DDP_CTRL_DV_MASK) >> DDP_CTRL_DV_SHIFT) != DDP_VERSION) {
		if (tagged)
			iw_term_set(term, IW_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
				    DDP_TECODE_INVALID_VERSION, hdrct);
		else
			iw_term_set(term, IW_TERM_LAYER_DDP,
				    DDP_ETYPE_UNTAGGED,
				    DDP_UECODE_INVALID_VERSION, hdrct);
		return -EPROTO;
	}
	return 0;
}

/*
 * The RDMAP version, then the opcode against the buffer model of @h.
 * Return: 0, or -EPROTO with @term set.
 */
static int rdmap_check_ctrl(u16 ctrl, const struct ddp_hdr_info *h,
			    u8 hdrct, struct iw_term *term)
{
	/* RFC 5040 section 7: Remote Operation Errors. */
	if (((ctrl & RDMAP_CTRL_RV_MASK) >> RDMAP_CTRL_RV_SHIFT) !=
	    RDMAP_VERSION) {
		iw_term_set(term, IW_TERM_LAYER_RDMAP,
			    RDMAP_ETYPE_REMOTE_OPERATION,
			    RDMAP_ECODE_INVALID_VERSION, hdrct);
		return -EPROTO;
	}
	/*
	 * An opcode the RFC defines but with the other buffer model (say an
	 * untagged RDMA Write) is as unexpected as an undefined one.
	 */
	if (h->opcode > RDMAP_OPCODE_MAX ||
	    rdmap_ops[h->opcode].tagged != h->tagged) {
		iw_term_set(term, IW_TERM_LAYER_RDMAP,
			    RDMAP_ETYPE_REMOTE_OPERATION,
			    RDMAP_ECODE_UNEXPECTED_OPCODE, hdrct);
		return -EPROTO;
	}
	return 0;
}

/* RFC 5040 section 4.4: @p is the Read Request header, after DDP's. */
static void rdmap_parse_rreq(const u8 *p, struct rdmap_rreq_info *rreq)
{
	rreq->sink_stag = get_unaligned_be32(p);
	rreq->sink_to = get_unaligned_be64(p + 4);
	rreq->read_size = get_unaligned_be32(p + 12);
	rreq->source_stag = get_unaligned_be32(p + 16);
	rreq->source_to = get_unaligned_be64(p + 20);
}

/*
 * Read Requests and Terminates are single-segment messages: the
 * queue's buffer holds exactly one header (RFC 5040 sections 4.4,
 * 4.8), so anything that continues or overflows it is too long.
 * Needs @h->seg_len and @h->hdr_len. Return: 0, or -EPROTO with @term set.
 */
static int rdmap_check_single(const struct ddp_hdr_info *h, u8 hdrct,
			      struct iw_term *term)
{
	unsigned int max_seg;

	if (!rdmap_opcode_single(h->opcode))
		return 0;
	max_seg = h->opcode == RDMAP_TERMINATE ? TERM_MAX_SEG : h->hdr_len;
	if (h->mo) {
		iw_term_set(term, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			    DDP_UECODE_INVALID_MO, hdrct);
		return -EPROTO;
	}
	if (!h->last || h->seg_len > max_seg) {
		iw_term_set(term, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			    DDP_UECODE_TOO_LONG, hdrct);
		return -EPROTO;
	}
	return 0;
}

/*
 * The untagged DDP header at @p (RFC 5041 section 4.3) and the RDMAP
 * header of @op after it; all of @h->hdr_len bytes must be at @p.
 * Return: 0, or -EPROTO with @term set.
 */
static int ddp_parse_untagged(const u8 *p, const struct rdmap_op_desc *op,
			      struct ddp_hdr_info *h, u8 hdrct,
			      struct iw_term *term)
{
	u32 rsvd_ulp;

	rsvd_ulp = get_unaligned_be32(p + 2);
	h->qn = get_unaligned_be32(p + 6);
	h->msn = get_unaligned_be32(p + 10);
	h->mo = get_unaligned_be32(p + 14);
	if (rdmap_opcode_inval(h->opcode))
		h->stag = rsvd_ulp;
	else if (rsvd_ulp)
		h->rsvd_seen |= DDP_RSVD_ULP;

	/* RFC 5040 section 4.2 ties every untagged opcode to one queue. */
	if (h->qn != op->qn) {
		iw_term_set(term, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			    DDP_UECODE_INVALID_QN, hdrct);
		return -EPROTO;
	}

	if (h->opcode == RDMAP_RDMA_READ_REQ)
		rdmap_parse_rreq(p + DDP_UNTAGGED_HDR_SIZE, &h->rreq);

	return rdmap_check_single(h, hdrct, term);
}

/**
 * ddp_parse_hdr - parse and validate the headers of an inbound DDP segment
 * @ulpdu: segment start (the DDP control field)
 * @avail: contiguous bytes at @ulpdu; the payload need not be there
 * @seg_len: the segment's length, from the MPA ULPDU_Length
 * @h: result
 * @term: the Terminate owed to the peer when the return is -EPROTO or
 *	-EBADMSG
 *
 * Reserved fields are not checked on receive (RFC 5041 section 4.1, RFC
 * 5040 section 4.1); any found set are reported in @h->rsvd_seen.
 *
 * Return: 0; -EAGAIN when @avail is short of @h->hdr_len bytes (gather that
 * many and call again); -EBADMSG when @seg_len cannot hold the headers;
 * -EPROTO for any other violation.
 */
int ddp_parse_hdr(const void *ulpdu, size_t avail, u16 seg_len,
		  struct ddp_hdr_info *h, struct iw_term *term)
{
	const u8 *p = ulpdu;
	const struct rdmap_op_desc *op;
	unsigned int dlen, need, min_seg;
	u8 hdrct = HDRCT_M;
	u16 ctrl;
	int rv;

	iw_term_clear(term);
	memset(h, 0, sizeof(*h));
	h->seg_len = seg_len;
	h->hdr_len = sizeof(ctrl);
	if (seg_len < sizeof(ctrl))
		goto short_seg;
	if (avail < sizeof(ctrl))
		return -EAGAIN;

	ctrl = get_unaligned_be16(p);
	ddp_parse_ctrl(ctrl, h);
	rv = ddp_check_version(ctrl, h->tagged, hdrct, term);
	if (rv)
		return rv;

	dlen = h->tagged ? DDP_TAGGED_HDR_SIZE : DDP_UNTAGGED_HDR_SIZE;
	if (seg_len >= dlen)
		hdrct |= HDRCT_D;

	rv = rdmap_check_ctrl(ctrl, h, hdrct, term);
	if (rv)
		return rv;
	op = &rdmap_ops[h->opcode];

	need = dlen + op->rdmap_len;
	min_seg = need;
	if (h->opcode == RDMAP_TERMINATE)
		min_seg += RDMAP_TERM_CTRL_SIZE;
	h->hdr_len = need;
	if (seg_len < min_seg)
		goto short_seg;
	if (avail < need)
		return -EAGAIN;
	h->payload_len = seg_len - need;

	if (h->tagged) {
		h->stag = get_unaligned_be32(p + 2);
		h->to = get_unaligned_be64(p + 6);
		return 0;
	}
	return ddp_parse_untagged(p, op, h, hdrct, term);

short_seg:
	/*
	 * The ULPDU_Length contradicts the headers the segment must carry;
	 * RFC 5044 section 8 has no closer code than the length mismatch.
	 */
	iw_term_set(term, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		    MPA_ECODE_MARKER_LEN, hdrct);
	return -EBADMSG;
}

/**
 * ddp_build_hdr - write the DDP and RDMAP headers of an outbound segment
 * @ulpdu: where the DDP header goes (FPDU + MPA_HDR_SIZE)
 * @size: bytes available at @ulpdu
 * @h: opcode, last flag and the fields that opcode uses; tagged and qn
 *	follow from the opcode, reserved fields are written as zero
 *
 * Return: header length, -EINVAL or -ENOSPC.
 */
int ddp_build_hdr(void *ulpdu, size_t size, const struct ddp_hdr_info *h)
{
	u8 *p = ulpdu;
	const struct rdmap_op_desc *op;
	unsigned int need;
	u16 ctrl;

	if (h->opcode > RDMAP_OPCODE_MAX)
		return -EINVAL;
	if (rdmap_opcode_single(h->opcode) && (!h->last || h->mo))
		return -EINVAL;
	op = &rdmap_ops[h->opcode];
	need = ddp_hdr_len(h->opcode);
	if (size < need)
		return -ENOSPC;

	ctrl = DDP_VERSION << DDP_CTRL_DV_SHIFT |
	       RDMAP_VERSION << RDMAP_CTRL_RV_SHIFT | h->opcode;
	if (op->tagged)
		ctrl |= DDP_CTRL_TAGGED;
	if (h->last)
		ctrl |= DDP_CTRL_LAST;
	put_unaligned_be16(ctrl, p);

	if (op->tagged) {
		put_unaligned_be32(h->stag, p + 2);
		put_unaligned_be64(h->to, p + 6);
		return need;
	}

	put_unaligned_be32(rdmap_opcode_inval(h->opcode) ? h->stag : 0, p + 2);
	put_unaligned_be32(op->qn, p + 6);
	put_unaligned_be32(h->msn, p + 10);
	put_unaligned_be32(h->mo, p + 14);
	if (h->opcode == RDMAP_RDMA_READ_REQ) {
		p += DDP_UNTAGGED_HDR_SIZE;
		put_unaligned_be32(h->rreq.sink_stag, p);
		put_unaligned_be64(h->rreq.sink_to, p + 4);
		put_unaligned_be32(h->rreq.read_size, p + 12);
		put_unaligned_be32(h->rreq.source_stag, p + 16);
		put_unaligned_be64(h->rreq.source_to, p + 20);
	}
	return need;
}

/**
 * rdmap_build_terminate - build a Terminate message (RFC 5040 section 4.8)
 * @ulpdu: where the DDP header goes (FPDU + MPA_HDR_SIZE)
 * @size: bytes available at @ulpdu
 * @msn: MSN on the Terminate queue (the first message there has MSN 1)
 * @term: the error, from a failed check
 * @bad: the offending segment from its DDP header on, or NULL
 * @bad_avail: contiguous bytes at @bad
 * @bad_seg_len: the offending segment's DDP Segment Length (its MPA
 *	ULPDU_Length, headers included)
 *
 * Echoes what @term->hdrct asks for: R implies D implies M, because each
 * echoed part is located by the one before it. A part @bad cannot supply
 * in full is left out and its bit cleared, never sent half-filled.
 *
 * Return: ULPDU length (frame it with mpa_fpdu_finish()), -EINVAL, -ENOSPC.
 */
ssize_t rdmap_build_terminate(void *ulpdu, size_t size, u32 msn,
			      const struct iw_term *term, const void *bad,
			      size_t bad_avail, u16 bad_seg_len)
{
	struct ddp_hdr_info th = {
		.opcode = RDMAP_TERMINATE,
		.last = 1,
		.msn = msn,
	};
	const u8 *b = bad;
	u8 *p = ulpdu;
	u8 hdrct = term->hdrct;
	unsigned int dlen = 0, rlen = 0, len, off;
	u32 ctrl;

	if (!term->valid || term->layer > 0xf || term->etype > 0xf ||
	    hdrct & ~(HDRCT_M | HDRCT_D | HDRCT_R))
		return -EINVAL;
	if (hdrct & HDRCT_R)
		hdrct |= HDRCT_D;
	if (hdrct & HDRCT_D)
		hdrct |= HDRCT_M;

	if ((hdrct & HDRCT_D) && b && bad_avail >= 2)
		dlen = get_unaligned_be16(b) & DDP_CTRL_TAGGED ?
			DDP_TAGGED_HDR_SIZE : DDP_UNTAGGED_HDR_SIZE;
	if (dlen > bad_avail || dlen > bad_seg_len)
		dlen = 0;
	if (!dlen)
		hdrct &= ~(HDRCT_D | HDRCT_R);

	if ((hdrct & HDRCT_R) && dlen == DDP_UNTAGGED_HDR_SIZE &&
	    (get_unaligned_be16(b) & RDMAP_CTRL_OPCODE_MASK) ==
	    RDMAP_RDMA_READ_REQ && bad_avail >= dlen + RDMAP_RREQ_SIZE &&
	    bad_seg_len >= dlen + RDMAP_RREQ_SIZE)
		rlen = RDMAP_RREQ_SIZE;
	if (!rlen)
		hdrct &= ~HDRCT_R;

	len = TERM_MIN_SEG + dlen + rlen;
	if (hdrct & HDRCT_M)
		len += TERM_SEGLEN_SIZE;
	if (size < len)
		return -ENOSPC;

	ddp_build_hdr(p, size, &th);
	ctrl = (u32)term->layer << RDMAP_TERM_LAYER_SHIFT |
	       (u32)term->etype << RDMAP_TERM_ETYPE_SHIFT |
	       (u32)term->ecode << RDMAP_TERM_ECODE_SHIFT |
	       (u32)hdrct << RDMAP_TERM_HDRCT_SHIFT;
	put_unaligned_be32(ctrl, p + DDP_UNTAGGED_HDR_SIZE);
	off = TERM_MIN_SEG;
	if (hdrct & HDRCT_M) {
		put_unaligned_be16(bad_seg_len, p + off);
		off += TERM_SEGLEN_SIZE;
	}
	if (dlen)
		memcpy(p + off, b, dlen + rlen);
	return len;
}

/**
 * rdmap_parse_terminate - parse a received Terminate body
 * @body: the Terminate message's payload (after its DDP header)
 * @len: payload length
 * @t: result; pointers point into @body
 *
 * A Terminate is never answered with another, so there is no Terminate
 * descriptor here: a malformed one only loses the details it carried.
 *
 * Return: 0 or -EBADMSG.
 */
int rdmap_parse_terminate(const void *body, size_t len,
			  struct rdmap_term_info *t)
{
	const u8 *p = body;
	size_t off = RDMAP_TERM_CTRL_SIZE;
	unsigned int dlen;
	u16 ddp_ctrl;
	u32 ctrl;

	memset(t, 0, sizeof(*t));
	if (len < RDMAP_TERM_CTRL_SIZE)
		return -EBADMSG;

	ctrl = get_unaligned_be32(p);
	t->layer = ctrl >> RDMAP_TERM_LAYER_SHIFT;
	t->etype = (ctrl >> RDMAP_TERM_ETYPE_SHIFT) & 0xf;
	t->ecode = (ctrl >> RDMAP_TERM_ECODE_SHIFT) & 0xff;
	t->hdrct = (ctrl >> RDMAP_TERM_HDRCT_SHIFT) & 0x7;
	t->rsvd = ctrl & RDMAP_TERM_RSVD_MASK;
	if (t->layer > IW_TERM_LAYER_LLP)
		return -EBADMSG;
	/* Each echoed part is only locatable behind the one before it. */
	if ((t->hdrct & HDRCT_D) && !(t->hdrct & HDRCT_M))
		return -EBADMSG;
	if ((t->hdrct & HDRCT_R) && !(t->hdrct & HDRCT_D))
		return -EBADMSG;

	if (t->hdrct & HDRCT_M) {
		if (len < off + TERM_SEGLEN_SIZE)
			return -EBADMSG;
		t->seg_len = get_unaligned_be16(p + off);
		off += TERM_SEGLEN_SIZE;
	}
	if (t->hdrct & HDRCT_D) {
		if (len < off + sizeof(ddp_ctrl))
			return -EBADMSG;
		ddp_ctrl = get_unaligned_be16(p + off);
		dlen = ddp_ctrl & DDP_CTRL_TAGGED ? DDP_TAGGED_HDR_SIZE :
						    DDP_UNTAGGED_HDR_SIZE;
		if (len < off + dlen)
			return -EBADMSG;
		t->ddp_hdr = p + off;
		t->ddp_hdr_len = dlen;
		off += dlen;
		/*
		 * Only a Read Request has an RDMAP header to echo; a peer
		 * that sets R for another message echoes nothing more.
		 */
		if ((t->hdrct & HDRCT_R) && !(ddp_ctrl & DDP_CTRL_TAGGED) &&
		    (ddp_ctrl & RDMAP_CTRL_OPCODE_MASK) ==
		    RDMAP_RDMA_READ_REQ) {
			if (len < off + RDMAP_RREQ_SIZE)
				return -EBADMSG;
			t->rdmap_hdr = p + off;
			t->rdmap_hdr_len = RDMAP_RREQ_SIZE;
			off += RDMAP_RREQ_SIZE;
		}
	}
	return off == len ? 0 : -EBADMSG;
}

/**
 * iw_tagged_check - may the peer access [@to, @to + @len) through an STag
 * @r: what the STag lookup found
 * @need: IW_ACCESS_* the operation requires
 * @to: Tagged Offset from the peer
 * @len: octets to access
 * @layer: IW_TERM_LAYER_DDP for inbound tagged placement (RDMA Write,
 *	Read Response), IW_TERM_LAYER_RDMAP for the Data Source of a Read
 *	Request
 * @term: the Terminate owed on failure
 *
 * Pure arithmetic on 64-bit values that never overflows: a region may end
 * exactly at 2^64 and an access may end there too. Zero-length accesses
 * are checked like any other (@to within [base, base + len]); a caller
 * that accepts them without an STag skips this call.
 *
 * Return: 0; -EACCES for STag or access-rights errors; -ERANGE for a
 * wrapping or out-of-bounds range; -EINVAL for a bad @layer.
 */
int iw_tagged_check(const struct iw_tagged_region *r, u32 need, u64 to,
		    u64 len, u8 layer, struct iw_term *term)
{
	bool ddp = layer == IW_TERM_LAYER_DDP;
	u8 ecode, hdrct = HDRCT_M | HDRCT_D;
	u64 off;
	int err;

	iw_term_clear(term);
	if (!ddp && layer != IW_TERM_LAYER_RDMAP)
		return -EINVAL;
	if (!ddp)
		hdrct |= HDRCT_R;

	err = -EACCES;
	if (!r->stag_valid) {
		ecode = ddp ? DDP_TECODE_INVALID_STAG :
			      RDMAP_ECODE_INVALID_STAG;
		goto fail;
	}
	if (!r->stag_assoc) {
		ecode = ddp ? DDP_TECODE_STAG_NOT_ASSOC :
			      RDMAP_ECODE_STAG_NOT_ASSOC;
		goto fail;
	}
	/* RFC 5041 section 7.2 has no access-rights code; Invalid STag is closest. */
	if ((r->access & need) != need) {
		ecode = ddp ? DDP_TECODE_INVALID_STAG :
			      RDMAP_ECODE_ACCESS_RIGHTS;
		goto fail;
	}

	err = -ERANGE;
	/* The last octet, to + len - 1, must not pass 2^64 - 1. */
	if (len && len - 1 > U64_MAX - to) {
		ecode = ddp ? DDP_TECODE_TO_WRAP : RDMAP_ECODE_TO_WRAP;
		goto fail;
	}
	off = to - r->base;
	if (to < r->base || off > r->len || len > r->len - off) {
		ecode = ddp ? DDP_TECODE_BASE_BOUNDS : RDMAP_ECODE_BASE_BOUNDS;
		goto fail;
	}
	return 0;

fail:
	iw_term_set(term, layer,
		    ddp ? DDP_ETYPE_TAGGED : RDMAP_ETYPE_REMOTE_PROTECTION,
		    ecode, hdrct);
	return err;
}

/**
 * ddp_untagged_check - does a segment fit the untagged buffer it targets
 * @mo: the segment's Message Offset
 * @len: its payload length
 * @buf_len: size of the posted buffer
 * @term: the Terminate owed on failure
 *
 * Return: 0, -EPROTO (MO past the buffer) or -EMSGSIZE (payload overruns).
 */
int ddp_untagged_check(u32 mo, u32 len, u32 buf_len, struct iw_term *term)
{
	iw_term_clear(term);
	if (mo > buf_len) {
		iw_term_set(term, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			    DDP_UECODE_INVALID_MO, HDRCT_M | HDRCT_D);
		return -EPROTO;
	}
	if (len > buf_len - mo) {
		iw_term_set(term, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			    DDP_UECODE_TOO_LONG, HDRCT_M | HDRCT_D);
		return -EMSGSIZE;
	}
	return 0;
}

/**
 * ddp_msn_check - map a segment's MSN onto the posted buffers of its queue
 * @msn: the segment's MSN
 * @expected: MSN of the oldest message not yet completed on that queue
 * @posted: buffers posted on the queue
 * @window: MSNs ahead of @expected that the queue may legitimately see
 * @index: on success, which posted buffer (0 = oldest) the segment targets
 * @term: the Terminate owed on failure
 *
 * MSNs count modulo 2^32 (RFC 5041 section 4.3), so distances are taken in
 * serial arithmetic and a wrap from 0xffffffff to 0 is not an error.
 *
 * Return: 0 or -EPROTO.
 */
int ddp_msn_check(u32 msn, u32 expected, u32 posted, u32 window,
		  u32 *index, struct iw_term *term)
{
	u32 d = msn - expected;

	iw_term_clear(term);
	if (d < posted) {
		*index = d;
		return 0;
	}
	iw_term_set(term, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		    d < window ? DDP_UECODE_MSN_NO_BUFFER :
				 DDP_UECODE_MSN_RANGE,
		    HDRCT_M | HDRCT_D);
	return -EPROTO;
}
