// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hostile_user - a local user of a siw_lite device that misuses the verbs
 * API on purpose: wrong driver data sizes and contents, wrong mmap()
 * offsets and sizes, impossible memory registrations, objects used
 * across protection domains or after they were destroyed, fork() with
 * live rings, and a process that dies mid-transfer.  Every misuse must
 * end in a clear error (or a fatal error of the offender's own QP), never
 * in a kernel warning, crash or leak; selftests/test_71_hostile_user.sh
 * checks the kernel log and the resource tables around it.
 *
 *   hostile_user --list
 *   hostile_user [--dev NAME] [--case NAME]        local cases (default all)
 *   hostile_user --server --bind ADDR [--port P] [--count N]
 *   hostile_user --client ADDR [--port P] --case NAME    cases with a peer
 *
 * Output is TAP ("ok N - case: what"); the exit status is 0 only if every
 * point passed.  A point that found a known kernel bug is reported
 * "ok ... # SKIP known bug: ..." so that it shows without failing.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostile_user.h"


static const struct {
	int e;
	const char *name;
} hu_errnames[] = {
	{ 0, "success" }, { EINVAL, "EINVAL" }, { EFAULT, "EFAULT" },
	{ ENOMEM, "ENOMEM" }, { EOPNOTSUPP, "EOPNOTSUPP" }, { EPERM, "EPERM" },
	{ EACCES, "EACCES" }, { EBUSY, "EBUSY" }, { ENOENT, "ENOENT" },
	{ EIO, "EIO" }, { EPROTO, "EPROTO" },
	{ ENODEV, "ENODEV" }, { ENXIO, "ENXIO" }, { EAGAIN, "EAGAIN" },
	{ EBADF, "EBADF" }, { ENOSPC, "ENOSPC" }, { EOVERFLOW, "EOVERFLOW" },
};

const char *hu_err(int e)
{
	static char buf[8][32];
	static unsigned int i;
	size_t k;
	char *b;

	for (k = 0; k < HU_ARRAY_SIZE(hu_errnames); k++)
		if (hu_errnames[k].e == e)
			return hu_errnames[k].name;
	b = buf[i++ % 8];
	snprintf(b, sizeof(buf[0]), "errno %d", e);
	return b;
}

bool tap_errno(int got, int want, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	bool ok = got == want;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (ok)
		tap_ok(true, "%s: %s", what, hu_err(want));
	else
		tap_ok(false, "%s: %s (got %s)", what, hu_err(want),
		       hu_err(got));
	return ok;
}

double hu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct ibv_context *hu_open(const struct hu_opts *o)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		tap_diag("ibv_get_device_list: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (o->dev && strcmp(ibv_get_device_name(list[i]), o->dev))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			tap_diag("ibv_open_device %s: %s",
				 ibv_get_device_name(list[i]), strerror(errno));
		break;
	}
	if (i == n)
		tap_diag("no RDMA device %s", o->dev ? o->dev : "at all");
	ibv_free_device_list(list);
	return ctx;
}

int hu_open_raw(struct ibv_context *ctx)
{
	char path[96];

	snprintf(path, sizeof(path), "/dev/infiniband/%s",
		 ctx->device->dev_name);
	return open(path, O_RDWR | O_CLOEXEC);
}

/* ------------------------------------------- objects of ibv_cmd_* calls */

static void *hu_zalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		perror("calloc");
		exit(2);
	}
	return p;
}

struct ibv_cq *hu_cq_alloc(void)
{
	struct ibv_cq *cq = hu_zalloc(sizeof(*cq));

	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
	return cq;
}

struct ibv_qp *hu_qp_alloc(void)
{
	/* libibverbs may look past ibv_qp (PABI34_VERBS_QP_ROOM) */
	struct ibv_qp *qp = hu_zalloc(PABI34_VERBS_QP_ROOM);

	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
	return qp;
}

struct ibv_srq *hu_srq_alloc(void)
{
	struct ibv_srq *srq = hu_zalloc(sizeof(*srq));

	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
	return srq;
}

void hu_free_cq(struct ibv_cq *cq)
{
	int ret = ibv_cmd_destroy_cq(cq);

	if (ret)
		tap_diag("ibv_cmd_destroy_cq: %s", hu_err(ret));
	free(cq);
}

void hu_free_qp(struct ibv_qp *qp)
{
	int ret = ibv_cmd_destroy_qp(qp);

	if (ret)
		tap_diag("ibv_cmd_destroy_qp: %s", hu_err(ret));
	free(qp);
}

void hu_free_srq(struct ibv_srq *srq)
{
	int ret = ibv_cmd_destroy_srq(srq);

	if (ret)
		tap_diag("ibv_cmd_destroy_srq: %s", hu_err(ret));
	free(srq);
}

/* ------------------------------------------------------------- main */

static const struct hu_case cases[] = {
	{ "udata", false, hu_case_udata,
	  "wrong driver request/response sizes and contents on every verb" },
	{ "stale", false, hu_case_stale,
	  "handles of destroyed objects and of the wrong type" },
	{ "mmap", false, hu_case_mmap,
	  "mmap with wrong keys, sizes, flags; mappings outliving rings" },
	{ "mr", false, hu_case_mr,
	  "impossible memory registrations, RLIMIT_MEMLOCK" },
	{ "sq_flood", false, hu_case_flood,
	  "a full send ring in one post on a QP in ERROR: all flushed" },
	{ "wqe_rules", false, hu_case_wqe,
	  "one table of send WQEs through uverbs and the ring: same verdicts" },
	{ "pd_cross", true, hu_case_pd_cross,
	  "an lkey of another PD or context in a WR" },
	{ "mr_inflight", true, hu_case_mr_inflight,
	  "dereg and unmap of an MR that outstanding WRs use" },
	{ "fork", true, hu_case_fork,
	  "fork() with live rings and a registered MR" },
	{ "qp_hijack", true, hu_case_qp_hijack,
	  "connect with another process's QP number" },
	{ "stream", true, hu_case_stream,
	  "RDMA Writes until the peer goes away (to be killed)" },
	{ NULL, false, NULL, NULL },
};

static void print_usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: hostile_user --list\n"
		"       hostile_user [--dev NAME] [--case NAME] [--verbose]\n"
		"       hostile_user --server --bind ADDR [--port P] [--count N]\n"
		"       hostile_user --client ADDR [--port P] --case NAME\n"
		"options: --timeout S (every wait, default 10)\n");
	exit(status);
}

/* What the command line asks for, beyond the options the cases see. */
struct hu_args {
	struct hu_opts o;
	const char *only;	/* --case */
	bool server;
	bool list;
};

/* Exits through print_usage() on --help and on a bad command line. */
static void parse_args(int argc, char **argv, struct hu_args *a)
{
	static const struct option lopts[] = {
		{ "bind", required_argument, NULL, 'b' },
		{ "case", required_argument, NULL, 't' },
		{ "client", required_argument, NULL, 'c' },
		{ "count", required_argument, NULL, 'n' },
		{ "dev", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "list", no_argument, NULL, 'l' },
		{ "port", required_argument, NULL, 'p' },
		{ "server", no_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			a->o.bind = optarg;
			break;
		case 't':
			a->only = optarg;
			break;
		case 'c':
			a->o.addr = optarg;
			break;
		case 'n':
			a->o.count = atoi(optarg);
			break;
		case 'd':
			a->o.dev = optarg;
			break;
		case 'h':
			print_usage(0);
			break;
		case 'l':
			a->list = true;
			break;
		case 'p':
			a->o.port = optarg;
			break;
		case 's':
			a->server = true;
			break;
		case 'T':
			a->o.timeout = atoi(optarg);
			break;
		case 'v':
			a->o.verbose = true;
			break;
		default:
			print_usage(1);
		}
	}
	if (optind != argc)
		print_usage(1);
}

/* The local cases, or just @only; returns the exit status. */
static int run_cases(const struct hu_opts *o, const char *only)
{
	const struct hu_case *tc;
	int ran = 0;

	for (tc = cases; tc->name; tc++) {
		if (only ? strcmp(only, tc->name) : tc->peer)
			continue;
		if (tc->peer && !o->addr) {
			fprintf(stderr, "case %s needs --client ADDR\n",
				tc->name);
			return 2;
		}
		tap_diag("case %s: %s", tc->name, tc->what);
		tc->run(o);
		ran++;
	}
	if (!ran) {
		fprintf(stderr, "no case %s (see --list)\n", only);
		return 2;
	}
	printf("1..%u\n", tap_count());
	return tap_failures() ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct hu_args a = { .o = { .port = "7176", .timeout = 10 } };
	const struct hu_case *tc;

	parse_args(argc, argv, &a);
	tap_verbose = a.o.verbose;
	/* our own stdout must not be duplicated into children by fork() */
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (a.list) {
		for (tc = cases; tc->name; tc++)
			printf("%s\t%s\t%s\n", tc->name,
			       tc->peer ? "peer" : "local", tc->what);
		return 0;
	}
	if (a.server) {
		if (!a.o.bind)
			print_usage(1);
		return hu_server(&a.o);
	}
	return run_cases(&a.o, a.only);
}
