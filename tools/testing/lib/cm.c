// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdma_cm plumbing shared by the test programs under tools/ (cm.h). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cm.h"

double cm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int cm_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int cm_resolve(const char *prog, const char *host, const char *port,
	       bool passive, struct sockaddr_storage *ss)
{
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
			    (passive ? AI_PASSIVE : 0),
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res;
	int ret;

	ret = getaddrinfo(host, port, &hints, &res);
	if (ret) {
		fprintf(stderr, "%s: %s port %s: %s\n", prog,
			host ? host : "*", port, gai_strerror(ret));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

/* The loop, not one poll(): a wake-up without an event must not end it. */
struct rdma_cm_event *cm_next(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	double end = cm_now() + ms / 1000.0;
	int left;

	for (;;) {
		if (!rdma_get_cm_event(ch, &ev))
			return ev;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return NULL;
		left = (int)((end - cm_now()) * 1000);
		if (left <= 0) {
			errno = ETIMEDOUT;
			return NULL;
		}
		poll(&p, 1, left);
	}
}

struct rdma_cm_event *cm_stash_take(struct cm_stash *s, struct rdma_cm_id *id,
				    int type)
{
	struct rdma_cm_event *ev;
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		ev = s->ev[i];
		if ((!id || ev->id == id) &&
		    (type < 0 || (int)ev->event == type)) {
			memmove(&s->ev[i], &s->ev[i + 1],
				(s->n - i - 1) * sizeof(s->ev[0]));
			s->n--;
			return ev;
		}
	}
	return NULL;
}

void cm_stash_purge(struct cm_stash *s, struct rdma_cm_id *id)
{
	struct rdma_cm_event *ev;

	while ((ev = cm_stash_take(s, id, -1)))
		rdma_ack_cm_event(ev);
}

void cm_stash_put(struct cm_stash *s, struct rdma_cm_event *ev)
{
	if (s->n == CM_STASH_MAX) {
		printf("# dropping CM event %s\n", rdma_event_str(ev->event));
		fflush(stdout);
		rdma_ack_cm_event(ev);
		return;
	}
	s->ev[s->n++] = ev;
}

struct rdma_cm_event *cm_wait_for(struct rdma_event_channel *ch,
				  struct cm_stash *s, struct rdma_cm_id *id,
				  double deadline)
{
	int type = id ? -1 : RDMA_CM_EVENT_CONNECT_REQUEST;
	struct rdma_cm_event *ev = cm_stash_take(s, id, type);
	double left;

	while (!ev) {
		left = deadline - cm_now();
		if (left <= 0)
			return NULL;
		ev = cm_next(ch, left < 0.05 ? (int)(left * 1000) + 1 : 50);
		if (!ev)
			continue;
		if (id ? ev->id == id :
			 ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			break;
		cm_stash_put(s, ev);
		ev = NULL;
	}
	return ev;
}
