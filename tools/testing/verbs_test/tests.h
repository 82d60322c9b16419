/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The test cases (ids go on the wire: never renumber). */
#ifndef VERBS_TEST_TESTS_H
#define VERBS_TEST_TESTS_H

#include "verbs_test.h"

enum {
	VT_T_SEND = 1,
	VT_T_WRITE,
	VT_T_READ,
	VT_T_SEND_INV,
	VT_T_SOLICITED,
	VT_T_SRQ,
	VT_T_REJECT,
	VT_T_DISCONNECT,
	VT_T_TOO_SMALL,
	VT_T_NO_RECV,
};

extern const struct vt_test vt_test_send, vt_test_write, vt_test_read,
	vt_test_send_inv, vt_test_solicited, vt_test_srq, vt_test_reject,
	vt_test_disconnect, vt_test_too_small, vt_test_no_recv;

#endif
