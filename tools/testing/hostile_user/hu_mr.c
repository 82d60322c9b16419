// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory registrations that cannot work: unmapped, inaccessible or
 * read-only memory registered for writing (ib_umem pins for write then),
 * absurd lengths and addresses, and more pinned memory than
 * RLIMIT_MEMLOCK allows an unprivileged process.  Each must fail at once
 * with the errno ib_umem_get() or the verbs core define, and must not
 * leave pinned pages or MRs behind.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile_user.h"

#define RW_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)

/* ibv_reg_mr_iova(): 0 or errno, the MR deregistered again. */
static int reg(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova,
	       int access, double *secs)
{
	double t0 = hu_now();
	struct ibv_mr *mr;
	int ret = 0;

	mr = ibv_reg_mr_iova(pd, addr, len, iova, access);
	if (secs)
		*secs = hu_now() - t0;
	if (!mr)
		return errno ? errno : EIO;
	if (ibv_dereg_mr(mr))
		ret = -1;
	return ret;
}

static void bad_memory(struct ibv_pd *pd)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = 16 * pg;
	unsigned char *m;
	double secs;
	int ret;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		tap_ok(false, "mr: mmap: %s", strerror(errno));
		return;
	}
	memset(m, 1, len);
	tap_errno(reg(pd, m, len, (uintptr_t)m, RW_ACCESS, NULL), 0,
		  "mr: 16 writable pages for remote write (control)");

	mprotect(m, len, PROT_READ);
	tap_errno(reg(pd, m, len, (uintptr_t)m, IBV_ACCESS_LOCAL_WRITE, NULL),
		  EFAULT, "mr: read-only memory with LOCAL_WRITE");
	tap_errno(reg(pd, m, len, (uintptr_t)m, RW_ACCESS, NULL), EFAULT,
		  "mr: read-only memory with REMOTE_WRITE");
	tap_errno(reg(pd, m, len, (uintptr_t)m, IBV_ACCESS_REMOTE_WRITE, NULL),
		  EINVAL, "mr: REMOTE_WRITE without LOCAL_WRITE");
	tap_errno(reg(pd, m, len, (uintptr_t)m, IBV_ACCESS_REMOTE_READ, NULL),
		  0, "mr: read-only memory for remote read (control)");

	mprotect(m, len, PROT_NONE);
	tap_errno(reg(pd, m, len, (uintptr_t)m, IBV_ACCESS_LOCAL_WRITE, NULL),
		  EFAULT, "mr: PROT_NONE memory with LOCAL_WRITE");
	/*
	 * 6.1's ib_umem_get() pins read-only MRs with FOLL_FORCE, which
	 * reaches PROT_NONE pages of the caller's own private memory (the
	 * core dropped FOLL_FORCE in 6.2): not siw_lite's to refuse.
	 */
	ret = reg(pd, m, len, (uintptr_t)m, 0, NULL);
	tap_ok(ret == 0 || ret == EFAULT,
	       "mr: PROT_NONE memory, read-only MR: EFAULT, or success with 6.1's FOLL_FORCE pinning (got %s)",
	       hu_err(ret));

	mprotect(m, len, PROT_READ | PROT_WRITE);
	/* the last 8 pages go away: a range half mapped */
	munmap(m + 8 * pg, 8 * pg);
	tap_errno(reg(pd, m, len, (uintptr_t)m, IBV_ACCESS_LOCAL_WRITE, NULL),
		  EFAULT, "mr: a range whose second half is unmapped");
	tap_errno(reg(pd, m + 8 * pg, pg, (uintptr_t)m, IBV_ACCESS_LOCAL_WRITE,
		      NULL), EFAULT, "mr: unmapped memory");

	ret = reg(pd, m, 1ULL << 40, (uintptr_t)m, IBV_ACCESS_LOCAL_WRITE,
		  &secs);
	tap_ok((ret == EFAULT || ret == ENOMEM) && secs < 10,
	       "mr: 1 TiB over 8 mapped pages: EFAULT or ENOMEM within 10 s (got %s after %.1f s)",
	       hu_err(ret), secs);
	ret = reg(pd, m, 1ULL << 62, (uintptr_t)m, 0, &secs);
	tap_ok((ret == EINVAL || ret == ENOMEM || ret == EFAULT) && secs < 10,
	       "mr: 4 EiB: EINVAL, ENOMEM or EFAULT within 10 s (got %s after %.1f s)",
	       hu_err(ret), secs);
	tap_errno(reg(pd, m, 0, (uintptr_t)m, IBV_ACCESS_LOCAL_WRITE, NULL),
		  EINVAL, "mr: zero length");
	/* same page offset as the address, or the core refuses it first */
	tap_errno(reg(pd, m, 2 * pg, UINT64_MAX - pg + 1,
		      IBV_ACCESS_LOCAL_WRITE, NULL), EINVAL,
		  "mr: an iova range that wraps around");
	tap_errno(reg(pd, (void *)(~0UL - pg + 1), pg, 0, 0, NULL), EINVAL,
		  "mr: an address range that wraps around");
	tap_errno(reg(pd, m + 3, 5, (uintptr_t)m + 3, IBV_ACCESS_LOCAL_WRITE,
		      NULL), 0, "mr: 5 bytes at offset 3 (byte granular)");
	tap_errno(reg(pd, m + pg - 3, 10, (uintptr_t)m + (1ULL << 40) + pg - 3,
		      IBV_ACCESS_LOCAL_WRITE, NULL),
		  0, "mr: 10 bytes across a page boundary, another iova");
	/* the RDMA core refuses it: EINVAL up to 6.1, EOPNOTSUPP since */
	ret = reg(pd, m, pg, (uintptr_t)m, IBV_ACCESS_ON_DEMAND, NULL);
	tap_ok(ret == EINVAL || ret == EOPNOTSUPP,
	       "mr: ON_DEMAND on a device without ODP: EINVAL or EOPNOTSUPP (got %s)",
	       hu_err(ret));
	munmap(m, 8 * pg);
}

/*
 * RLIMIT_MEMLOCK without CAP_IPC_LOCK: a child that opened the device as
 * root drops to nobody (the open file keeps working) with a 64 KiB
 * limit.  Its results come back as one byte per step through a pipe.
 */
enum { ML_SMALL, ML_BIG, ML_AGAIN, ML_SUM, ML_AFTER, ML_STEPS };

static void memlock_child(const struct hu_opts *o, int wfd)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct rlimit rl = { 64 << 10, 64 << 10 };
	unsigned char res[ML_STEPS];
	struct ibv_context *ctx;
	struct ibv_mr *a, *b;
	struct ibv_pd *pd;
	unsigned char *m;

	memset(res, 0xff, sizeof(res));
	ctx = hu_open(o);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pd || m == MAP_FAILED || setrlimit(RLIMIT_MEMLOCK, &rl) ||
	    setgroups(0, NULL) || setgid(65534) || setuid(65534))
		_exit(3);
	memset(m, 1, 1 << 20);

	/* 48 KiB fits in 64 */
	a = ibv_reg_mr(pd, m, 48 << 10, IBV_ACCESS_LOCAL_WRITE);
	res[ML_SMALL] = a ? 0 : errno;
	/* 1 MiB does not */
	b = ibv_reg_mr(pd, m, 1 << 20, IBV_ACCESS_LOCAL_WRITE);
	res[ML_BIG] = b ? 0 : errno;
	if (b)
		ibv_dereg_mr(b);
	/* 48 + 48 KiB does not either */
	b = ibv_reg_mr(pd, m + (256 << 10), 48 << 10, IBV_ACCESS_LOCAL_WRITE);
	res[ML_SUM] = b ? 0 : errno;
	if (b)
		ibv_dereg_mr(b);
	/* the failed attempts charged nothing: the first one fits again */
	if (a)
		ibv_dereg_mr(a);
	a = ibv_reg_mr(pd, m, 48 << 10, IBV_ACCESS_LOCAL_WRITE);
	res[ML_AGAIN] = a ? 0 : errno;
	if (a)
		ibv_dereg_mr(a);
	/* and 16 registrations in turn: every deregistration uncharges */
	res[ML_AFTER] = 0;
	for (int i = 0; i < 16 && !res[ML_AFTER]; i++) {
		a = ibv_reg_mr(pd, m + i * pg, 60 << 10,
			       IBV_ACCESS_LOCAL_WRITE);
		res[ML_AFTER] = a ? 0 : errno;
		if (a)
			ibv_dereg_mr(a);
	}
	if (write(wfd, res, sizeof(res)) != sizeof(res))
		_exit(4);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	_exit(0);
}

static void memlock(const struct hu_opts *o)
{
	unsigned char res[ML_STEPS];
	int p[2], st = -1;
	pid_t pid;

	if (pipe(p)) {
		tap_ok(false, "mr: pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(p[0]);
		alarm(30);
		memlock_child(o, p[1]);
	}
	close(p[1]);
	memset(res, 0xff, sizeof(res));
	if (pid < 0 || read(p[0], res, sizeof(res)) != sizeof(res)) {
		if (pid > 0)
			waitpid(pid, &st, 0);
		if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3)
			tap_skip("cannot drop to uid nobody with a 64 KiB RLIMIT_MEMLOCK",
				 "mr: RLIMIT_MEMLOCK as an unprivileged user");
		else
			tap_ok(false, "mr: RLIMIT_MEMLOCK child: status %#x",
			       st);
		close(p[0]);
		return;
	}
	close(p[0]);
	waitpid(pid, &st, 0);
	tap_errno(res[ML_SMALL], 0, "mr: as nobody, 64 KiB RLIMIT_MEMLOCK: 48 KiB");
	tap_errno(res[ML_BIG], ENOMEM, "mr: as nobody: 1 MiB");
	tap_errno(res[ML_SUM], ENOMEM, "mr: as nobody: another 48 KiB on top");
	tap_errno(res[ML_AGAIN], 0, "mr: as nobody: 48 KiB again after deregistering (nothing left charged)");
	tap_errno(res[ML_AFTER], 0, "mr: as nobody: 16 x 60 KiB in turn");
	tap_ok(WIFEXITED(st) && !WEXITSTATUS(st),
	       "mr: the unprivileged child exits cleanly (status %#x)", st);
}

void hu_case_mr(const struct hu_opts *o)
{
	struct ibv_context *ctx = hu_open(o);
	struct ibv_pd *pd;

	if (!ctx) {
		tap_ok(false, "mr: open the device");
		return;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		tap_ok(false, "mr: PD: %s", strerror(errno));
	} else {
		bad_memory(pd);
		tap_errno(ibv_dealloc_pd(pd), 0,
			  "mr: the PD deallocates: no MR left behind");
	}
	ibv_close_device(ctx);
	memlock(o);
}
