// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD shim that lets libibverbs see fake siw_lite devices, so the
 * provider can be exercised without the kernel module:
 *  - NETLINK_RDMA sockets fail, which makes libibverbs fall back to
 *    scanning $SYSFS_PATH/class/infiniband_verbs;
 *  - /dev/infiniband/<x> is replaced by /dev/null for stat() and open(),
 *    so the fake sysfs gives every uverbs device dev = 1:3;
 *  - opendir("/etc/libibverbs.d") is redirected to $SIWL_TEST_CONFDIR, so
 *    only the providers named in RDMAV_DRIVERS get loaded;
 *  - write() on such a /dev/null fd plays a minimal uverbs kernel for the
 *    legacy write() ABI (ioctl() on /dev/null fails with ENOTTY, which
 *    makes libibverbs use it): GET_CONTEXT answers with the siw_lite ABI
 *    version $SIWL_TEST_ABI (default 1), plus QUERY_DEVICE, QUERY_PORT,
 *    ALLOC/DEALLOC_PD and REG/DEREG_MR.  Everything else is EOPNOTSUPP.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <rdma/ib_user_verbs.h>

#include <rdma/siw_lite-abi.h>

#define CDEV_DIR "/dev/infiniband/"
#define CONF_DIR "/etc/libibverbs.d"
#define MAX_FD 1024

/* Which fds are fake uverbs devices. */
static unsigned char fake_fd[MAX_FD];

#define REAL(ret, name, args)						\
	static ret (*real_##name) args;					\
	if (!real_##name)						\
		real_##name = (ret (*) args)dlsym(RTLD_NEXT, #name)

static bool is_cdev(const char *path)
{
	return !strncmp(path, CDEV_DIR, strlen(CDEV_DIR));
}

int socket(int domain, int type, int protocol)
{
	REAL(int, socket, (int, int, int));

	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return real_socket(domain, type, protocol);
}

int stat(const char *path, struct stat *st)
{
	REAL(int, stat, (const char *, struct stat *));

	return real_stat(is_cdev(path) ? "/dev/null" : path, st);
}

static int do_open(int (*real)(const char *, int, ...), const char *path,
		   int flags, mode_t mode)
{
	int fd;

	if (!is_cdev(path))
		return real(path, flags, mode);

	fd = real("/dev/null", flags, mode);
	if (fd >= 0 && fd < MAX_FD)
		fake_fd[fd] = 1;
	return fd;
}

int open(const char *path, int flags, ...)
{
	REAL(int, open, (const char *, int, ...));
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return do_open(real_open, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	REAL(int, open64, (const char *, int, ...));
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return do_open(real_open64, path, flags, mode);
}

int close(int fd)
{
	REAL(int, close, (int));

	if (fd >= 0 && fd < MAX_FD)
		fake_fd[fd] = 0;
	return real_close(fd);
}

DIR *opendir(const char *path)
{
	REAL(DIR *, opendir, (const char *));
	const char *dir = getenv("SIWL_TEST_CONFDIR");

	if (dir && !strcmp(path, CONF_DIR))
		path = dir;
	return real_opendir(path);
}

/* Copy at most out_words * 4 bytes of a response to user space. */
static void reply(const struct ib_uverbs_cmd_hdr *hdr, uint64_t uptr,
		  const void *resp, size_t len)
{
	size_t room = hdr->out_words * 4u;

	memcpy((void *)(uintptr_t)uptr, resp, len < room ? len : room);
}

static int fake_cmd(const void *buf, size_t len)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const void *req = hdr + 1;
	uint64_t uptr;

	if (len < sizeof(*hdr) || hdr->in_words * 4u != len ||
	    (hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED))
		return EOPNOTSUPP;
	/* every request we play starts with the response pointer */
	memcpy(&uptr, req, sizeof(uptr));

	switch (hdr->command) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: {
		struct {
			struct ib_uverbs_get_context_resp core;
			struct siw_lite_uresp_alloc_ctx drv;
		} r = {};
		const char *abi = getenv("SIWL_TEST_ABI");

		r.core.async_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		r.core.num_comp_vectors = 1;
		r.drv.abi_version = abi ? atoi(abi) : SIW_LITE_ABI_VERSION;
		r.drv.max_inline = 64;
		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_DEVICE: {
		struct ib_uverbs_query_device_resp r = {};

		r.fw_ver = 1ull << 32 | 2 << 16 | 3;
		r.vendor_id = 0x626d74;
		r.max_pd = 100;
		r.phys_port_cnt = 1;
		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_PORT: {
		struct ib_uverbs_query_port_resp r = {};

		r.state = 4;		/* ACTIVE */
		r.max_mtu = r.active_mtu = 3;	/* 1024 */
		r.gid_tbl_len = 1;
		r.phys_state = 5;
		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp r = { .pd_handle = 7 };

		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_REG_MR: {
		struct ib_uverbs_reg_mr_resp r = {
			.mr_handle = 9, .lkey = 0x100, .rkey = 0x200,
		};

		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DEREG_MR:
		return 0;
	}
	return EOPNOTSUPP;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	REAL(ssize_t, write, (int, const void *, size_t));
	int err;

	if (fd < 0 || fd >= MAX_FD || !fake_fd[fd])
		return real_write(fd, buf, len);

	err = fake_cmd(buf, len);
	if (err) {
		errno = err;
		return -1;
	}
	return len;
}
