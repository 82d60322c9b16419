#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""wirecheck - conformance checker for captured iWARP (MPA/DDP/RDMAP) traffic.

    wirecheck.py [--json] [--min-connections N] [--payloads] FILE.pcap...

Reads classic pcap or pcapng (Ethernet, Linux cooked v1/v2, raw IP),
reassembles every TCP connection per direction and, for each connection
that starts with an MPA Request/Reply exchange, checks the wire against
the RFCs: MPA frames and FPDUs (RFC 5044, RFC 6581), DDP headers
(RFC 5041) and RDMAP messages (RFC 5040).  It was written from the RFCs,
independently of any encoder it is used to test.

Every finding is a *violation* (the sender broke a MUST of the RFC, or the
traffic uses something this checker does not support, e.g. markers) or a
*note* (capture artefacts such as a stream cut in the middle of an FPDU,
or a questionable but allowed choice).  Exit status: 0 if there were no
violations, 1 if there were (or fewer than --min-connections MPA
connections were found), 2 on usage or capture-format errors.

Section numbers name the RFC section the rule comes from.
"""

import argparse
import ipaddress
import json
import os
import struct
import sys

# CRC32c and the field layouts come from tools/testing/lib/iwarp_wire.py, shared
# with tools/testing/hostile; the tree may be read-only: no bytecode written.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from iwarp_wire import (  # noqa: E402
    DDP_TAGGED_HDR_LEN, DDP_UNTAGGED_HDR_LEN, DDP_VERSION, HDRCT_D,
    HDRCT_M, HDRCT_R, INVAL_OPS, MPA_FLAG_C, MPA_FLAG_ENH, MPA_FLAG_M,
    MPA_FLAG_R, MPA_FLAGS_RSVD, MPA_FLAGS_RSVD_REV2, MPA_HDR_LEN,
    MPA_IRD_ORD_LEN, MPA_KEY_LEN, MPA_KEY_REP, MPA_KEY_REQ, MPA_MAX_PD,
    OP_READ_REQ, OP_SEND, OP_TERMINATE, OP_WRITE, OPNAMES,
    QN_FOR_OP, RDMAP_VERSION, READ_REQ_LEN, SEND_OPS, TAGGED_OPS,
    TERM_CTRL_LEN, TERM_ETYPE_DDP_CATASTROPHIC, TERM_ETYPE_DDP_TAGGED,
    TERM_ETYPE_DDP_UNTAGGED, TERM_ETYPE_MPA, TERM_ETYPE_RDMAP_CATASTROPHIC,
    TERM_ETYPE_RDMAP_OPERATION, TERM_ETYPE_RDMAP_PROTECTION, TERM_LAYER_DDP,
    TERM_LAYER_LLP, TERM_LAYER_RDMAP, crc32c, ddp_ctrl_unpack,
    ddp_is_tagged, fpdu_crc_field, fpdu_size, fpdu_ulpdu_len,
    mpa_enhanced_unpack, mpa_frame_unpack, mpa_pad_len, rdmap_opcode,
    read_req_unpack, tagged_unpack, term_ctrl_unpack, untagged_unpack)

# --payloads lists messages up to this size: enough to see what a sender
# put on the wire when a receiver reports wrong bytes in a short message.
PAYLOAD_MAX = 64

# Valid Terminate (layer, etype) -> error codes, None = any (RFC 5040
# §4.8 error code table, RFC 5044 §8 / RFC 6581 §9 for MPA, as collected
# in the IANA "RDDP" registry of RFC 6580).
TERM_CODES = {
    (TERM_LAYER_RDMAP, TERM_ETYPE_RDMAP_CATASTROPHIC): None,
    (TERM_LAYER_RDMAP, TERM_ETYPE_RDMAP_PROTECTION):
        {0x00, 0x01, 0x02, 0x03, 0x04, 0x09, 0xff},
    (TERM_LAYER_RDMAP, TERM_ETYPE_RDMAP_OPERATION):
        {0x05, 0x06, 0x07, 0x08, 0x09, 0xff},
    (TERM_LAYER_DDP, TERM_ETYPE_DDP_CATASTROPHIC): None,
    (TERM_LAYER_DDP, TERM_ETYPE_DDP_TAGGED): {0x00, 0x01, 0x02, 0x03, 0x04},
    (TERM_LAYER_DDP, TERM_ETYPE_DDP_UNTAGGED):
        {0x01, 0x02, 0x03, 0x04, 0x05, 0x06},
    (TERM_LAYER_LLP, TERM_ETYPE_MPA):
        {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07},
}


class CaptureError(Exception):
    pass


# ------------------------------------------------------------ capture files

def read_pcap(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise CaptureError("%s: %s" % (path, e.strerror))


def capture_records(data, path="capture"):
    """Yield (timestamp, linktype, frame bytes, original length)."""
    if len(data) < 24:
        raise CaptureError("%s: too short for a capture file" % path)
    magic = data[:4]
    if magic == b"\x0a\x0d\x0d\x0a":
        yield from _read_pcapng(path, data)
        return
    kinds = {b"\xd4\xc3\xb2\xa1": ("<", 1e-6),
             b"\xa1\xb2\xc3\xd4": (">", 1e-6),
             b"\x4d\x3c\xb2\xa1": ("<", 1e-9),
             b"\xa1\xb2\x3c\x4d": (">", 1e-9)}
    if magic not in kinds:
        raise CaptureError("%s: not a pcap or pcapng file" % path)
    end, res = kinds[magic]
    linktype = struct.unpack(end + "I", data[20:24])[0] & 0x0fffffff
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(end + "IIII", data[off:off + 16])
        off += 16
        if off + incl > len(data):
            break                       # last record cut: capture killed
        yield sec + frac * res, linktype, data[off:off + incl], orig
        off += incl


def _read_pcapng(path, data):
    end = "<"
    ifaces = []
    off = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack(end + "II", data[off:off + 8])
        if btype == 0x0a0d0d0a:
            bom = data[off + 8:off + 12]
            end = "<" if bom == b"\x4d\x3c\x2b\x1a" else ">"
            btype, blen = struct.unpack(end + "II", data[off:off + 8])
            ifaces = []
        if blen < 12 or off + blen > len(data):
            break
        body = data[off + 8:off + blen - 4]
        if btype == 1:
            linktype = struct.unpack(end + "H", body[:2])[0]
            res = 1e-6
            opt = 8
            while opt + 4 <= len(body):
                code, olen = struct.unpack(end + "HH", body[opt:opt + 4])
                if code == 0:
                    break
                if code == 9 and olen >= 1:
                    v = body[opt + 4]
                    res = 2.0 ** -(v & 0x7f) if v & 0x80 else 10.0 ** -v
                opt += 4 + ((olen + 3) & ~3)
            ifaces.append((linktype, res))
        elif btype == 6 and len(body) >= 20:
            ifid, hi, lo, incl, orig = struct.unpack(end + "IIIII", body[:20])
            if ifid < len(ifaces):
                lt, res = ifaces[ifid]
                yield ((hi << 32 | lo) * res, lt, body[20:20 + incl], orig)
        elif btype == 3 and len(body) >= 4 and ifaces:
            orig = struct.unpack(end + "I", body[:4])[0]
            yield 0.0, ifaces[0][0], body[4:4 + orig], orig
        off += blen


def link_to_ip(linktype, frame):
    """Return (ethertype-ish version, IP packet) or None."""
    if linktype == 1:                   # Ethernet, maybe VLAN-tagged
        off, etype = 12, None
        while off + 2 <= len(frame):
            etype = struct.unpack(">H", frame[off:off + 2])[0]
            if etype in (0x8100, 0x88a8):
                off += 4
                continue
            off += 2
            break
        return etype, frame[off:]
    if linktype == 113:                 # Linux cooked v1
        return struct.unpack(">H", frame[14:16])[0], frame[16:]
    if linktype == 276:                 # Linux cooked v2
        return struct.unpack(">H", frame[0:2])[0], frame[20:]
    if linktype in (101, 12, 14, 228, 229):     # raw IP
        if not frame:
            return None
        return {4: 0x0800, 6: 0x86dd}.get(frame[0] >> 4), frame
    raise CaptureError("unsupported link type %d" % linktype)


def parse_tcp(etype, pkt, truncated):
    """Return (src, sport, dst, dport, seq, flags, mss, payload, cut)."""
    if etype == 0x0800 and len(pkt) >= 20 and pkt[0] >> 4 == 4:
        ihl = (pkt[0] & 15) * 4
        total = struct.unpack(">H", pkt[2:4])[0]
        if pkt[9] != 6 or struct.unpack(">H", pkt[6:8])[0] & 0x3fff:
            return None                 # not TCP, or a fragment
        src = ipaddress.ip_address(pkt[12:16])
        dst = ipaddress.ip_address(pkt[16:20])
        seg = pkt[ihl:total] if total >= ihl else pkt[ihl:]
        cut = truncated or len(pkt) < total
    elif etype == 0x86dd and len(pkt) >= 40 and pkt[0] >> 4 == 6:
        nxt, plen = pkt[6], struct.unpack(">H", pkt[4:6])[0]
        src = ipaddress.ip_address(pkt[8:24])
        dst = ipaddress.ip_address(pkt[24:40])
        off = 40
        while nxt in (0, 43, 60) and off + 8 <= len(pkt):
            nxt, off = pkt[off], off + (pkt[off + 1] + 1) * 8
        if nxt != 6:
            return None
        seg = pkt[off:40 + plen]
        cut = truncated or len(pkt) < 40 + plen
    else:
        return None
    if len(seg) < 20:
        return None
    sport, dport, seq = struct.unpack(">HHI", seg[:8])
    doff = (seg[12] >> 4) * 4
    flags = seg[13]
    mss = None
    opts = seg[20:doff]
    i = 0
    while i < len(opts):
        if opts[i] == 0:
            break
        if opts[i] == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            break
        if opts[i] == 2 and opts[i + 1] == 4 and i + 4 <= len(opts):
            mss = struct.unpack(">H", opts[i + 2:i + 4])[0]
        i += opts[i + 1]
    return src, sport, dst, dport, seq, flags, mss, seg[doff:], cut


# ------------------------------------------------------------ TCP streams

class Stream:
    """One direction of a TCP connection, reassembled by sequence number."""

    def __init__(self):
        self.isn = None
        self.first_seq = None
        self.segs = []                  # (seq, capture index, ts, data)
        self.fin = self.rst = False
        self.mss = None
        self.data = b""
        self.times = []                 # (offset, ts): first arrival
        self.notes = []
        self.complete = True            # no hole in the captured bytes

    def add(self, idx, ts, seq, flags, payload, cut):
        if flags & 0x02:
            self.isn = seq
        if self.first_seq is None:
            self.first_seq = seq
        if flags & 0x01:
            self.fin = True
        if flags & 0x04:
            self.rst = True
        start = seq + (1 if flags & 0x02 else 0)
        if payload:
            self.segs.append((start, idx, ts, payload))
            if cut:
                self.notes.append("packet at seq %d truncated by the capture"
                                  % start)

    def assemble(self):
        base = (self.isn + 1) if self.isn is not None else self.first_seq
        if base is None:
            return
        segs = sorted((((s - base) & 0xffffffff), i, ts, d)
                      for s, i, ts, d in self.segs)
        out = bytearray()
        for rel, _, ts, d in segs:
            if rel > 0x7fffffff:        # before the start: old data
                continue
            if rel > len(out):
                self.notes.append("capture lacks bytes %d..%d of this "
                                  "direction; checked up to the gap"
                                  % (len(out), rel - 1))
                self.complete = False
                break
            old = bytes(out[rel:rel + len(d)])
            if old and old != d[:len(old)]:
                self.notes.append("retransmission at offset %d differs from "
                                  "the first transmission" % rel)
            if rel + len(d) > len(out):
                self.times.append((len(out), ts))
                out += d[len(out) - rel:]
        self.data = bytes(out)

    def time_at(self, off):
        """Capture time at which stream byte `off` was first seen."""
        lo, hi = 0, len(self.times) - 1
        if hi < 0:
            return 0.0
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.times[mid][0] <= off:
                lo = mid
            else:
                hi = mid - 1
        return self.times[lo][1]


def read_connections(data, path="capture"):
    """Return one dict per TCP connection: endpoints' Streams, SYN sender."""
    flows = {}
    all_flows = []
    idx = 0
    for ts, lt, frame, orig in capture_records(data, path):
        idx += 1
        r = link_to_ip(lt, frame)
        if r is None:
            continue
        p = parse_tcp(r[0], r[1], len(frame) < orig)
        if p is None:
            continue
        src, sport, dst, dport, seq, flags, mss, payload, cut = p
        a, b = (src, sport), (dst, dport)
        key = (a, b) if (a, b) <= (b, a) else (b, a)
        flow = flows.get(key)
        if flow is None or (flags & 0x12 == 0x02 and flow["closed"]):
            # a new SYN after the old connection ended: new flow
            flow = {"dirs": {}, "syn": None, "closed": False, "key": key}
            flows[key] = flow
            all_flows.append(flow)
        st = flow["dirs"].setdefault(a, Stream())
        if flags & 0x12 == 0x02:
            flow["syn"] = a
        if mss:
            st.mss = mss
        st.add(idx, ts, seq, flags, payload, cut)
        if flags & 0x05:
            if all(s.fin or s.rst for s in flow["dirs"].values()) or \
                    flags & 0x04:
                flow["closed"] = True
    return all_flows


# ------------------------------------------------------------ report

class Report:
    def __init__(self, conn):
        self.conn = conn
        self.violations = []
        self.notes = []

    def violation(self, where, off, section, text):
        self.violations.append({"dir": where, "offset": off,
                                "rfc": section, "text": text})

    def note(self, where, off, text):
        self.notes.append({"dir": where, "offset": off, "text": text})


# ------------------------------------------------------------ RFC 5044 §7.1

def rfc5044_7_1_find_request(data):
    """Does this stream start with something meant as an MPA Request?"""
    if len(data) < MPA_KEY_LEN:
        return False
    key = data[:MPA_KEY_LEN]
    if key == MPA_KEY_REQ:
        return True
    if key == MPA_KEY_REP:
        return False
    # a damaged key still shows its author's intent: same prefix, or at
    # most two wrong bytes
    diff = sum(1 for x, y in zip(key, MPA_KEY_REQ) if x != y)
    return data[:6] == b"MPA ID" or diff <= 2


def rfc5044_7_1_2_frame(rep, who, data, kind):
    """Parse and check one MPA Request/Reply frame; return a dict or None."""
    key = MPA_KEY_REQ if kind == "request" else MPA_KEY_REP
    if len(data) < MPA_HDR_LEN:
        rep.note(who, 0, "stream ends inside the MPA %s header" % kind)
        return None
    wire_key, bits, rev, pd_len = mpa_frame_unpack(data)
    f = {"key": wire_key, "bits": bits, "rev": rev, "pd_len": pd_len}
    f["m"], f["c"], f["r"] = (bool(f["bits"] & MPA_FLAG_M),
                              bool(f["bits"] & MPA_FLAG_C),
                              bool(f["bits"] & MPA_FLAG_R))
    f["s"] = bool(f["bits"] & MPA_FLAG_ENH)
    if f["key"] != key:
        rep.violation(who, 0, "RFC 5044 §7.1.2",
                      "MPA %s key is %r, must be %r"
                      % (kind, f["key"], key.decode()))
    if f["rev"] not in (1, 2):
        rep.violation(who, 17, "RFC 5044 §7.1.2, RFC 6581 §9",
                      "MPA %s Rev %d (only 1 and 2 are defined)"
                      % (kind, f["rev"]))
    res_mask = MPA_FLAGS_RSVD_REV2 if f["rev"] == 2 else MPA_FLAGS_RSVD
    if f["bits"] & res_mask:
        rep.violation(who, 16, "RFC 5044 §7.1.2",
                      "MPA %s reserved bits set: 0x%02x"
                      % (kind, f["bits"] & res_mask))
    if kind == "request" and f["r"]:
        rep.violation(who, 16, "RFC 5044 §7.1.2",
                      "R (reject) bit set in the MPA Request")
    if f["pd_len"] > MPA_MAX_PD:
        rep.violation(who, 18, "RFC 5044 §7.1.2",
                      "PD_Length %d exceeds %d" % (f["pd_len"], MPA_MAX_PD))
    f["pd"] = data[MPA_HDR_LEN:MPA_HDR_LEN + f["pd_len"]]
    f["end"] = MPA_HDR_LEN + f["pd_len"]
    if len(f["pd"]) < f["pd_len"]:
        rep.note(who, len(data), "stream ends inside the MPA %s private "
                 "data (%d of %d bytes)" % (kind, len(f["pd"]), f["pd_len"]))
        return None
    f["enh"] = None
    if f["rev"] == 2 and f["s"]:
        f["enh"] = rfc6581_enhanced_data(rep, who, f, kind)
    return f


# ------------------------------------------------------------ RFC 6581

def rfc6581_enhanced_data(rep, who, f, kind):
    """IRD/ORD, P2P and RTR flags from the first private data word."""
    if f["pd_len"] < MPA_IRD_ORD_LEN:
        rep.violation(who, 18, "RFC 6581 §9",
                      "MPA %s announces enhanced connection data but "
                      "PD_Length is %d (< 4)" % (kind, f["pd_len"]))
        return None
    return mpa_enhanced_unpack(f["pd"])


def rtr_set(e):
    return {n for n in ("send", "write", "read") if e["rtr_" + n]}


def rfc6581_negotiation(rep, req, rp):
    """Cross-checks of the Reply against the Request; return RTR type."""
    if rp["rev"] > req["rev"]:
        rep.violation("R->I", 17, "RFC 6581 §9",
                      "MPA Reply Rev %d is above the Request's Rev %d"
                      % (rp["rev"], req["rev"]))
    e, r = req["enh"], rp["enh"]
    if e is None:
        if rp["s"] and rp["rev"] == 2:
            rep.violation("R->I", 16, "RFC 6581 §9",
                          "Reply carries enhanced connection data the "
                          "Request did not offer")
        return None
    if e["p2p"] and not rtr_set(e):
        rep.violation("I->R", 20, "RFC 6581 §9",
                      "Request asks for peer-to-peer mode without any RTR "
                      "type")
    if not e["p2p"] and rtr_set(e):
        rep.note("I->R", 20, "Request sets RTR type flags without P2P")
    if rp["r"]:
        return None
    if rp["rev"] != 2 or r is None:
        rep.violation("R->I", 16, "RFC 6581 §9",
                      "Request used enhanced connection setup, the Reply "
                      "must too (Rev 2 with IRD/ORD)")
        return None
    if r["ord"] > e["ird"]:
        rep.note("R->I", 22, "responder ORD %d exceeds initiator IRD %d "
                 "(initiator must terminate)" % (r["ord"], e["ird"]))
    if not r["p2p"]:
        if rtr_set(r):
            rep.violation("R->I", 20, "RFC 6581 §9",
                          "Reply sets RTR type flags without P2P")
        return None
    if not e["p2p"]:
        rep.violation("R->I", 20, "RFC 6581 §9",
                      "Reply indicates P2P the initiator did not request")
        return None
    chosen = rtr_set(r)
    if len(chosen) != 1:
        rep.violation("R->I", 20, "RFC 6581 §9",
                      "Reply must select exactly one RTR type, selects %s"
                      % (sorted(chosen) or "none"))
        return None
    rtr = chosen.pop()
    if rtr not in rtr_set(e):
        rep.violation("R->I", 20, "RFC 6581 §9",
                      "Reply selects RTR type %s the initiator did not "
                      "offer (%s)" % (rtr, ", ".join(sorted(rtr_set(e)))))
    return rtr


# ------------------------------------------------------------ RFC 5044 §6

class Segment:
    """One FPDU with its DDP/RDMAP header fields."""
    __slots__ = ("off", "ts0", "ts1", "ulen", "t", "l", "op", "stag", "to",
                 "qn", "msn", "mo", "inv", "payload", "body")


def rfc5044_6_fpdus(rep, who, st, start, crc_on):
    """Split the direction's stream into FPDUs and check framing."""
    data = st.data
    off = start
    while off < len(data):
        if off + 2 > len(data):
            rep.note(who, off, "stream ends inside an FPDU header")
            return
        ulen = fpdu_ulpdu_len(data, off)
        pad = mpa_pad_len(ulen)
        total = fpdu_size(ulen)
        if ulen < DDP_TAGGED_HDR_LEN:
            rep.violation(who, off, "RFC 5044 §6, RFC 5041 §4",
                          "ULPDU_Length %d is below the smallest DDP "
                          "header (14); framing lost" % ulen)
            return
        if off + total > len(data):
            why = "RST" if st.rst else ("FIN" if st.fin else "end of capture")
            rep.note(who, off, "stream ends inside an FPDU (%d of %d bytes, "
                     "%s)" % (len(data) - off, total, why))
            return
        fp = data[off:off + total]
        padding = fp[2 + ulen:2 + ulen + pad]
        if any(padding):
            rep.violation(who, off + 2 + ulen, "RFC 5044 §6",
                          "pad bytes not zero: %s" % padding.hex())
        if crc_on:
            want = crc32c(fp[:-4])
            got = fpdu_crc_field(fp)
            if got != want:
                swapped = struct.unpack(">I", fp[-4:])[0] == want
                rep.violation(who, off + total - 4, "RFC 5044 §6",
                              "CRC32c 0x%08x, expected 0x%08x%s"
                              % (got, want, " (byte-swapped)" if swapped
                                 else ""))
        yield off, ulen, fp[2:2 + ulen], st.time_at(off), \
            st.time_at(off + total - 1)
        off += total


# ------------------------------------------------------------ RFC 5041 §4

def rfc5041_4_ddp_header(rep, who, off, ulpdu):
    s = Segment()
    s.off = off
    s.t, s.l, ddp_rsvd, dv, rv, rdmap_rsvd, s.op = ddp_ctrl_unpack(ulpdu)
    if ddp_rsvd:
        rep.violation(who, off + 2, "RFC 5041 §4.2",
                      "DDP control reserved bits set: 0x%02x" % ddp_rsvd)
    if dv != DDP_VERSION:
        rep.violation(who, off + 2, "RFC 5041 §4.2",
                      "DDP version %d, must be 1" % dv)
    if rv != RDMAP_VERSION:
        rep.violation(who, off + 3, "RFC 5040 §4.1",
                      "RDMAP version %d, must be 1" % rv)
    if rdmap_rsvd:
        rep.violation(who, off + 3, "RFC 5040 §4.1",
                      "RDMAP control reserved bits set: 0x%02x" % rdmap_rsvd)
    s.stag = s.to = s.qn = s.msn = s.mo = s.inv = None
    if s.t:
        s.stag, s.to = tagged_unpack(ulpdu)
        s.payload = len(ulpdu) - DDP_TAGGED_HDR_LEN
        s.body = ulpdu[DDP_TAGGED_HDR_LEN:]
    else:
        if len(ulpdu) < DDP_UNTAGGED_HDR_LEN:
            rep.violation(who, off, "RFC 5041 §4.4",
                          "untagged DDP segment of %d bytes is shorter than "
                          "its 18-byte header" % len(ulpdu))
            return None
        s.inv, s.qn, s.msn, s.mo = untagged_unpack(ulpdu)
        s.payload = len(ulpdu) - DDP_UNTAGGED_HDR_LEN
        s.body = ulpdu[DDP_UNTAGGED_HDR_LEN:]
    return s


class DirState:
    """Per-direction DDP/RDMAP sequencing state."""

    def __init__(self, who):
        self.who = who
        self.next_msn = {0: 1, 1: 1, 2: 1}
        self.open_untagged = {}         # qn -> (msn, next mo)
        self.open_tagged = {}           # op -> (stag, next to)
        self.messages = []              # completed/started messages
        self.cur_tagged = {}            # op -> message dict in progress
        self.terminated_at = None
        self.payloads = []              # short messages, for --payloads
        self.fpdus = 0
        self.bytes = 0
        self.ops = {}


def rfc5041_untagged_sequence(rep, ds, s):
    """MSN per queue starts at 1 and counts messages; MO is contiguous."""
    who = ds.who
    if s.qn not in (0, 1, 2):
        rep.violation(who, s.off + 8, "RFC 5040 §5, RFC 5041 §4.4",
                      "untagged QN %d (RDMAP uses 0, 1 and 2)" % s.qn)
        return
    openm = ds.open_untagged.get(s.qn)
    if openm:
        msn, mo = openm
        if s.msn != msn:
            rep.violation(who, s.off + 12, "RFC 5041 §5.3",
                          "QN %d MSN %d in the middle of message MSN %d"
                          % (s.qn, s.msn, msn))
        if s.mo != mo:
            rep.violation(who, s.off + 16, "RFC 5041 §5.3",
                          "QN %d MSN %d MO %d, expected %d (not contiguous)"
                          % (s.qn, s.msn, s.mo, mo))
    else:
        want = ds.next_msn[s.qn]
        if s.msn != want:
            rep.violation(who, s.off + 12, "RFC 5041 §5.3",
                          "QN %d MSN %d, expected %d%s"
                          % (s.qn, s.msn, want,
                             " (MSN starts at 1)" if want == 1 else ""))
        if s.mo != 0:
            rep.violation(who, s.off + 16, "RFC 5041 §5.3",
                          "QN %d MSN %d: first segment has MO %d, must be 0"
                          % (s.qn, s.msn, s.mo))
    if s.l:
        ds.open_untagged.pop(s.qn, None)
        ds.next_msn[s.qn] = (s.msn + 1) & 0xffffffff
    else:
        ds.open_untagged[s.qn] = (s.msn, s.mo + s.payload)


def rfc5041_tagged_sequence(rep, ds, s, ts0, ts1):
    """Within one tagged message the STag stays and the TO advances."""
    openm = ds.open_tagged.get(s.op)
    if openm:
        stag, to = openm
        if s.stag != stag:
            rep.violation(ds.who, s.off + 4, "RFC 5041 §5.2",
                          "%s continues with STag 0x%08x, message started "
                          "with 0x%08x" % (OPNAMES[s.op], s.stag, stag))
        elif s.to != to:
            rep.violation(ds.who, s.off + 8, "RFC 5041 §5.2",
                          "%s TO 0x%x, expected 0x%x (not contiguous)"
                          % (OPNAMES[s.op], s.to, to))
        msg = ds.cur_tagged[s.op]
        msg["len"] += s.payload
    else:
        msg = {"op": s.op, "stag": s.stag, "to": s.to, "len": s.payload,
               "ts0": ts0, "ts1": None, "off": s.off}
        ds.cur_tagged[s.op] = msg
        ds.messages.append(msg)
    if s.l:
        ds.open_tagged.pop(s.op, None)
        msg["ts1"] = ts1
    else:
        ds.open_tagged[s.op] = (s.stag, (s.to + s.payload) & (2 ** 64 - 1))


# ------------------------------------------------------------ RFC 5040

def rfc5040_4_rdmap(rep, ds, s, ts0, ts1):
    who = ds.who
    if s.op not in OPNAMES:
        rep.violation(who, s.off + 3, "RFC 5040 §4.2",
                      "unknown RDMAP opcode 0x%x" % s.op)
        return
    if s.t != (s.op in TAGGED_OPS):
        rep.violation(who, s.off + 2, "RFC 5040 §4.2",
                      "%s must use the %s buffer model, T bit is %d"
                      % (OPNAMES[s.op], "tagged" if s.op in TAGGED_OPS
                         else "untagged", s.t))
        return
    if s.t:
        rfc5041_tagged_sequence(rep, ds, s, ts0, ts1)
        return
    if s.qn != QN_FOR_OP[s.op] and s.qn in (0, 1, 2):
        rep.violation(who, s.off + 8, "RFC 5040 §5",
                      "%s on QN %d, must be QN %d"
                      % (OPNAMES[s.op], s.qn, QN_FOR_OP[s.op]))
    if s.op not in INVAL_OPS and s.inv:
        rep.violation(who, s.off + 4, "RFC 5040 §4.1",
                      "%s: Invalidate STag field (reserved) is 0x%08x, "
                      "must be 0" % (OPNAMES[s.op], s.inv))
    if s.op in (OP_READ_REQ, OP_TERMINATE) and not s.l:
        rep.violation(who, s.off + 2, "RFC 5040 §4.4, §4.8",
                      "%s must be a single DDP segment (L bit clear)"
                      % OPNAMES[s.op])
    rfc5041_untagged_sequence(rep, ds, s)
    if s.op == OP_READ_REQ:
        rfc5040_4_4_read_request(rep, ds, s, ts0, ts1)
    elif s.op == OP_TERMINATE:
        rfc5040_4_8_terminate(rep, ds, s)
    elif s.l and s.op in SEND_OPS:
        ds.messages.append({"op": s.op, "ts0": ts0, "ts1": ts1,
                            "off": s.off, "len": s.mo + s.payload,
                            "inv": s.inv})


def rfc5040_4_4_read_request(rep, ds, s, ts0, ts1):
    if len(s.body) != READ_REQ_LEN:
        rep.violation(ds.who, s.off + 20, "RFC 5040 §4.4",
                      "RDMA Read Request header is %d bytes, must be 28"
                      % len(s.body))
        return
    sink_stag, sink_to, size, src_stag, src_to = read_req_unpack(s.body)
    ds.messages.append({"op": OP_READ_REQ, "ts0": ts0, "ts1": ts1,
                        "off": s.off, "sink_stag": sink_stag,
                        "sink_to": sink_to, "size": size,
                        "src_stag": src_stag, "src_to": src_to})


def rfc5040_4_8_terminate(rep, ds, s):
    who, b = ds.who, s.body
    at = s.off + 20
    ds.terminated_at = s.off
    ds.messages.append({"op": OP_TERMINATE, "off": s.off})
    if len(b) < TERM_CTRL_LEN:
        rep.violation(who, at, "RFC 5040 §4.8",
                      "Terminate of %d bytes lacks the Terminate Control "
                      "field" % len(b))
        return
    layer, etype, ecode, hdrct, rsvd = term_ctrl_unpack(b)
    hm, hd, hr = (bool(hdrct & HDRCT_M), bool(hdrct & HDRCT_D),
                  bool(hdrct & HDRCT_R))
    if rsvd:
        rep.violation(who, at, "RFC 5040 §4.8",
                      "Terminate Control reserved bits set: 0x%04x" % rsvd)
    codes = TERM_CODES.get((layer, etype), set())
    if codes is not None and ecode not in codes:
        rep.violation(who, at, "RFC 5040 §4.8, RFC 5044 §8, RFC 6581 §9",
                      "Terminate layer %d etype %d ecode 0x%02x is not a "
                      "defined combination" % (layer, etype, ecode))
    s.body = b
    want = TERM_CTRL_LEN
    if hm and not hd:
        rep.violation(who, at, "RFC 5040 §4.8",
                      "Terminate hdrct M (segment length valid) without D: "
                      "no DDP Segment Length field is present")
    if hd:
        if len(b) < 8:
            rep.violation(who, at, "RFC 5040 §4.8",
                          "Terminate hdrct D set but message is %d bytes"
                          % len(b))
            return
        tagged = ddp_is_tagged(b, 6)
        want += 2 + (DDP_TAGGED_HDR_LEN if tagged
                     else DDP_UNTAGGED_HDR_LEN)
        if hr and (tagged or rdmap_opcode(b, 6) != OP_READ_REQ):
            rep.violation(who, at, "RFC 5040 §4.8",
                          "Terminate hdrct R set but the copied DDP header "
                          "is not an RDMA Read Request's")
    if hr:
        if not hd:
            rep.violation(who, at, "RFC 5040 §4.8",
                          "Terminate hdrct R without D: the Read Request "
                          "header must follow the DDP header")
        want += READ_REQ_LEN
    if len(b) != want:
        rep.violation(who, at, "RFC 5040 §4.8",
                      "Terminate is %d bytes, hdrct M%d D%d R%d implies %d"
                      % (len(b), hm, hd, hr, want))
    rep.note(who, s.off, "Terminate sent: layer %d etype %d ecode 0x%02x"
             % (layer, etype, ecode))


# ------------------------------------------------------------ cross-direction

def rfc5040_5_2_read_responses(rep, ini, res, ird_of):
    """Read Responses answer the peer's Read Requests in order, matching
    sink STag, TO and size; a requester stays within the peer's IRD."""
    for req_ds, rsp_ds in ((ini, res), (res, ini)):
        reqs = [m for m in req_ds.messages if m["op"] == 1]
        rsps = [m for m in rsp_ds.messages if m["op"] == 2]
        for q, r in zip(reqs, rsps):
            if r["stag"] != q["sink_stag"] or r["to"] != q["sink_to"]:
                rep.violation(rsp_ds.who, r["off"], "RFC 5040 §5.2",
                              "Read Response to STag 0x%08x TO 0x%x, the "
                              "Read Request named sink 0x%08x TO 0x%x"
                              % (r["stag"], r["to"], q["sink_stag"],
                                 q["sink_to"]))
            elif r["len"] > q["size"] or (r["ts1"] is not None and
                                          r["len"] != q["size"]):
                # an unfinished Response (the capture or the stream ended
                # in it) is checked only for overshooting the Request
                rep.violation(rsp_ds.who, r["off"], "RFC 5040 §5.2",
                              "Read Response carries %s%d bytes, the Read "
                              "Request asked for %d"
                              % ("" if r["ts1"] is not None else "at least ",
                                 r["len"], q["size"]))
            if r["ts0"] < q["ts1"]:
                rep.violation(rsp_ds.who, r["off"], "RFC 5040 §5.2",
                              "Read Response seen before its Read Request")
        if len(rsps) > len(reqs) and req_ds.complete:
            rep.violation(rsp_ds.who, rsps[len(reqs)]["off"],
                          "RFC 5040 §5.2",
                          "Read Response without a Read Request")
        limit = ird_of.get(rsp_ds.who)
        if limit is None or not rsp_ds.complete:
            continue
        events = [(q["ts0"], 1, q) for q in reqs]
        events += [(r["ts1"], 0, r) for r in rsps if r["ts1"] is not None]
        outstanding = 0
        for _, kind, m in sorted(events, key=lambda e: (e[0], e[1])):
            outstanding += 1 if kind else -1
            if kind and outstanding > limit:
                rep.violation(req_ds.who, m["off"], "RFC 6581 §9, RFC 5040 "
                              "§5.2", "%d Read Requests outstanding, the "
                              "peer's IRD is %d" % (outstanding, limit))
                break


def rfc5044_7_1_first_fpdu(rep, ini, res, rp_ts, rtr, ini_first, res_first):
    """The Initiator sends the first FPDU (RFC 5044 §7.1), or the RTR
    message of the selected type (RFC 6581 §9)."""
    if ini_first and ini_first[1] < rp_ts:
        rep.violation("I->R", ini_first[0].off, "RFC 5044 §7.1",
                      "initiator sent an FPDU before the MPA Reply arrived")
    if res_first and ((not ini_first and ini.complete) or
                      (ini_first and res_first[1] < ini_first[2])):
        rep.violation("R->I", res_first[0].off, "RFC 5044 §7.1, RFC 6581 §9",
                      "responder sent an FPDU before receiving the "
                      "initiator's first FPDU")
    if rtr and ini_first:
        s = ini_first[0]
        if rtr == "read":
            ok = s.op == OP_READ_REQ and s.body[12:16] == b"\0" * 4
        else:
            ok = s.l and s.payload == 0 and \
                s.op == (OP_SEND if rtr == "send" else OP_WRITE)
        if not ok:
            rep.violation("I->R", s.off, "RFC 6581 §9",
                          "first FPDU is not the zero-length %s RTR that was "
                          "negotiated" % rtr)


# ------------------------------------------------------------ one connection

def check_flow(flow):
    dirs = flow["dirs"]
    init = None
    for ep, st in dirs.items():
        st.assemble()
    for ep, st in dirs.items():
        if rfc5044_7_1_find_request(st.data):
            if init is None or ep == flow["syn"]:
                init = ep
    if init is None:
        return None
    resp = next((ep for ep in dirs if ep != init), None)
    ist = dirs[init]
    rst = dirs.get(resp) if resp else None
    other = flow["key"][0] if flow["key"][1] == init else flow["key"][1]
    name = "%s -> %s" % (_ep(init), _ep(other))
    rep = Report(name)
    info = {"connection": name}
    for who, st in (("I->R", ist), ("R->I", rst)):
        for n in (st.notes if st else []):
            rep.note(who, None, n)
    req = rfc5044_7_1_2_frame(rep, "I->R", ist.data, "request")
    if req is None:
        return rep, info
    info["rev"] = req["rev"]
    if rst is None or not rst.data:
        rep.note("R->I", 0, "no MPA Reply in the capture")
        return rep, info
    rp = rfc5044_7_1_2_frame(rep, "R->I", rst.data, "reply")
    if rp is None:
        return rep, info
    rtr = rfc6581_negotiation(rep, req, rp)
    crc_on = req["c"] or rp["c"]
    info.update(rev=rp["rev"], crc=crc_on, rejected=rp["r"],
                markers=req["m"] or rp["m"], rtr=rtr)
    if req["enh"] and rp["enh"]:
        info["ird_ord"] = {"initiator": [req["enh"]["ird"], req["enh"]["ord"]],
                           "responder": [rp["enh"]["ird"], rp["enh"]["ord"]]}
    if rp["r"]:
        for who, st, start in (("I->R", ist, req["end"]),
                               ("R->I", rst, rp["end"])):
            if len(st.data) > start:
                rep.violation(who, start, "RFC 5044 §7.1.2",
                              "%d bytes follow a rejected MPA exchange"
                              % (len(st.data) - start))
        return rep, info
    if req["m"] or rp["m"]:
        rep.violation("-", 16, "RFC 5044 §7.1.2",
                      "markers negotiated: not supported by wirecheck, "
                      "FPDUs not checked")
        return rep, info
    states = {}
    firsts = {}
    for who, st, start in (("I->R", ist, req["end"]),
                           ("R->I", rst, rp["end"])):
        ds = DirState(who)
        ds.complete = st.complete
        states[who] = ds
        for off, ulen, ulpdu, ts0, ts1 in rfc5044_6_fpdus(rep, who, st,
                                                          start, crc_on):
            if ds.terminated_at is not None:
                rep.violation(who, off, "RFC 5040 §5.4",
                              "FPDU after this side's Terminate at %d"
                              % ds.terminated_at)
                ds.terminated_at = None
            ds.fpdus += 1
            s = rfc5041_4_ddp_header(rep, who, off, ulpdu)
            if s is None:
                continue
            firsts.setdefault(who, (s, ts0, ts1))
            ds.bytes += s.payload
            name_op = OPNAMES.get(s.op, "op%d" % s.op)
            ds.ops[name_op] = ds.ops.get(name_op, 0) + 1
            rfc5040_4_rdmap(rep, ds, s, ts0, ts1)
            small_message(ds, s)
    rfc5044_7_1_first_fpdu(rep, states["I->R"], states["R->I"],
                           rst.time_at(rp["end"] - 1), rtr,
                           firsts.get("I->R"), firsts.get("R->I"))
    ird_of = {}
    if req["enh"] and rp["enh"]:
        ird_of = {"R->I": rp["enh"]["ird"], "I->R": req["enh"]["ird"]}
    rfc5040_5_2_read_responses(rep, states["I->R"], states["R->I"], ird_of)
    info["dirs"] = {w: {"fpdus": d.fpdus, "bytes": d.bytes, "ops": d.ops,
                        "payloads": d.payloads}
                    for w, d in states.items()}
    return rep, info


def small_message(ds, s):
    """Keep the payload of a data message that fits one FPDU and is short."""
    if s.op not in TAGGED_OPS + SEND_OPS or not s.l or s.payload > PAYLOAD_MAX:
        return
    if s.t:
        msg = ds.cur_tagged.get(s.op)
        if not msg or msg["off"] != s.off:
            return
    elif s.mo != 0:
        return
    ds.payloads.append({"offset": s.off, "op": OPNAMES[s.op],
                        "len": s.payload, "hex": s.body[:s.payload].hex()})


def check_capture(data, path="capture"):
    """Check every MPA connection in a capture: [(Report, info dict)]."""
    out = []
    for flow in read_connections(data, path):
        r = check_flow(flow)
        if r:
            out.append(r)
    return out


def _ep(ep):
    ip, port = ep
    return ("[%s]:%d" if ip.version == 6 else "%s:%d") % (ip, port)


# ------------------------------------------------------------ main

def format_text(rep, info, n, payloads=False):
    crc = {True: "on", False: "off"}.get(info.get("crc"), "?")
    out = ["conn %d: %s MPA rev %s crc %s%s%s" % (
        n, info["connection"], info.get("rev", "?"), crc,
        " rejected" if info.get("rejected") else "",
        " rtr %s" % info["rtr"] if info.get("rtr") else "")]
    if "ird_ord" in info:
        io = info["ird_ord"]
        out[0] += " ird/ord I %d/%d R %d/%d" % tuple(io["initiator"] +
                                                     io["responder"])
    for who, d in sorted(info.get("dirs", {}).items()):
        ops = ", ".join("%s %d" % kv for kv in sorted(d["ops"].items()))
        out.append("  %s: %d FPDUs, %d payload bytes [%s]"
                   % (who, d["fpdus"], d["bytes"], ops))
    for who, d in sorted(info.get("dirs", {}).items()):
        for m in d["payloads"] if payloads else ():
            out.append("  payload %s @%d: %s, %d bytes: %s"
                       % (who, m["offset"], m["op"], m["len"], m["hex"]))
    for v in rep.violations:
        out.append("  VIOLATION %s @%s [%s]: %s"
                   % (v["dir"], v["offset"], v["rfc"], v["text"]))
    for nt in rep.notes:
        at = "" if nt["offset"] is None else " @%d" % nt["offset"]
        out.append("  note %s%s: %s" % (nt["dir"], at, nt["text"]))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Check captured iWARP traffic against RFC 5040/5041/"
        "5044/6581.")
    ap.add_argument("--json", action="store_true", help="JSON output")
    ap.add_argument("--min-connections", type=int, default=0, metavar="N",
                    help="fail unless at least N MPA connections are found")
    ap.add_argument("--payloads", action="store_true",
                    help="also list every Send, Write and Read Response of "
                    "at most %d bytes that fits one FPDU, with its payload "
                    "in hex" % PAYLOAD_MAX)
    ap.add_argument("--peer-dir", metavar="DIR",
                    help="instead of the report, one line per violation: "
                    "'peer' when it is in direction DIR (I->R or R->I), "
                    "else 'ours', then connection, direction, RFC and text "
                    "(and an 'ours' line when no MPA connection is found)")
    ap.add_argument("files", nargs="+", metavar="FILE.pcap")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    results = []
    try:
        for path in args.files:
            for rep, info in check_capture(read_pcap(path), path):
                results.append((path, rep, info))
    except CaptureError as e:
        print("wirecheck: %s" % e, file=sys.stderr)
        return 2
    nviol = sum(len(r.violations) for _, r, _ in results)
    nnotes = sum(len(r.notes) for _, r, _ in results)
    nfpdus = sum(d["fpdus"] for _, _, info in results
                 for d in info.get("dirs", {}).values())
    if args.peer_dir:
        for _, r, info in results:
            for v in r.violations:
                who = "peer" if v["dir"] == args.peer_dir else "ours"
                print(who, info["connection"], v["dir"], v["rfc"] + ":",
                      v["text"])
        if not results:
            print("ours - - no MPA connection in the capture")
    elif args.json:
        for _, _, info in results if not args.payloads else ():
            for d in info.get("dirs", {}).values():
                del d["payloads"]
        print(json.dumps({"connections": [
            dict(info, file=p, violations=r.violations, notes=r.notes)
            for p, r, info in results],
            "fpdus": nfpdus, "violations": nviol, "notes": nnotes},
            indent=1))
    else:
        for n, (p, r, info) in enumerate(results, 1):
            print(format_text(r, info, n, args.payloads))
        print("summary: %d MPA connections, %d FPDUs, %d violations, "
              "%d notes" % (len(results), nfpdus, nviol, nnotes))
    if len(results) < args.min_connections:
        print("wirecheck: found %d MPA connections, expected at least %d"
              % (len(results), args.min_connections), file=sys.stderr)
        return 1
    return 1 if nviol else 0


if __name__ == "__main__":
    sys.exit(main())
