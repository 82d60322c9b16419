#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# verdict.py: judges a hostile.py --all run against the victim's report.
#
#   verdict.py VICTIM_LOG HOSTILE_LOG [--only "NAME..."] [--known NAME=WHY]...
#
# Prints three test points per case (hostile.py's CASES but "good" and
# the standalone ones, which other selftests drive), one line each,
# tab-separated:  PASS|FAIL|SKIP <TAB> description <TAB> details
# (details: diagnostics with "\n" for line breaks, or the skip reason).
# selftests/test_70_hostile_peer.sh turns them into TAP. Doing this in one
# process rather than in shell saves minutes under TCG.
#
# Per case:
#   1. hostile.py saw the answer listed as EXPECTED for the case;
#   2. for "mpa" cases no connection reached the victim's QP; otherwise
#      the victim's QP ended in ERR with every receive completed (none
#      successful for "attack", at least one for "good"), QP_FATAL after
#      a Terminate, and every buffer unchanged outside the allowed ranges;
#   3. the "good" connection after it placed its Write and Send exactly
#      and read back the right bytes.

import argparse
import re
import sys

import hostile

QP_FATAL = "local work queue catastrophic error"


def sections(path):
    """hostile.py --all output: {("case"|"good", NAME): [lines]}."""
    out = {}
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^=== (case|good) (\S+)$", line)
            if m:
                cur = out.setdefault((m.group(1), m.group(2)), [])
            elif line.startswith("=== "):
                cur = None
            elif cur is not None:
                cur.append(line)
    return out


def victim_conns(path):
    """The victim's report: {tag: {"n": N, "lines": [...]}}."""
    byn = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^conn=(\d+) (.*)$", line.rstrip("\n"))
            if m:
                byn.setdefault(int(m.group(1)), []).append(m.group(2))
    tags = {}
    for n, lines in byn.items():
        for ln in lines:
            if ln.startswith("tag="):
                tags.setdefault(ln[4:], {"n": n, "lines": lines})
    return tags


def tail(lines, n=20):
    return "\n".join(lines[-n:])


def result_of(lines):
    for ln in lines:
        if ln.startswith("result "):
            return ln[7:]
    return None


def check_answer(name, expect, lines):
    res = result_of(lines)
    ok = res is not None and re.match(r"^(%s)( |$)" % expect, res) and \
        "mismatch" not in res
    if ok:
        return ("PASS", "%s: %s" % (name, res), "")
    return ("FAIL", "%s: peer sees %s" % (name, expect),
            "got: %s\n%s" % (res, tail(lines, 15)))


def mem_problems(lines):
    mem = [ln for ln in lines if ln.startswith("mem ")]
    bad = [ln for ln in mem
           if not ln.endswith(" unchanged") and " allowed=yes " not in ln]
    if len(mem) != 5:
        return ["memory report missing (%d of 5 buffers)" % len(mem)]
    return ["changed: " + ln for ln in bad]


def dereg_problems(lines):
    """The case had the victim deregister "rw" while the peer stalled."""
    d = [ln for ln in lines if ln.startswith("dereg rw ")]
    m = re.match(r"dereg rw rv=(-?\d+) ms=(\d+)$", d[0]) if d else None
    if not m:
        return ["no deregistration reported"]
    if int(m.group(1)):
        return ["ibv_dereg_mr failed: " + d[0]]
    if int(m.group(2)) > hostile.DEREG_BOUND_MS:
        return ["ibv_dereg_mr waited for the stalled peer: " + d[0]]
    return []


def check_victim(name, kind, conn, hlines):
    desc = "%s: victim QP in ERR, receives done, memory intact" % name
    if kind == "mpa":
        desc = "%s: no connection reached the victim's QP" % name
        if conn is None or "established" not in conn["lines"]:
            return ("PASS", desc, "")
        return ("FAIL", desc, "connection %d was established\n%s" %
                (conn["n"], tail(conn["lines"])))
    if conn is None:
        return ("FAIL", desc, "the connection never reached the victim")
    lines = conn["lines"]
    why = []
    if "established" not in lines:
        why.append("not established")
    if "qp_state=ERR" not in lines:
        why.append("QP not in ERR (%s)" %
                   [ln for ln in lines if ln.startswith("qp_state")])
    recv = [ln for ln in lines if ln.startswith("recv ")]
    counts = dict(re.findall(r"(\w+)=(\d+)", recv[0])) if recv else {}
    posted = int(counts.get("posted", -1))
    done = int(counts.get("completed", -2))
    success = int(counts.get("success", 0))
    if posted != done:
        why.append("receives not all completed (%s)" % recv)
    elif kind == "attack" and success:
        why.append("a receive completed successfully (%s)" % recv[0])
    elif kind == "good" and not success:
        why.append("the Send did not arrive (%s)" % recv[0])
    # RDMAC verbs: a Terminate, sent or received, is an affiliated error
    res = result_of(hlines) or ""
    if (res.startswith("terminate ") or name.startswith("terminate-")) \
       and "async event=" + QP_FATAL not in lines:
        why.append("no QP_FATAL event")
    why += mem_problems(lines)
    if getattr(hostile.CASES[name][0], "dereg_ms", 0):
        why += dereg_problems(lines)
    if why:
        return ("FAIL", desc, "; ".join(why) + "\n" + tail(lines))
    return ("PASS", "%s: victim QP in ERR, %d/%d receives done (%d ok), "
            "memory intact" % (name, done, posted, success), "")


def check_good(name, glines, conn):
    desc = "%s: a well-formed connection afterwards works" % name
    w = s = None
    for ln in glines:
        if ln.startswith("good write rw+256 data="):
            w = ln.split("=", 1)[1]
        elif ln.startswith("good send data="):
            s = ln.split("=", 1)[1]
    if conn is None or w is None:
        return ("FAIL", desc, "no good connection (%s)\n%s" %
                (result_of(glines), tail(glines, 12)))
    lines = conn["lines"]
    why = []
    res = result_of(glines) or ""
    if not res.startswith("closed-without-terminate"):
        why.append(res)
    if "good read ok" not in glines:
        why.append("Read Response wrong")
    if not any(re.match(r"mem rw changed first=256 last=287 allowed=\w+ "
                        r"data=%s$" % w, ln) for ln in lines):
        why.append("Write not placed")
    if not any(re.match(r"mem recv changed first=0 last=15 allowed=\w+ "
                        r"data=%s$" % s, ln) for ln in lines):
        why.append("Send not placed")
    if not any(re.match(r"wc status=success\(0\) opcode=RECV .* "
                        r"byte_len=16$", ln) for ln in lines):
        why.append("no successful receive completion")
    for b in ("lw", "ro", "pd2"):
        if "mem %s unchanged" % b not in lines:
            why.append("%s changed" % b)
    if why:
        return ("FAIL", desc, "; ".join(why) + "\n--- good\n" +
                tail(glines, 12) + "\n--- victim\n" + tail(lines))
    return ("PASS", desc, "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("victim_log")
    ap.add_argument("hostile_log")
    ap.add_argument("--only", default="")
    ap.add_argument("--known", action="append", default=[])
    args = ap.parse_args()
    only = args.only.split()
    known = dict(k.split("=", 1) for k in args.known)
    secs = sections(args.hostile_log)
    conns = victim_conns(args.victim_log)

    for name, (_, expect, kind, _, _) in hostile.CASES.items():
        if name == "good" or kind == "standalone":
            continue
        descs = ("%s: RFC answer" % name, "%s: victim state" % name,
                 "%s: connection afterwards" % name)
        if only and name not in only:
            points = [("SKIP", d, "not selected") for d in descs]
        elif name in known:
            points = [("SKIP", d, "known bug: " + known[name])
                      for d in descs]
        else:
            points = [
                check_answer(name, expect, secs.get(("case", name), [])),
                check_victim(name, kind, conns.get(name),
                             secs.get(("case", name), [])),
                check_good(name, secs.get(("good", name), []),
                           conns.get("good:" + name)),
            ]
        for verdict, desc, detail in points:
            print("%s\t%s\t%s" % (verdict, desc,
                                  detail.replace("\\", "\\\\")
                                  .replace("\t", " ")
                                  .replace("\n", "\\n")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
