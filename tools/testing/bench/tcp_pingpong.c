// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_pingpong - TCP round-trip latency, the raw-TCP counterpart of
 * perftest's ib_send_lat.
 *
 *   tcp_pingpong --server [--bind ADDR] [--port P] [--size N]
 *   tcp_pingpong --client ADDR [--port P] [--size N] [--iters N]
 *                [--warmup N]
 *
 * The client sends SIZE bytes, the server echoes them, the client waits
 * for all of them: one iteration.  Both sides set TCP_NODELAY so that
 * small messages are not held back by Nagle.  As perftest does for its
 * ping-pong tests, a latency is half a round trip; the client prints one
 * result line with min, typical (median), average, 99 % and max in
 * microseconds.  The server serves a single client, then exits.  Exit
 * status is 0 only if every byte went both ways.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static const char *prog = "tcp_pingpong";

static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(1);
}

static void print_usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s --server [--bind ADDR] [--port P] [--size N]\n"
		"       %s --client ADDR [--port P] [--size N] [--iters N] [--warmup N]\n"
		"defaults: port 18515, size 8, iters 1000, warmup 100\n",
		prog, prog);
	exit(status);
}

static long parse_num(const char *s, const char *name, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad %s '%s' (%ld..%ld)\n", prog, name, s,
			min, max);
		exit(2);
	}
	return v;
}

/* Move exactly len bytes; a short count means the peer went away. */
static int xfer(int fd, char *buf, size_t len, int do_send)
{
	ssize_t n;
	size_t done = 0;

	while (done < len) {
		if (do_send)
			n = send(fd, buf + done, len - done, MSG_NOSIGNAL);
		else
			n = recv(fd, buf + done, len - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : 0;
		done += n;
	}
	return 1;
}

static void set_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("setsockopt(TCP_NODELAY)");
}

static struct addrinfo *resolve(const char *host, const char *port,
				int passive)
{
	struct addrinfo hints = { 0 }, *ai;
	int rc;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", prog, host ? host : "*",
			gai_strerror(rc));
		exit(1);
	}
	return ai;
}

static int run_server(const char *bind_addr, const char *port, size_t size)
{
	struct addrinfo *ai = resolve(bind_addr, port, 1);
	int lfd, fd, one = 1, rc;
	unsigned long rounds = 0;
	char *buf;

	buf = malloc(size);
	if (!buf)
		die("malloc");
	lfd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, ai->ai_addr, ai->ai_addrlen))
		die("bind");
	if (listen(lfd, 1))
		die("listen");
	freeaddrinfo(ai);
	printf("listening on port %s\n", port);
	fflush(stdout);

	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	close(lfd);
	set_nodelay(fd);

	for (;;) {
		rc = xfer(fd, buf, size, 0);
		if (rc == 0)
			break;		/* the client is done */
		if (rc < 0 || xfer(fd, buf, size, 1) <= 0)
			die("echo");
		rounds++;
	}
	close(fd);
	printf("echoed %lu messages of %zu bytes\n", rounds, size);
	free(buf);
	return 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int run_client(const char *host, const char *port, size_t size,
		      long iters, long warmup)
{
	struct addrinfo *ai = resolve(host, port, 0), *p;
	double *lat, t0, sum = 0;
	char *buf;
	long i;
	int fd = -1;

	for (p = ai; p; p = p->ai_next) {
		fd = socket(p->ai_family, SOCK_STREAM, 0);
		if (fd < 0)
			continue;
		if (!connect(fd, p->ai_addr, p->ai_addrlen))
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		die("connect");
	set_nodelay(fd);

	buf = calloc(1, size);
	lat = calloc(iters, sizeof(*lat));
	if (!buf || !lat)
		die("calloc");

	for (i = -warmup; i < iters; i++) {
		t0 = now_us();
		if (xfer(fd, buf, size, 1) <= 0 || xfer(fd, buf, size, 0) <= 0)
			die("ping-pong");
		if (i >= 0)
			lat[i] = (now_us() - t0) / 2;
	}
	close(fd);

	qsort(lat, iters, sizeof(*lat), cmp_double);
	for (i = 0; i < iters; i++)
		sum += lat[i];
	printf(" #bytes #iterations    t_min[usec]    t_max[usec]");
	printf("  t_typical[usec]    t_avg[usec]  99%% percentile[usec]\n");
	printf(" %-7zu %-10ld %-14.2f %-14.2f %-16.2f %-14.2f %.2f\n",
	       size, iters, lat[0], lat[iters - 1], lat[iters / 2],
	       sum / iters, lat[(iters * 99) / 100]);
	free(lat);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", no_argument, NULL, 'S' },
		{ "client", required_argument, NULL, 'c' },
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *host = NULL, *bind_addr = NULL, *port = "18515";
	long size = 8, iters = 1000, warmup = 100;
	int server = 0, c;

	while ((c = getopt_long(argc, argv, "Sc:b:p:s:n:w:h", opts,
				NULL)) != -1) {
		switch (c) {
		case 'S':
			server = 1;
			break;
		case 'c':
			host = optarg;
			break;
		case 'b':
			bind_addr = optarg;
			break;
		case 'p':
			parse_num(optarg, "port", 1, 65535);
			port = optarg;
			break;
		case 's':
			size = parse_num(optarg, "size", 1, 64L << 20);
			break;
		case 'n':
			iters = parse_num(optarg, "iters", 1, 100000000);
			break;
		case 'w':
			warmup = parse_num(optarg, "warmup", 0, 100000000);
			break;
		case 'h':
			print_usage(0);
			break;
		default:
			print_usage(2);
		}
	}
	if (optind != argc || server == !!host)
		print_usage(2);
	if (server)
		return run_server(bind_addr, port, size);
	return run_client(host, port, size, iters, warmup);
}
