/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim: nothing. In the kernel this re-reads a trace header to generate
 * the tracepoints; here linux/tracepoint.h already declared them as plain
 * functions, which the harness defines.
 */
