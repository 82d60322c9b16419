#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests for wirecheck.py: synthetic captures built here, byte by
byte, from the RFC layouts: valid conversations must pass clean, and every
deliberately broken one must be reported with the right rule.

    python3 tools/testing/wirecheck/test_wirecheck.py [-v]
"""

import os
import re
import struct
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True         # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wirecheck as wc  # noqa: E402

INI = ("192.0.2.2", 40000)
RES = ("192.0.2.1", 20000)
INI6 = ("2001:db8::2", 40001)
RES6 = ("2001:db8::1", 20001)


# ------------------------------------------------------------ wire builders

def mpa_frame(key, bits=0x40, rev=2, pd=b"", pd_len=None):
    if pd_len is None:
        pd_len = len(pd)
    return key + struct.pack(">BBH", bits, rev, pd_len) + pd


def enhanced(ird=16, ord_=16, p2p=False, send=False, write=False,
             read=False):
    return struct.pack(">HH", ird | (0x8000 if p2p else 0) |
                       (0x4000 if send else 0),
                       ord_ | (0x8000 if write else 0) |
                       (0x4000 if read else 0))


def request(bits=0x50, rev=2, pd=None, key=wc.MPA_KEY_REQ):
    if pd is None:
        pd = enhanced() + b"app-data"
    return mpa_frame(key, bits, rev, pd)


def reply(bits=0x50, rev=2, pd=None, key=wc.MPA_KEY_REP):
    if pd is None:
        pd = enhanced()
    return mpa_frame(key, bits, rev, pd)


def ctrl(tagged, last, op, dv=1, rv=1, rsvd=0, rrsvd=0):
    return bytes([(0x80 if tagged else 0) | (0x40 if last else 0) |
                  (rsvd << 2) | dv, (rv << 6) | (rrsvd << 4) | op])


def tagged(op, stag, to, payload, last=True, **kw):
    return ctrl(True, last, op, **kw) + struct.pack(">IQ", stag, to) + payload


def untagged(op, qn, msn, mo, payload, last=True, inv=0, **kw):
    return (ctrl(False, last, op, **kw) +
            struct.pack(">IIII", inv, qn, msn, mo) + payload)


def send(msn, payload, mo=0, last=True, **kw):
    return untagged(3, 0, msn, mo, payload, last, **kw)


def read_req(msn, sink_stag, sink_to, size, src_stag=0x99, src_to=0x5000,
             **kw):
    body = struct.pack(">IQIIQ", sink_stag, sink_to, size, src_stag, src_to)
    return untagged(1, 1, msn, 0, body, **kw)


def terminate(msn, layer, etype, ecode, m=False, d=False, r=False,
              extra=b""):
    tc = (layer << 28 | etype << 24 | ecode << 16 | m << 15 | d << 14 |
          r << 13)
    return untagged(7, 2, msn, 0, struct.pack(">I", tc) + extra)


def fpdu(ulpdu, crc=True, pad=None, bad_crc=False):
    hdr = struct.pack(">H", len(ulpdu)) + ulpdu
    npad = (-len(hdr)) & 3
    hdr += pad if pad is not None else b"\0" * npad
    c = wc.crc32c(hdr) if crc else 0
    if bad_crc:
        c ^= 0x1
    return hdr + struct.pack("<I", c)


# ------------------------------------------------------------ capture builder

def _csum(b):
    if len(b) & 1:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip_tcp(src, dst, seq, flags, payload, mss=None):
    opts = struct.pack(">BBH", 2, 4, mss) if mss else b""
    tcp = struct.pack(">HHIIBBHHH", src[1], dst[1], seq & 0xffffffff, 0,
                      (5 + len(opts) // 4) << 4, flags, 65535, 0, 0)
    tcp += opts + payload
    if ":" in src[0]:
        import ipaddress
        s, d = (ipaddress.ip_address(src[0]).packed,
                ipaddress.ip_address(dst[0]).packed)
        ip = struct.pack(">IHBB", 6 << 28, len(tcp), 6, 64) + s + d
        return 0x86dd, ip + tcp
    s = bytes(int(x) for x in src[0].split("."))
    d = bytes(int(x) for x in dst[0].split("."))
    ip = struct.pack(">BBHHHBBH", 0x45, 0, 20 + len(tcp), 1, 0x4000, 64, 6,
                     0) + s + d
    ip = ip[:10] + struct.pack(">H", _csum(ip)) + ip[12:]
    return 0x0800, ip + tcp


class Conv:
    """A TCP connection between INI and RES, written as a list of
    (direction, bytes) chunks in time order; segment() cuts each chunk
    into TCP segments."""

    def __init__(self, ini=INI, res=RES, mss=1460):
        self.ini, self.res, self.mss = ini, res, mss
        self.chunks = []

    def i(self, *data):
        self.chunks.extend(("i", d) for d in data)
        return self

    def r(self, *data):
        self.chunks.extend(("r", d) for d in data)
        return self

    def packets(self, seg=1000, reorder=False, dup=False, drop=None):
        isn = {"i": 1000, "r": 90000}
        pos = {"i": 0, "r": 0}
        ep = {"i": (self.ini, self.res), "r": (self.res, self.ini)}
        pk = [("i", isn["i"], 0x02, b""), ("r", isn["r"], 0x12, b"")]
        for d, data in self.chunks:
            for k in range(0, len(data), seg):
                pk.append((d, isn[d] + 1 + pos[d] + k, 0x18,
                           data[k:k + seg]))
            pos[d] += len(data)
        if drop is not None:
            del pk[drop]
        if reorder:                     # swap neighbours of one direction
            for k in range(2, len(pk) - 3, 4):
                if pk[k][0] == pk[k + 1][0]:
                    pk[k], pk[k + 1] = pk[k + 1], pk[k]
        if dup:
            pk = [p for p in pk for _ in (0, 1)]
        out = []
        for n, (d, seq, fl, data) in enumerate(pk):
            src, dst = ep[d]
            out.append(ip_tcp(src, dst, seq, fl, data,
                              self.mss if fl & 2 else None) + (n,))
        return out


def pcap(packets, linktype=1, nsec=False):
    magic = 0xa1b23c4d if nsec else 0xa1b2c3d4
    out = bytearray(struct.pack("<IHHiIII", magic, 2, 4, 0, 0, 262144,
                                linktype))
    for etype, ip, n in packets:
        if linktype == 1:
            frame = b"\x02" * 6 + b"\x04" * 6 + struct.pack(">H", etype) + ip
        elif linktype == 113:
            frame = struct.pack(">HHH8sH", 0, 1, 6, b"\x02" * 8, etype) + ip
        else:
            frame = ip
        out += struct.pack("<IIII", 100 + n, 1000 * n, len(frame),
                           len(frame)) + frame
    return bytes(out)


def pcapng(packets):
    def block(t, body):
        body += b"\0" * ((-len(body)) & 3)
        n = 12 + len(body)
        return struct.pack("<II", t, n) + body + struct.pack("<I", n)
    out = bytearray(block(0x0a0d0d0a,
                          struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1)))
    out += block(1, struct.pack("<HHI", 1, 0, 262144))
    for etype, ip, n in packets:
        frame = b"\x02" * 6 + b"\x04" * 6 + struct.pack(">H", etype) + ip
        ts = (100 + n) * 1000000
        out += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff,
                                    len(frame), len(frame)) + frame)
    return bytes(out)


def valid_conv(**kw):
    """A rev 2 + CRC conversation using every opcode in both directions."""
    c = Conv(**kw)
    c.i(request()).r(reply())
    c.i(fpdu(send(1, b"hello")))                    # initiator first
    c.r(fpdu(send(1, b"x" * 3000, last=False)),
        fpdu(send(1, b"y" * 1000, mo=3000)),
        fpdu(send(2, b"")))
    c.i(fpdu(tagged(0, 0x1234, 0x10000, b"w" * 2000, last=False)),
        fpdu(tagged(0, 0x1234, 0x10000 + 2000, b"w" * 7)),
        fpdu(read_req(1, 0xaa00, 0x7000, 3000)),
        fpdu(read_req(2, 0xaa01, 0x9000, 1)))
    c.r(fpdu(tagged(2, 0xaa00, 0x7000, b"r" * 2000, last=False)),
        fpdu(tagged(2, 0xaa00, 0x7000 + 2000, b"r" * 1000)),
        fpdu(tagged(2, 0xaa01, 0x9000, b"z")),
        fpdu(read_req(1, 0xbb00, 0, 10)))
    c.i(fpdu(tagged(2, 0xbb00, 0, b"q" * 10)),
        fpdu(untagged(4, 0, 2, 0, b"inv", inv=0x4242)),
        fpdu(untagged(5, 0, 3, 0, b"se")),
        fpdu(untagged(6, 0, 4, 0, b"", inv=0x4343)))
    c.r(fpdu(terminate(1, 1, 1, 0x00, m=True, d=True,
                       extra=struct.pack(">H", 30) +
                       tagged(0, 0xdead, 0, b""))))
    return c


def check(conv, crc=True, **kw):
    res = wc.check_capture(pcap(conv.packets(**kw)))
    return res


def violations(conv, **kw):
    res = check(conv, **kw)
    assert len(res) == 1, "expected one MPA connection, got %d" % len(res)
    return res[0][0].violations


# ------------------------------------------------------------ tests

class TestBasics(unittest.TestCase):

    def test_crc32c_known_vectors(self):
        # RFC 3720 B.4 test vectors (iSCSI and MPA share CRC32c)
        self.assertEqual(wc.crc32c(b"\0" * 32), 0x8a9136aa)
        self.assertEqual(wc.crc32c(b"\xff" * 32), 0x62a8ab43)
        self.assertEqual(wc.crc32c(bytes(range(32))), 0x46dd794e)
        self.assertEqual(wc.crc32c(b"123456789"), 0xe3069283)

    def test_valid_conversation_is_clean(self):
        res = check(valid_conv())
        self.assertEqual(len(res), 1)
        rep, info = res[0]
        self.assertEqual(rep.violations, [])
        self.assertTrue(info["crc"])
        self.assertEqual(info["dirs"]["I->R"]["ops"],
                         {"send": 1, "write": 2, "read_req": 2,
                          "read_resp": 1, "send_inv": 1, "send_se": 1,
                          "send_se_inv": 1})
        self.assertEqual(info["dirs"]["R->I"]["fpdus"], 8)

    def test_valid_in_every_capture_format(self):
        c = valid_conv()
        for data in (pcap(c.packets(), linktype=113),
                     pcap(c.packets(), linktype=101),
                     pcap(c.packets(), nsec=True), pcapng(c.packets())):
            res = wc.check_capture(data)
            self.assertEqual(len(res), 1)
            self.assertEqual(res[0][0].violations, [])
            self.assertEqual(res[0][1]["dirs"]["R->I"]["fpdus"], 8)

    def test_ipv6(self):
        res = check(valid_conv(ini=INI6, res=RES6))
        self.assertEqual(len(res), 1)
        self.assertIn("[2001:db8::2]:40001", res[0][1]["connection"])
        self.assertEqual(res[0][0].violations, [])

    def test_reassembly_reorder_retransmit_small_segments(self):
        for kw in ({"seg": 7, "reorder": True}, {"seg": 100, "dup": True},
                   {"seg": 1, "reorder": True, "dup": True}):
            res = check(valid_conv(), **kw)
            self.assertEqual(res[0][0].violations, [], kw)
            self.assertEqual(res[0][1]["dirs"]["I->R"]["fpdus"], 9)

    def test_lost_packet_is_a_note_not_a_violation(self):
        res = check(valid_conv(), seg=500, drop=9)
        rep = res[0][0]
        self.assertEqual(rep.violations, [])
        self.assertTrue(any("capture lacks" in n["text"] for n in rep.notes))

    def test_cut_stream_is_a_note(self):
        c = Conv().i(request()).r(reply()).i(fpdu(send(1, b"a" * 100))[:50])
        rep = check(c)[0][0]
        self.assertEqual(rep.violations, [])
        self.assertTrue(any("inside an FPDU" in n["text"]
                            for n in rep.notes))

    def test_initiator_found_without_syn(self):
        # capture started after the SYNs, with a bare ACK from the
        # responder first
        pk = [ip_tcp(RES, INI, 90001, 0x10, b"") + (0,)]
        pk += valid_conv().packets()[2:]
        res = wc.check_capture(pcap(pk))
        self.assertEqual(len(res), 1)
        self.assertTrue(res[0][1]["connection"].startswith("192.0.2.2:"))
        self.assertEqual(res[0][0].violations, [])

    def test_other_tcp_ignored(self):
        c = Conv().i(b"GET / HTTP/1.0\r\n\r\n").r(b"HTTP/1.0 200 OK\r\n")
        self.assertEqual(check(c), [])

    def test_rev1_crc_off(self):
        c = Conv().i(request(bits=0, rev=1, pd=b"p")).r(
            reply(bits=0, rev=1, pd=b""))
        c.i(fpdu(send(1, b"abc"), crc=False)).r(
            fpdu(send(1, b"d"), crc=False))
        rep, info = check(c)[0]
        self.assertEqual(rep.violations, [])
        self.assertFalse(info["crc"])

    def test_crc_on_if_either_side_asks(self):
        # RFC 5044 §7.1.2: C=1 in either frame means CRC in both directions
        c = Conv().i(request(bits=0x50)).r(reply(bits=0x10))
        c.i(fpdu(send(1, b"abc"), crc=False))
        v = violations(c)
        self.assertTrue(any("CRC32c" in x["text"] for x in v), v)


class TestMpaFrames(unittest.TestCase):

    def expect(self, conv, needle, rfc=None):
        v = violations(conv)
        hit = [x for x in v if needle in x["text"]]
        self.assertTrue(hit, "no violation containing %r in %r" % (needle, v))
        if rfc:
            self.assertIn(rfc, hit[0]["rfc"])

    def test_bad_request_key(self):
        c = Conv().i(request(key=b"MPA ID Req Frane")).r(reply())
        self.expect(c, "key", "RFC 5044")

    def test_bad_reply_key(self):
        c = Conv().i(request()).r(reply(key=wc.MPA_KEY_REQ))
        self.expect(c, "key", "RFC 5044")

    def test_bad_rev(self):
        c = Conv().i(request(rev=3)).r(reply())
        self.expect(c, "Rev 3")

    def test_reply_rev_above_request(self):
        c = Conv().i(request(bits=0x40, rev=1, pd=b"")).r(reply())
        self.expect(c, "above the Request")

    def test_pd_length_too_big(self):
        c = Conv().i(request(pd=enhanced() + b"p" * 600)).r(reply())
        self.expect(c, "PD_Length 604", "§7.1.2")

    def test_reserved_bits(self):
        c = Conv().i(request(bits=0x58)).r(reply())
        self.expect(c, "reserved bits set: 0x08")

    def test_rev1_enhanced_bit_is_reserved(self):
        c = Conv().i(request(bits=0x10, rev=1, pd=b"")).r(
            reply(bits=0, rev=1, pd=b""))
        self.expect(c, "reserved bits set: 0x10")

    def test_reject_bit_in_request(self):
        c = Conv().i(request(bits=0x70)).r(reply())
        self.expect(c, "reject")

    def test_enhanced_without_room(self):
        c = Conv().i(request(pd=b"ab")).r(reply())
        self.expect(c, "PD_Length is 2", "RFC 6581")

    def test_enhanced_reply_missing(self):
        c = Conv().i(request()).r(reply(bits=0x40, pd=b""))
        self.expect(c, "must too")

    def test_rtr_negotiation(self):
        req = request(pd=enhanced(p2p=True, write=True))
        c = Conv().i(req).r(reply(pd=enhanced(p2p=True, read=True)))
        self.expect(c, "did not offer")
        c = Conv().i(req).r(reply(pd=enhanced(p2p=True, read=True,
                                               write=True)))
        self.expect(c, "exactly one RTR")
        c = Conv().i(request()).r(reply(pd=enhanced(p2p=True, write=True)))
        self.expect(c, "did not request")

    def test_rtr_first_fpdu(self):
        req = request(pd=enhanced(p2p=True, write=True, read=True))
        rp = reply(pd=enhanced(p2p=True, read=True))
        good = Conv().i(req).r(rp).i(fpdu(read_req(1, 0, 0, 0))).r(
            fpdu(tagged(2, 0, 0, b"")))
        self.assertEqual(violations(good), [])
        bad = Conv().i(req).r(rp).i(fpdu(send(1, b"")))
        self.expect(bad, "zero-length read RTR")

    def test_responder_sends_first(self):
        c = Conv().i(request()).r(reply(), fpdu(send(1, b"early")))
        c.i(fpdu(send(1, b"late")))
        self.expect(c, "before receiving the initiator's first FPDU")

    def test_data_after_reject(self):
        c = Conv().i(request()).r(reply(bits=0x70), fpdu(send(1, b"x")))
        self.expect(c, "follow a rejected")

    def test_markers_unsupported(self):
        c = Conv().i(request(bits=0xd0)).r(reply())
        self.expect(c, "markers")


class TestFpdus(unittest.TestCase):

    def run_bad(self, ulpdu_or_fpdu, needle, rfc=None, raw=False, who="i"):
        c = Conv().i(request()).r(reply())
        c.i(fpdu(send(1, b"first")))
        data = ulpdu_or_fpdu if raw else fpdu(ulpdu_or_fpdu)
        (c.i if who == "i" else c.r)(data)
        v = violations(c)
        hit = [x for x in v if needle in x["text"]]
        self.assertTrue(hit, "no violation containing %r in %r" % (needle, v))
        if rfc:
            self.assertIn(rfc, hit[0]["rfc"])
        return hit

    def test_bad_crc(self):
        self.run_bad(fpdu(send(2, b"abc"), bad_crc=True), "CRC32c",
                     "RFC 5044 §6", raw=True)

    def test_byte_swapped_crc(self):
        f = bytearray(fpdu(send(2, b"abcd")))
        f[-4:] = f[-4:][::-1]
        self.run_bad(bytes(f), "byte-swapped", raw=True)

    def test_bad_padding(self):
        self.run_bad(fpdu(send(2, b"abc"), pad=b"\x01"), "pad bytes",
                     "RFC 5044 §6", raw=True)

    def test_ulpdu_too_short(self):
        self.run_bad(struct.pack(">H", 4) + b"\0" * 10, "ULPDU_Length 4",
                     raw=True)

    def test_bad_ddp_version(self):
        self.run_bad(send(2, b"x", dv=2), "DDP version 2", "RFC 5041")

    def test_ddp_reserved_bits(self):
        self.run_bad(send(2, b"x", rsvd=0x4), "DDP control reserved")

    def test_bad_rdmap_version(self):
        self.run_bad(send(2, b"x", rv=0), "RDMAP version 0", "RFC 5040")

    def test_rdmap_reserved_bits(self):
        self.run_bad(send(2, b"x", rrsvd=1), "RDMAP control reserved")

    def test_tagged_send(self):
        self.run_bad(tagged(3, 1, 0, b"x"), "untagged buffer model")

    def test_untagged_write(self):
        self.run_bad(untagged(0, 0, 2, 0, b"x"), "tagged buffer model")

    def test_unknown_opcode(self):
        self.run_bad(untagged(0x9, 0, 2, 0, b"x"), "unknown RDMAP opcode")

    def test_bad_qn(self):
        self.run_bad(untagged(3, 5, 1, 0, b"x"), "QN 5")

    def test_send_on_read_queue(self):
        self.run_bad(untagged(3, 1, 1, 0, b"x"), "must be QN 0")

    def test_msn_gap(self):
        self.run_bad(send(3, b"x"), "MSN 3, expected 2", "RFC 5041")

    def test_msn_must_start_at_one(self):
        c = Conv().i(request()).r(reply()).i(fpdu(send(0, b"x")))
        v = violations(c)
        self.assertTrue(any("starts at 1" in x["text"] for x in v), v)

    def test_mo_gap(self):
        c = Conv().i(request()).r(reply())
        c.i(fpdu(send(1, b"a" * 100, last=False)),
            fpdu(send(1, b"b", mo=104)))
        v = violations(c)
        self.assertTrue(any("MO 104, expected 100" in x["text"] for x in v))

    def test_first_segment_mo_nonzero(self):
        self.run_bad(send(2, b"x", mo=8), "MO 8, must be 0")

    def test_msn_change_inside_message(self):
        c = Conv().i(request()).r(reply())
        c.i(fpdu(send(1, b"a" * 10, last=False)), fpdu(send(2, b"b", mo=10)))
        v = violations(c)
        self.assertTrue(any("middle of message" in x["text"] for x in v))

    def test_tagged_to_gap(self):
        c = Conv().i(request()).r(reply())
        c.i(fpdu(tagged(0, 7, 100, b"a" * 10, last=False)),
            fpdu(tagged(0, 7, 111, b"b")))
        v = violations(c)
        self.assertTrue(any("not contiguous" in x["text"] for x in v), v)

    def test_tagged_stag_change(self):
        c = Conv().i(request()).r(reply())
        c.i(fpdu(tagged(0, 7, 100, b"a" * 10, last=False)),
            fpdu(tagged(0, 8, 110, b"b")))
        v = violations(c)
        self.assertTrue(any("started with 0x00000007" in x["text"]
                            for x in v), v)

    def test_send_with_nonzero_reserved_stag(self):
        self.run_bad(untagged(3, 0, 2, 0, b"x", inv=5),
                     "Invalidate STag field")

    def test_read_request_bad_length(self):
        self.run_bad(untagged(1, 1, 1, 0, b"\0" * 20), "must be 28")

    def test_read_request_multi_segment(self):
        self.run_bad(read_req(1, 1, 0, 4, last=False), "single DDP segment")

    def test_read_response_mismatch(self):
        c = Conv().i(request()).r(reply())
        c.i(fpdu(read_req(1, 0x10, 0x2000, 8)))
        c.r(fpdu(tagged(2, 0x11, 0x2000, b"12345678")))
        v = violations(c)
        self.assertTrue(any("Read Request named sink" in x["text"]
                            for x in v), v)
        c = Conv().i(request()).r(reply())
        c.i(fpdu(read_req(1, 0x10, 0x2000, 8)))
        c.r(fpdu(tagged(2, 0x10, 0x2000, b"1234567")))
        v = violations(c)
        self.assertTrue(any("asked for 8" in x["text"] for x in v), v)

    def test_read_response_unfinished_overshoot(self):
        # a zero-length Read answered with a stream that breaks off
        c = Conv().i(request()).r(reply())
        c.i(fpdu(read_req(1, 0, 0, 0)))
        c.r(fpdu(tagged(2, 0, 0, b"x" * 16, last=False)))
        v = violations(c)
        self.assertTrue(any("at least 16 bytes, the Read Request asked "
                            "for 0" in x["text"] for x in v), v)
        ok = Conv().i(request()).r(reply())
        ok.i(fpdu(read_req(1, 5, 0, 32)))
        ok.r(fpdu(tagged(2, 5, 0, b"x" * 16, last=False)))
        self.assertEqual(violations(ok), [])

    def test_read_response_without_request(self):
        self.run_bad(tagged(2, 1, 0, b"x"), "without a Read Request",
                     who="r")

    def test_ird_exceeded(self):
        c = Conv().i(request(pd=enhanced(ird=4, ord_=4))).r(
            reply(pd=enhanced(ird=2, ord_=2)))
        c.i(*[fpdu(read_req(n, n, 0, 1)) for n in (1, 2, 3)])
        c.r(*[fpdu(tagged(2, n, 0, b"x")) for n in (1, 2, 3)])
        v = violations(c)
        self.assertTrue(any("3 Read Requests outstanding, the peer's IRD "
                            "is 2" in x["text"] for x in v), v)
        ok = Conv().i(request(pd=enhanced(ird=4, ord_=4))).r(
            reply(pd=enhanced(ird=2, ord_=2)))
        ok.i(*[fpdu(read_req(n, n, 0, 1)) for n in (1, 2)])
        ok.r(fpdu(tagged(2, 1, 0, b"x")))
        ok.i(fpdu(read_req(3, 3, 0, 1)))
        ok.r(fpdu(tagged(2, 2, 0, b"x")), fpdu(tagged(2, 3, 0, b"x")))
        self.assertEqual(violations(ok), [])


class TestTerminate(unittest.TestCase):

    def term(self, t, needle):
        c = Conv().i(request()).r(reply()).i(fpdu(send(1, b"x")))
        c.r(fpdu(t))
        v = violations(c)
        hit = [x for x in v if needle in x["text"]]
        self.assertTrue(hit, "no violation containing %r in %r" % (needle, v))
        self.assertIn("RFC 5040", hit[0]["rfc"])

    def test_valid_terminates(self):
        copied = struct.pack(">H", 23) + send(1, b"abcde")[:18]
        rreq = struct.pack(">H", 46) + read_req(1, 1, 2, 3)
        for t in (terminate(1, 0, 0, 0),
                  terminate(1, 2, 0, 0x02),
                  terminate(1, 1, 2, 0x05, m=True, d=True, extra=copied),
                  terminate(1, 0, 1, 0x00, m=True, d=True, r=True,
                            extra=rreq)):
            c = Conv().i(request()).r(reply()).i(fpdu(send(1, b"x")))
            c.r(fpdu(t))
            self.assertEqual(violations(c), [], t.hex())

    def test_bad_layer_etype_code(self):
        self.term(terminate(1, 0, 2, 0x01), "not a defined combination")
        self.term(terminate(1, 3, 0, 0x00), "not a defined combination")
        self.term(terminate(1, 1, 1, 0x05), "not a defined combination")

    def test_reserved_bits(self):
        t = bytearray(terminate(1, 0, 0, 0))
        t[21] |= 1
        self.term(bytes(t), "reserved bits set")

    def test_hdrct_inconsistent_with_length(self):
        self.term(terminate(1, 1, 2, 0x01, d=True, extra=b""),
                  "hdrct D set")
        self.term(terminate(1, 1, 2, 0x01, extra=b"\0" * 20),
                  "implies 4")
        self.term(terminate(1, 1, 2, 0x01, m=True), "without D")
        self.term(terminate(1, 0, 1, 0, d=True, r=True,
                            extra=struct.pack(">H", 19) +
                            send(1, b"x")[:18] + b"\0" * 28),
                  "not an RDMA Read Request's")

    def test_terminate_layout(self):
        self.term(untagged(7, 2, 1, 0, b"\0\0"), "lacks the Terminate")
        self.term(untagged(7, 0, 1, 0, b"\0" * 4), "must be QN 2")

    def test_fpdu_after_terminate(self):
        c = Conv().i(request()).r(reply()).i(fpdu(send(1, b"x")))
        c.r(fpdu(terminate(1, 0, 0, 0)), fpdu(send(1, b"late")))
        v = violations(c)
        self.assertTrue(any("after this side's Terminate" in x["text"]
                            for x in v), v)


class TestCommandLine(unittest.TestCase):

    def run_tool(self, *args, data=None):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "c.pcap")
            if data is not None:
                with open(path, "wb") as f:
                    f.write(data)
            p = subprocess.run([sys.executable, wc.__file__] +
                               [a.replace("FILE", path) for a in args],
                               capture_output=True, text=True)
        return p

    def test_exit_codes(self):
        good = pcap(valid_conv().packets())
        p = self.run_tool("FILE", data=good)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("1 MPA connections, 17 FPDUs, 0 violations", p.stdout)
        c = Conv().i(request()).r(reply()).i(fpdu(send(1, b"x"),
                                                  bad_crc=True))
        p = self.run_tool("FILE", data=pcap(c.packets()))
        self.assertEqual(p.returncode, 1)
        self.assertIn("VIOLATION I->R @", p.stdout)
        p = self.run_tool("--min-connections", "2", "FILE", data=good)
        self.assertEqual(p.returncode, 1)
        p = self.run_tool("FILE", data=b"not a capture file at all....")
        self.assertEqual(p.returncode, 2)
        self.assertIn("not a pcap", p.stderr)
        p = self.run_tool("FILE")
        self.assertEqual(p.returncode, 2)
        p = self.run_tool("--bogus")
        self.assertEqual(p.returncode, 2)

    def test_json(self):
        import json
        p = self.run_tool("--json", "FILE", data=pcap(valid_conv().packets()))
        self.assertEqual(p.returncode, 0)
        j = json.loads(p.stdout)
        self.assertEqual(j["violations"], 0)
        self.assertEqual(j["fpdus"], 17)
        self.assertEqual(j["connections"][0]["dirs"]["I->R"]["fpdus"], 9)
        self.assertNotIn("payloads", j["connections"][0]["dirs"]["I->R"])

    def test_payloads(self):
        # short single-FPDU data messages only: not the 4000-byte Send,
        # the two-segment Write, the Read Requests or the Terminate
        p = self.run_tool("--payloads", "FILE",
                          data=pcap(valid_conv().packets()))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        got = [re.sub(r" @[0-9]+:", ":", ln.strip())
               for ln in p.stdout.splitlines()
               if ln.strip().startswith("payload ")]
        self.assertEqual(got, [
            "payload I->R: send, 5 bytes: 68656c6c6f",
            "payload I->R: read_resp, 10 bytes: " + "71" * 10,
            "payload I->R: send_inv, 3 bytes: 696e76",
            "payload I->R: send_se, 2 bytes: 7365",
            "payload I->R: send_se_inv, 0 bytes:",
            "payload R->I: send, 0 bytes:",
            "payload R->I: read_resp, 1 bytes: 7a"], p.stdout)
        self.assertIn("payload I->R @32: send, 5 bytes", p.stdout)
        p = self.run_tool("FILE", data=pcap(valid_conv().packets()))
        self.assertNotRegex(p.stdout, r"(?m)^  payload ")


if __name__ == "__main__":
    unittest.main()
