// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ringtest - guest tests of siw_lite's shared-ring data path, over rdma_cm.
 *
 *   ringtest --server --bind ADDR [--port P] [--test LIST] [--timeout S]
 *   ringtest --client ADDR [--port P] [--test LIST] [--timeout S]
 *   ringtest --list
 *
 * Run the same --test LIST (comma-separated names, "basic", "hostile" or
 * "all", the default) on both sides; each case is one connection.  Output
 * is TAP ("ok N - case: role: what"); the exit status is 0 only if every
 * point passed on that side.  See README for the cases.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringtest.h"


static bool add_case(struct rt_opts *o, const struct rt_case *tc)
{
	if (o->ncases == RT_MAX_CASES)
		return false;
	o->cases[o->ncases++] = tc;
	return true;
}

static bool add_cases(struct rt_opts *o, const char *name)
{
	bool basic = !strcmp(name, "all") || !strcmp(name, "basic");
	bool hostile = !strcmp(name, "all") || !strcmp(name, "hostile");
	bool found = basic || hostile;
	unsigned int i;

	for (i = 0; rt_basic_cases[i]; i++)
		if (basic || !strcmp(name, rt_basic_cases[i]->name))
			found = add_case(o, rt_basic_cases[i]);
	for (i = 0; rt_hostile_cases[i].name; i++)
		if (hostile || !strcmp(name, rt_hostile_cases[i].name))
			found = add_case(o, &rt_hostile_cases[i]);
	return found;
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: ringtest --server --bind ADDR [--port P] [--test LIST] [--timeout S] [--verbose]\n"
		"       ringtest --client ADDR [--port P] [--test LIST] [--timeout S] [--verbose]\n"
		"       ringtest --list\n");
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 's' },
		{ "client", required_argument, NULL, 'c' },
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "test", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct rt_opts o = { .port = "7175", .timeout = 20 };
	const char *list = "all";
	char *names, *tok, *save;
	unsigned int i;
	bool role = false;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 's':
			o.server = true;
			role = true;
			break;
		case 'c':
			o.addr = optarg;
			role = true;
			break;
		case 'b':
			o.bind = optarg;
			break;
		case 'p':
			o.port = optarg;
			break;
		case 't':
			list = optarg;
			break;
		case 'T':
			o.timeout = atoi(optarg);
			break;
		case 'v':
			tap_verbose = true;
			break;
		case 'l':
			for (i = 0; rt_basic_cases[i]; i++)
				printf("%s\n", rt_basic_cases[i]->name);
			for (i = 0; rt_hostile_cases[i].name; i++)
				printf("%s\n", rt_hostile_cases[i].name);
			return 0;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (!role || optind != argc || (o.server && o.addr) || !o.timeout)
		usage(2);
	names = strdup(list);
	for (tok = strtok_r(names, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!add_cases(&o, tok)) {
			fprintf(stderr, "ringtest: unknown test %s\n", tok);
			return 2;
		}
	}
	free(names);
	/* a hung kernel call must not hang the selftest forever */
	alarm(o.ncases * 4 * o.timeout + 60);
	ret = o.server ? rt_server(&o) : rt_client(&o);
	printf("1..%u\n", tap_count());
	return ret || tap_failures() ? 1 : 0;
}
