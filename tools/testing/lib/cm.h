/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_cm plumbing shared by the test programs under tools/testing: the
 * clock every deadline is measured on, numeric address resolution,
 * bounded waits for CM events on a non-blocking event channel, and the
 * steps of a connection's set-up and teardown that the rigs have in
 * common (each rig says in its own words what went wrong).
 *
 * A server's connections share the listener's channel, so an event for
 * another id (the next client's connect request) can arrive while one id
 * is waited for: such events are kept in a stash until asked for. Every
 * event must still be acknowledged, or rdma_destroy_id() waits for ever.
 */
#ifndef SIWL_TOOLS_CM_H
#define SIWL_TOOLS_CM_H

#include <stdbool.h>
#include <sys/socket.h>
#include <rdma/rdma_cma.h>

/* CLOCK_MONOTONIC in seconds. */
double cm_now(void);

int cm_set_nonblock(int fd);

/*
 * Numeric @host (NULL: any, with @passive) and @port into @ss. Returns 0,
 * or -1 after telling stderr why, prefixed with @prog.
 */
int cm_resolve(const char *prog, const char *host, const char *port,
	       bool passive, struct sockaddr_storage *ss);

/*
 * The next event on non-blocking @ch within @ms milliseconds; NULL with
 * errno ETIMEDOUT, or with rdma_get_cm_event()'s errno.
 */
struct rdma_cm_event *cm_next(struct rdma_event_channel *ch, int ms);

#define CM_STASH_MAX	16

struct cm_stash {
	struct rdma_cm_event *ev[CM_STASH_MAX];
	unsigned int n;
};

/* Keeps @ev for later; a full stash acknowledges and drops it. */
void cm_stash_put(struct cm_stash *s, struct rdma_cm_event *ev);

/*
 * The first stashed event for @id (any id when NULL) of @type (any when
 * negative), or NULL.
 */
struct rdma_cm_event *cm_stash_take(struct cm_stash *s, struct rdma_cm_id *id,
				    int type);

/* Acknowledges whatever is stashed for @id, before it is destroyed. */
void cm_stash_purge(struct cm_stash *s, struct rdma_cm_id *id);

/*
 * The next event for @id (a connect request when @id is NULL) until
 * @deadline (cm_now() seconds); events for others go to @s. NULL on
 * timeout. A full stash drops (acknowledges) an event, with a "#"
 * comment on stdout.
 */
struct rdma_cm_event *cm_wait_for(struct rdma_event_channel *ch,
				  struct cm_stash *s, struct rdma_cm_id *id,
				  double deadline);

/*
 * A new non-blocking event channel; NULL with errno (nothing is left
 * behind).
 */
struct rdma_event_channel *cm_channel(void);

/*
 * A TCP port space id on @ch, bound to @ss and listening with @backlog in
 * *@id; -1 with errno from the verb that failed.
 */
int cm_listen(struct rdma_event_channel *ch, struct sockaddr_storage *ss,
	      int backlog, struct rdma_cm_id **id);

/* Where cm_route() stopped. */
enum cm_step {
	CM_ROUTED,		/* both resolved, *@id ready to connect */
	CM_FAIL_CREATE,		/* rdma_create_id() failed: errno */
	CM_FAIL_ADDR,		/* rdma_resolve_addr() failed: errno */
	CM_FAIL_ADDR_EVENT,	/* no ADDR_RESOLVED: *@event */
	CM_FAIL_ROUTE,		/* rdma_resolve_route() failed: errno */
	CM_FAIL_ROUTE_EVENT,	/* no ROUTE_RESOLVED: *@event */
};

/*
 * The active side up to the connect: a TCP port space id for @ctx in *@id,
 * @dst resolved (from @src, NULL: any) and the route to it. The CM gets
 * @timeout seconds for each, and each wait lasts 5 s more so that its own
 * verdict arrives. For the FAIL_*_EVENT steps *@event is the event that
 * came instead (acknowledged), or -1 on timeout. The caller destroys *@id
 * whatever the result.
 */
enum cm_step cm_route(struct rdma_event_channel *ch, struct cm_stash *s,
		      struct rdma_cm_id **id, void *ctx,
		      struct sockaddr_storage *src,
		      struct sockaddr_storage *dst, unsigned int timeout,
		      int *event);

/*
 * Connection parameters both rigs use: @rd reads each way, the most
 * retries, and @len bytes of private data at @pdata.
 */
void cm_conn_param(struct rdma_conn_param *p, const void *pdata,
		   unsigned int len, unsigned int rd);

/*
 * rdma_connect() (-1 with errno if it fails), then the answer for @id
 * within @wait seconds in *@ev (NULL on timeout; the caller acknowledges
 * it).
 */
int cm_connect(struct rdma_event_channel *ch, struct cm_stash *s,
	       struct rdma_cm_id *id, struct rdma_conn_param *p,
	       double wait, struct rdma_cm_event **ev);

/*
 * rdma_accept() (-1 with errno if it fails), then the event that follows
 * for @id within @timeout seconds: its type in *@event (acknowledged), or
 * -1 on timeout.
 */
int cm_accept(struct rdma_event_channel *ch, struct cm_stash *s,
	      struct rdma_cm_id *id, struct rdma_conn_param *p,
	      unsigned int timeout, int *event);

/*
 * Sleeps until @ch or @async_fd (ignored when negative) is readable, at
 * most @ms milliseconds.
 */
void cm_idle(struct rdma_event_channel *ch, int async_fd, int ms);

/*
 * The next event for @id that is already there, without waiting; events
 * for other ids read on the way go to @s.
 */
struct rdma_cm_event *cm_next_for(struct rdma_event_channel *ch,
				  struct cm_stash *s, struct rdma_cm_id *id);

/* Acknowledges @id's stashed events, then destroys it. */
void cm_destroy_id(struct cm_stash *s, struct rdma_cm_id *id);

#endif
