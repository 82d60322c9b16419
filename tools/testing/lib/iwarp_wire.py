# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""iwarp_wire - the iWARP wire format for siw_lite's Python test tools.

One place for what tools/testing/hostile/hostile.py (which writes MPA, DDP and
RDMAP by hand) and tools/testing/wirecheck/wirecheck.py (which reads them back
from captures) both need: CRC32c, the constants and bit layouts of MPA
(RFC 5044, RFC 6581), DDP (RFC 5041) and RDMAP (RFC 5040), encoders for
frames and segments, and decoders that pull the fields out of them.

Nothing here judges what it builds or reads: the encoders write the
values they are given, rule-breaking ones included (a hostile peer
breaks the rules on purpose), and the decoders return fields as they
are; the checks stay with the tools.

Both tools are run as scripts from a source tree that may be read-only
and import this file by path, after setting sys.dont_write_bytecode:

    sys.path.insert(0, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", "lib"))

Python 3 standard library only.
"""

import struct

# ------------------------------------------------------------ CRC32c

CRC32C_POLY = 0x82F63B78        # Castagnoli, bit-reversed


def _crc32c_tables():
    """The byte table and three more for four bytes at a time."""
    t0 = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ CRC32C_POLY if c & 1 else c >> 1
        t0.append(c)
    tables = [t0]
    for _ in range(3):
        prev = tables[-1]
        tables.append([(prev[i] >> 8) ^ t0[prev[i] & 0xff]
                       for i in range(256)])
    return tables


_T0, _T1, _T2, _T3 = _crc32c_tables()


def crc32c(data):
    """CRC32c (Castagnoli) as used by iSCSI and MPA (RFC 5044 §4.4, §6).

    Four bytes per step (one little-endian word, four table lookups), the
    remainder byte by byte: the checker runs this over every FPDU of
    captures of hundreds of MB, so it is kept this fast.
    """
    crc = 0xffffffff
    n4 = len(data) & ~3
    t0, t1, t2, t3 = _T0, _T1, _T2, _T3
    for (w,) in struct.iter_unpack("<I", data[:n4]):
        crc ^= w
        crc = (t3[crc & 0xff] ^ t2[(crc >> 8) & 0xff] ^
               t1[(crc >> 16) & 0xff] ^ t0[crc >> 24])
    for b in data[n4:]:
        crc = t0[(crc ^ b) & 0xff] ^ (crc >> 8)
    return crc ^ 0xffffffff


# ------------------------------------------------------------ MPA frames

# RFC 5044 §7.1.2: Request and Reply frames
MPA_KEY_REQ = b"MPA ID Req Frame"
MPA_KEY_REP = b"MPA ID Rep Frame"
MPA_KEY_LEN = 16
MPA_HDR_LEN = 20                # key, flags, Rev, PD_Length
MPA_MAX_PD = 512                # PD_Length limit

# the flags octet after the key
MPA_FLAG_M = 0x80               # markers
MPA_FLAG_C = 0x40               # CRC
MPA_FLAG_R = 0x20               # reject
MPA_FLAG_ENH = 0x10             # RFC 6581 §5: IRD/ORD in the private data
MPA_FLAGS_RSVD = 0x1f           # reserved with Rev 1 (RFC 5044)
MPA_FLAGS_RSVD_REV2 = 0x0f      # reserved with Rev 2 (RFC 6581)

# RFC 6581 §5: the IRD and ORD words that open the private data
IRD_ORD_MASK = 0x3fff
IRD_P2P = 0x8000
IRD_RTR_SEND = 0x4000
ORD_RTR_WRITE = 0x8000
ORD_RTR_READ = 0x4000
MPA_IRD_ORD_LEN = 4


def mpa_frame(key, flags, rev, pd=b"", pd_len=None):
    """An MPA Request or Reply (RFC 5044 §7.1.2); PD_Length is the length
    of @pd unless @pd_len says otherwise."""
    if pd_len is None:
        pd_len = len(pd)
    return key + struct.pack(">BBH", flags, rev, pd_len) + pd


def mpa_frame_unpack(data):
    """(key, flags, Rev, PD_Length) of an MPA frame's first 20 octets."""
    return (data[:MPA_KEY_LEN], data[16], data[17],
            struct.unpack(">H", data[18:20])[0])


def mpa_ird_ord(ird, ord_):
    """The RFC 6581 §5 IRD and ORD words, control bits included."""
    return struct.pack(">HH", ird, ord_)


def mpa_ird_ord_unpack(pd):
    """(IRD word, ORD word) from the first four private data octets."""
    return struct.unpack(">HH", pd[:MPA_IRD_ORD_LEN])


def mpa_enhanced_unpack(pd):
    """The RFC 6581 §5 words as a dict: IRD and ORD, P2P and RTR flags."""
    ird, ord_ = mpa_ird_ord_unpack(pd)
    return {"ird": ird & IRD_ORD_MASK, "ord": ord_ & IRD_ORD_MASK,
            "p2p": bool(ird & IRD_P2P),
            "rtr_send": bool(ird & IRD_RTR_SEND),
            "rtr_write": bool(ord_ & ORD_RTR_WRITE),
            "rtr_read": bool(ord_ & ORD_RTR_READ)}


# ------------------------------------------------------------ FPDUs

# RFC 5044 §4.1: ULPDU_Length, ULPDU, PAD to 4 octets, CRC
MPA_LEN_LEN = 2
MPA_CRC_LEN = 4


def mpa_pad_len(ulpdu_len):
    """PAD octets after a ULPDU of @ulpdu_len octets."""
    return -(MPA_LEN_LEN + ulpdu_len) & 3


def fpdu_size(ulpdu_len):
    """Octets of the whole FPDU whose ULPDU_Length is @ulpdu_len."""
    return MPA_LEN_LEN + ulpdu_len + mpa_pad_len(ulpdu_len) + MPA_CRC_LEN


def mpa_fpdu(ulpdu, crc=False, ulpdu_len=None, crc_xor=0):
    """
    Frames @ulpdu (RFC 5044 §4.1): ULPDU_Length (that of @ulpdu unless
    @ulpdu_len says otherwise; the PAD always follows the real length),
    ULPDU, PAD and the CRC32c of all of it when @crc, else zero. @crc_xor
    is XORed into the CRC field, for a peer that sends a wrong one.
    """
    n = len(ulpdu) if ulpdu_len is None else ulpdu_len
    body = struct.pack(">H", n) + ulpdu
    body += b"\0" * (-len(body) % 4)
    c = crc32c(body) if crc else 0
    return body + struct.pack("<I", c ^ crc_xor)


def fpdu_ulpdu_len(data, off=0):
    """The ULPDU_Length field of the FPDU at @off."""
    return struct.unpack(">H", data[off:off + MPA_LEN_LEN])[0]


def fpdu_crc_field(fpdu):
    """The CRC field of a whole FPDU, in the byte order of RFC 5044 §4.4
    (iSCSI's, RFC 3720 B.4): compare with crc32c(fpdu[:-4])."""
    return struct.unpack("<I", fpdu[-MPA_CRC_LEN:])[0]


# ------------------------------------------------------------ DDP, RDMAP

# RFC 5041 §4.2 DDP control octet and RFC 5040 §4.1 RDMAP control octet,
# read together as one 16-bit field
DDP_CTRL_T = 0x8000             # tagged buffer model
DDP_CTRL_L = 0x4000             # last segment of the message
DDP_CTRL_RSVD = 0x3c00
DDP_CTRL_DV_SHIFT = 8
RDMAP_CTRL_RV_SHIFT = 6
RDMAP_CTRL_RSVD = 0x0030
RDMAP_CTRL_OPCODE = 0x000f
DDP_VERSION = 1
RDMAP_VERSION = 1

# RFC 5041 §4.3, §4.4: headers, control field included
DDP_TAGGED_HDR_LEN = 14         # control, STag, TO
DDP_UNTAGGED_HDR_LEN = 18       # control, Invalidate STag, QN, MSN, MO

# RFC 5040 §4.2 opcodes
OP_WRITE = 0
OP_READ_REQ = 1
OP_READ_RESP = 2
OP_SEND = 3
OP_SEND_INV = 4
OP_SEND_SE = 5
OP_SEND_SE_INV = 6
OP_TERMINATE = 7

OPNAMES = {OP_WRITE: "write", OP_READ_REQ: "read_req",
           OP_READ_RESP: "read_resp", OP_SEND: "send",
           OP_SEND_INV: "send_inv", OP_SEND_SE: "send_se",
           OP_SEND_SE_INV: "send_se_inv", OP_TERMINATE: "terminate"}
TAGGED_OPS = (OP_WRITE, OP_READ_RESP)
SEND_OPS = (OP_SEND, OP_SEND_INV, OP_SEND_SE, OP_SEND_SE_INV)
INVAL_OPS = (OP_SEND_INV, OP_SEND_SE_INV)

# RFC 5040 §5: RDMAP's untagged queues
QN_SEND = 0
QN_RREQ = 1
QN_TERM = 2
QN_FOR_OP = {OP_READ_REQ: QN_RREQ, OP_SEND: QN_SEND, OP_SEND_INV: QN_SEND,
             OP_SEND_SE: QN_SEND, OP_SEND_SE_INV: QN_SEND,
             OP_TERMINATE: QN_TERM}

# RFC 5040 §4.4: the RDMA Read Request header after the DDP header
READ_REQ_LEN = 28               # sink STag, sink TO, size, source STag, TO


def ddp_ctrl(op, tagged, last=True, dv=1, rv=1):
    """The DDP and RDMAP control octets as one 16-bit value."""
    return ((DDP_CTRL_T if tagged else 0) | (DDP_CTRL_L if last else 0) |
            (dv & 3) << DDP_CTRL_DV_SHIFT | (rv & 3) << RDMAP_CTRL_RV_SHIFT |
            (op & RDMAP_CTRL_OPCODE))


def tagged(op, stag, to, payload=b"", last=True, dv=1, rv=1):
    """A tagged DDP segment (RFC 5041 §4.3) with @payload: a ULPDU."""
    return struct.pack(">HIQ", ddp_ctrl(op, True, last, dv, rv),
                       stag & 0xffffffff, to & 0xffffffffffffffff) + payload


def untagged(op, qn, msn, mo=0, payload=b"", last=True, dv=1, rv=1,
             inv=0):
    """An untagged DDP segment (RFC 5041 §4.4; @inv is RDMAP's Invalidate
    STag, RFC 5040 §4.1) with @payload: a ULPDU."""
    return struct.pack(">HIIII", ddp_ctrl(op, False, last, dv, rv), inv,
                       qn, msn, mo) + payload


def read_req(msn, sink_stag, sink_to, size, src_stag, src_to):
    """An RDMA Read Request (RFC 5040 §4.4) on the Read Request queue."""
    return untagged(OP_READ_REQ, QN_RREQ, msn, 0,
                    struct.pack(">IQIIQ", sink_stag, sink_to, size,
                                src_stag & 0xffffffff,
                                src_to & 0xffffffffffffffff))


def ddp_ctrl_unpack(ulpdu):
    """
    The control fields of a DDP segment (RFC 5041 §4.2, RFC 5040 §4.1):
    (T, L, DDP reserved, DV, RV, RDMAP reserved, opcode), T and L as
    bools, each reserved field as its bits sit in its own octet.
    """
    ctrl = ulpdu[0] << 8 | ulpdu[1]
    return (bool(ctrl & DDP_CTRL_T), bool(ctrl & DDP_CTRL_L),
            (ctrl & DDP_CTRL_RSVD) >> 8, (ctrl >> DDP_CTRL_DV_SHIFT) & 3,
            (ctrl >> RDMAP_CTRL_RV_SHIFT) & 3, ctrl & RDMAP_CTRL_RSVD,
            ctrl & RDMAP_CTRL_OPCODE)


def ddp_is_tagged(data, off=0):
    """The T bit of the DDP header at @off."""
    return bool(data[off] << 8 & DDP_CTRL_T)


def rdmap_opcode(data, off=0):
    """The RDMAP opcode of the DDP header at @off."""
    return data[off + 1] & RDMAP_CTRL_OPCODE


def tagged_unpack(ulpdu):
    """(STag, TO) of a tagged DDP header."""
    return struct.unpack(">IQ", ulpdu[2:DDP_TAGGED_HDR_LEN])


def untagged_unpack(ulpdu):
    """(Invalidate STag, QN, MSN, MO) of an untagged DDP header."""
    return struct.unpack(">IIII", ulpdu[2:DDP_UNTAGGED_HDR_LEN])


def read_req_unpack(body):
    """(sink STag, sink TO, size, source STag, source TO) of an RDMA
    Read Request header, exactly READ_REQ_LEN octets."""
    return struct.unpack(">IQIIQ", body)


# ------------------------------------------------------------ Terminate

# RFC 5040 §4.8: the Terminate Control field, 32 bits after the untagged
# DDP header: Layer (4), EType (4), Error Code (8), Hdrct (3), reserved
TERM_CTRL_LEN = 4
TERM_LAYER_SHIFT = 28
TERM_ETYPE_SHIFT = 24
TERM_ECODE_SHIFT = 16
TERM_HDRCT_SHIFT = 13
TERM_CTRL_RSVD = 0x1fff

# Hdrct: what the Terminate copies of the offending message
HDRCT_M = 4                     # DDP Segment Length (MPA ULPDU_Length)
HDRCT_D = 2                     # the DDP header
HDRCT_R = 1                     # the RDMA Read Request header

# Layer, and the error types of each (RFC 5040 §4.8, RFC 5044 §8)
TERM_LAYER_RDMAP = 0
TERM_LAYER_DDP = 1
TERM_LAYER_LLP = 2              # MPA
TERM_ETYPE_RDMAP_CATASTROPHIC = 0
TERM_ETYPE_RDMAP_PROTECTION = 1
TERM_ETYPE_RDMAP_OPERATION = 2
TERM_ETYPE_DDP_CATASTROPHIC = 0
TERM_ETYPE_DDP_TAGGED = 1
TERM_ETYPE_DDP_UNTAGGED = 2
TERM_ETYPE_MPA = 0


def term_ctrl(layer, etype, ecode, hdrct):
    """The Terminate Control field (RFC 5040 §4.8), reserved bits zero."""
    return struct.pack(">I", (layer & 0xf) << TERM_LAYER_SHIFT |
                       (etype & 0xf) << TERM_ETYPE_SHIFT |
                       (ecode & 0xff) << TERM_ECODE_SHIFT |
                       (hdrct & 7) << TERM_HDRCT_SHIFT)


def term_ctrl_unpack(data, off=0):
    """(layer, etype, ecode, Hdrct, reserved bits) of the Terminate
    Control field at @off."""
    ctl = struct.unpack(">I", data[off:off + TERM_CTRL_LEN])[0]
    return (ctl >> TERM_LAYER_SHIFT, (ctl >> TERM_ETYPE_SHIFT) & 0xf,
            (ctl >> TERM_ECODE_SHIFT) & 0xff,
            (ctl >> TERM_HDRCT_SHIFT) & 7, ctl & TERM_CTRL_RSVD)
