/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_cm plumbing shared by the test programs under tools/: the clock
 * every deadline is measured on, numeric address resolution, and bounded
 * waits for CM events on a non-blocking event channel.
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

#endif
