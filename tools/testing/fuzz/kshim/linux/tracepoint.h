/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim: every TRACE_EVENT / DEFINE_EVENT becomes the declaration of a
 * plain function trace_<name>(proto). The harness defines the ones rx.c
 * calls, and uses them as observation points (fuzz_rx.c: an FPDU takes
 * effect). Event classes, enum exports and formats vanish.
 */
#ifndef KSHIM_LINUX_TRACEPOINT_H
#define KSHIM_LINUX_TRACEPOINT_H

#include "../kshim.h"

#define TP_PROTO(...)		__VA_ARGS__
#define TP_ARGS(...)		__VA_ARGS__

/* Each stands where a declaration is expected (a ';' follows). */
#define TRACE_DEFINE_ENUM(x)	extern int kshim_trace_enum
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print) \
	extern int kshim_trace_class
#define DEFINE_EVENT(template, name, proto, args) \
	void trace_##name(proto)
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	void trace_##name(proto)

#endif /* KSHIM_LINUX_TRACEPOINT_H */
