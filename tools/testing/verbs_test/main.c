// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs_test - RC data-path tests for an RDMA device, over rdma_cm.
 *
 *   verbs_test --server [--bind ADDR] [--port P] [--test LIST] [options]
 *   verbs_test --client ADDR [--bind ADDR] [--port P] [--test LIST] [options]
 *
 * Run the same --test LIST on both sides (default: all).  Each test case
 * is one connection; the client tells the server the test and the seed in
 * its connect private data, so every byte both sides check is derived
 * from that seed.  Output is TAP; the exit status is 0 only if every test
 * point passed.  Every wait is bounded by --timeout seconds and a watchdog
 * ends the run if the sum of them is exceeded.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "verbs_test.h"
#include "tests.h"

const struct vt_test *const vt_tests[] = {
	&vt_test_send, &vt_test_write, &vt_test_read, &vt_test_send_inv,
	&vt_test_solicited, &vt_test_srq, &vt_test_reject,
	&vt_test_disconnect, &vt_test_too_small, &vt_test_no_recv, NULL,
};

const struct vt_test *vt_test_find(const char *name)
{
	unsigned int i;

	for (i = 0; vt_tests[i]; i++)
		if (!strcmp(vt_tests[i]->name, name))
			return vt_tests[i];
	return NULL;
}


/* ------------------------------------------------------------ options */

static void usage(FILE *f)
{
	unsigned int i;

	fputs("usage: verbs_test --server [--bind ADDR] [options]\n"
	      "       verbs_test --client ADDR [--bind ADDR] [options]\n"
	      "\n"
	      "  -s, --server          accept one connection per test case\n"
	      "  -c, --client ADDR     connect to ADDR (IPv4 or IPv6, numeric)\n"
	      "  -b, --bind ADDR       server: listen address (default 0.0.0.0);\n"
	      "                        client: source address\n"
	      "  -p, --port PORT       rdma_cm port (default 7174)\n"
	      "  -t, --test LIST       comma-separated test cases, or \"all\" (default);\n"
	      "                        both sides must run the same list\n"
	      "  -T, --timeout SECS    bound on every wait (default 30)\n"
	      "  -S, --seed N          client: data seed (default random, printed)\n"
	      "  -m, --size-max BYTES  client: largest message/RDMA op (default 8388608)\n"
	      "  -B, --budget BYTES    client: bytes per direction and data test\n"
	      "                        (default 20971520)\n"
	      "  -E, --no-empty        client: no zero-length Sends, Writes or Reads\n"
	      "  -v, --verbose         CM and async events as TAP comments\n"
	      "  -l, --list            list the test cases\n"
	      "  -h, --help\n"
	      "\n"
	      "Example: verbs_test --server --bind 192.0.2.1 &\n"
	      "         verbs_test --client 192.0.2.1 --test send,write\n"
	      "\ntest cases:\n", f);
	for (i = 0; vt_tests[i]; i++)
		fprintf(f, "  %-11s %s%s\n", vt_tests[i]->name,
			vt_tests[i]->desc,
			vt_tests[i]->iwarp_only ? " (iWARP only)" : "");
}

static int parse_tests(struct vt_opts *o, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	const struct vt_test *t;
	unsigned int i;

	if (!copy)
		return -1;
	o->ntests = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			for (i = 0; vt_tests[i]; i++)
				if (o->ntests < VT_ARRAY_SIZE(o->tests))
					o->tests[o->ntests++] = vt_tests[i];
			continue;
		}
		t = vt_test_find(tok);
		if (!t) {
			fprintf(stderr, "verbs_test: unknown test '%s' (see --list)\n",
				tok);
			free(copy);
			return -1;
		}
		if (o->ntests < VT_ARRAY_SIZE(o->tests))
			o->tests[o->ntests++] = t;
	}
	free(copy);
	if (!o->ntests) {
		fprintf(stderr, "verbs_test: no test selected\n");
		return -1;
	}
	return 0;
}

static int parse_u32(const char *s, const char *what, uint32_t min,
		     uint32_t max, uint32_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end || end == s || x < min || x > max) {
		fprintf(stderr, "verbs_test: bad %s '%s' (%u..%u)\n", what, s,
			min, max);
		return -1;
	}
	*v = x;
	return 0;
}

static void watchdog(int sig __attribute__((unused)))
{
	static const char msg[] = "Bail out! verbs_test: watchdog expired\n";

	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

/* Fills @o from the command line: -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct vt_opts *o)
{
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 's' },
		{ "client", required_argument, NULL, 'c' },
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "test", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "seed", required_argument, NULL, 'S' },
		{ "size-max", required_argument, NULL, 'm' },
		{ "budget", required_argument, NULL, 'B' },
		{ "no-empty", no_argument, NULL, 'E' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool server = false, client = false;
	unsigned int i;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "sc:b:p:t:T:S:m:B:Evlh", lo,
				  NULL)) != -1) {
		switch (opt) {
		case 's':
			server = true;
			break;
		case 'c':
			client = true;
			o->addr = optarg;
			break;
		case 'b':
			o->bind = optarg;
			break;
		case 'p':
			o->port = optarg;
			break;
		case 't':
			if (parse_tests(o, optarg))
				return 2;
			break;
		case 'T':
			if (parse_u32(optarg, "timeout", 1, 3600, &o->timeout))
				return 2;
			break;
		case 'S':
			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (errno || *end || end == optarg) {
				fprintf(stderr, "verbs_test: bad seed '%s'\n",
					optarg);
				return 2;
			}
			o->seed_set = true;
			break;
		case 'm':
			if (parse_u32(optarg, "size-max", 1, 1u << 30,
				      &o->size_max))
				return 2;
			break;
		case 'B':
			if (parse_u32(optarg, "budget", 1, 1u << 30,
				      &o->budget))
				return 2;
			break;
		case 'E':
			o->no_empty = true;
			break;
		case 'v':
			tap_verbose = true;
			break;
		case 'l':
			for (i = 0; vt_tests[i]; i++)
				printf("%s\n", vt_tests[i]->name);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || server == client) {
		usage(stderr);
		return 2;
	}
	if (o->budget < o->size_max) {
		fprintf(stderr, "verbs_test: --budget must be at least --size-max\n");
		return 2;
	}
	o->role = server ? VT_SERVER : VT_CLIENT;
	return -1;
}

static int run_server(const struct vt_opts *o)
{
	struct rdma_event_channel *ech = NULL;
	struct rdma_cm_id *listen_id = NULL;
	unsigned int i;

	if (vt_server_listen(o, &ech, &listen_id)) {
		printf("Bail out! cannot listen\n");
		return 1;
	}
	i = 0;
	while (i < o->ntests && vt_run_server(o, &i, ech))
		;
	for (; i < o->ntests; i++)
		tap_ok(false, "%s: server: not run, the client went away",
		       o->tests[i]->name);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ech);
	return 0;
}

static void run_client(struct vt_opts *o)
{
	unsigned int i;

	if (!o->seed_set && getrandom(&o->seed, sizeof(o->seed), 0) !=
	    sizeof(o->seed))
		o->seed = (uint64_t)time(NULL) << 20 ^ getpid();
	tap_diag("seed %#llx (reproduce with --seed), size-max %u, budget %u",
		 (unsigned long long)o->seed, o->size_max, o->budget);
	for (i = 0; i < o->ntests; i++)
		vt_run_client(o, o->tests[i], o->seed);
}

int main(int argc, char **argv)
{
	struct vt_opts o = {
		.port = "7174", .timeout = 30,
		.size_max = 8u << 20, .budget = 20u << 20,
	};
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_tests(&o, "all"))
		return 2;
	ret = parse_args(argc, argv, &o);
	if (ret >= 0)
		return ret;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, watchdog);
	/* every test waits a handful of times at most */
	alarm(o.timeout * (8 * o.ntests + 4));

	printf("TAP version 13\n");
	if (o.role == VT_SERVER) {
		if (run_server(&o))
			return 1;
	} else {
		run_client(&o);
	}
	printf("1..%u\n", tap_count());
	return tap_failures() ? 1 : 0;
}
