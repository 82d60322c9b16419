// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mmap() of the uverbs file with everything wrong: keys never handed
 * out or taken back, offsets into the middle of a ring, sizes other than
 * the ring's, private mappings, a file without a context.  The kernel
 * maps a whole ring from its key, shared, or nothing (EINVAL).  Then
 * mappings that outlive their ring, and rings unmapped under a live QP:
 * only the offender's own process may suffer.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hostile_user.h"

struct ring_cq {
	struct ibv_cq *cq;
	uint64_t key;
	uint32_t size;
};

/* A CQ with a ring, made by hand so that we learn its key. */
static int ring_cq_create(struct ibv_context *ctx, int cqe,
			  struct ring_cq *r)
{
	struct {
		struct pabi34_cmd_create_cq ibv;
		struct siw_lite_ureq_create_cq drv;
	} cmd;
	struct {
		struct ib_uverbs_create_cq_resp ibv;
		struct siw_lite_uresp_create_cq drv;
	} resp;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	cmd.drv.flags = SIW_LITE_USE_RING;
	r->cq = hu_cq_alloc();
	ret = ibv_cmd_create_cq(ctx, cqe, NULL, 0, r->cq, &cmd.ibv,
				sizeof(cmd), &resp.ibv, sizeof(resp));
	if (ret) {
		free(r->cq);
		r->cq = NULL;
		return ret;
	}
	r->key = resp.drv.mmap_key;
	r->size = resp.drv.mmap_size;
	return resp.drv.num_entries ? 0 : EPROTO;
}

/* mmap(): 0 or errno; a successful mapping is undone at once. */
static int try_map(int fd, size_t len, int prot, int flags, uint64_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, (off_t)off);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, len);
	return 0;
}

static void wrong_maps(struct ibv_context *ctx)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = ctx->cmd_fd, rfd, ret;
	struct ring_cq r;
	const int rw = PROT_READ | PROT_WRITE;

	/* 512 CQEs: a ring of several pages */
	ret = ring_cq_create(ctx, 512, &r);
	if (ret) {
		tap_errno(ret, 0, "mmap: a CQ with a ring");
		return;
	}
	tap_diag("mmap: CQ ring key %#llx, %u bytes",
		 (unsigned long long)r.key, r.size);
	tap_errno(try_map(fd, r.size, rw, MAP_SHARED, r.key), 0,
		  "mmap: the whole ring, shared (control)");
	tap_errno(try_map(fd, r.size, rw, MAP_SHARED, r.key + 4096 * pg),
		  EINVAL, "mmap: a key never handed out");
	tap_errno(try_map(fd, r.size - pg, rw, MAP_SHARED, r.key + pg),
		  EINVAL, "mmap: from the ring's second page");
	tap_errno(try_map(fd, r.size + pg, rw, MAP_SHARED, r.key), EINVAL,
		  "mmap: one page more than the ring");
	tap_errno(try_map(fd, 64 * (size_t)r.size, rw, MAP_SHARED, r.key),
		  EINVAL, "mmap: 64 times the ring");
	tap_errno(try_map(fd, pg, rw, MAP_SHARED, r.key), EINVAL,
		  "mmap: only the ring's first page");
	tap_errno(try_map(fd, r.size, rw, MAP_PRIVATE, r.key), EINVAL,
		  "mmap: MAP_PRIVATE");
	tap_errno(try_map(fd, r.size, rw, MAP_SHARED, r.key + 1), EINVAL,
		  "mmap: an offset that is not page aligned");
	ret = try_map(fd, r.size, rw, MAP_SHARED, ~0ULL & ~(uint64_t)(pg - 1));
	tap_ok(ret == EINVAL || ret == EOVERFLOW,
	       "mmap: the highest page offset: EINVAL or EOVERFLOW (got %s)",
	       hu_err(ret));
	ret = try_map(fd, r.size, rw | PROT_EXEC, MAP_SHARED, r.key);
	tap_ok(ret == 0 || ret == EINVAL || ret == EPERM || ret == EACCES,
	       "mmap: PROT_EXEC: refused or harmless (got %s)", hu_err(ret));

	rfd = hu_open_raw(ctx);
	if (rfd < 0) {
		tap_ok(false, "mmap: open a second uverbs file: %s",
		       strerror(errno));
	} else {
		tap_errno(try_map(rfd, r.size, rw, MAP_SHARED, r.key), EINVAL,
			  "mmap: the key on a file without a context");
		close(rfd);
	}

	hu_free_cq(r.cq);
	tap_errno(try_map(fd, r.size, rw, MAP_SHARED, r.key), EINVAL,
		  "mmap: the key of a destroyed CQ");
}

/* A mapping taken before its CQ is destroyed: still plain memory. */
static void outliving(struct ibv_context *ctx)
{
	struct ring_cq r;
	unsigned char *p;
	size_t i, bad = 0;
	int ret;

	ret = ring_cq_create(ctx, 64, &r);
	if (ret) {
		tap_errno(ret, 0, "mmap: a CQ with a ring");
		return;
	}
	p = mmap(NULL, r.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ctx->cmd_fd, (off_t)r.key);
	if (p == MAP_FAILED) {
		tap_ok(false, "mmap: map the ring: %s", strerror(errno));
		hu_free_cq(r.cq);
		return;
	}
	/* twice: a second mapping of the same ring is allowed */
	ret = try_map(ctx->cmd_fd, r.size, PROT_READ, MAP_SHARED, r.key);
	tap_errno(ret, 0, "mmap: the same ring mapped a second time");
	hu_free_cq(r.cq);
	memset(p, 0xa5, r.size);
	for (i = 0; i < r.size; i++)
		bad += p[i] != 0xa5;
	tap_ok(!bad, "mmap: a mapping of a destroyed CQ's ring stays usable memory (%zu bytes differ)",
	       bad);
	tap_errno(munmap(p, r.size) ? errno : 0, 0,
		  "mmap: and unmaps cleanly");
}

/* The uverbs mappings of this process (the provider's rings). */
static int uverbs_maps(void **start, size_t *len, int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long a, b;
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx", &a, &b) != 2)
			continue;
		start[n] = (void *)a;
		len[n++] = b - a;
	}
	fclose(f);
	return n;
}

static sigjmp_buf segv_env;

static void segv_jump(int sig)
{
	siglongjmp(segv_env, sig);
}

/*
 * The provider's rings unmapped under a QP that has work queued: posting
 * faults in our own process (caught), the kernel's side goes on; moving
 * the QP to ERROR makes the kernel flush into rings nobody maps, and
 * everything is destroyable afterwards.
 */
static void unmapped_rings(struct ibv_context *ctx)
{
	struct sigaction sa = { .sa_handler = segv_jump }, old;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	static char buf[4096];
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_send_wr *sbad;
	struct ibv_sge sge;
	struct ibv_qp_attr a;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	void *start[16];
	size_t len[16];
	int n, i, unmapped = 0, ret = 0, sig;

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qp = pd && cq ? ibv_create_qp(pd, &qa) : NULL;
	mr = qp ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
	     NULL;
	if (!mr) {
		tap_ok(false, "mmap: unmapped rings: set-up: %s",
		       strerror(errno));
		return;
	}
	sge.addr = (uintptr_t)buf;
	sge.length = 64;
	sge.lkey = mr->lkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (i = 0; i < 4; i++) {
		rwr.wr_id = i;
		ret |= ibv_post_recv(qp, &rwr, &rbad);
	}
	tap_errno(ret, 0, "mmap: unmapped rings: 4 receives posted first");

	n = uverbs_maps(start, len, 16);
	for (i = 0; i < n; i++)
		unmapped += !munmap(start[i], len[i]);
	tap_ok(n >= 3 && unmapped == n,
	       "mmap: unmapped rings: all %d of the process's rings unmapped",
	       n);

	sigaction(SIGSEGV, &sa, &old);
	sig = sigsetjmp(segv_env, 1);
	if (!sig)
		ret = ibv_post_recv(qp, &rwr, &rbad);
	sigaction(SIGSEGV, &old, NULL);
	tap_ok(true, "mmap: unmapped rings: a post afterwards: %s",
	       sig ? "SIGSEGV in our own process" : hu_err(ret));

	tap_errno(ibv_cmd_post_send(qp, NULL, &sbad), 0,
		  "mmap: unmapped rings: the SQ doorbell still answers");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	tap_errno(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0,
		  "mmap: unmapped rings: QP to ERROR (the kernel flushes into the unmapped rings)");
	tap_errno(ibv_cmd_post_recv(qp, NULL, &rbad), 0,
		  "mmap: unmapped rings: the RQ flush request still answers");
	tap_errno(ibv_destroy_qp(qp), 0, "mmap: unmapped rings: destroy QP");
	tap_errno(ibv_dereg_mr(mr), 0, "mmap: unmapped rings: deregister MR");
	tap_errno(ibv_destroy_cq(cq), 0, "mmap: unmapped rings: destroy CQ");
	tap_errno(ibv_dealloc_pd(pd), 0, "mmap: unmapped rings: deallocate PD");
}

void hu_case_mmap(const struct hu_opts *o)
{
	struct ibv_context *ctx = hu_open(o);

	if (!ctx) {
		tap_ok(false, "mmap: open the device");
		return;
	}
	wrong_maps(ctx);
	outliving(ctx);
	unmapped_rings(ctx);
	ibv_close_device(ctx);
}
