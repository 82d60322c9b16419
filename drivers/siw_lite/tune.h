/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: the data path's development knobs. Users get defaults that
 * suit every workload we measured and nothing to tune (the policy that
 * matters to them, MPA revision, CRC and RTR, are module parameters, see
 * cm.c); developers and the tests change these at run time, through
 * debugfs (siw_lite/<name>), to reach every path the defaults avoid.
 * Each is read once per decision with READ_ONCE(): a change applies to
 * what comes next, never halfway through a message.
 */
#ifndef SIWL_TUNE_H
#define SIWL_TUNE_H

#include <linux/types.h>

struct siwl_tune {
	/* FPDU buffers per QP TCP takes by reference (tx.c); 0: it copies */
	u32 tx_pages;
	/* a streaming doorbell hands small messages to another CPU (tx.c) */
	bool tx_handoff;
	/* TX keeps polling a dry user send ring this long (tx.c, <= 1000) */
	u32 sq_poll_us;
	/* zero-copy transmit: 0 never, 1 unless TCP copies anyway, 2 always */
	u32 tx_zcopy;
	/* smallest message sent zero-copy, bytes */
	u32 tx_zcopy_min;
	/* unread bytes from which a worker places instead of the softirq */
	u32 rx_defer;
	/* the same while RDMA Reads are outstanding */
	u32 rx_defer_read;
};

extern struct siwl_tune siwl_tune;

void siwl_tune_init(void);
void siwl_tune_exit(void);

#endif /* SIWL_TUNE_H */
