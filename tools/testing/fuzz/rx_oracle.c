// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_rx: reads the whole byte stream the way RFC 5044 frames it, before
 * rx.c sees any of it: where each FPDU starts, ends and has its payload,
 * its DDP/RDMAP header (ddp_parse_hdr(), fuzzed on its own by
 * fuzz_ddp_hdr) and whether its CRC matches. rx.c is then held to this
 * reading: a byte it places must be payload of the FPDU it is processing,
 * and an FPDU may take effect only in stream order and with a good CRC.
 *
 * Nothing else of rx.c's logic is repeated here: which FPDUs rx.c must
 * reject is not decided, only what an accepted one may do.
 */
#include "mpa_wire.h"
#include "rx_env.h"

/*
 * The FPDU starting at @pos, or false when the stream ends inside its
 * headers or they do not parse (rx.c must then place nothing more).
 */
static bool rx_oracle_one(struct rx_world *w, u64 pos, struct rx_fpdu *f)
{
	size_t avail = w->stream_len - pos;
	struct iw_term term;
	u16 len;

	if (avail < MPA_HDR_SIZE)
		return false;
	len = get_unaligned_be16(w->stream + pos);
	memset(f, 0, sizeof(*f));
	f->start = pos;
	f->end = pos + mpa_fpdu_len(len);
	if (ddp_parse_hdr(w->stream + pos + MPA_HDR_SIZE, avail - MPA_HDR_SIZE,
			  len, &f->h, &term)) {
		w->oracle_bad_whole = f->end <= w->stream_len;
		return false;
	}
	f->hdr_end = pos + MPA_HDR_SIZE + f->h.hdr_len;
	/* A Terminate is read whole as header; it has nothing to place. */
	f->pay_end = f->h.opcode == RDMAP_TERMINATE ? f->hdr_end :
		     f->hdr_end + f->h.payload_len;
	f->placed = f->hdr_end;
	f->complete = f->end <= w->stream_len;
	f->crc_ok = f->complete &&
		    !mpa_fpdu_check_crc(w->stream + pos, f->end - pos, &term);
	f->msg_first = -1;
	return true;
}

static bool rx_is_send(u8 opcode)
{
	return opcode == RDMAP_SEND || opcode == RDMAP_SEND_INVAL ||
	       opcode == RDMAP_SEND_SE || opcode == RDMAP_SEND_SE_INVAL;
}

void rx_oracle_read(struct rx_world *w)
{
	/* The shortest FPDU is 8 octets (empty ULPDU, PAD 2, CRC 4). */
	int max = w->stream_len / mpa_fpdu_len(0) + 1;
	int msg_first = -1;
	struct rx_fpdu *f;
	u64 pos = 0;

	w->fpdus = calloc(max, sizeof(*w->fpdus));
	FUZZ_ASSERT(w->fpdus);
	w->nfpdu = 0;
	while (w->nfpdu < max) {
		f = &w->fpdus[w->nfpdu];
		if (!rx_oracle_one(w, pos, f)) {
			w->oracle_stopped = pos < w->stream_len;
			break;
		}
		/*
		 * A Send's segments come back to back (rx.c, top): the
		 * message begins with the first Send after a last one.
		 */
		if (rx_is_send(f->h.opcode)) {
			if (msg_first < 0)
				msg_first = w->nfpdu;
			f->msg_first = msg_first;
			if (f->h.last)
				msg_first = -1;
		}
		w->nfpdu++;
		/* A bad CRC ends the connection: nothing after it counts. */
		if (!f->crc_ok && (w->crc || !f->complete))
			break;
		pos = f->end;
	}
}

struct rx_fpdu *rx_oracle_cur(struct rx_world *w)
{
	FUZZ_ASSERT(w->fpdus_done < w->nfpdu);
	return &w->fpdus[w->fpdus_done];
}
