#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# hostile.py: a remote iWARP peer that breaks the rules on purpose.
#
# Connects to tools/testing/hostile/victim (an rdma_cm server on
# siw_lite) with a plain TCP socket, runs the MPA exchange itself (RFC 5044 section 7.1,
# RFC 6581 for revision 2) and sends hand-made FPDUs (RFC 5044 section 4,
# DDP RFC 5041, RDMAP RFC 5040). Then it reads what comes back until the
# connection ends and reports one result line:
#
#   result terminate layer=L etype=E ecode=0xCC hdrct=H echo=match|...
#   result mpa-reject
#   result closed-without-reply how=fin|reset after=SECS
#   result closed-without-terminate how=fin|reset after=SECS
#   result no-close after=SECS          (the victim never ended it)
#   result reset-sent                   (we reset the connection ourselves)
#
#   hostile.py --list                   NAME<TAB>EXPECTED<TAB>KIND
#   hostile.py --addr A --port P --case NAME
#   hostile.py --addr A --port P --all [--only "NAME..."]
#
# --all runs every case (but "good") in turn, each in its own connection
# and each followed by a "good" one, with "=== case NAME" and "=== good
# NAME" lines before their outputs. The connect private data carries a
# directive for the victim (victim.c, struct hv_directive): a tag that
# names the connection in the victim's report ("NAME", "good:NAME"), how
# many receives to post, and which buffer ranges the case may change.
#
# EXPECTED is what an RFC-conforming peer has to answer (the comment at
# each case says why); KIND says what the victim must see: "mpa" (no
# connection reaches the ULP), "attack" (QP in error, receives flushed,
# memory unchanged outside the allowed ranges), "good" (data placed);
# "standalone" cases belong to a selftest of their own and are neither
# listed nor run by --all.  The victim's private data describes its buffers (victim.c, hv_pdata).

import argparse
import errno
import fcntl
import os
import select
import socket
import struct
import sys
import time

# The wire format (tools/testing/lib/iwarp_wire.py, shared with
# wirecheck); the tree may be read-only: no bytecode written for it.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from iwarp_wire import (  # noqa: E402
    DDP_TAGGED_HDR_LEN, DDP_UNTAGGED_HDR_LEN, HDRCT_D, HDRCT_M, HDRCT_R,
    IRD_ORD_MASK, IRD_P2P, MPA_FLAG_C, MPA_FLAG_ENH, MPA_FLAG_M,
    MPA_FLAG_R, MPA_HDR_LEN, MPA_IRD_ORD_LEN, MPA_KEY_REP, MPA_KEY_REQ,
    OP_READ_RESP, OP_SEND, OP_SEND_INV, OP_TERMINATE, OP_WRITE,
    ORD_RTR_WRITE, QN_RREQ, QN_SEND, QN_TERM, READ_REQ_LEN, TERM_CTRL_LEN,
    crc32c, ddp_is_tagged, fpdu_crc_field, fpdu_size, fpdu_ulpdu_len,
    mpa_fpdu, mpa_frame, mpa_frame_unpack, mpa_ird_ord, mpa_ird_ord_unpack,
    rdmap_opcode, read_req, tagged, term_ctrl, term_ctrl_unpack, untagged,
    untagged_unpack)

# victim.c's buffer numbers (hv_pattern's second argument)
BUF_RW, BUF_LW, BUF_RO, BUF_PD2, BUF_RECV = range(5)
BUF_NUM = {"rw": BUF_RW, "lw": BUF_LW, "ro": BUF_RO, "pd2": BUF_PD2,
           "recv": BUF_RECV}
HV_MAGIC = 0x4853544c
HV_DIR_MAGIC = 0x48564452


def directive(tag, nrecv=None, allow=(), dereg_ms=0):
    """victim.c struct hv_directive."""
    d = struct.pack(">IHH40s", HV_DIR_MAGIC,
                    0xffff if nrecv is None else nrecv, len(allow),
                    tag.encode()[:40])
    for i in range(4):
        if i < len(allow):
            name, off, length = allow[i]
            d += struct.pack(">B3xII", BUF_NUM[name], off, length)
        else:
            d += bytes(12)
    return d + struct.pack(">I", dereg_ms)


def pattern(b, off):
    """victim.c hv_pattern(): byte @off of buffer @b before any write."""
    return (off * 7 + (off >> 8) * 3 + b * 0x35 + 0x11) & 0xff


# what a deliberately wrong CRC is XORed with
BAD_CRC_XOR = 0x5a5aa5a5


class SetupFailed(Exception):
    pass


TCP_ESTABLISHED = 1
TCP_CLOSE = 7
SIOCINQ = 0x541b		# FIONREAD on a TCP socket


def tcp_state(sock):
    """tcpi_state, the first byte of struct tcp_info (linux/tcp.h)."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def inq(sock):
    """Bytes received and not yet read, without reading them."""
    buf = fcntl.ioctl(sock.fileno(), SIOCINQ, b"\0" * 4)
    return struct.unpack("i", buf)[0]


class Peer:
    def __init__(self, args, directive=b"", rcvbuf=None):
        self.args = args
        self.directive = directive
        self.t0 = time.monotonic()
        if rcvbuf is None:
            self.sock = socket.create_connection((args.addr, args.port),
                                                 timeout=10)
        else:
            # before connect: the window offered in the SYN depends on it
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            self.sock.settimeout(10)
            self.sock.connect((args.addr, args.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.crc = False
        self.rx = bytearray()
        self.closed = None	# "fin" or "reset" once the victim ended it
        self.info = None
        self.bad = None		# the offending ULPDU, for the echo check
        self.bad_len = None	# its MPA ULPDU_Length
        self.fpdus = []		# (opcode, ulpdu) received
        self.sent_rst = False

    def elapsed(self):
        return time.monotonic() - self.t0

    # ---- MPA connection setup --------------------------------------

    def request(self, rev=1, flags=0, pd=None, key=MPA_KEY_REQ, pd_len=None,
                v2=None, send=True):
        """
        Builds (and sends) an MPA Request; v2 = (ird, ord) words. The
        private data is the victim directive unless @pd says otherwise.
        """
        if pd is None:
            pd = self.directive
        if v2 is not None:
            pd = mpa_ird_ord(v2[0], v2[1]) + pd
            flags |= MPA_FLAG_ENH
        self.crc = bool(flags & MPA_FLAG_C)
        frame = mpa_frame(key, flags, rev, pd, pd_len)
        if send:
            self.sock.sendall(frame)
        return frame

    def _recv_some(self, timeout):
        """One read; False once the victim closed (self.closed says how)."""
        r, _, _ = select.select([self.sock], [], [], max(0, timeout))
        if not r:
            return True
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            self.closed = "reset"
            return False
        except OSError as e:
            self.closed = "error-%s" % errno.errorcode.get(e.errno, e.errno)
            return False
        if not data:
            self.closed = "fin"
            return False
        self.rx += data
        return True

    def reply(self, timeout=10.0):
        """Reads the MPA Reply. Returns a dict, or None if closed first."""
        end = time.monotonic() + timeout
        while len(self.rx) < MPA_HDR_LEN:
            if not self._recv_some(end - time.monotonic()):
                return None
            if time.monotonic() >= end:
                return None
        pd_len = mpa_frame_unpack(self.rx)[3]
        while len(self.rx) < MPA_HDR_LEN + pd_len:
            if not self._recv_some(end - time.monotonic()):
                return None
            if time.monotonic() >= end:
                return None
        hdr = bytes(self.rx[:MPA_HDR_LEN + pd_len])
        del self.rx[:MPA_HDR_LEN + pd_len]
        key, flags, rev, _ = mpa_frame_unpack(hdr)
        rep = {
            "key": key,
            "flags": flags,
            "rev": rev,
            "pd": hdr[MPA_HDR_LEN:],
        }
        print("mpa reply key_ok=%d flags=%#04x rev=%d pd_len=%d" %
              (rep["key"] == MPA_KEY_REP, rep["flags"], rep["rev"], pd_len))
        pd = rep["pd"]
        if rep["rev"] >= 2 and rep["flags"] & MPA_FLAG_ENH and \
           len(pd) >= MPA_IRD_ORD_LEN:
            ird, ord_ = mpa_ird_ord_unpack(pd)
            print("mpa reply ird=%#06x ord=%#06x" % (ird, ord_))
            rep["v2"] = (ird, ord_)
            pd = pd[MPA_IRD_ORD_LEN:]
        if rep["flags"] & MPA_FLAG_C:
            self.crc = True
        rep["ulp_pd"] = pd
        if len(pd) >= 12 + 4 * 16:
            magic, ver, nrecv, rlen = struct.unpack(">IHHI", pd[:12])
            if magic == HV_MAGIC:
                mrs = {}
                for i, name in enumerate(("rw", "lw", "ro", "pd2")):
                    a, k, n = struct.unpack(">QII", pd[12 + 16 * i:
                                                      28 + 16 * i])
                    mrs[name] = (a, k, n)
                    print("victim mr %s addr=%#x rkey=%#x len=%d" %
                          (name, a, k, n))
                self.info = {"nrecv": nrecv, "recv_len": rlen, "mr": mrs}
                print("victim nrecv=%d recv_len=%d" % (nrecv, rlen))
        return rep

    def connect(self, timeout=10.0, **kw):
        """A full, well-formed MPA exchange; raises SetupFailed if not."""
        self.request(**kw)
        rep = self.reply(timeout)
        if rep is None or rep["flags"] & MPA_FLAG_R or self.info is None:
            raise SetupFailed("no usable MPA Reply (%s)" %
                              ("closed: %s" % self.closed if rep is None
                               else "flags %#x" % rep["flags"]))
        return rep

    # ---- FPDUs -----------------------------------------------------

    def fpdu(self, ulpdu, bad_crc=False, mpa_len=None):
        """Frames @ulpdu: ULPDU_Length, ULPDU, PAD, CRC (RFC 5044 4.1)."""
        return mpa_fpdu(ulpdu, self.crc, mpa_len,
                        BAD_CRC_XOR if bad_crc else 0)

    def offending(self, ulpdu, mpa_len=None):
        self.bad = ulpdu
        self.bad_len = len(ulpdu) if mpa_len is None else mpa_len
        return ulpdu

    def _parse_rx(self):
        while len(self.rx) >= 2:
            n = fpdu_ulpdu_len(self.rx)
            total = fpdu_size(n)
            if len(self.rx) < total:
                return
            fp = bytes(self.rx[:total])
            del self.rx[:total]
            ulpdu = fp[2:2 + n]
            if self.crc:
                want = fpdu_crc_field(fp)
                if crc32c(fp[:-4]) != want:
                    print("rx fpdu with a bad CRC (len %d)" % n)
            op = rdmap_opcode(ulpdu) if len(ulpdu) >= 2 else -1
            self.fpdus.append((op, ulpdu))

    def exchange(self, data=b"", timeout=8.0, until=None, shut=False):
        """
        Sends @data while reading whatever comes back, until the victim
        closes, @until() holds, or @timeout passes. With @shut our side
        is closed (FIN) once everything is sent.
        """
        s = self.sock
        s.setblocking(False)
        view = memoryview(data)
        end = time.monotonic() + timeout
        while True:
            if shut and not len(view):
                s.shutdown(socket.SHUT_WR)
                shut = False
            self._parse_rx()
            if until is not None and until():
                break
            left = end - time.monotonic()
            if left <= 0 or self.closed:
                break
            w = [s] if len(view) else []
            r, wr, _ = select.select([s], w, [], left)
            if wr:
                try:
                    n = s.send(view[:262144])
                    view = view[n:]
                except BlockingIOError:
                    pass
                except OSError as e:
                    print("send stopped: %s (%d bytes unsent)" %
                          (errno.errorcode.get(e.errno, e.errno),
                           len(view)))
                    view = view[len(view):]
            if r:
                try:
                    d = s.recv(262144)
                except ConnectionResetError:
                    self.closed = "reset"
                    continue
                except BlockingIOError:
                    continue
                if not d:
                    self.closed = "fin"
                    continue
                self.rx += d
        if len(view):
            print("send incomplete: %d bytes unsent" % len(view))
        self._parse_rx()
        s.setblocking(True)

    def rst(self):
        """Ends the connection with a reset (SO_LINGER 0)."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                             struct.pack("ii", 1, 0))
        self.sock.close()
        self.sent_rst = True

    # ---- verdict ---------------------------------------------------

    def terminate_line(self, ulpdu):
        hlen = DDP_UNTAGGED_HDR_LEN + TERM_CTRL_LEN
        if len(ulpdu) < hlen:
            return "terminate short len=%d" % len(ulpdu)
        layer, etype, ecode, hdrct, _ = \
            term_ctrl_unpack(ulpdu, DDP_UNTAGGED_HDR_LEN)
        _, qn, msn, mo = untagged_unpack(ulpdu)
        body = ulpdu[hlen:]
        echo = "none"
        if hdrct & HDRCT_M:
            seg = struct.unpack(">H", body[:2])[0] if len(body) >= 2 else -1
            body = body[2:]
            echo = "seglen-ok" if seg == self.bad_len else \
                "seglen-mismatch(%s)" % seg
        if hdrct & HDRCT_D and self.bad is not None:
            dlen = DDP_TAGGED_HDR_LEN if body[:1] and ddp_is_tagged(body) \
                else DDP_UNTAGGED_HDR_LEN
            if hdrct & HDRCT_R:
                dlen += READ_REQ_LEN
            echo = "match" if body[:dlen] == self.bad[:dlen] and \
                echo == "seglen-ok" else "mismatch"
        print("terminate qn=%d msn=%d mo=%d body=%s" %
              (qn, msn, mo, ulpdu[DDP_UNTAGGED_HDR_LEN:].hex()))
        return ("terminate layer=%d etype=%d ecode=%#04x hdrct=%d echo=%s" %
                (layer, etype, ecode, hdrct, echo))

    def result(self, replied=True):
        """Prints the one result line."""
        if self.sent_rst:
            print("result reset-sent")
            return
        ops = {}
        for op, _ in self.fpdus:
            ops[op] = ops.get(op, 0) + 1
        if ops:
            print("rx fpdus %s" % " ".join("op%d=%d" % kv
                                           for kv in sorted(ops.items())))
        if len(self.rx):
            print("rx %d trailing bytes" % len(self.rx))
        terms = [u for op, u in self.fpdus if op == OP_TERMINATE]
        if len(terms) > 1:
            print("more than one Terminate: %d" % len(terms))
        if terms:
            line = self.terminate_line(terms[0])
            print("closed %s after=%.1f" % (self.closed, self.elapsed()))
            print("result " + line)
        elif not self.closed:
            print("result no-close after=%.1f" % self.elapsed())
        elif replied:
            print("result closed-without-terminate how=%s after=%.1f" %
                  (self.closed, self.elapsed()))
        else:
            print("result closed-without-reply how=%s after=%.1f" %
                  (self.closed, self.elapsed()))

    def mr(self, name):
        return self.info["mr"][name]


# ---- cases -------------------------------------------------------------
#
# Each takes a connected Peer. @attack cases end with p.exchange() and
# p.result(); the result line is compared with EXPECTED by the selftest.

CASES = {}


def case(name, expect, kind="attack", nrecv=None, allow=()):
    def reg(fn):
        CASES[name] = (fn, expect, kind, nrecv, allow)
        return fn
    return reg


def mpa_only(p, frame_kw, wait=10.0):
    p.request(**frame_kw)
    rep = p.reply(wait)
    if rep is None:
        p.result(replied=False)
    elif rep["flags"] & MPA_FLAG_R:
        print("result mpa-reject")
    else:
        print("result mpa-accepted")


# RFC 5044 7.1: a Responder that finds no valid key is not talking to MPA
# and closes the connection; no Reply.
@case("mpa-bad-key", "closed-without-reply", "mpa")
def c_mpa_bad_key(p):
    mpa_only(p, {"key": b"MPA ID Req Fram3"})


# RFC 5044 7.1: a Rev the Responder does not support is refused with the
# Reject bit (and the Responder's own Rev).
@case("mpa-bad-rev", "mpa-reject", "mpa")
def c_mpa_bad_rev(p):
    mpa_only(p, {"rev": 3})


# RFC 5044 7.1: PD_Length MUST NOT exceed 512; such a frame is invalid,
# so the Responder closes (a Reject would also be acceptable).
@case("mpa-pd-too-long", "closed-without-reply|mpa-reject", "mpa")
def c_mpa_pd_long(p):
    mpa_only(p, {"pd": b"\0" * 513})


# siw_lite cannot send Markers (RFC 5044 7.1, M bit): it must refuse.
@case("mpa-markers", "mpa-reject", "mpa")
def c_mpa_markers(p):
    mpa_only(p, {"flags": MPA_FLAG_M})


# A Request from a Responder (R bit set) is invalid.
@case("mpa-reject-bit", "closed-without-reply|mpa-reject", "mpa")
def c_mpa_rbit(p):
    mpa_only(p, {"flags": MPA_FLAG_R})


# Half a Request, then nothing: the Responder must give up on its own.
@case("mpa-stall", "closed-without-reply", "mpa")
def c_mpa_stall(p):
    frame = p.request(send=False)
    p.sock.sendall(frame[:10])
    rep = p.reply(25.0)
    if rep is None:
        p.result(replied=False)
    else:
        print("result mpa-accepted")


# RFC 6581 7: an enhanced Request announcing more than 14 bits' worth is
# still well-formed; here the RTR types are inconsistent (p2p without any
# RTR type), which siw_lite's responder cannot satisfy: MPA reject.
@case("mpa-p2p-no-rtr", "mpa-reject|closed-without-reply", "mpa")
def c_mpa_p2p(p):
    mpa_only(p, {"rev": 2, "v2": (IRD_P2P | 4, 4)})


# RFC 5044 8 / 4.4: a CRC mismatch is MPA error 0x02, layer LLP. A
# zero-length Send so that nothing is placed before the CRC is checked.
@case("crc-bad", "terminate layer=2 etype=0 ecode=0x02")
def c_crc(p):
    p.connect(flags=MPA_FLAG_C)
    p.exchange(p.fpdu(untagged(OP_SEND, QN_SEND, 1), bad_crc=True))
    p.result()


# RFC 5041 7.2: DDP version error, tagged buffer model: 1/1/0x04.
@case("ddp-version-tagged", "terminate layer=1 etype=1 ecode=0x04")
def c_ddp_ver_t(p):
    p.connect()
    a, k, n = p.mr("rw")
    p.exchange(p.fpdu(p.offending(tagged(OP_WRITE, k, a, b"x" * 16,
                                         dv=2))))
    p.result()


# RFC 5041 7.2: DDP version error, untagged buffer model: 1/2/0x06.
@case("ddp-version-untagged", "terminate layer=1 etype=2 ecode=0x06")
def c_ddp_ver_u(p):
    p.connect()
    p.exchange(p.fpdu(p.offending(untagged(OP_SEND, QN_SEND, 1,
                                           payload=b"y" * 8, dv=0))))
    p.result()


# RFC 5040 7 / 4.8: invalid RDMAP version, remote operation error 0x05;
# the DDP header is intact, so the Terminate echoes it (M and D).
@case("rdmap-version",
      "terminate layer=0 etype=2 ecode=0x05 hdrct=6 echo=match")
def c_rdmap_ver(p):
    p.connect()
    p.exchange(p.fpdu(p.offending(untagged(OP_SEND, QN_SEND, 1,
                                           payload=b"z" * 8, rv=2))))
    p.result()


# RFC 5040 4.8: an undefined opcode is "unexpected OpCode", 0/2/0x06.
@case("rdmap-opcode-undefined",
      "terminate layer=0 etype=2 ecode=0x06 hdrct=6 echo=match")
def c_rdmap_op(p):
    p.connect()
    p.exchange(p.fpdu(p.offending(untagged(0xb, QN_SEND, 1,
                                           payload=b"o" * 8))))
    p.result()


# An RDMA Write sent as an untagged message: also an unexpected opcode.
@case("rdmap-opcode-untagged-write",
      "terminate layer=0 etype=2 ecode=0x06 hdrct=6 echo=match")
def c_rdmap_op_model(p):
    p.connect()
    p.exchange(p.fpdu(p.offending(untagged(OP_WRITE, QN_SEND, 1,
                                           payload=b"w" * 8))))
    p.result()


# A Read Response nobody asked for: unexpected opcode (RFC 5040 4.8).
@case("read-resp-unsolicited", "terminate layer=0 etype=2 ecode=0x06")
def c_rresp(p):
    p.connect()
    a, k, n = p.mr("rw")
    p.exchange(p.fpdu(p.offending(tagged(OP_READ_RESP, k, a, b"r" * 16))))
    p.result()


# RFC 5041 7.2, tagged buffer errors (layer DDP, etype 1): Invalid STag.
@case("write-invalid-stag", "terminate layer=1 etype=1 ecode=0x00")
def c_w_stag(p):
    p.connect()
    a, k, n = p.mr("rw")
    # same index, another key: the STag as a whole must match
    p.exchange(p.fpdu(p.offending(tagged(OP_WRITE, k ^ 0x5a, a,
                                         b"s" * 16))))
    p.result()


@case("write-unknown-stag", "terminate layer=1 etype=1 ecode=0x00")
def c_w_stag2(p):
    p.connect()
    a, k, n = p.mr("rw")
    p.exchange(p.fpdu(p.offending(tagged(OP_WRITE, k ^ 0x7fff0000, a,
                                         b"s" * 16))))
    p.result()


# STag of another PD: "STag not associated with DDP Stream", 1/1/0x02.
@case("write-other-pd", "terminate layer=1 etype=1 ecode=0x02")
def c_w_pd2(p):
    p.connect()
    a, k, n = p.mr("pd2")
    p.exchange(p.fpdu(p.offending(tagged(OP_WRITE, k, a, b"p" * 16))))
    p.result()


# No remote write right. RFC 5041 has no access code for tagged buffers;
# "Invalid STag" (0x00) is the closest (siw does the same).
@case("write-no-remote-access", "terminate layer=1 etype=1 ecode=0x00")
def c_w_lw(p):
    p.connect()
    a, k, n = p.mr("lw")
    p.exchange(p.fpdu(p.offending(tagged(OP_WRITE, k, a, b"l" * 16))))
    p.result()


@case("write-read-only", "terminate layer=1 etype=1 ecode=0x00")
def c_w_ro(p):
    p.connect()
    a, k, n = p.mr("ro")
    p.exchange(p.fpdu(p.offending(tagged(OP_WRITE, k, a, b"l" * 16))))
    p.result()


# Base or bounds violation, 1/1/0x01: past the end ...
@case("write-past-end", "terminate layer=1 etype=1 ecode=0x01")
def c_w_end(p):
    p.connect()
    a, k, n = p.mr("rw")
    p.exchange(p.fpdu(p.offending(tagged(OP_WRITE, k, a + n - 16,
                                         b"e" * 32))))
    p.result()


# ... and before the start.
@case("write-before-start", "terminate layer=1 etype=1 ecode=0x01")
def c_w_start(p):
    p.connect()
    a, k, n = p.mr("rw")
    p.exchange(p.fpdu(p.offending(tagged(OP_WRITE, k, a - 8, b"b" * 16))))
    p.result()


# TO + length wraps 2^64: "Tagged Offset wrap", 1/1/0x03.
@case("write-to-wrap", "terminate layer=1 etype=1 ecode=0x03")
def c_w_wrap(p):
    p.connect()
    a, k, n = p.mr("rw")
    p.exchange(p.fpdu(p.offending(tagged(OP_WRITE, k, (1 << 64) - 16,
                                         b"W" * 32))))
    p.result()


# Second segment of a Write goes out of bounds after a valid first one
# was placed: the first segment's bytes may land (allowed), nothing else.
@case("write-second-seg-past-end", "terminate layer=1 etype=1 ecode=0x01",
      allow=[("rw", 4032, 64)])
def c_w_seg2(p):
    p.connect()
    a, k, n = p.mr("rw")
    first = tagged(OP_WRITE, k, a + n - 64, b"1" * 64, last=False)
    second = p.offending(tagged(OP_WRITE, k, a + n, b"2" * 16))
    p.exchange(p.fpdu(first) + p.fpdu(second))
    p.result()


# RFC 5040 7, Read Request checks at the Data Source, remote protection
# errors (layer RDMAP, etype 1); the Terminate echoes the Read Request
# header too (hdrct R).
@case("read-no-remote-access", "terminate layer=0 etype=1 ecode=0x02")
def c_r_lw(p):
    p.connect()
    a, k, n = p.mr("lw")
    p.exchange(p.fpdu(p.offending(read_req(1, 0x1234, 0, 64, k, a))))
    p.result()


# pd2 grants remote read, but to another PD: "STag not associated with
# RDMAP Stream", 0/1/0x03.
@case("read-other-pd", "terminate layer=0 etype=1 ecode=0x03")
def c_r_pd(p):
    p.connect()
    a, k, n = p.mr("pd2")
    p.exchange(p.fpdu(p.offending(read_req(1, 0x1234, 0, 64, k, a))))
    p.result()


@case("read-invalid-stag", "terminate layer=0 etype=1 ecode=0x00")
def c_r_stag(p):
    p.connect()
    a, k, n = p.mr("ro")
    p.exchange(p.fpdu(p.offending(read_req(1, 0x1234, 0, 64, k ^ 0x33,
                                           a))))
    p.result()


@case("read-past-end", "terminate layer=0 etype=1 ecode=0x01")
def c_r_end(p):
    p.connect()
    a, k, n = p.mr("ro")
    p.exchange(p.fpdu(p.offending(read_req(1, 0x1234, 0, 200, k,
                                           a + n - 100))))
    p.result()


@case("read-to-wrap", "terminate layer=0 etype=1 ecode=0x04")
def c_r_wrap(p):
    p.connect()
    a, k, n = p.mr("ro")
    p.exchange(p.fpdu(p.offending(read_req(1, 0x1234, 0, 64, k,
                                           (1 << 64) - 32))))
    p.result()


# More outstanding Read Requests than the IRD the Responder granted
# (RFC 6581 ORD 1 -> victim IRD 1): the Read Request queue has no buffer
# for the extra ones, DDP "Invalid MSN - no buffer available", 1/2/0x02
# (RFC 5040 5.3 and 6.5 via the untagged buffer model of RFC 5041 7.2).
@case("read-over-ird", "terminate layer=1 etype=2 ecode=0x02")
def c_r_ird(p):
    rep = p.connect(rev=2, v2=(4, 1))
    if "v2" in rep and rep["v2"][0] & IRD_ORD_MASK != 1:
        print("victim granted IRD %d, not 1" % (rep["v2"][0] & IRD_ORD_MASK))
    a, k, n = p.mr("ro")
    data = b""
    for msn in range(1, 5):
        rr = read_req(msn, 0x1234, 0, n, k, a)
        if msn == 2:
            p.offending(rr)
        data += p.fpdu(rr)
    p.exchange(data)
    p.result()


# A Read Request for 4 GiB - 1 from a 4 KiB MR: base or bounds, 0/1/0x01.
@case("read-huge-size", "terminate layer=0 etype=1 ecode=0x01")
def c_r_huge(p):
    p.connect()
    a, k, n = p.mr("ro")
    p.exchange(p.fpdu(p.offending(read_req(1, 0x1234, 0, 0xffffffff, k,
                                           a))))
    p.result()


# RFC 5040 7.2 validates the Data Source STag only for non-zero-length
# Read Requests: a zero-length one with a bogus STag is answered with an
# empty Read Response, no Terminate.
@case("read-zero-len-bad-stag", "closed-without-terminate")
def c_r_zero(p):
    p.connect()
    p.exchange(p.fpdu(read_req(1, 0x1234, 0, 0, 0xdeadbe00, 1 << 63)),
               until=lambda: any(op == OP_READ_RESP for op, _ in p.fpdus))
    resp = [u for op, u in p.fpdus if op == OP_READ_RESP]
    print("read response %s" % (resp[0].hex() if resp else "missing"))
    p.exchange(shut=True)
    if not resp:
        print("result no-read-response")
        return
    p.result()


# RFC 5041 7.2, untagged buffer errors (layer DDP, etype 2).
@case("send-too-long", "terminate layer=1 etype=2 ecode=0x05")
def c_s_long(p):
    p.connect()
    n = p.info["recv_len"]
    p.exchange(p.fpdu(p.offending(untagged(OP_SEND, QN_SEND, 1,
                                           payload=b"L" * (n + 1)))))
    p.result()


@case("send-no-recv", "terminate layer=1 etype=2 ecode=0x02", nrecv=0)
def c_s_norecv(p):
    p.connect()
    p.exchange(p.fpdu(p.offending(untagged(OP_SEND, QN_SEND, 1,
                                           payload=b"N" * 8))))
    p.result()


# An MSN ahead of the next expected one: MSN out of range, 1/2/0x03.
@case("send-msn-ahead", "terminate layer=1 etype=2 ecode=0x03")
def c_s_msn(p):
    p.connect()
    p.exchange(p.fpdu(p.offending(untagged(OP_SEND, QN_SEND, 3,
                                           payload=b"M" * 8))))
    p.result()


# MSN 0: behind the first valid MSN (1, RFC 5041 5.1).
@case("send-msn-zero", "terminate layer=1 etype=2 ecode=0x03")
def c_s_msn0(p):
    p.connect()
    p.exchange(p.fpdu(p.offending(untagged(OP_SEND, QN_SEND, 0,
                                           payload=b"M" * 8))))
    p.result()


# The second segment of a Send skips ahead in MO: Invalid MO, 1/2/0x04.
# The first segment is empty, so nothing is placed.
@case("send-mo-gap", "terminate layer=1 etype=2 ecode=0x04")
def c_s_mo(p):
    p.connect()
    first = untagged(OP_SEND, QN_SEND, 1, 0, b"", last=False)
    second = p.offending(untagged(OP_SEND, QN_SEND, 1, 16, b"G" * 8))
    p.exchange(p.fpdu(first) + p.fpdu(second))
    p.result()


# A new Send starting at a non-zero MO.
@case("send-mo-start", "terminate layer=1 etype=2 ecode=0x04")
def c_s_mo0(p):
    p.connect()
    p.exchange(p.fpdu(p.offending(untagged(OP_SEND, QN_SEND, 1, 8,
                                           b"G" * 8))))
    p.result()


# A Send on the Read Request queue: Invalid QN, 1/2/0x01.
@case("send-wrong-qn", "terminate layer=1 etype=2 ecode=0x01")
def c_s_qn(p):
    p.connect()
    p.exchange(p.fpdu(p.offending(untagged(OP_SEND, QN_RREQ, 1,
                                           payload=b"Q" * 8))))
    p.result()


# A new Send (next MSN) while the previous one is still open: the MSN
# does not belong to the message in progress, 1/2/0x03.
@case("send-interleaved", "terminate layer=1 etype=2 ecode=0x03")
def c_s_inter(p):
    p.connect()
    first = untagged(OP_SEND, QN_SEND, 1, 0, b"", last=False)
    second = p.offending(untagged(OP_SEND, QN_SEND, 2, 0, b"I" * 8))
    p.exchange(p.fpdu(first) + p.fpdu(second))
    p.result()


def send_inv_of(p, name):
    """A Send with Invalidate naming the STag of the victim's MR @name."""
    p.connect()
    a, k, n = p.mr(name)
    p.exchange(p.fpdu(p.offending(untagged(OP_SEND_INV, QN_SEND, 1,
                                           inv=k))))
    p.result()


# Send with Invalidate of another PD's STag: RDMAP "STag cannot be
# invalidated", remote protection error 0/1/0x09 (RFC 5040 4.8, 7).
@case("send-inv-other-pd", "terminate layer=0 etype=1 ecode=0x09")
def c_s_inv(p):
    send_inv_of(p, "pd2")


# Send with Invalidate of the victim's own plain MR (ibv_reg_mr, right
# PD, remote rights): nothing could make it valid again, so only
# fast-register MRs (and windows) may be invalidated by a peer. The same
# Terminate as for another PD's STag (issue 17, finding 6).
@case("send-inv-plain-mr", "terminate layer=0 etype=1 ecode=0x09")
def c_s_inv_plain(p):
    send_inv_of(p, "rw")


# The ULPDU_Length is shorter than the headers of its own opcode: no RFC
# code fits better than MPA's length mismatch (RFC 5044 8, 0x03).
@case("short-segment", "terminate layer=2 etype=0 ecode=0x03")
def c_short(p):
    p.connect()
    a, k, n = p.mr("rw")
    p.exchange(p.fpdu(p.offending(tagged(OP_WRITE, k, a)[:8])))
    p.result()


# ULPDU_Length 0: not even a DDP control field, MPA length error 0x03.
@case("mpa-len-zero", "terminate layer=2 etype=0 ecode=0x03")
def c_len0(p):
    p.connect()
    p.exchange(p.fpdu(p.offending(b"")))
    p.result()


# A Write to "rw" stops in the middle of its payload, and the victim
# deregisters "rw" meanwhile (DEREG_MS after ESTABLISHED): ibv_dereg_mr()
# must return at once rather than wait for the peer (verdict.py: within
# DEREG_BOUND_MS, long before the peer goes on after STALL_S), and the
# rest of the Write, when it comes, finds no STag: Invalid STag, 1/1/0x00.
# The bytes before the stall may have landed (the first 2 KiB of rw), no
# byte after it.
DEREG_MS = 1000
DEREG_BOUND_MS = 3000
STALL_S = 6.0


@case("write-stall-dereg", "terminate layer=1 etype=1 ecode=0x00",
      allow=[("rw", 0, 2048)])
def c_w_stall_dereg(p):
    p.connect()
    a, k, n = p.mr("rw")
    fp = p.fpdu(p.offending(tagged(OP_WRITE, k, a, b"D" * n)))
    half = len(fp) // 2
    p.exchange(fp[:half], timeout=STALL_S)
    p.exchange(fp[half:])
    p.result()


c_w_stall_dereg.dereg_ms = DEREG_MS


# A peer that stops reading (RFC 5040 5.4.4 wants a Terminate before the
# close, but this peer never takes it). Read Requests at the victim's IRD
# of 4, never a byte read: once the victim's socket is full its responses
# stay outstanding, the next batch goes over its IRD (an error), and the
# Terminate for that cannot leave. The victim must give up on it and
# reset the connection itself (siw_lite: 5 s later), its QP in ERROR,
# instead of holding the connection for ever.
STALL_RCVBUF = 4096


@case("stalled-reader", "reset-by-victim")
def c_stalled(p):
    p.connect()
    a, k, n = p.mr("ro")
    t0 = time.monotonic()
    msn = 1
    state = TCP_ESTABLISHED
    while state == TCP_ESTABLISHED and time.monotonic() - t0 < 60:
        try:
            p.sock.sendall(b"".join(
                p.fpdu(read_req(m, 0x5700 + m, 0, n, k, a))
                for m in range(msn, msn + 4)))
        except OSError as e:
            print("send stopped: %s" % e)
            break
        msn += 4
        time.sleep(0.4)
        state = tcp_state(p.sock)
    while state == TCP_ESTABLISHED and time.monotonic() - t0 < 60:
        time.sleep(0.2)
        state = tcp_state(p.sock)
    after = time.monotonic() - t0
    print("%d Read Requests sent, %d bytes arrived unread"
          % (msn - 1, inq(p.sock)))
    if state == TCP_CLOSE:
        print("result reset-by-victim after=%.1f" % after)
    else:
        print("result no-reset tcp-state=%d after=%.1f" % (state, after))


c_stalled.rcvbuf = STALL_RCVBUF


# Zero-copy buffers that outlive the module (issue 17, finding 4). Read
# Requests for the whole of "ro" (the victim runs with --mr-size 64 KiB,
# so its responses leave zero-copy from the MR's pinned pages), none of
# them read, then our FIN. The victim closes in order; its socket,
# orphaned, keeps the unsent responses and their pages until we read,
# reset or TCP gives up, which may come after rmmod. We hold until
# killed (the kernel then resets). Not part of --all or --list:
# selftests/test_73_zc_unload.sh drives it.
HOLD_SECS = 600


@case("fin-unread", "holding", "standalone")
def c_fin_unread(p):
    p.connect()
    a, k, n = p.mr("ro")
    p.sock.sendall(b"".join(p.fpdu(read_req(m, 0x5800 + m, 0, n, k, a))
                            for m in range(1, 5)))
    time.sleep(1.0)
    p.sock.shutdown(socket.SHUT_WR)
    print("holding: FIN sent, %d bytes arrived unread" % inq(p.sock))
    time.sleep(HOLD_SECS)
    print("result held")


c_fin_unread.rcvbuf = STALL_RCVBUF


# A ULP that never answers its connection requests (issue 17, finding
# 6). The victim runs with --hoard: it takes every CONNECT_REQUEST and
# neither accepts nor rejects, behind a backlog of 4. We open
# BACKLOG_CONNS connections, each with a valid Request: no more than the
# backlog may reach the ULP at once; the rest wait in TCP's accept queue
# (beyond it our SYNs go unanswered and connect times out). We hold them
# until killed. Not part of --all or --list:
# selftests/test_74_backlog.sh drives it.
BACKLOG_CONNS = 12


@case("backlog-flood", "holding", "standalone")
def c_backlog_flood(p):
    held = [p.sock]
    p.request()
    for i in range(2, BACKLOG_CONNS + 1):
        try:
            s = socket.create_connection((p.args.addr, p.args.port),
                                         timeout=3)
            s.sendall(p.request(send=False))
        except OSError as e:
            print("flood conn %d: %s" % (i, e))
            continue
        held.append(s)
    print("holding: %d of %d connections sent a Request" %
          (len(held), BACKLOG_CONNS))
    time.sleep(HOLD_SECS)
    print("result held")


# Markers nobody negotiated (the Request had no M flag, RFC 5044 7.1.2)
# are stream data to the victim. A peer that sends them anyway puts one
# every 512 octets of the FPDU stream (RFC 5044 section 5: reserved 16
# bits, then the offset back to the start of the FPDU it sits in). The
# one at offset 0 would read as ULPDU_Length 0 (mpa-len-zero); these
# cases send one 1000-byte Write with the marker at offset 512 only.
def marker_write(p):
    a, k, n = p.mr("rw")
    fp = p.fpdu(tagged(OP_WRITE, k, a, bytes(range(250)) * 4))
    return fp[:512] + struct.pack(">HH", 0, 512) + fp[512:]


# With CRCs the marker inside the FPDU is a CRC error, 2/0/0x02.
@case("markers-unnegotiated-crc", "terminate layer=2 etype=0 ecode=0x02",
      allow=[("rw", 0, 1000)])
def c_markers_crc(p):
    p.connect(flags=MPA_FLAG_C)
    p.exchange(marker_write(p))
    p.result()


# Without CRCs the Write's 1000 bytes (marker included) go where the
# Write may write; its last 4 bytes then sit where the CRC field should
# be, and the real CRC field (zero) reads as ULPDU_Length 0, 2/0/0x03.
@case("markers-unnegotiated", "terminate layer=2 etype=0 ecode=0x03",
      allow=[("rw", 0, 1000)])
def c_markers(p):
    p.connect()
    data = marker_write(p)
    p.offending(b"")
    p.exchange(data)
    p.result()


# FPDUs before the MPA Reply break RFC 5044 7.1. They sit in the socket
# while the ULP decides; once accepted they are ordinary (bad) input:
# the invalid STag is terminated, or the victim resets. Nothing may be
# placed either way.
@case("fpdu-before-reply",
      "terminate layer=1 etype=1 ecode=0x00|closed-without-terminate")
def c_early(p):
    frame = p.request(send=False)
    a, k, n = 0, 0x11111100, 0
    bad = p.offending(tagged(OP_WRITE, k, a, b"E" * 16))
    p.sock.sendall(frame + p.fpdu(bad))
    if p.reply() is None:
        p.result(replied=False)
        return
    p.exchange()
    p.result()


# Half an FPDU (a Write into the allowed range), then a reset: nothing
# to answer; the victim's QP must end in ERROR and nothing outside the
# target range may change.
@case("truncated-rst", "reset-sent", allow=[("rw", 1024, 600)])
def c_trunc(p):
    p.connect()
    a, k, n = p.mr("rw")
    fp = p.fpdu(tagged(OP_WRITE, k, a + 1024, b"T" * 600))
    p.sock.sendall(fp[:120])
    time.sleep(0.5)
    p.rst()
    p.result()


# An MPA length larger than what follows, then our FIN: the victim can
# only close (a Terminate saying "TCP connection closed" would also do).
@case("length-overrun-fin",
      "closed-without-terminate|terminate layer=2 etype=0 ecode=0x01",
      allow=[("rw", 1024, 600)])
def c_overrun(p):
    p.connect()
    a, k, n = p.mr("rw")
    fp = p.fpdu(tagged(OP_WRITE, k, a + 1024, b"F" * 100), mpa_len=614)
    p.exchange(fp, shut=True)
    p.result()


# 100k zero-length Sends against a handful of receives: the first few
# complete, then "no buffer available" (1/2/0x02) and the rest of the
# stream is dropped; the kernel must stay responsive meanwhile.
@case("flood-sends", "terminate layer=1 etype=2 ecode=0x02", "flood")
def c_flood(p):
    p.connect()
    nrecv = p.info["nrecv"]
    parts = []
    for msn in range(1, p.args.flood + 1):
        u = untagged(OP_SEND, QN_SEND, msn)
        if msn == nrecv + 1:
            p.offending(u)
        parts.append(p.fpdu(u))
    p.exchange(b"".join(parts), timeout=30)
    p.result()


# 100k zero-length RDMA Writes are legal; a Send after them must still
# arrive, and nothing may be terminated.
@case("flood-writes", "closed-without-terminate", "good",
      allow=[("recv", 0, 16)])
def c_flood_w(p):
    p.connect()
    a, k, n = p.mr("rw")
    one = p.fpdu(tagged(OP_WRITE, k, a))
    send = p.fpdu(untagged(OP_SEND, QN_SEND, 1, 0,
                           bytes(pattern(BUF_RECV, i) ^ 0x3c
                                 for i in range(16))))
    p.exchange(one * p.args.flood + send, timeout=30, shut=True)
    p.result()


# RFC 6581: a p2p Request offering only a Write RTR; the first FPDU is
# then a Send instead of the zero-length Write: MPA "No Matching RTR",
# 2/0/0x07.
@case("rtr-mismatch", "terminate layer=2 etype=0 ecode=0x07")
def c_rtr(p):
    rep = p.connect(rev=2, v2=(IRD_P2P | 4, ORD_RTR_WRITE | 4))
    if "v2" in rep:
        print("rtr granted: ord word %#06x" % rep["v2"][1])
    p.exchange(p.fpdu(untagged(OP_SEND, QN_SEND, 1, payload=b"R" * 8)))
    p.result()


# RFC 5040 5.4.4 (via 4.8): a Terminate is never answered with another;
# the receiver moves to ERROR and closes.
@case("terminate-valid", "closed-without-terminate")
def c_term(p):
    p.connect()
    p.exchange(p.fpdu(untagged(OP_TERMINATE, QN_TERM, 1,
                               payload=term_ctrl(0, 2, 0xff, 0))))
    p.result()


# A Terminate whose Hdrct claims a DDP header without the segment length
# (D without M) and carries nothing: malformed, still not answered.
@case("terminate-malformed", "closed-without-terminate")
def c_term_bad(p):
    p.connect()
    p.exchange(p.fpdu(untagged(OP_TERMINATE, QN_TERM, 1,
                               payload=term_ctrl(0xf, 0xf, 0xee,
                                                 HDRCT_D))))
    p.result()


# A Terminate message claiming a long echo it does not carry.
@case("terminate-truncated-echo", "closed-without-terminate")
def c_term_short(p):
    p.connect()
    p.exchange(p.fpdu(untagged(OP_TERMINATE, QN_TERM, 1,
                               payload=term_ctrl(1, 1, 0,
                                                 HDRCT_M | HDRCT_D |
                                                 HDRCT_R) + b"\0\x20")))
    p.result()


# The well-formed connection every attack is followed by: a Write into
# rw at offset 256, a Read of ro at 128, a Send; all checked.
@case("good", "closed-without-terminate", "good",
      allow=[("rw", 256, 32), ("recv", 0, 16)])
def c_good(p):
    # the victim may still be busy with the connection before
    p.connect(timeout=25.0)
    a, k, n = p.mr("rw")
    ra, rk, rn = p.mr("ro")
    wdata = bytes(pattern(BUF_RW, 256 + i) ^ 0xa5 for i in range(32))
    sdata = bytes(pattern(BUF_RECV, i) ^ 0x3c for i in range(16))
    print("good write rw+256 data=%s" % wdata.hex())
    print("good send data=%s" % sdata.hex())
    data = p.fpdu(tagged(OP_WRITE, k, a + 256, wdata))
    data += p.fpdu(read_req(1, 0x4321, 0x100, 64, rk, ra + 128))
    data += p.fpdu(untagged(OP_SEND, QN_SEND, 1, 0, sdata))

    def have_resp():
        return any(op == OP_READ_RESP for op, _ in p.fpdus)
    p.exchange(data, until=have_resp)
    want = bytes(pattern(BUF_RO, 128 + i) for i in range(64))
    resp = [u for op, u in p.fpdus if op == OP_READ_RESP]
    if resp and resp[0][2:6] == struct.pack(">I", 0x4321) and \
       resp[0][6:14] == struct.pack(">Q", 0x100) and resp[0][14:] == want:
        print("good read ok")
    else:
        print("good read wrong: %s" % (resp[0].hex() if resp else "none"))
    p.exchange(shut=True)
    p.result()


def run(args, name, tag):
    fn, expect, kind, nrecv, allow = CASES[name]
    print("case %s expect %s" % (name, expect))
    try:
        p = Peer(args, directive(tag, nrecv, allow,
                                 getattr(fn, "dereg_ms", 0)),
                 getattr(fn, "rcvbuf", None))
    except OSError as e:
        print("result connect-failed %s" % e)
        return
    try:
        fn(p)
    except SetupFailed as e:
        print("result setup-failed %s" % e)
    except OSError as e:
        print("result socket-error %s" % e)
    if not p.sent_rst:
        p.sock.close()


def main():
    ap = argparse.ArgumentParser(
        description="a hostile iWARP peer for tools/testing/hostile/victim")
    ap.add_argument("--addr", default="192.0.2.1")
    ap.add_argument("--port", type=int, default=20000)
    ap.add_argument("--case")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--only", default="",
                    help="with --all: only these cases (space separated)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--flood", type=int, default=100000,
                    help="FPDUs in the flood cases")
    args = ap.parse_args()
    if args.list:
        for name, (_, expect, kind, _, _) in CASES.items():
            if kind != "standalone":
                print("%s\t%s\t%s" % (name, expect, kind))
        return 0
    sys.stdout.reconfigure(line_buffering=True)
    if args.all:
        only = args.only.split()
        for name in CASES:
            if name == "good" or CASES[name][2] == "standalone" or \
               (only and name not in only):
                continue
            print("=== case %s" % name)
            run(args, name, name)
            print("=== good %s" % name)
            run(args, "good", "good:" + name)
        print("=== quit")
        try:
            p = Peer(args, directive("quit"))
            p.request()
            p.reply(5.0)
            p.sock.close()
        except OSError as e:
            print("quit: %s" % e)
        print("=== end")
        return 0
    if args.case not in CASES:
        print("unknown case %r; --list shows them" % args.case,
              file=sys.stderr)
        return 2
    run(args, args.case, args.case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
