// SPDX-License-Identifier: GPL-2.0
/*
 * MPA connection setup and FPDU framing, RFC 5044 and RFC 6581.
 *
 * Every error during setup is reported as MPA error 0x04 (RFC 5044 section
 * 8) unless RFC 6581 has a more precise code. Before the MPA exchange has
 * completed no FPDU, and so no Terminate, can be sent: callers in that
 * state close the connection (or reply with the R bit) and use the
 * Terminate descriptor only for logging.
 */
#include "mpa_wire.h"

#define MPA_RR_HDR_SIZE		sizeof(struct mpa_rr_hdr)
#define MPA_V2_SIZE		sizeof(struct mpa_v2_ird_ord)

static int mpa_bad_frame(struct iw_term *term, int err)
{
	iw_term_set(term, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		    MPA_ECODE_INVALID_RR, 0);
	return err;
}

int mpa_v2_encode(const struct mpa_v2_params *p, u8 *block)
{
	u16 ird = p->ird, ord = p->ord;

	if (ird > MPA_V2_IRD_ORD_MASK || ord > MPA_V2_IRD_ORD_MASK)
		return -EINVAL;
	if (p->rtr & ~MPA_RTR_ALL)
		return -EINVAL;
	/* RTR types only mean something when a peer-to-peer RTR will follow. */
	if (!p->p2p && p->rtr)
		return -EINVAL;

	if (p->p2p)
		ird |= MPA_V2_IRD_PEER2PEER;
	if (p->rtr & MPA_RTR_SEND)
		ird |= MPA_V2_IRD_RTR_SEND;
	if (p->rtr & MPA_RTR_WRITE)
		ord |= MPA_V2_ORD_RTR_WRITE;
	if (p->rtr & MPA_RTR_READ)
		ord |= MPA_V2_ORD_RTR_READ;

	put_unaligned_be16(ird, block);
	put_unaligned_be16(ord, block + 2);
	return 0;
}

void mpa_v2_decode(const u8 *block, struct mpa_v2_params *p)
{
	u16 ird = get_unaligned_be16(block);
	u16 ord = get_unaligned_be16(block + 2);

	p->ird = ird & MPA_V2_IRD_ORD_MASK;
	p->ord = ord & MPA_V2_IRD_ORD_MASK;
	p->p2p = !!(ird & MPA_V2_IRD_PEER2PEER);
	p->rtr = 0;
	if (ird & MPA_V2_IRD_RTR_SEND)
		p->rtr |= MPA_RTR_SEND;
	if (ord & MPA_V2_ORD_RTR_WRITE)
		p->rtr |= MPA_RTR_WRITE;
	if (ord & MPA_V2_ORD_RTR_READ)
		p->rtr |= MPA_RTR_READ;
}

/**
 * mpa_rr_parse - validate an MPA Request or Reply frame
 * @buf: received bytes, starting at the key
 * @avail: number of bytes at @buf
 * @type: which frame is expected here
 * @pol: what this end accepts
 * @info: parse result; @info->frame_len is set even on -EAGAIN
 * @term: the error to report, when the return is -EPROTO or -EOPNOTSUPP
 *
 * Return: 0; -EAGAIN if @avail is short of @info->frame_len; -ECONNREFUSED
 * for a well-formed Reply with the R bit (Private Data is available, no
 * Terminate is owed); -EOPNOTSUPP if the peer needs Markers and @pol does
 * not allow them (a Responder rejects with the R bit); -EPROTO otherwise.
 */
int mpa_rr_parse(const void *buf, size_t avail, enum mpa_rr_type type,
		 const struct mpa_rr_policy *pol, struct mpa_rr_info *info,
		 struct iw_term *term)
{
	const u8 *p = buf;
	const char *key = type == MPA_RR_REQUEST ? MPA_KEY_REQ : MPA_KEY_REP;
	const u8 *pd;

	iw_term_clear(term);
	memset(info, 0, sizeof(*info));
	info->frame_len = MPA_RR_HDR_SIZE;
	if (avail < MPA_RR_HDR_SIZE)
		return -EAGAIN;

	info->flags = p[16];
	info->rev = p[17];
	info->pd_len = get_unaligned_be16(p + 18);
	info->frame_len = MPA_RR_HDR_SIZE + info->pd_len;
	info->markers = !!(info->flags & MPA_RR_FLAG_MARKERS);
	info->crc = !!(info->flags & MPA_RR_FLAG_CRC);
	info->reject = !!(info->flags & MPA_RR_FLAG_REJECT);

	/*
	 * Section 7.1: the key is what tells an MPA peer from anything else
	 * that happened to connect, so it has to match exactly.
	 */
	if (memcmp(p, key, MPA_KEY_SIZE))
		return mpa_bad_frame(term, -EPROTO);
	if (info->rev < pol->rev_min || info->rev > pol->rev_max)
		return mpa_bad_frame(term, -EPROTO);
	if (info->pd_len > MPA_MAX_PRIVDATA)
		return mpa_bad_frame(term, -EPROTO);
	/* Only a Responder can reject. */
	if (type == MPA_RR_REQUEST && info->reject)
		return mpa_bad_frame(term, -EPROTO);

	if (avail < info->frame_len)
		return -EAGAIN;

	/*
	 * The Enhanced flag is a Res bit in Rev 1, where Res is not checked
	 * on reception (section 7.1), so it only counts from Rev 2 on.
	 */
	pd = p + MPA_RR_HDR_SIZE;
	info->ulp_pd = pd;
	info->ulp_pd_len = info->pd_len;
	if (info->rev >= MPA_REVISION_2 &&
	    (info->flags & MPA_RR_FLAG_ENHANCED)) {
		if (info->pd_len < MPA_V2_SIZE)
			return mpa_bad_frame(term, -EPROTO);
		info->enhanced = 1;
		mpa_v2_decode(pd, &info->v2);
		info->ulp_pd = pd + MPA_V2_SIZE;
		info->ulp_pd_len = info->pd_len - MPA_V2_SIZE;
	}

	if (type == MPA_RR_REPLY && info->reject)
		return -ECONNREFUSED;

	/* Section 7.1, M bit: Markers MUST then be sent to this peer. */
	if (info->markers && !pol->markers_ok)
		return mpa_bad_frame(term, -EOPNOTSUPP);
	if (pol->need_enhanced && !info->enhanced)
		return mpa_bad_frame(term, -EPROTO);

	return 0;
}

/**
 * mpa_rr_build - write an MPA Request or Reply frame
 * @buf: output buffer
 * @size: bytes available at @buf
 * @type: Request or Reply
 * @b: frame contents
 *
 * Return: frame length, -EINVAL for contents the RFCs do not allow,
 * -EMSGSIZE if the Private Data exceeds 512 octets, -ENOSPC if @size is
 * too small.
 */
ssize_t mpa_rr_build(void *buf, size_t size, enum mpa_rr_type type,
		     const struct mpa_rr_build *b)
{
	u8 *p = buf;
	const char *key = type == MPA_RR_REQUEST ? MPA_KEY_REQ : MPA_KEY_REP;
	u32 pd_len = b->ulp_pd_len;
	u8 flags = 0;
	int rv;

	if (b->rev != MPA_REVISION_1 && b->rev != MPA_REVISION_2)
		return -EINVAL;
	if (b->enhanced && b->rev < MPA_REVISION_2)
		return -EINVAL;
	if (type == MPA_RR_REQUEST && b->reject)
		return -EINVAL;
	if (b->ulp_pd_len && !b->ulp_pd)
		return -EINVAL;
	if (b->enhanced)
		pd_len += MPA_V2_SIZE;
	if (pd_len > MPA_MAX_PRIVDATA)
		return -EMSGSIZE;
	if (size < MPA_RR_HDR_SIZE + pd_len)
		return -ENOSPC;

	if (b->enhanced) {
		rv = mpa_v2_encode(&b->v2, p + MPA_RR_HDR_SIZE);
		if (rv)
			return rv;
		flags |= MPA_RR_FLAG_ENHANCED;
	}
	if (b->markers)
		flags |= MPA_RR_FLAG_MARKERS;
	if (b->crc)
		flags |= MPA_RR_FLAG_CRC;
	if (b->reject)
		flags |= MPA_RR_FLAG_REJECT;

	memcpy(p, key, MPA_KEY_SIZE);
	p[16] = flags;
	p[17] = b->rev;
	put_unaligned_be16(pd_len, p + 18);
	if (b->ulp_pd_len)
		memcpy(p + MPA_RR_HDR_SIZE + (b->enhanced ? MPA_V2_SIZE : 0),
		       b->ulp_pd, b->ulp_pd_len);

	return MPA_RR_HDR_SIZE + pd_len;
}

static u16 mpa_min16(u16 a, u16 b)
{
	return a < b ? a : b;
}

/**
 * mpa_v2_negotiate_responder - choose the Reply's IRD, ORD and RTR type
 * @req: the Initiator's block
 * @local: this end's limits: most inbound reads (ird) and outbound reads
 *	(ord) it can have outstanding, and the RTR types it can receive
 * @rep: what to send in the Reply
 * @term: error to report on failure
 *
 * Never offers more outbound reads than the Initiator can take, nor more
 * inbound read slots than the Initiator will use. A Reply IRD below the
 * Initiator's ORD is legal: the Initiator then lowers its ORD or gives up
 * (mpa_v2_check_reply()).
 *
 * Return: 0, or -EPROTO with MPA "No Matching RTR" when peer-to-peer mode
 * was requested and no offered RTR type is usable here.
 */
int mpa_v2_negotiate_responder(const struct mpa_v2_params *req,
			       const struct mpa_v2_params *local,
			       struct mpa_v2_params *rep, struct iw_term *term)
{
	u8 usable;

	iw_term_clear(term);
	memset(rep, 0, sizeof(*rep));
	rep->ord = mpa_min16(local->ord, req->ird);
	rep->ird = mpa_min16(local->ird, req->ord);
	if (!req->p2p)
		return 0;

	usable = req->rtr & local->rtr & MPA_RTR_ALL;
	/* A zero-length Read RTR occupies one read slot on both ends. */
	if (!rep->ird)
		usable &= ~MPA_RTR_READ;
	/*
	 * Preference: a zero-length Write places nothing and consumes no
	 * resource; a Read needs a read slot; a Send eats a posted Receive
	 * the ULP did not post for it.
	 */
	if (usable & MPA_RTR_WRITE)
		rep->rtr = MPA_RTR_WRITE;
	else if (usable & MPA_RTR_READ)
		rep->rtr = MPA_RTR_READ;
	else if (usable & MPA_RTR_SEND)
		rep->rtr = MPA_RTR_SEND;
	else
		goto no_rtr;

	rep->p2p = 1;
	return 0;

no_rtr:
	iw_term_set(term, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		    MPA_ECODE_NO_MATCHING_RTR, 0);
	return -EPROTO;
}

/**
 * mpa_v2_check_reply - Initiator's check of the Responder's block
 * @sent: the block this end sent in its Request
 * @rep: the block received in the Reply
 * @relaxed_ord: accept a Reply IRD below our ORD by lowering our ORD
 * @res: the values to run the connection with: ird is what the peer may
 *	issue to us, ord what we may issue, rtr the single RTR type to send
 * @term: the Terminate to send on failure
 *
 * Return: 0, or -EPROTO with MPA "Insufficient IRD", "No Matching RTR" or
 * "Invalid Request/Reply".
 */
int mpa_v2_check_reply(const struct mpa_v2_params *sent,
		       const struct mpa_v2_params *rep, bool relaxed_ord,
		       struct mpa_v2_params *res, struct iw_term *term)
{
	iw_term_clear(term);
	memset(res, 0, sizeof(*res));

	/* The Responder would overrun the read queue we provisioned. */
	if (rep->ord > sent->ird)
		goto insufficient;
	res->ird = rep->ord;
	res->ord = sent->ord;
	if (rep->ird < sent->ord) {
		if (!relaxed_ord)
			goto insufficient;
		res->ord = rep->ird;
	}

	if (!sent->p2p) {
		if (rep->p2p)
			goto invalid;
		return 0;
	}
	/* Exactly one of the offered types, else we cannot leave RTR. */
	if (!rep->p2p || !rep->rtr || (rep->rtr & (rep->rtr - 1)) ||
	    (rep->rtr & ~sent->rtr & MPA_RTR_ALL) || (rep->rtr & ~MPA_RTR_ALL))
		goto no_rtr;
	if (rep->rtr == MPA_RTR_READ && !res->ord)
		goto no_rtr;
	res->p2p = 1;
	res->rtr = rep->rtr;
	return 0;

insufficient:
	iw_term_set(term, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		    MPA_ECODE_INSUFFICIENT_IRD, 0);
	return -EPROTO;
no_rtr:
	iw_term_set(term, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		    MPA_ECODE_NO_MATCHING_RTR, 0);
	return -EPROTO;
invalid:
	return mpa_bad_frame(term, -EPROTO);
}

/**
 * mpa_mulpdu - largest ULPDU whose FPDU fits one TCP segment
 * @emss: effective MSS, the TCP payload one segment can carry now
 *
 * RFC 5044 section 4.5, without Markers: MULPDU = EMSS - (6 + EMSS mod 4),
 * i.e. EMSS rounded down to the 4-octet FPDU alignment, less ULPDU_Length
 * and CRC, so that an FPDU never has to be split over two TCP segments.
 * Capped so that ULPDU_Length still fits 16 bits and no PAD is needed.
 *
 * Return: the MULPDU, 0 if @emss cannot hold even an empty FPDU.
 */
u32 mpa_mulpdu(u32 emss)
{
	u32 fpdu = emss & ~(u32)(MPA_ALIGN - 1);
	u32 cap = ((MPA_MAX_ULPDU + MPA_HDR_SIZE) & ~(u32)(MPA_ALIGN - 1)) -
		  MPA_HDR_SIZE;

	if (fpdu < MPA_HDR_SIZE + MPA_CRC_SIZE)
		return 0;
	fpdu -= MPA_HDR_SIZE + MPA_CRC_SIZE;
	return fpdu < cap ? fpdu : cap;
}

/**
 * mpa_fpdu_crc - CRC32c of a contiguous FPDU
 * @fpdu: FPDU start (the ULPDU_Length field); PAD must already be zero
 * @ulpdu_len: its ULPDU_Length
 *
 * RFC 5044 section 4.4: covers ULPDU_Length, ULPDU and PAD.
 *
 * Return: the four CRC octets, in wire order.
 */
__le32 mpa_fpdu_crc(const void *fpdu, u32 ulpdu_len)
{
	u32 n = MPA_HDR_SIZE + ulpdu_len + mpa_pad_len(ulpdu_len);

	return mpa_crc_final(mpa_crc_update(MPA_CRC_SEED, fpdu, n));
}

/**
 * mpa_fpdu_check_crc - verify the CRC of a contiguous, received FPDU
 * @fpdu: FPDU start
 * @avail: bytes at @fpdu
 * @term: MPA "CRC Error" on mismatch
 *
 * Only for connections that negotiated CRCs; otherwise the field MUST be
 * taken as valid whatever it holds (RFC 5044 section 7.1).
 *
 * Return: 0, -EAGAIN if the FPDU is not complete, -EBADMSG on mismatch.
 */
int mpa_fpdu_check_crc(const void *fpdu, size_t avail, struct iw_term *term)
{
	const u8 *p = fpdu;
	u32 ulpdu_len, total;
	__le32 crc;

	iw_term_clear(term);
	if (avail < MPA_HDR_SIZE)
		return -EAGAIN;
	ulpdu_len = get_unaligned_be16(p);
	total = mpa_fpdu_len(ulpdu_len);
	if (avail < total)
		return -EAGAIN;

	crc = mpa_fpdu_crc(p, ulpdu_len);
	if (memcmp(&crc, p + total - MPA_CRC_SIZE, MPA_CRC_SIZE)) {
		/* Nothing in a corrupted FPDU can be trusted to echo back. */
		iw_term_set(term, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA,
			    MPA_ECODE_CRC, 0);
		return -EBADMSG;
	}
	return 0;
}

/**
 * mpa_fpdu_finish - frame a ULPDU that sits at @fpdu + MPA_HDR_SIZE
 * @fpdu: FPDU start
 * @size: bytes available at @fpdu
 * @ulpdu_len: bytes of ULPDU already written
 * @crc: CRCs were negotiated; otherwise the CRC field is sent as zero
 *
 * Writes ULPDU_Length, zeroes the PAD (RFC 5044 section 4.1: MUST be zero)
 * and writes the CRC field.
 *
 * Return: the FPDU length to send, -EMSGSIZE or -ENOSPC.
 */
ssize_t mpa_fpdu_finish(void *fpdu, size_t size, u32 ulpdu_len, bool crc)
{
	u8 *p = fpdu;
	u32 pad, total;
	__le32 c = 0;

	if (ulpdu_len > MPA_MAX_ULPDU)
		return -EMSGSIZE;
	pad = mpa_pad_len(ulpdu_len);
	total = mpa_fpdu_len(ulpdu_len);
	if (size < total)
		return -ENOSPC;

	put_unaligned_be16(ulpdu_len, p);
	memset(p + MPA_HDR_SIZE + ulpdu_len, 0, pad);
	if (crc)
		c = mpa_fpdu_crc(p, ulpdu_len);
	memcpy(p + total - MPA_CRC_SIZE, &c, MPA_CRC_SIZE);
	return total;
}

/**
 * mpa_fpdu_trailer - PAD and CRC of an FPDU whose ULPDU is not contiguous
 * @trailer: where the PAD goes, with room for MPA_ALIGN + MPA_CRC_SIZE
 * @ulpdu_len: ULPDU_Length of the FPDU
 * @crc: the streaming CRC over ULPDU_Length and the ULPDU (from
 *	MPA_CRC_SEED), or NULL when CRCs were not negotiated
 *
 * The zero-copy counterpart of mpa_fpdu_finish(): the ULPDU sits in pages
 * the caller fed to mpa_crc_update() piece by piece; here the PAD is
 * zeroed and summed, and the CRC field follows it.
 *
 * Return: the trailer length, mpa_pad_len(@ulpdu_len) + MPA_CRC_SIZE.
 */
u32 mpa_fpdu_trailer(void *trailer, u32 ulpdu_len, const u32 *crc)
{
	u32 pad = mpa_pad_len(ulpdu_len);
	u8 *p = trailer;
	__le32 c = 0;

	memset(p, 0, pad);
	if (crc)
		c = mpa_crc_final(mpa_crc_update(*crc, p, pad));
	memcpy(p + pad, &c, MPA_CRC_SIZE);
	return pad + MPA_CRC_SIZE;
}
