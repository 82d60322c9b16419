// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_probe - report which rdma-core provider serves each verbs device.
 *
 *   verbs_probe [IBDEV]
 *   verbs_probe --hold SECONDS IBDEV
 *
 * Prints one line per device libibverbs lists (or only IBDEV):
 *
 *   dev=siwl0 provider=siw_lite lib=libsiw_lite-rdmav34.so node=RNIC
 *   transport=iWARP open=ok port1=PORT_ACTIVE
 *
 * With --hold, IBDEV is opened, a protection domain allocated, "holding" is
 * printed, and both are kept for SECONDS (so a test can unload the module
 * under a live user context) before being released.
 *
 * Exit status: 0 when every reported device could be opened, 3 when one
 * could not, 2 when IBDEV is not listed (no provider claimed it), 1 on other
 * errors.
 *
 * libibverbs has no call that names the provider bound to a device, so we
 * rely on the layout of its private struct verbs_device: the provider
 * allocates it, it starts with struct ibv_device, and the next member is
 * the provider's "const struct verbs_device_ops *", a table inside the
 * provider's shared object whose first member is the provider's name.  We
 * only follow these pointers after dladdr() confirms they point into a
 * loaded object, so a layout change gives "provider=?" instead of a crash.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

/* Base name of the shared object containing @p, or NULL. */
static const char *object_of(const void *p)
{
	Dl_info info;
	const char *slash;

	if (!p || !dladdr(p, &info) || !info.dli_fname || !info.dli_fname[0])
		return NULL;
	slash = strrchr(info.dli_fname, '/');
	return slash ? slash + 1 : info.dli_fname;
}

static void provider_of(struct ibv_device *dev, const char **name,
			const char **lib)
{
	const void *ops = *(const void *const *)(dev + 1);
	const char *ops_lib = object_of(ops);
	const char *str;

	*name = "?";
	*lib = ops_lib ? ops_lib : "?";
	if (!ops_lib)
		return;
	str = *(const char *const *)ops;
	/* The name must be a string inside the same provider object. */
	if (object_of(str) && !strcmp(object_of(str), ops_lib))
		*name = str;
}

static const char *node_str(enum ibv_node_type t)
{
	switch (t) {
	case IBV_NODE_CA:
		return "CA";
	case IBV_NODE_SWITCH:
		return "SWITCH";
	case IBV_NODE_ROUTER:
		return "ROUTER";
	case IBV_NODE_RNIC:
		return "RNIC";
	default:
		return "OTHER";
	}
}

static const char *transport_str(enum ibv_transport_type t)
{
	switch (t) {
	case IBV_TRANSPORT_IB:
		return "InfiniBand";
	case IBV_TRANSPORT_IWARP:
		return "iWARP";
	default:
		return "other";
	}
}

/* The names ibv_devinfo prints, so tests can match either tool alike. */
static const char *port_state_str(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_NOP:
		return "PORT_NOP";
	case IBV_PORT_DOWN:
		return "PORT_DOWN";
	case IBV_PORT_INIT:
		return "PORT_INIT";
	case IBV_PORT_ARMED:
		return "PORT_ARMED";
	case IBV_PORT_ACTIVE:
		return "PORT_ACTIVE";
	case IBV_PORT_ACTIVE_DEFER:
		return "PORT_ACTIVE_DEFER";
	default:
		return "PORT_UNKNOWN";
	}
}

/* Print the line for @dev; returns 0 if it could be opened and queried. */
static int probe(struct ibv_device *dev)
{
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	const char *name, *lib;
	int ret = 0;

	provider_of(dev, &name, &lib);
	printf("dev=%s provider=%s lib=%s node=%s transport=%s",
	       ibv_get_device_name(dev), name, lib,
	       node_str(dev->node_type), transport_str(dev->transport_type));

	ctx = ibv_open_device(dev);
	if (!ctx) {
		printf(" open=failed:%s\n", strerror(errno));
		return -1;
	}
	printf(" open=ok");
	if (ibv_query_port(ctx, 1, &port)) {
		printf(" port1=query-failed\n");
		ret = -1;
	} else {
		printf(" port1=%s\n", port_state_str(port.state));
	}
	ibv_close_device(ctx);
	return ret;
}

/* Keep @dev open with a PD for @secs seconds. */
static int hold(struct ibv_device *dev, unsigned int secs)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		fprintf(stderr, "ibv_open_device: %s\n", strerror(errno));
		return 3;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		fprintf(stderr, "ibv_alloc_pd: %s (holding the context only)\n",
			strerror(errno));
	printf("holding %s\n", ibv_get_device_name(dev));
	fflush(stdout);
	sleep(secs);
	/* The device may be gone by now; errors here are expected. */
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("released\n");
	return 0;
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [IBDEV] | --hold SECONDS IBDEV\n", prog);
	return 1;
}

int main(int argc, char **argv)
{
	const char *prog = argv[0];
	struct ibv_device **list;
	int n, i, found = 0, bad = 0, hold_secs = -1;

	if (argc > 1 && !strcmp(argv[1], "--hold")) {
		if (argc != 4)
			return usage(prog);
		hold_secs = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc > 2)
		return usage(prog);
	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "ibv_get_device_list: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (argc == 2 && strcmp(ibv_get_device_name(list[i]), argv[1]))
			continue;
		found++;
		if (hold_secs >= 0) {
			bad = hold(list[i], hold_secs);
			break;
		}
		if (probe(list[i]))
			bad++;
	}
	ibv_free_device_list(list);
	fflush(stdout);

	if (argc == 2 && !found) {
		fprintf(stderr, "%s: no verbs device %s (no provider claimed it?)\n",
			prog, argv[1]);
		return 2;
	}
	if (hold_secs >= 0)
		return bad;
	return bad ? 3 : 0;
}
