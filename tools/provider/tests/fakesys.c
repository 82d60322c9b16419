// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD shim that lets libibverbs see fake siw_lite devices, so the
 * provider can be exercised without the kernel module:
 *  - NETLINK_RDMA sockets fail, which makes libibverbs fall back to
 *    scanning $SYSFS_PATH/class/infiniband_verbs;
 *  - /dev/infiniband/<x> is replaced by /dev/null for stat() and open(),
 *    so the fake sysfs gives every uverbs device dev = 1:3;
 *  - opendir("/etc/libibverbs.d") is redirected to $SIWL_TEST_CONFDIR, so
 *    only the providers named in RDMAV_DRIVERS get loaded;
 *  - write() on such a /dev/null fd plays a minimal uverbs kernel for the
 *    legacy write() ABI (ioctl() on /dev/null fails with ENOTTY, which
 *    makes libibverbs use it): GET_CONTEXT answers with the siw_lite ABI
 *    version $SIWL_TEST_ABI (default 1), plus QUERY_DEVICE, QUERY_PORT,
 *    ALLOC/DEALLOC_PD and REG/DEREG_MR; and a loopback "RNIC" for the data
 *    path (see fake_dp_cmd()).  Everything else is EOPNOTSUPP;
 *  - with SIWL_TEST_RINGS=1 the context offers SIW_LITE_CAP_RINGS: a
 *    create asking for rings gets them in memfds that mmap() of the fake
 *    fd at the returned key maps, and the loopback RNIC then works from
 *    the rings (a POST_SEND without WRs is the doorbell).  Tests steer
 *    and inspect that "kernel" through the fakesys_* functions below,
 *    found with dlsym().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include <rdma/siw_lite-abi.h>

#define CDEV_DIR "/dev/infiniband/"
#define CONF_DIR "/etc/libibverbs.d"
#define MAX_FD 1024

/* Which fds are fake uverbs devices. */
static unsigned char fake_fd[MAX_FD];

#define REAL(ret, name, args)						\
	static ret (*real_##name) args;					\
	if (!real_##name)						\
		real_##name = (ret (*) args)dlsym(RTLD_NEXT, #name)

static bool is_cdev(const char *path)
{
	return !strncmp(path, CDEV_DIR, strlen(CDEV_DIR));
}

int socket(int domain, int type, int protocol)
{
	REAL(int, socket, (int, int, int));

	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return real_socket(domain, type, protocol);
}

int stat(const char *path, struct stat *st)
{
	REAL(int, stat, (const char *, struct stat *));

	return real_stat(is_cdev(path) ? "/dev/null" : path, st);
}

static int do_open(int (*real)(const char *, int, ...), const char *path,
		   int flags, mode_t mode)
{
	int fd;

	if (!is_cdev(path))
		return real(path, flags, mode);

	fd = real("/dev/null", flags, mode);
	if (fd >= 0 && fd < MAX_FD)
		fake_fd[fd] = 1;
	return fd;
}

int open(const char *path, int flags, ...)
{
	REAL(int, open, (const char *, int, ...));
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return do_open(real_open, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	REAL(int, open64, (const char *, int, ...));
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return do_open(real_open64, path, flags, mode);
}

int close(int fd)
{
	REAL(int, close, (int));

	if (fd >= 0 && fd < MAX_FD)
		fake_fd[fd] = 0;
	return real_close(fd);
}

DIR *opendir(const char *path)
{
	REAL(DIR *, opendir, (const char *));
	const char *dir = getenv("SIWL_TEST_CONFDIR");

	if (dir && !strcmp(path, CONF_DIR))
		path = dir;
	return real_opendir(path);
}

/*
 * Shared rings.  Each is a memfd the fake kernel maps once (its view) and
 * the provider maps through mmap() of the fake fd at the ring's key.
 */
#define FAKE_NRING	32
#define FAKE_KEY_STEP	0x100000ull

static struct fake_ring {
	int fd;
	size_t size;
	struct siw_lite_ring *hdr;
} rings[FAKE_NRING];

/* Index the next ring starts at (see fakesys_ring_base()). */
static uint32_t ring_base;
/* Doorbells rung, data-path write()s seen, manual mode. */
static unsigned int doorbells, dp_writes;
static bool manual;

unsigned int fakesys_doorbells(void)
{
	return doorbells;
}

unsigned int fakesys_dp_writes(void)
{
	return dp_writes;
}

/* Manual: doorbells are only counted; the test plays the kernel. */
void fakesys_manual(int on)
{
	manual = on;
}

void fakesys_ring_base(uint32_t base)
{
	ring_base = base;
}

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* A new ring of @num entries of @esize bytes; its key, 0 on failure. */
static uint64_t fake_ring_new(uint32_t num, size_t esize, uint32_t *size)
{
	size_t len = SIW_LITE_RING_ENTRIES + num * esize;
	int i, fd;
	void *p;

	len = (len + 4095) & ~(size_t)4095;
	for (i = 0; i < FAKE_NRING && rings[i].hdr; i++)
		;
	if (i == FAKE_NRING)
		return 0;
	fd = memfd_create("siwl-ring", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (ftruncate(fd, len)) {
		close(fd);
		return 0;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return 0;
	}
	rings[i].fd = fd;
	rings[i].size = len;
	rings[i].hdr = p;
	rings[i].hdr->prod = ring_base;
	rings[i].hdr->cons = ring_base;
	*size = len;
	return (i + 1) * FAKE_KEY_STEP;
}

static struct fake_ring *fake_ring_by_key(uint64_t key)
{
	uint64_t i = key / FAKE_KEY_STEP;

	if (key % FAKE_KEY_STEP || !i || i > FAKE_NRING || !rings[i - 1].hdr)
		return NULL;
	return &rings[i - 1];
}

static void fake_ring_free(struct siw_lite_ring *hdr)
{
	int i;

	for (i = 0; hdr && i < FAKE_NRING; i++) {
		if (rings[i].hdr != hdr)
			continue;
		munmap(rings[i].hdr, rings[i].size);
		close(rings[i].fd);
		memset(&rings[i], 0, sizeof(rings[i]));
	}
}

static void *fake_mmap(void *addr, size_t len, int prot, int flags, int fd,
		       off_t off, void *(*real)(void *, size_t, int, int, int,
						off_t))
{
	struct fake_ring *r;

	if (fd < 0 || fd >= MAX_FD || !fake_fd[fd])
		return real(addr, len, prot, flags, fd, off);
	r = fake_ring_by_key(off);
	if (!r || len > r->size || !(flags & MAP_SHARED)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return real(addr, len, prot, flags, r->fd, 0);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	REAL(void *, mmap, (void *, size_t, int, int, int, off_t));

	return fake_mmap(addr, len, prot, flags, fd, off, real_mmap);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	REAL(void *, mmap64, (void *, size_t, int, int, int, off_t));

	return fake_mmap(addr, len, prot, flags, fd, off, real_mmap64);
}

/* Copy at most out_words * 4 bytes of a response to user space. */
static void reply(const struct ib_uverbs_cmd_hdr *hdr, uint64_t uptr,
		  const void *resp, size_t len)
{
	size_t room = hdr->out_words * 4u;

	memcpy((void *)(uintptr_t)uptr, resp, len < room ? len : room);
}

/*
 * The data path: CQs, RC QPs and SRQs with the limits below, as the legacy
 * write() commands see them.  A QP is connected to itself: a Send lands
 * in its own RQ (or SRQ), an RDMA Write/Read copies straight to/from the
 * remote address of this process.  Any SGE with lkey FAKE_BAD_LKEY makes
 * the kernel refuse that WR (the uverbs bad_wr protocol).  Capacities are
 * granted as asked up to the limits; an SRQ gets one WR more than asked.
 */
#define FAKE_NCQ		8
#define FAKE_NQP		8
#define FAKE_NSRQ		4
#define FAKE_DEPTH		256
#define FAKE_MAX_SGE		6
#define FAKE_MAX_INLINE		64
#define FAKE_BAD_LKEY		0xbadu
#define FAKE_QPN_BASE		0x100
/* The kernel's enum ib_wc_flags, which ib_uverbs copies out verbatim. */
#define FAKE_KWC_WITH_INVALIDATE (1u << 2)

struct fake_rqe {
	uint64_t wr_id;
	uint32_t num_sge;
	struct ib_uverbs_sge sge[FAKE_MAX_SGE];
};

/* With a ring, the kernel's own copy of the index it owns is here. */
struct fake_rq {
	struct fake_rqe q[FAKE_DEPTH];
	unsigned int head, count, max_wr, max_sge;
	struct siw_lite_ring *ring;
	uint32_t num, cons;
};

static struct fake_cq {
	bool used;
	int users;
	unsigned int depth, head, count, armed, arms;
	struct ib_uverbs_wc q[FAKE_DEPTH];
	struct siw_lite_ring *ring;
	uint32_t num, prod;
	unsigned int events;
} cqs[FAKE_NCQ];

static struct fake_qp {
	bool used;
	uint32_t scq, rcq, srq;
	bool has_srq, sig_all;
	uint32_t max_send_wr, max_send_sge, max_inline, state;
	struct fake_rq rq;
	struct siw_lite_ring *sq;
	uint32_t sq_num, sq_cons;
} qps[FAKE_NQP];

static struct fake_srq {
	bool used;
	int users;
	uint32_t limit;
	struct fake_rq rq;
} srqs[FAKE_NSRQ];

/* The object behind a handle, NULL for a bad one. */
static struct fake_cq *fake_cq(uint32_t h)
{
	return h < FAKE_NCQ && cqs[h].used ? &cqs[h] : NULL;
}

static struct fake_qp *fake_qp(uint32_t h)
{
	return h < FAKE_NQP && qps[h].used ? &qps[h] : NULL;
}

static struct fake_srq *fake_srq(uint32_t h)
{
	return h < FAKE_NSRQ && srqs[h].used ? &srqs[h] : NULL;
}

static int fake_slot(bool *used, size_t stride, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		bool *u = (bool *)((char *)used + i * stride);

		if (!*u) {
			*u = true;
			return i;
		}
	}
	return -1;
}

_Static_assert(sizeof(struct siw_lite_sge) == sizeof(struct ib_uverbs_sge),
	       "ring and uverbs SGEs differ");

static void *fake_ent(struct siw_lite_ring *r, uint32_t num, uint32_t idx,
		      size_t esize)
{
	return (char *)r + SIW_LITE_RING_ENTRIES + (idx & (num - 1)) * esize;
}

/* A CQE into a CQ ring; an armed CQ counts an event and is disarmed. */
static void fake_ring_cqe(struct fake_cq *cq, const struct siw_lite_cqe *c)
{
	uint32_t arm, cons = __atomic_load_n(&cq->ring->cons,
					     __ATOMIC_ACQUIRE);

	if (cq->prod - cons >= cq->num)
		abort();	/* the tests never overrun a CQ */
	memcpy(fake_ent(cq->ring, cq->num, cq->prod, sizeof(*c)), c,
	       sizeof(*c));
	__atomic_store_n(&cq->ring->prod, ++cq->prod, __ATOMIC_RELEASE);
	arm = __atomic_load_n(&cq->ring->flags, __ATOMIC_SEQ_CST);
	if (arm == SIW_LITE_CQ_ARM_NEXT ||
	    (arm == SIW_LITE_CQ_ARM_SOLICITED &&
	     ((c->flags & SIW_LITE_CQE_SOLICITED) || c->status))) {
		if (__atomic_compare_exchange_n(&cq->ring->flags, &arm, 0,
						false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			cq->events++;
	}
}

static void fake_cqe(uint32_t h, uint64_t wr_id, uint32_t status,
		     uint32_t opcode, uint32_t byte_len, uint32_t qpn,
		     uint32_t flags, uint32_t inv)
{
	struct fake_cq *cq = &cqs[h];
	struct ib_uverbs_wc *wc;

	if (cq->ring) {
		struct siw_lite_cqe c = {
			.wr_id = wr_id, .opcode = opcode, .status = status,
			.byte_len = byte_len, .qp_num = qpn,
			.invalidated_rkey = inv,
			.flags = flags & FAKE_KWC_WITH_INVALIDATE ?
				 SIW_LITE_CQE_WITH_INV : 0,
			.vendor_err = status ? 0x5150 : 0,
		};

		fake_ring_cqe(cq, &c);
		return;
	}

	if (cq->count == cq->depth)
		abort();	/* the tests never overrun a CQ */
	wc = &cq->q[(cq->head + cq->count++) % FAKE_DEPTH];
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = status;
	wc->opcode = opcode;
	wc->byte_len = byte_len;
	wc->qp_num = qpn;
	wc->wc_flags = flags;
	wc->ex.invalidate_rkey = inv;
}

/* Gathers a WR's SGEs into buf (the tests stay far below its size). */
static uint32_t fake_gather(const struct ib_uverbs_sge *sge, uint32_t n,
			    char *buf)
{
	uint32_t i, len = 0;

	for (i = 0; i < n; i++) {
		memcpy(buf + len, (void *)(uintptr_t)sge[i].addr,
		       sge[i].length);
		len += sge[i].length;
	}
	return len;
}

/* Scatters len bytes; false when they do not fit. */
static bool fake_scatter(const struct ib_uverbs_sge *sge, uint32_t n,
			 const char *buf, uint32_t len)
{
	uint32_t i, c;

	for (i = 0; i < n && len; i++) {
		c = sge[i].length < len ? sge[i].length : len;
		memcpy((void *)(uintptr_t)sge[i].addr, buf, c);
		buf += c;
		len -= c;
	}
	return !len;
}

static int fake_post_rq(struct fake_rq *rq, const void *req, size_t len,
			const struct ib_uverbs_post_recv *cmd,
			struct ib_uverbs_post_send_resp *resp)
{
	const char *p = (const char *)req + sizeof(*cmd);
	const struct ib_uverbs_sge *sge;
	const struct ib_uverbs_recv_wr *wr;
	uint32_t i;

	if (sizeof(*cmd) + (uint64_t)cmd->wr_count * cmd->wqe_size +
	    (uint64_t)cmd->sge_count * sizeof(*sge) > len ||
	    cmd->wqe_size < sizeof(*wr))
		return EINVAL;
	sge = (const void *)(p + cmd->wr_count * cmd->wqe_size);
	for (i = 0; i < cmd->wr_count; i++) {
		struct fake_rqe *e;

		wr = (const void *)(p + i * cmd->wqe_size);
		if (wr->num_sge > rq->max_sge || rq->count == rq->max_wr ||
		    (wr->num_sge && sge[0].lkey == FAKE_BAD_LKEY)) {
			resp->bad_wr = i + 1;
			return EINVAL;
		}
		e = &rq->q[(rq->head + rq->count++) % FAKE_DEPTH];
		e->wr_id = wr->wr_id;
		e->num_sge = wr->num_sge;
		memcpy(e->sge, sge, wr->num_sge * sizeof(*sge));
		sge += wr->num_sge;
	}
	return 0;
}

/* Takes the next receive of @rq (its ring or its command queue). */
static bool fake_rq_take(struct fake_rq *rq, struct fake_rqe *out)
{
	const struct siw_lite_rqe *e;
	uint32_t prod;

	if (!rq->ring) {
		if (!rq->count)
			return false;
		*out = rq->q[rq->head];
		rq->head = (rq->head + 1) % FAKE_DEPTH;
		rq->count--;
		return true;
	}
	prod = __atomic_load_n(&rq->ring->prod, __ATOMIC_ACQUIRE);
	if (prod == rq->cons || prod - rq->cons > rq->num)
		return false;
	e = fake_ent(rq->ring, rq->num, rq->cons, sizeof(*e));
	out->wr_id = e->wr_id;
	out->num_sge = e->num_sge < FAKE_MAX_SGE ? e->num_sge : FAKE_MAX_SGE;
	memcpy(out->sge, e->sge, out->num_sge * sizeof(out->sge[0]));
	__atomic_store_n(&rq->ring->cons, ++rq->cons, __ATOMIC_RELEASE);
	return true;
}

/* One send WR, from a POST_SEND command or an SQ ring. */
struct fake_wr {
	uint64_t wr_id;
	uint32_t opcode;		/* IBV_WR_*, ~0u: unknown */
	bool signaled;
	uint32_t nsge;
	const struct ib_uverbs_sge *sge;
	const void *inl;		/* inline payload or NULL */
	uint32_t inl_len;
	uint64_t raddr;
	uint32_t inv;
};

static uint32_t fake_wc_opcode(uint32_t wr_opcode)
{
	switch (wr_opcode) {
	case IBV_WR_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	}
	return IBV_WC_SEND;
}

static void fake_exec(struct fake_qp *qp, const struct fake_wr *w)
{
	struct fake_rq *rq = qp->has_srq ? &srqs[qp->srq].rq : &qp->rq;
	uint32_t qpn = FAKE_QPN_BASE + (qp - qps);
	uint32_t st = IBV_WC_SUCCESS, flags = 0, n = 0, j;
	static char data[1 << 16];
	struct fake_rqe e;

	for (j = 0; j < w->nsge; j++)
		if (w->sge[j].lkey == FAKE_BAD_LKEY)
			st = IBV_WC_LOC_PROT_ERR;
	if (w->nsge > FAKE_MAX_SGE)
		st = IBV_WC_LOC_LEN_ERR;
	if (w->inl) {
		memcpy(data, w->inl, w->inl_len);
		n = w->inl_len;
	} else if (st == IBV_WC_SUCCESS && w->opcode != IBV_WR_RDMA_READ) {
		n = fake_gather(w->sge, w->nsge, data);
	}
	if (w->opcode == IBV_WR_SEND_WITH_INV)
		flags = FAKE_KWC_WITH_INVALIDATE;
	switch (st == IBV_WC_SUCCESS ? w->opcode : ~0u - 1) {
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_SEND:
		if (!fake_rq_take(rq, &e)) {
			st = IBV_WC_RNR_RETRY_EXC_ERR;
			break;
		}
		fake_cqe(qp->rcq, e.wr_id,
			 fake_scatter(e.sge, e.num_sge, data, n) ?
				IBV_WC_SUCCESS : IBV_WC_LOC_LEN_ERR,
			 IBV_WC_RECV, n, qpn, flags, flags ? w->inv : 0);
		break;
	case IBV_WR_RDMA_WRITE:
		memcpy((void *)(uintptr_t)w->raddr, data, n);
		break;
	case IBV_WR_RDMA_READ:
		for (j = 0; j < w->nsge; j++)
			n += w->sge[j].length;
		memcpy(data, (void *)(uintptr_t)w->raddr, n);
		fake_scatter(w->sge, w->nsge, data, n);
		break;
	case IBV_WR_LOCAL_INV:
		break;
	case ~0u - 1:		/* failed above */
		break;
	default:
		st = IBV_WC_LOC_QP_OP_ERR;
		break;
	}
	if (qp->sig_all || w->signaled || st != IBV_WC_SUCCESS)
		fake_cqe(qp->scq, w->wr_id, st, fake_wc_opcode(w->opcode), n,
			 qpn, 0, 0);
}

#define FAKE_NOPC (SIW_LITE_WR_LOCAL_INV + 1)

/* The doorbell: run every SQE the provider published. */
static void fake_sq_run(struct fake_qp *qp)
{
	static const uint32_t opc[FAKE_NOPC] = {
		[SIW_LITE_WR_WRITE] = IBV_WR_RDMA_WRITE,
		[SIW_LITE_WR_SEND] = IBV_WR_SEND,
		[SIW_LITE_WR_SEND_WITH_INV] = IBV_WR_SEND_WITH_INV,
		[SIW_LITE_WR_READ] = IBV_WR_RDMA_READ,
		[SIW_LITE_WR_LOCAL_INV] = IBV_WR_LOCAL_INV,
	};
	uint32_t prod = __atomic_load_n(&qp->sq->prod, __ATOMIC_ACQUIRE);
	struct siw_lite_sqe e;
	struct fake_wr w;

	if (prod - qp->sq_cons > qp->sq_num)
		return;		/* a real kernel: QP to ERROR */
	while (qp->sq_cons != prod) {
		memcpy(&e, fake_ent(qp->sq, qp->sq_num, qp->sq_cons,
				     sizeof(e)), sizeof(e));
		memset(&w, 0, sizeof(w));
		w.wr_id = e.wr_id;
		w.opcode = e.opcode < FAKE_NOPC ? opc[e.opcode] : ~0u;
		w.signaled = e.flags & SIW_LITE_WQE_SIGNALED;
		w.raddr = e.remote_addr;
		w.inv = e.invalidate_rkey;
		if (e.flags & SIW_LITE_WQE_INLINE) {
			w.inl = e.inline_data;
			w.inl_len = e.length < SIW_LITE_MAX_INLINE ?
				    e.length : SIW_LITE_MAX_INLINE;
		} else {
			w.nsge = e.num_sge;
			w.sge = (const struct ib_uverbs_sge *)e.sge;
		}
		fake_exec(qp, &w);
		/* a slot is free once its WQE completed */
		__atomic_store_n(&qp->sq->cons, ++qp->sq_cons,
				 __ATOMIC_RELEASE);
	}
}

static int fake_post_send(const void *req, size_t len,
			  struct ib_uverbs_post_send_resp *resp)
{
	const struct ib_uverbs_post_send *cmd = req;
	const char *p = (const char *)req + sizeof(*cmd);
	const struct ib_uverbs_sge *sge;
	struct fake_qp *qp;
	struct fake_wr w;
	uint32_t i, j;

	qp = len < sizeof(*cmd) ? NULL : fake_qp(cmd->qp_handle);
	if (!qp)
		return EINVAL;
	if (sizeof(*cmd) + (uint64_t)cmd->wr_count * cmd->wqe_size +
	    (uint64_t)cmd->sge_count * sizeof(*sge) > len ||
	    cmd->wqe_size < sizeof(struct ib_uverbs_send_wr))
		return EINVAL;
	if (!cmd->wr_count && qp->sq) {
		doorbells++;
		if (!manual)
			fake_sq_run(qp);
		return 0;
	}
	sge = (const void *)(p + cmd->wr_count * cmd->wqe_size);

	for (i = 0; i < cmd->wr_count; i++) {
		const struct ib_uverbs_send_wr *wr =
			(const void *)(p + i * cmd->wqe_size);

		for (j = 0; j < wr->num_sge; j++)
			if (sge[j].lkey == FAKE_BAD_LKEY)
				break;
		if (wr->num_sge > qp->max_send_sge || j < wr->num_sge) {
			resp->bad_wr = i + 1;
			return EINVAL;
		}
		switch (wr->opcode) {
		case IBV_WR_SEND_WITH_INV:
		case IBV_WR_SEND:
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_READ:
			break;
		default:
			resp->bad_wr = i + 1;
			return EINVAL;
		}
		memset(&w, 0, sizeof(w));
		w.wr_id = wr->wr_id;
		w.opcode = wr->opcode;
		w.signaled = wr->send_flags & IBV_SEND_SIGNALED;
		w.nsge = wr->num_sge;
		w.sge = sge;
		w.raddr = wr->wr.rdma.remote_addr;
		w.inv = wr->ex.invalidate_rkey;
		fake_exec(qp, &w);
		sge += wr->num_sge;
	}
	return 0;
}

/*
 * Does a create request of @len bytes (core part @core) ask for rings?
 * Only when the context offered them; every ureq starts with the flags.
 */
static bool fake_want_ring(const void *req, size_t len, size_t core)
{
	const char *env = getenv("SIWL_TEST_RINGS");
	uint32_t flags;

	if (!env || strcmp(env, "1") || len < core + 8)
		return false;
	memcpy(&flags, (const char *)req + core, sizeof(flags));
	return flags & SIW_LITE_USE_RING;
}

/*
 * The fake kernel's view of a ring: @kind 0 CQ, 1 SQ, 2 RQ, 3 SRQ of the
 * object with uverbs handle @handle; NULL if it has none.
 */
void *fakesys_ring(int kind, uint32_t handle, uint32_t *num)
{
	struct fake_qp *qp = kind == 1 || kind == 2 ? fake_qp(handle) : NULL;
	struct fake_srq *srq = kind == 3 ? fake_srq(handle) : NULL;
	struct fake_cq *cq = kind == 0 ? fake_cq(handle) : NULL;

	if (cq) {
		*num = cq->num;
		return cq->ring;
	}
	if (qp && kind == 1) {
		*num = qp->sq_num;
		return qp->sq;
	}
	if (qp) {
		*num = qp->rq.num;
		return qp->rq.ring;
	}
	if (srq) {
		*num = srq->rq.num;
		return srq->rq.ring;
	}
	return NULL;
}

/* Completion events the ring CQ @handle raised (armed, then a CQE). */
unsigned int fakesys_cq_events(uint32_t handle)
{
	struct fake_cq *cq = fake_cq(handle);

	return cq ? cq->events : 0;
}

/*
 * The data-path commands; returns -1 for "not one of them".  @resp_buf
 * receives the response (copied out by the caller, resp_len bytes).
 */
static int fake_dp_cmd(const struct ib_uverbs_cmd_hdr *hdr, const void *req,
		       size_t len, void *resp_buf, size_t *resp_len)
{
	union {
		const struct ib_uverbs_create_cq *create_cq;
		const struct ib_uverbs_destroy_cq *destroy_cq;
		const struct ib_uverbs_poll_cq *poll_cq;
		const struct ib_uverbs_req_notify_cq *notify;
		const struct ib_uverbs_create_qp *create_qp;
		const struct ib_uverbs_modify_qp *modify_qp;
		const struct ib_uverbs_query_qp *query_qp;
		const struct ib_uverbs_destroy_qp *destroy_qp;
		const struct ib_uverbs_post_recv *post_recv;
		const struct ib_uverbs_create_srq *create_srq;
		const struct ib_uverbs_modify_srq *modify_srq;
		const struct ib_uverbs_query_srq *query_srq;
		const struct ib_uverbs_destroy_srq *destroy_srq;
	} c = { .create_cq = req };
	struct fake_cq *cq;
	struct fake_qp *qp;
	struct fake_srq *srq;
	int h;

	switch (hdr->command) {
	case IB_USER_VERBS_CMD_CREATE_CQ: {
		struct {
			struct ib_uverbs_create_cq_resp core;
			struct siw_lite_uresp_create_cq drv;
		} *r = resp_buf;

		if (c.create_cq->cqe < 1 || c.create_cq->cqe > FAKE_DEPTH)
			return EINVAL;
		h = fake_slot(&cqs[0].used, sizeof(cqs[0]), FAKE_NCQ);
		if (h < 0)
			return ENOMEM;
		cq = &cqs[h];
		cq->depth = c.create_cq->cqe;
		memset(r, 0, sizeof(*r));
		r->core.cq_handle = h;
		r->core.cqe = c.create_cq->cqe;
		*resp_len = sizeof(r->core);
		if (fake_want_ring(req, len, sizeof(*c.create_cq))) {
			cq->num = pow2_at_least(cq->depth);
			r->drv.mmap_key = fake_ring_new(cq->num,
				sizeof(struct siw_lite_cqe), &r->drv.mmap_size);
			cq->ring = fake_ring_by_key(r->drv.mmap_key)->hdr;
			cq->prod = cq->ring->prod;
			r->drv.num_entries = cq->num;
			*resp_len = sizeof(*r);
		}
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_CQ:
		cq = fake_cq(c.destroy_cq->cq_handle);
		if (!cq)
			return EINVAL;
		if (cq->users)
			return EBUSY;
		fake_ring_free(cq->ring);
		memset(cq, 0, sizeof(*cq));
		/* no events were reported: zeroed resp */
		*resp_len = sizeof(struct ib_uverbs_destroy_cq_resp);
		memset(resp_buf, 0, *resp_len);
		return 0;
	case IB_USER_VERBS_CMD_POLL_CQ: {
		struct ib_uverbs_poll_cq_resp *r = resp_buf;
		unsigned int n = 0;

		cq = fake_cq(c.poll_cq->cq_handle);
		if (!cq)
			return EINVAL;
		while (n < c.poll_cq->ne && n < FAKE_DEPTH && cq->count) {
			r->wc[n++] = cq->q[cq->head];
			cq->head = (cq->head + 1) % FAKE_DEPTH;
			cq->count--;
		}
		r->count = n;
		r->reserved = 0;
		*resp_len = sizeof(*r) + n * sizeof(r->wc[0]);
		return 0;
	}
	case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ:
		cq = fake_cq(c.notify->cq_handle);
		if (!cq)
			return EINVAL;
		cq->armed = c.notify->solicited_only ? 2 : 1;
		cq->arms++;
		return 0;
	case IB_USER_VERBS_CMD_CREATE_QP: {
		const struct ib_uverbs_create_qp *q = c.create_qp;
		struct {
			struct ib_uverbs_create_qp_resp core;
			struct siw_lite_uresp_create_qp drv;
		} *rr = resp_buf;
		struct ib_uverbs_create_qp_resp *r = &rr->core;

		if (q->pd_handle != 7 || q->qp_type != IBV_QPT_RC ||
		    !fake_cq(q->send_cq_handle) ||
		    !fake_cq(q->recv_cq_handle) ||
		    (q->is_srq && !fake_srq(q->srq_handle)) ||
		    q->max_send_wr > FAKE_DEPTH ||
		    q->max_recv_wr > FAKE_DEPTH ||
		    q->max_send_sge > FAKE_MAX_SGE ||
		    q->max_recv_sge > FAKE_MAX_SGE ||
		    q->max_inline_data > FAKE_MAX_INLINE)
			return EINVAL;
		h = fake_slot(&qps[0].used, sizeof(qps[0]), FAKE_NQP);
		if (h < 0)
			return ENOMEM;
		qp = &qps[h];
		qp->scq = q->send_cq_handle;
		qp->rcq = q->recv_cq_handle;
		qp->has_srq = q->is_srq;
		qp->srq = q->srq_handle;
		qp->sig_all = q->sq_sig_all;
		qp->max_send_wr = q->max_send_wr;
		qp->max_send_sge = q->max_send_sge;
		qp->max_inline = q->max_inline_data;
		qp->rq.max_wr = q->is_srq ? 0 : q->max_recv_wr;
		qp->rq.max_sge = q->is_srq ? 0 : q->max_recv_sge;
		cqs[qp->scq].users++;
		cqs[qp->rcq].users++;
		if (qp->has_srq)
			srqs[qp->srq].users++;
		memset(r, 0, sizeof(*r));
		r->qp_handle = h;
		r->qpn = FAKE_QPN_BASE + h;
		r->max_send_wr = qp->max_send_wr;
		r->max_recv_wr = qp->rq.max_wr;
		r->max_send_sge = qp->max_send_sge;
		r->max_recv_sge = qp->rq.max_sge;
		r->max_inline_data = qp->max_inline;
		*resp_len = sizeof(*r);
		if (fake_want_ring(req, len, sizeof(*q))) {
			struct siw_lite_uresp_create_qp *d = &rr->drv;

			memset(d, 0, sizeof(*d));
			qp->sq_num = pow2_at_least(qp->max_send_wr);
			d->sq_key = fake_ring_new(qp->sq_num,
				sizeof(struct siw_lite_sqe), &d->sq_size);
			qp->sq = fake_ring_by_key(d->sq_key)->hdr;
			qp->sq_cons = qp->sq->cons;
			/* the kernel is idle: ring the doorbell */
			qp->sq->flags = SIW_LITE_SQ_DOORBELL;
			d->num_sqe = qp->sq_num;
			if (!qp->has_srq) {
				qp->rq.num = pow2_at_least(qp->rq.max_wr);
				d->rq_key = fake_ring_new(qp->rq.num,
					sizeof(struct siw_lite_rqe),
					&d->rq_size);
				qp->rq.ring = fake_ring_by_key(d->rq_key)->hdr;
				qp->rq.cons = qp->rq.ring->cons;
				d->num_rqe = qp->rq.num;
			}
			d->qp_id = r->qpn;
			*resp_len = sizeof(*rr);
		}
		return 0;
	}
	case IB_USER_VERBS_CMD_MODIFY_QP:
		qp = fake_qp(c.modify_qp->qp_handle);
		if (!qp)
			return EINVAL;
		if (c.modify_qp->attr_mask & IBV_QP_STATE)
			qp->state = c.modify_qp->qp_state;
		return 0;
	case IB_USER_VERBS_CMD_QUERY_QP: {
		struct ib_uverbs_query_qp_resp *r = resp_buf;

		qp = fake_qp(c.query_qp->qp_handle);
		if (!qp)
			return EINVAL;
		memset(r, 0, sizeof(*r));
		r->qp_state = qp->state;
		r->cur_qp_state = qp->state;
		r->max_send_wr = qp->max_send_wr;
		r->max_recv_wr = qp->rq.max_wr;
		r->max_send_sge = qp->max_send_sge;
		r->max_recv_sge = qp->rq.max_sge;
		r->max_inline_data = qp->max_inline;
		r->sq_sig_all = qp->sig_all;
		*resp_len = sizeof(*r);
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_QP:
		qp = fake_qp(c.destroy_qp->qp_handle);
		if (!qp)
			return EINVAL;
		cqs[qp->scq].users--;
		cqs[qp->rcq].users--;
		if (qp->has_srq)
			srqs[qp->srq].users--;
		fake_ring_free(qp->sq);
		fake_ring_free(qp->rq.ring);
		memset(qp, 0, sizeof(*qp));
		*resp_len = sizeof(struct ib_uverbs_destroy_qp_resp);
		memset(resp_buf, 0, *resp_len);
		return 0;
	case IB_USER_VERBS_CMD_POST_SEND:
		*resp_len = sizeof(struct ib_uverbs_post_send_resp);
		memset(resp_buf, 0, *resp_len);
		return fake_post_send(req, len, resp_buf);
	case IB_USER_VERBS_CMD_POST_RECV:
		*resp_len = sizeof(struct ib_uverbs_post_send_resp);
		memset(resp_buf, 0, *resp_len);
		qp = fake_qp(c.post_recv->qp_handle);
		if (!qp || qp->has_srq)
			return EINVAL;
		return fake_post_rq(&qp->rq, req, len, c.post_recv, resp_buf);
	case IB_USER_VERBS_CMD_POST_SRQ_RECV:
		*resp_len = sizeof(struct ib_uverbs_post_send_resp);
		memset(resp_buf, 0, *resp_len);
		/* same layout as POST_RECV, qp_handle holds the SRQ handle */
		srq = fake_srq(c.post_recv->qp_handle);
		if (!srq)
			return EINVAL;
		return fake_post_rq(&srq->rq, req, len, c.post_recv, resp_buf);
	case IB_USER_VERBS_CMD_CREATE_SRQ: {
		struct {
			struct ib_uverbs_create_srq_resp core;
			struct siw_lite_uresp_create_srq drv;
		} *rr = resp_buf;
		struct ib_uverbs_create_srq_resp *r = &rr->core;

		if (c.create_srq->pd_handle != 7 ||
		    c.create_srq->max_wr > FAKE_DEPTH ||
		    c.create_srq->max_sge > FAKE_MAX_SGE)
			return EINVAL;
		h = fake_slot(&srqs[0].used, sizeof(srqs[0]), FAKE_NSRQ);
		if (h < 0)
			return ENOMEM;
		srq = &srqs[h];
		/* grant more than asked, like real devices may */
		srq->rq.max_wr = c.create_srq->max_wr + 1;
		srq->rq.max_sge = c.create_srq->max_sge;
		srq->limit = c.create_srq->srq_limit;
		memset(r, 0, sizeof(*r));
		r->srq_handle = h;
		r->max_wr = srq->rq.max_wr;
		r->max_sge = srq->rq.max_sge;
		*resp_len = sizeof(*r);
		if (fake_want_ring(req, len, sizeof(*c.create_srq))) {
			memset(&rr->drv, 0, sizeof(rr->drv));
			srq->rq.num = pow2_at_least(srq->rq.max_wr);
			rr->drv.mmap_key = fake_ring_new(srq->rq.num,
				sizeof(struct siw_lite_rqe),
				&rr->drv.mmap_size);
			srq->rq.ring = fake_ring_by_key(rr->drv.mmap_key)->hdr;
			srq->rq.cons = srq->rq.ring->cons;
			rr->drv.num_entries = srq->rq.num;
			*resp_len = sizeof(*rr);
		}
		return 0;
	}
	case IB_USER_VERBS_CMD_MODIFY_SRQ:
		srq = fake_srq(c.modify_srq->srq_handle);
		if (!srq)
			return EINVAL;
		if (c.modify_srq->attr_mask & IBV_SRQ_LIMIT)
			srq->limit = c.modify_srq->srq_limit;
		return 0;
	case IB_USER_VERBS_CMD_QUERY_SRQ: {
		struct ib_uverbs_query_srq_resp *r = resp_buf;

		srq = fake_srq(c.query_srq->srq_handle);
		if (!srq)
			return EINVAL;
		memset(r, 0, sizeof(*r));
		r->max_wr = srq->rq.max_wr;
		r->max_sge = srq->rq.max_sge;
		r->srq_limit = srq->limit;
		*resp_len = sizeof(*r);
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
		srq = fake_srq(c.destroy_srq->srq_handle);
		if (!srq)
			return EINVAL;
		if (srq->users)
			return EBUSY;
		fake_ring_free(srq->rq.ring);
		memset(srq, 0, sizeof(*srq));
		*resp_len = sizeof(struct ib_uverbs_destroy_srq_resp);
		memset(resp_buf, 0, *resp_len);
		return 0;
	}
	return -1;
}

/* Size of each data-path request we accept, by command. */
static size_t fake_min_len(uint32_t cmd)
{
	switch (cmd) {
	case IB_USER_VERBS_CMD_CREATE_CQ:
		return sizeof(struct ib_uverbs_create_cq);
	case IB_USER_VERBS_CMD_DESTROY_CQ:
		return sizeof(struct ib_uverbs_destroy_cq);
	case IB_USER_VERBS_CMD_POLL_CQ:
		return sizeof(struct ib_uverbs_poll_cq);
	case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ:
		return sizeof(struct ib_uverbs_req_notify_cq);
	case IB_USER_VERBS_CMD_CREATE_QP:
		return sizeof(struct ib_uverbs_create_qp);
	case IB_USER_VERBS_CMD_MODIFY_QP:
		return sizeof(struct ib_uverbs_modify_qp);
	case IB_USER_VERBS_CMD_QUERY_QP:
		return sizeof(struct ib_uverbs_query_qp);
	case IB_USER_VERBS_CMD_DESTROY_QP:
		return sizeof(struct ib_uverbs_destroy_qp);
	case IB_USER_VERBS_CMD_POST_SEND:
		return sizeof(struct ib_uverbs_post_send);
	case IB_USER_VERBS_CMD_POST_RECV:
	case IB_USER_VERBS_CMD_POST_SRQ_RECV:
		return sizeof(struct ib_uverbs_post_recv);
	case IB_USER_VERBS_CMD_CREATE_SRQ:
		return sizeof(struct ib_uverbs_create_srq);
	case IB_USER_VERBS_CMD_MODIFY_SRQ:
		return sizeof(struct ib_uverbs_modify_srq);
	case IB_USER_VERBS_CMD_QUERY_SRQ:
		return sizeof(struct ib_uverbs_query_srq);
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
		return sizeof(struct ib_uverbs_destroy_srq);
	}
	return 0;
}

/* Commands without a response pointer. */
static bool fake_no_resp(uint32_t cmd)
{
	return cmd == IB_USER_VERBS_CMD_REQ_NOTIFY_CQ ||
	       cmd == IB_USER_VERBS_CMD_MODIFY_QP ||
	       cmd == IB_USER_VERBS_CMD_MODIFY_SRQ;
}

static int fake_cmd(const void *buf, size_t len)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const void *req = hdr + 1;
	uint64_t uptr;

	if (len < sizeof(*hdr) || hdr->in_words * 4u != len ||
	    (hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED))
		return EOPNOTSUPP;
	/* every request we play starts with the response pointer */
	memcpy(&uptr, req, sizeof(uptr));

	if (fake_min_len(hdr->command)) {
		static union {
			char buf[1 << 16];
			uint64_t align;
		} resp;
		size_t rlen = 0;
		int ret;

		if (len - sizeof(*hdr) < fake_min_len(hdr->command))
			return EINVAL;
		ret = fake_dp_cmd(hdr, req, len - sizeof(*hdr), resp.buf,
				  &rlen);
		/* uverbs copies the response out even for a failed post */
		if (rlen && !fake_no_resp(hdr->command))
			reply(hdr, uptr, resp.buf, rlen);
		return ret;
	}

	switch (hdr->command) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: {
		struct {
			struct ib_uverbs_get_context_resp core;
			struct siw_lite_uresp_alloc_ctx drv;
		} r = {};
		const char *abi = getenv("SIWL_TEST_ABI");

		r.core.async_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		r.core.num_comp_vectors = 1;
		r.drv.abi_version = abi ? atoi(abi) : SIW_LITE_ABI_VERSION;
		r.drv.max_inline = 64;
		abi = getenv("SIWL_TEST_RINGS");
		if (abi && !strcmp(abi, "1"))
			r.drv.caps = SIW_LITE_CAP_RINGS;
		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_DEVICE: {
		struct ib_uverbs_query_device_resp r = {};

		r.fw_ver = 1ull << 32 | 2 << 16 | 3;
		r.vendor_id = 0x626d74;
		r.max_pd = 100;
		r.phys_port_cnt = 1;
		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_PORT: {
		struct ib_uverbs_query_port_resp r = {};

		r.state = 4;		/* ACTIVE */
		r.max_mtu = r.active_mtu = 3;	/* 1024 */
		r.gid_tbl_len = 1;
		r.phys_state = 5;
		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp r = { .pd_handle = 7 };

		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_REG_MR: {
		struct ib_uverbs_reg_mr_resp r = {
			.mr_handle = 9, .lkey = 0x100, .rkey = 0x200,
		};

		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DEREG_MR:
		return 0;
	}
	return EOPNOTSUPP;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	REAL(ssize_t, write, (int, const void *, size_t));
	int err;

	if (fd < 0 || fd >= MAX_FD || !fake_fd[fd])
		return real_write(fd, buf, len);

	dp_writes++;
	err = fake_cmd(buf, len);
	if (err) {
		errno = err;
		return -1;
	}
	return len;
}
