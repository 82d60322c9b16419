/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: tracepoints (trace system "siw_lite"). Off by default; a
 * disabled tracepoint is a static branch and costs nothing else. Usage and
 * the meaning of each field: siw_lite(7), TRACEPOINTS.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM siw_lite

#if !defined(SIWL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SIWL_TRACE_H

#include <linux/tracepoint.h>

#include "ddp_wire.h"
#include "iwarp.h"
#include "mpa_wire.h"

/* enum siwl_cep_state in cm.c, which asserts these numbers. */
#define siwl_show_cep_state(s)						\
	__print_symbolic(s, { 0, "new" }, { 1, "connecting" },		\
			 { 2, "await_reply" }, { 3, "await_request" },	\
			 { 4, "await_ulp" }, { 5, "rdma" },		\
			 { 6, "closing" }, { 7, "closed" })

/* So that trace-cmd and perf can decode the enums in the formats. */
TRACE_DEFINE_ENUM(RDMAP_RDMA_WRITE);
TRACE_DEFINE_ENUM(RDMAP_RDMA_READ_REQ);
TRACE_DEFINE_ENUM(RDMAP_RDMA_READ_RESP);
TRACE_DEFINE_ENUM(RDMAP_SEND);
TRACE_DEFINE_ENUM(RDMAP_SEND_INVAL);
TRACE_DEFINE_ENUM(RDMAP_SEND_SE);
TRACE_DEFINE_ENUM(RDMAP_SEND_SE_INVAL);
TRACE_DEFINE_ENUM(RDMAP_TERMINATE);
TRACE_DEFINE_ENUM(IW_TERM_LAYER_RDMAP);
TRACE_DEFINE_ENUM(IW_TERM_LAYER_DDP);
TRACE_DEFINE_ENUM(IW_TERM_LAYER_LLP);

#define siwl_show_rdmap_opcode(o)					\
	__print_symbolic(o, { RDMAP_RDMA_WRITE, "write" },		\
			 { RDMAP_RDMA_READ_REQ, "read_req" },		\
			 { RDMAP_RDMA_READ_RESP, "read_resp" },		\
			 { RDMAP_SEND, "send" },			\
			 { RDMAP_SEND_INVAL, "send_inv" },		\
			 { RDMAP_SEND_SE, "send_se" },			\
			 { RDMAP_SEND_SE_INVAL, "send_se_inv" },	\
			 { RDMAP_TERMINATE, "terminate" })

#define siwl_show_term_layer(l)						\
	__print_symbolic(l, { IW_TERM_LAYER_RDMAP, "rdmap" },		\
			 { IW_TERM_LAYER_DDP, "ddp" },			\
			 { IW_TERM_LAYER_LLP, "llp" })

TRACE_EVENT(cm_state,
	    TP_PROTO(const void *cep, int old, int new),
	    TP_ARGS(cep, old, new),
	    TP_STRUCT__entry(__field(const void *, cep)
			     __field(int, old)
			     __field(int, new)),
	    TP_fast_assign(__entry->cep = cep;
			   __entry->old = old;
			   __entry->new = new;),
	    TP_printk("cep=%p %s -> %s", __entry->cep,
		      siwl_show_cep_state(__entry->old),
		      siwl_show_cep_state(__entry->new))
);

/* An MPA Request or Reply (RFC 5044 section 7.1, RFC 6581 section 9). */
DECLARE_EVENT_CLASS(siwl_mpa_class,
		    TP_PROTO(const void *cep, bool request, u8 rev, u8 crc, u8 markers,
			     u8 reject, u8 enhanced, const struct mpa_v2_params *v2),
		    TP_ARGS(cep, request, rev, crc, markers, reject, enhanced, v2),
		    TP_STRUCT__entry(__field(const void *, cep)
				     __field(bool, request)
				     __field(u8, rev)
				     __field(u8, crc)
				     __field(u8, markers)
				     __field(u8, reject)
				     __field(u8, enhanced)
				     __field(u16, ird)
				     __field(u16, ord)
				     __field(u8, p2p)
				     __field(u8, rtr)),
		    TP_fast_assign(__entry->cep = cep;
				   __entry->request = request;
				   __entry->rev = rev;
				   __entry->crc = crc;
				   __entry->markers = markers;
				   __entry->reject = reject;
				   __entry->enhanced = enhanced;
				   __entry->ird = enhanced ? v2->ird : 0;
				   __entry->ord = enhanced ? v2->ord : 0;
				   __entry->p2p = enhanced ? v2->p2p : 0;
				   __entry->rtr = enhanced ? v2->rtr : 0;),
		    TP_printk("cep=%p %s rev=%u crc=%u markers=%u reject=%u enhanced=%u ird=%u ord=%u p2p=%u rtr=%#x",
			      __entry->cep, __entry->request ? "request" : "reply",
			      __entry->rev, __entry->crc, __entry->markers,
			      __entry->reject, __entry->enhanced, __entry->ird,
			      __entry->ord, __entry->p2p, __entry->rtr)
);

DEFINE_EVENT(siwl_mpa_class, mpa_tx,
	     TP_PROTO(const void *cep, bool request, u8 rev, u8 crc, u8 markers,
		      u8 reject, u8 enhanced, const struct mpa_v2_params *v2),
	     TP_ARGS(cep, request, rev, crc, markers, reject, enhanced, v2));

DEFINE_EVENT(siwl_mpa_class, mpa_rx,
	     TP_PROTO(const void *cep, bool request, u8 rev, u8 crc, u8 markers,
		      u8 reject, u8 enhanced, const struct mpa_v2_params *v2),
	     TP_ARGS(cep, request, rev, crc, markers, reject, enhanced, v2));

/*
 * One FPDU's DDP/RDMAP header (RFC 5041 section 4, RFC 5040 section 4).
 * Tagged or not follows from the opcode: a header being built has no T bit
 * yet.
 */
DECLARE_EVENT_CLASS(siwl_fpdu_class,
		    TP_PROTO(u32 qpn, const struct ddp_hdr_info *h, u32 len),
		    TP_ARGS(qpn, h, len),
		    TP_STRUCT__entry(__field(u32, qpn)
				     __field(u8, opcode)
				     __field(u8, tagged)
				     __field(u8, last)
				     __field(u32, stag)
				     __field(u64, to)
				     __field(u32, qn)
				     __field(u32, msn)
				     __field(u32, mo)
				     __field(u32, len)),
		    TP_fast_assign(__entry->qpn = qpn;
				   __entry->opcode = h->opcode;
				   __entry->tagged = rdmap_opcode_tagged(h->opcode);
				   __entry->last = h->last;
				   __entry->stag = h->stag;
				   __entry->to = __entry->tagged ? h->to : 0;
				   __entry->qn = __entry->tagged ? 0 : h->qn;
				   __entry->msn = __entry->tagged ? 0 : h->msn;
				   __entry->mo = __entry->tagged ? 0 : h->mo;
				   __entry->len = len;),
		    TP_printk("qp=%u %s %s stag=%#x to=%#llx qn=%u msn=%u mo=%u len=%u%s",
			      __entry->qpn, siwl_show_rdmap_opcode(__entry->opcode),
			      __entry->tagged ? "tagged" : "untagged", __entry->stag,
			      __entry->to, __entry->qn, __entry->msn, __entry->mo,
			      __entry->len, __entry->last ? " last" : "")
);

DEFINE_EVENT(siwl_fpdu_class, fpdu_tx,
	     TP_PROTO(u32 qpn, const struct ddp_hdr_info *h, u32 len),
	     TP_ARGS(qpn, h, len));

DEFINE_EVENT(siwl_fpdu_class, fpdu_rx,
	     TP_PROTO(u32 qpn, const struct ddp_hdr_info *h, u32 len),
	     TP_ARGS(qpn, h, len));

/* A Terminate (RFC 5040 section 4.8), with its error's layer/type/code. */
DECLARE_EVENT_CLASS(siwl_term_class,
		    TP_PROTO(u32 qpn, u8 layer, u8 etype, u8 ecode),
		    TP_ARGS(qpn, layer, etype, ecode),
		    TP_STRUCT__entry(__field(u32, qpn)
				     __field(u8, layer)
				     __field(u8, etype)
				     __field(u8, ecode)),
		    TP_fast_assign(__entry->qpn = qpn;
				   __entry->layer = layer;
				   __entry->etype = etype;
				   __entry->ecode = ecode;),
		    TP_printk("qp=%u layer=%s etype=%u ecode=%#x", __entry->qpn,
			      siwl_show_term_layer(__entry->layer), __entry->etype,
			      __entry->ecode)
);

DEFINE_EVENT(siwl_term_class, term_tx,
	     TP_PROTO(u32 qpn, u8 layer, u8 etype, u8 ecode),
	     TP_ARGS(qpn, layer, etype, ecode));

DEFINE_EVENT(siwl_term_class, term_rx,
	     TP_PROTO(u32 qpn, u8 layer, u8 etype, u8 ecode),
	     TP_ARGS(qpn, layer, etype, ecode));

/* A work request taken onto a queue: @sq, else a receive. */
TRACE_EVENT(wqe_post,
	    TP_PROTO(u32 qpn, bool sq, u64 wr_id, u32 opcode, u32 len),
	    TP_ARGS(qpn, sq, wr_id, opcode, len),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(bool, sq)
			     __field(u64, wr_id)
			     __field(u32, opcode)
			     __field(u32, len)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->sq = sq;
			   __entry->wr_id = wr_id;
			   __entry->opcode = opcode;
			   __entry->len = len;),
	    TP_printk("qp=%u %s wr_id=%#llx opcode=%u len=%u", __entry->qpn,
		      __entry->sq ? "sq" : "rq", __entry->wr_id, __entry->opcode,
		      __entry->len)
);

/*
 * A completion as it enters its CQ (ib_wc_opcode, ib_wc_status); receive
 * opcodes have IB_WC_RECV (0x80, trace.c checks) set.
 */
TRACE_EVENT(wqe_done,
	    TP_PROTO(u32 qpn, u32 cqn, u64 wr_id, u32 opcode, u32 status,
		     u32 len),
	    TP_ARGS(qpn, cqn, wr_id, opcode, status, len),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, cqn)
			     __field(u64, wr_id)
			     __field(u32, opcode)
			     __field(u32, status)
			     __field(u32, len)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->cqn = cqn;
			   __entry->wr_id = wr_id;
			   __entry->opcode = opcode;
			   __entry->status = status;
			   __entry->len = len;),
	    TP_printk("qp=%u cq=%u %s wr_id=%#llx opcode=%u status=%u len=%u",
		      __entry->qpn, __entry->cqn,
		      __entry->opcode & 0x80 ? "rq" : "sq", __entry->wr_id,
		      __entry->opcode, __entry->status, __entry->len)
);

/* TCP let go of a zero-copy buffer's pages (@copied: it copied them). */
TRACE_EVENT(zc_release,
	    TP_PROTO(u32 qpn, u32 seq, bool copied),
	    TP_ARGS(qpn, seq, copied),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, seq)
			     __field(bool, copied)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->seq = seq;
			   __entry->copied = copied;),
	    TP_printk("qp=%u seq=%u%s", __entry->qpn, __entry->seq,
		      __entry->copied ? " copied" : "")
);

#endif /* SIWL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
