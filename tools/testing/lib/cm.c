// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdma_cm plumbing shared by the test programs under tools/testing (cm.h). */
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

struct rdma_event_channel *cm_channel(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int err;

	if (ch && cm_set_nonblock(ch->fd)) {
		err = errno;
		rdma_destroy_event_channel(ch);
		errno = err;
		return NULL;
	}
	return ch;
}

int cm_listen(struct rdma_event_channel *ch, struct sockaddr_storage *ss,
	      int backlog, struct rdma_cm_id **id)
{
	if (rdma_create_id(ch, id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(*id, (struct sockaddr *)ss) ||
	    rdma_listen(*id, backlog))
		return -1;
	return 0;
}

/* The event for @id, which should be @want: true if it is. */
static bool cm_expect(struct rdma_event_channel *ch, struct cm_stash *s,
		      struct rdma_cm_id *id, double deadline,
		      enum rdma_cm_event_type want, int *event)
{
	struct rdma_cm_event *ev = cm_wait_for(ch, s, id, deadline);

	*event = ev ? (int)ev->event : -1;
	if (ev)
		rdma_ack_cm_event(ev);
	return *event == (int)want;
}

enum cm_step cm_route(struct rdma_event_channel *ch, struct cm_stash *s,
		      struct rdma_cm_id **id, void *ctx,
		      struct sockaddr_storage *src,
		      struct sockaddr_storage *dst, unsigned int timeout,
		      int *event)
{
	if (rdma_create_id(ch, id, ctx, RDMA_PS_TCP))
		return CM_FAIL_CREATE;
	if (rdma_resolve_addr(*id, (struct sockaddr *)src,
			      (struct sockaddr *)dst, timeout * 1000))
		return CM_FAIL_ADDR;
	if (!cm_expect(ch, s, *id, cm_now() + timeout + 5,
		       RDMA_CM_EVENT_ADDR_RESOLVED, event))
		return CM_FAIL_ADDR_EVENT;
	if (rdma_resolve_route(*id, timeout * 1000))
		return CM_FAIL_ROUTE;
	if (!cm_expect(ch, s, *id, cm_now() + timeout + 5,
		       RDMA_CM_EVENT_ROUTE_RESOLVED, event))
		return CM_FAIL_ROUTE_EVENT;
	return CM_ROUTED;
}

void cm_conn_param(struct rdma_conn_param *p, const void *pdata,
		   unsigned int len, unsigned int rd)
{
	memset(p, 0, sizeof(*p));
	p->private_data = pdata;
	p->private_data_len = len;
	p->responder_resources = rd;
	p->initiator_depth = rd;
	/* both the most the CM allows: a slow peer is no test failure */
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

int cm_connect(struct rdma_event_channel *ch, struct cm_stash *s,
	       struct rdma_cm_id *id, struct rdma_conn_param *p,
	       double wait, struct rdma_cm_event **ev)
{
	*ev = NULL;
	if (rdma_connect(id, p))
		return -1;
	*ev = cm_wait_for(ch, s, id, cm_now() + wait);
	return 0;
}

int cm_accept(struct rdma_event_channel *ch, struct cm_stash *s,
	      struct rdma_cm_id *id, struct rdma_conn_param *p,
	      unsigned int timeout, int *event)
{
	*event = -1;
	if (rdma_accept(id, p))
		return -1;
	cm_expect(ch, s, id, cm_now() + timeout,
		  RDMA_CM_EVENT_ESTABLISHED, event);
	return 0;
}

void cm_idle(struct rdma_event_channel *ch, int async_fd, int ms)
{
	struct pollfd pfd[2] = {
		{ .fd = ch->fd, .events = POLLIN },
		{ .fd = async_fd, .events = POLLIN },
	};

	if (ms > 0)
		poll(pfd, 2, ms);
}

struct rdma_cm_event *cm_next_for(struct rdma_event_channel *ch,
				  struct cm_stash *s, struct rdma_cm_id *id)
{
	struct rdma_cm_event *ev;

	while ((ev = cm_next(ch, 0))) {
		if (ev->id == id)
			return ev;
		cm_stash_put(s, ev);
	}
	return NULL;
}

void cm_destroy_id(struct cm_stash *s, struct rdma_cm_id *id)
{
	cm_stash_purge(s, id);
	rdma_destroy_id(id);
}
