// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the starting corpus of fuzz_rx into seeds/rx/: streams of valid
 * FPDUs built with the driver's own encoders (ddp_build_hdr(),
 * rdmap_build_terminate(), mpa_fpdu_finish()), each with and without MPA
 * CRCs, addressed to the world fuzz_rx.h describes, and cut into pieces
 * by a few different schedules. libFuzzer starts from conversations that
 * get deep into rx.c instead of having to discover framing, CRCs, STags
 * and MSNs by itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "mpa_wire.h"
#include "ddp_wire.h"
#include "fuzz_rx.h"

#define SEED_MAX	1024

struct seed {
	u8 layout[4];
	u8 ev[255];
	unsigned int nev;
	u8 stream[SEED_MAX];
	size_t len;
	size_t queued;		/* stream octets the schedule queued */
	bool crc;
};

static int seed_idx;

static void die(const char *what)
{
	fprintf(stderr, "gen_rx_seeds: %s\n", what);
	exit(1);
}

static void seed_init(struct seed *s, bool crc, u8 l0, u8 l1, u8 l2, u8 l3)
{
	memset(s, 0, sizeof(*s));
	s->crc = crc;
	s->layout[0] = l0 | (crc ? RX_L0_CRC : 0);
	s->layout[1] = l1;
	s->layout[2] = l2;
	s->layout[3] = l3;
}

static u8 l0(enum rx_rq_mode rq, u8 rtr, u8 ird)
{
	return rq << RX_L0_RQ_SHIFT | rtr << RX_L0_RTR_SHIFT |
	       ird << RX_L0_IRD_SHIFT;
}

static void ev(struct seed *s, u8 c)
{
	if (s->nev == sizeof(s->ev))
		die("schedule too long");
	s->ev[s->nev++] = c;
}

/* Schedule: queue the stream up to octet @to, in skbs of up to 64. */
static void queue_to(struct seed *s, size_t to)
{
	size_t n;

	while (s->queued < to) {
		n = to - s->queued < 64 ? to - s->queued : 64;
		ev(s, RX_EV_SMALL_C(n));
		s->queued += n;
	}
}

/* One FPDU: headers from @h, then @plen payload octets (a pattern). */
static void fpdu(struct seed *s, const struct ddp_hdr_info *h, u32 plen)
{
	u8 *p = s->stream + s->len;
	size_t room = sizeof(s->stream) - s->len;
	ssize_t n;
	u32 i;

	n = ddp_build_hdr(p + MPA_HDR_SIZE, room - MPA_HDR_SIZE, h);
	if (n < 0 || (size_t)n + plen + MPA_HDR_SIZE > room)
		die("FPDU does not fit");
	for (i = 0; i < plen; i++)
		p[MPA_HDR_SIZE + n + i] = (u8)(0xc0 + s->len + i);
	n = mpa_fpdu_finish(p, room, n + plen, s->crc);
	if (n < 0)
		die("cannot frame");
	s->len += n;
}

static void write_(struct seed *s, u32 stag, u64 to, u32 len)
{
	struct ddp_hdr_info h = { .opcode = RDMAP_RDMA_WRITE, .last = 1,
				  .stag = stag, .to = to };

	fpdu(s, &h, len);
}

static void read_resp(struct seed *s, u32 stag, u64 to, u32 len, bool last)
{
	struct ddp_hdr_info h = { .opcode = RDMAP_RDMA_READ_RESP,
				  .last = last, .stag = stag, .to = to };

	fpdu(s, &h, len);
}

/* A Send message of @len octets in segments of @seg, MSN @msn. */
static void send(struct seed *s, u8 op, u32 msn, u32 len, u32 seg, u32 stag)
{
	struct ddp_hdr_info h = { .opcode = op, .msn = msn, .stag = stag };
	u32 mo = 0, n;

	do {
		n = len - mo < seg ? len - mo : seg;
		h.mo = mo;
		h.last = mo + n == len;
		fpdu(s, &h, n);
		mo += n;
	} while (mo < len);
}

static void read_req(struct seed *s, u32 msn, u32 src, u64 src_to, u32 size)
{
	struct ddp_hdr_info h = { .opcode = RDMAP_RDMA_READ_REQ, .last = 1,
				  .msn = msn };

	h.rreq.sink_stag = 0x7700 | msn;
	h.rreq.sink_to = 0x9000;
	h.rreq.read_size = size;
	h.rreq.source_stag = src;
	h.rreq.source_to = src_to;
	fpdu(s, &h, 0);
}

/* The peer's Terminate, echoing a Write of ours, or a Read Request. */
static void terminate(struct seed *s, bool read)
{
	struct iw_term t = { 1, IW_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
			     DDP_TECODE_INVALID_STAG, RDMAP_TERM_HDRCT_M |
			     RDMAP_TERM_HDRCT_D };
	struct ddp_hdr_info h = { .opcode = RDMAP_RDMA_WRITE, .last = 1,
				  .stag = 0x1234 };
	u8 bad[DDP_UNTAGGED_HDR_SIZE + RDMAP_RREQ_SIZE];
	u8 *p = s->stream + s->len;
	size_t room = sizeof(s->stream) - s->len;
	ssize_t n;
	int blen;

	if (read) {
		t.layer = IW_TERM_LAYER_RDMAP;
		t.etype = RDMAP_ETYPE_REMOTE_PROTECTION;
		t.ecode = RDMAP_ECODE_ACCESS_RIGHTS;
		t.hdrct |= RDMAP_TERM_HDRCT_R;
		h.opcode = RDMAP_RDMA_READ_REQ;
		h.msn = 1;
		h.rreq.read_size = rx_orq_len(0);
	}
	blen = ddp_build_hdr(bad, sizeof(bad), &h);
	if (blen < 0)
		die("cannot build echoed header");
	n = rdmap_build_terminate(p + MPA_HDR_SIZE, room - MPA_HDR_SIZE, 1,
				  &t, bad, blen, read ? blen : 100);
	if (n < 0)
		die("cannot build Terminate");
	n = mpa_fpdu_finish(p, room, n, s->crc);
	if (n < 0)
		die("cannot frame Terminate");
	s->len += n;
}

/*
 * Schedules: 0 leaves it all to the final drain; 1 cuts the stream in
 * pieces of 1..13 octets, some overlapping, with a pass after each; 2
 * feeds it one octet per skb, several skbs per pass.
 */
static void schedule(struct seed *s, int how)
{
	size_t left = s->len;
	unsigned int n, i = 0;

	while (how && left && s->nev < sizeof(s->ev) - 4) {
		if (how == 1) {
			n = 1 + (i * 5) % 13;
			ev(s, i % 3 ? RX_EV_SMALL_C(n) : 0x40 | 3 << 3);
			n = i % 3 ? n : 16;
			ev(s, RX_EV_PASS_C(i % 4 == 3 ? RX_ENTRY_DATA_READY :
						       RX_ENTRY_RX));
		} else {
			n = 1;
			ev(s, RX_EV_SMALL_C(1));
			if (i % 3 == 2)
				ev(s, RX_EV_PASS_C(RX_ENTRY_RX));
		}
		left -= n < left ? n : left;
		i++;
	}
}

/* Writes seeds/rx/@name, or seed-NN when @name is NULL. */
static void put(const struct seed *s, const char *name)
{
	u8 out[RX_HDR_LEN + sizeof(s->ev) + SEED_MAX];
	size_t n = 0;
	char path[64];
	FILE *f;

	memcpy(out, s->layout, 4);
	out[4] = s->nev;
	n = RX_HDR_LEN;
	memcpy(out + n, s->ev, s->nev);
	n += s->nev;
	memcpy(out + n, s->stream, s->len);
	n += s->len;
	mkdir("seeds", 0755);
	mkdir("seeds/rx", 0755);
	if (name)
		snprintf(path, sizeof(path), "seeds/rx/%s", name);
	else
		snprintf(path, sizeof(path), "seeds/rx/seed-%02d", seed_idx++);
	f = fopen(path, "wb");
	if (!f || fwrite(out, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* Each conversation, with and without CRCs, in up to three schedules. */
static void emit(void (*build)(struct seed *s, bool crc), int schedules)
{
	struct seed s;
	int crc, how;

	for (crc = 0; crc < 2; crc++) {
		for (how = 0; how < schedules; how++) {
			build(&s, crc);
			schedule(&s, how);
			put(&s, NULL);
		}
	}
}

/* Writes to the writable MR, including its last octet, and to the top. */
static void c_writes(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 0, 0), 0, 0, 3);
	write_(s, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE) + 16, 64);
	write_(s, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE) + 255, 1);
	write_(s, rx_stag(RX_MR_TOP), rx_iova(RX_MR_TOP) + 200, 56);
	write_(s, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE), 0);
}

/* Sends of one and several segments, and a Send with Invalidate. */
static void c_sends(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 0, 0), 4 << RX_L1_NRQE_SHIFT, 0,
		  3);
	send(s, RDMAP_SEND, 1, 30, 16, 0);
	send(s, RDMAP_SEND_SE, 2, 24, 8, 0);
	send(s, RDMAP_SEND_INVAL, 3, 40, 40, rx_stag(RX_MR_FRMR));
	send(s, RDMAP_SEND_SE_INVAL, 4, 0, 1, rx_stag(RX_MR_WRITE));
}

/* The same through an SRQ and a user ring, a Write between segments. */
static void c_srq(struct seed *s, bool crc)
{
	struct ddp_hdr_info h = { .opcode = RDMAP_SEND, .msn = 2 };

	seed_init(s, crc, l0(RX_RQ_SRQ, 0, 0), 3 << RX_L1_NRQE_SHIFT, 0, 3);
	send(s, RDMAP_SEND, 1, 10, 16, 0);
	fpdu(s, &h, 4);
	write_(s, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE) + 100, 20);
	h.mo = 4;
	h.last = 1;
	fpdu(s, &h, 4);
	send(s, RDMAP_SEND, 3, 20, 20, 0);
}

static void c_uring(struct seed *s, bool crc)
{
	c_srq(s, crc);
	s->layout[0] = l0(RX_RQ_URING, 0, 0) | (crc ? RX_L0_CRC : 0);
	s->layout[2] |= RX_L2_CORRUPT_WQE;
}

/* Read Requests within IRD, and Responses to our outstanding Reads. */
static void c_reads(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 0, 4), 0, 3 | RX_L2_ORQ_INV, 3);
	read_req(s, 1, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE), 128);
	read_resp(s, rx_orq_sink(0), rx_orq_to(0), 24, false);
	read_resp(s, rx_orq_sink(0), rx_orq_to(0) + 24, 16, true);
	read_req(s, 2, rx_stag(RX_MR_RDONLY), rx_iova(RX_MR_RDONLY) + 8, 8);
	read_resp(s, rx_orq_sink(1), rx_orq_to(1), rx_orq_len(1), true);
	read_req(s, 3, 0, 0, 0);
	read_resp(s, rx_orq_sink(2), rx_orq_to(2), rx_orq_len(2), true);
}

/* A Write, a Send, then the peer's Terminate, then data it must drop. */
static void c_terminate(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 0, 0), 1 << RX_L1_NRQE_SHIFT, 0,
		  3);
	write_(s, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE) + 4, 12);
	send(s, RDMAP_SEND, 1, 12, 12, 0);
	terminate(s, false);
	write_(s, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE) + 64, 12);
}

/* Our Read was refused: the peer's Terminate echoes its Request. */
static void c_term_read(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 0, 0), 0, 2, 3);
	terminate(s, true);
}

/* The responder awaits an RTR Send, then gets a real one. */
static void c_rtr_send(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 1, 0), 1 << RX_L1_NRQE_SHIFT, 0,
		  3);
	send(s, RDMAP_SEND, 1, 0, 1, 0);
	send(s, RDMAP_SEND, 2, 12, 12, 0);
}

/* The responder awaits an RTR Write, then gets a Send. */
static void c_rtr(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 2, 1), 1 << RX_L1_NRQE_SHIFT,
		  1 | RX_L2_ORQ_RTR, 3);
	write_(s, 0, 0, 0);
	read_resp(s, rx_orq_sink(0), rx_orq_to(0), 0, true);
	send(s, RDMAP_SEND, 1, 16, 16, 0);
}

/* A Send with no receive posted waits, until the consumer posts one. */
static void c_rqe_wait(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 0, 0), 0, RX_L2_WRAP, 3);
	send(s, RDMAP_SEND, 1, 20, 20, 0);
	send(s, RDMAP_SEND, 2, 4, 20, 0);
	ev(s, 0x40 | 3);
	ev(s, RX_EV_PASS_C(RX_ENTRY_RX));
	ev(s, RX_EV_LOCAL_C(RX_LOC_TICK, 1));
	ev(s, RX_EV_PASS_C(RX_ENTRY_RX));
	ev(s, RX_EV_LOCAL_C(RX_LOC_POST_RQE, 0));
	ev(s, RX_EV_PASS_C(RX_ENTRY_RQE_WORK));
	ev(s, RX_EV_LOCAL_C(RX_LOC_POST_RQE, 0));
}

/* Bad behaviour: a Write to a read-only MR, after valid traffic. */
static void c_bad_write(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 0, 0), 0, 0, 3);
	write_(s, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE) + 32, 32);
	write_(s, rx_stag(RX_MR_RDONLY), rx_iova(RX_MR_RDONLY), 32);
}

/* A Write cut by invalidation and deregistration between passes. */
static void c_dereg(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 0, 0), RX_L1_DEFER, 0, 3);
	write_(s, rx_stag(RX_MR_FRMR), rx_iova(RX_MR_FRMR), 200);
	write_(s, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE), 100);
	ev(s, 0x40 | 2);
	ev(s, RX_EV_PASS_C(RX_ENTRY_DATA_READY));
	ev(s, RX_EV_PASS_C(RX_ENTRY_RX_WORK));
	ev(s, RX_EV_LOCAL_C(RX_LOC_INVALIDATE, RX_MR_FRMR - 1));
	ev(s, RX_EV_LOCAL_C(RX_LOC_FAST_REG, 0));
	ev(s, 0x40 | 3);
	ev(s, RX_EV_PASS_C(RX_ENTRY_RX));
	ev(s, RX_EV_LOCAL_C(RX_LOC_DEREG, RX_MR_WRITE - 1));
}

/* The target of a Write, then of a Send, invalidated between passes. */
static void c_cut(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 0, 0), 3 << RX_L1_NRQE_SHIFT, 0,
		  3);
	write_(s, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE), 200);
	queue_to(s, 100);
	ev(s, RX_EV_PASS_C(RX_ENTRY_RX));
	ev(s, RX_EV_LOCAL_C(RX_LOC_INVALIDATE, RX_MR_WRITE - 1));
}

static void c_cut_send(struct seed *s, bool crc)
{
	seed_init(s, crc, l0(RX_RQ_KERNEL, 0, 0), 3 << RX_L1_NRQE_SHIFT, 0,
		  3);
	send(s, RDMAP_SEND, 1, 20, 20, 0);
	send(s, RDMAP_SEND, 2, 8, 8, 0);
	send(s, RDMAP_SEND, 3, 8, 8, 0);
	/* The third message goes on (MO 8) into the FRMR SGE of WQE 2. */
	s->len -= mpa_fpdu_len(DDP_UNTAGGED_HDR_SIZE + 8);
	{
		struct ddp_hdr_info h = { .opcode = RDMAP_SEND, .msn = 3 };

		fpdu(s, &h, 8);
		queue_to(s, s->len);
		ev(s, RX_EV_PASS_C(RX_ENTRY_RX));
		ev(s, RX_EV_LOCAL_C(RX_LOC_INVALIDATE, RX_MR_FRMR - 1));
		h.mo = 8;
		h.last = 1;
		fpdu(s, &h, 32);
	}
}

/*
 * Inputs that showed findings in rx.c (fuzz_rx.c's header lists them;
 * each stays a seed, so that every run replays it).
 *
 * 1 (fixed): a Send waits for a receive WQE; the one then posted to the
 * SRQ ring is malformed: RX failed the QP but left rqe_wait set, and
 * never read the socket again (the Write after it stayed queued).
 */
static void finding_rqe_wait(void)
{
	struct seed s;

	seed_init(&s, false, l0(RX_RQ_SRQ, 0, 0), 0, RX_L2_CORRUPT_WQE, 3);
	send(&s, RDMAP_SEND, 1, 12, 12, 0);
	send(&s, RDMAP_SEND, 2, 12, 12, 0);
	write_(&s, rx_stag(RX_MR_WRITE), rx_iova(RX_MR_WRITE), 16);
	ev(&s, 0x40 | 3);
	ev(&s, RX_EV_PASS_C(RX_ENTRY_RX));
	ev(&s, RX_EV_LOCAL_C(RX_LOC_POST_RQE, 0));
	ev(&s, RX_EV_PASS_C(RX_ENTRY_RQE_WORK));
	ev(&s, RX_EV_LOCAL_C(RX_LOC_POST_RQE, 0));
	ev(&s, RX_EV_PASS_C(RX_ENTRY_RQE_WORK));
	put(&s, "finding-1-rqe-wait");
}

/*
 * 2 (fixed): CRCs on; a Send longer than the posted WQE whose CRC is
 * wrong: the WQE was completed with IB_WC_LOC_LEN_ERR from the header,
 * before the CRC that would have shown the header corrupt was read.
 */
static void finding_early_cqe(void)
{
	struct seed s;

	seed_init(&s, true, l0(RX_RQ_KERNEL, 0, 0), 1 << RX_L1_NRQE_SHIFT,
		  0, 3);
	send(&s, RDMAP_SEND, 1, 40, 40, 0);
	s.stream[s.len - 1] ^= 0xff;
	put(&s, "finding-2-early-cqe");
}

int main(void)
{
	emit(c_writes, 3);
	emit(c_sends, 3);
	emit(c_srq, 2);
	emit(c_uring, 2);
	emit(c_reads, 3);
	emit(c_terminate, 2);
	emit(c_rtr, 2);
	emit(c_rqe_wait, 1);
	emit(c_bad_write, 1);
	emit(c_dereg, 1);
	emit(c_term_read, 1);
	emit(c_rtr_send, 2);
	emit(c_cut, 1);
	emit(c_cut_send, 1);
	finding_rqe_wait();
	finding_early_cqe();
	return 0;
}
