// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: the development knobs of tune.h, with their defaults, as
 * files in debugfs. Without debugfs the defaults simply stay.
 */
#include <linux/debugfs.h>

#include "qp_obj.h"
#include "tune.h"

struct siwl_tune siwl_tune = {
	.tx_pages = SIWL_TX_PAGES,
	.tx_handoff = true,
	.sq_poll_us = 0,
	.tx_zcopy = 1,
	.tx_zcopy_min = 16384,
	.rx_defer = 16384,
	.rx_defer_read = 16384,
};

static struct dentry *siwl_tune_dir;

void siwl_tune_init(void)
{
	struct dentry *d = debugfs_create_dir(KBUILD_MODNAME, NULL);

	/* debugfs failures are not ours to handle: the knobs keep defaults */
	siwl_tune_dir = d;
	debugfs_create_u32("tx_pages", 0600, d, &siwl_tune.tx_pages);
	debugfs_create_bool("tx_handoff", 0600, d, &siwl_tune.tx_handoff);
	debugfs_create_u32("sq_poll_us", 0600, d, &siwl_tune.sq_poll_us);
	debugfs_create_u32("tx_zcopy", 0600, d, &siwl_tune.tx_zcopy);
	debugfs_create_u32("tx_zcopy_min", 0600, d, &siwl_tune.tx_zcopy_min);
	debugfs_create_u32("rx_defer", 0600, d, &siwl_tune.rx_defer);
	debugfs_create_u32("rx_defer_read", 0600, d,
			   &siwl_tune.rx_defer_read);
}

void siwl_tune_exit(void)
{
	debugfs_remove_recursive(siwl_tune_dir);
}
