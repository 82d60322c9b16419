// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a small starting corpus for each fuzz target into seeds/<target>/
 * so that libFuzzer starts from valid frames instead of having to discover
 * the 16-octet MPA key and the version bits by itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "mpa_wire.h"
#include "ddp_wire.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

static void put(const char *target, int idx, const void *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "seeds/%s", target);
	mkdir("seeds", 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "seeds/%s/seed-%02d", target, idx);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void mpa_seeds(void)
{
	static const char pd[] = "private data for the ULP";
	struct mpa_rr_build b[] = {
		{ .rev = 1, .crc = 1, .ulp_pd = pd, .ulp_pd_len = sizeof(pd) },
		{ .rev = 2, .crc = 1, .enhanced = 1,
		  .v2 = { .ird = 16, .ord = 16, .p2p = 1,
			  .rtr = MPA_RTR_WRITE | MPA_RTR_READ } },
		{ .rev = 2, .enhanced = 1, .v2 = { .ird = 1, .ord = 0 },
		  .ulp_pd = pd, .ulp_pd_len = 4 },
		{ .rev = 1, .reject = 1, .ulp_pd = pd, .ulp_pd_len = 8 },
		{ .rev = 1, .markers = 1 },
	};
	u8 buf[1 + 600];
	size_t i;
	ssize_t n;
	int idx = 0;

	for (i = 0; i < ARRAY_LEN(b); i++) {
		/* policy octet: type, markers_ok, need_enhanced, rev 1..2 */
		buf[0] = (b[i].reject ? 1 : 0) | 1 << 3 | 2 << 5;
		n = mpa_rr_build(buf + 1, sizeof(buf) - 1,
				 b[i].reject ? MPA_RR_REPLY : MPA_RR_REQUEST,
				 &b[i]);
		if (n < 0)
			exit(1);
		put("mpa_rr", idx++, buf, n + 1);
		if (!b[i].reject) {
			buf[0] |= 1;
			n = mpa_rr_build(buf + 1, sizeof(buf) - 1,
					 MPA_RR_REPLY, &b[i]);
			put("mpa_rr", idx++, buf, n + 1);
		}
	}
}

static void ddp_seeds(void)
{
	struct iw_term t = { 1, IW_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
			     DDP_TECODE_BASE_BOUNDS, 6 };
	u8 buf[2 + 128], body[128];
	struct ddp_hdr_info h;
	int op, idx = 0;
	ssize_t n;

	for (op = 0; op <= RDMAP_OPCODE_MAX; op++) {
		memset(&h, 0, sizeof(h));
		h.opcode = op;
		h.last = 1;
		h.msn = 1;
		h.stag = 0x100 + op;
		h.to = 0x1000;
		h.rreq.read_size = 4096;
		n = ddp_build_hdr(buf + 2, sizeof(buf) - 2, &h);
		if (n < 0)
			exit(1);
		if (op == RDMAP_TERMINATE) {
			n = rdmap_build_terminate(buf + 2, sizeof(buf) - 2, 1,
						  &t, buf + 2, 0, 0);
			if (n < 0)
				exit(1);
		}
		put_unaligned_be16(n + (op == RDMAP_SEND ? 100 : 0), buf);
		put("ddp_hdr", idx++, buf, n + 2);
	}

	/* Terminate bodies: bare, tagged echo, Read Request echo */
	n = rdmap_build_terminate(body, sizeof(body), 1, &t, NULL, 0, 0);
	put("terminate", 0, body + 18, n - 18);
	memset(&h, 0, sizeof(h));
	h.opcode = RDMAP_RDMA_WRITE;
	ddp_build_hdr(buf, sizeof(buf), &h);
	n = rdmap_build_terminate(body, sizeof(body), 1, &t, buf, 14, 114);
	put("terminate", 1, body + 18, n - 18);
	h.opcode = RDMAP_RDMA_READ_REQ;
	h.last = 1;
	ddp_build_hdr(buf, sizeof(buf), &h);
	t.layer = IW_TERM_LAYER_RDMAP;
	t.etype = RDMAP_ETYPE_REMOTE_PROTECTION;
	t.hdrct = 7;
	n = rdmap_build_terminate(body, sizeof(body), 1, &t, buf, 46, 46);
	put("terminate", 2, body + 18, n - 18);
}

static void tagged_seeds(void)
{
	u8 buf[33];

	memset(buf, 0, sizeof(buf));
	put_unaligned_be64(0x1000, buf);
	put_unaligned_be64(0x1000, buf + 8);
	put_unaligned_be64(0x1800, buf + 16);
	put_unaligned_be64(0x800, buf + 24);
	buf[32] = 0x3b;
	put("tagged", 0, buf, sizeof(buf));
	put_unaligned_be64(~0ULL - 0xff, buf);
	put_unaligned_be64(0x100, buf + 8);
	put_unaligned_be64(~0ULL, buf + 16);
	put_unaligned_be64(1, buf + 24);
	put("tagged", 1, buf, sizeof(buf));
}

int main(void)
{
	mpa_seeds();
	ddp_seeds();
	tagged_seeds();
	return 0;
}
