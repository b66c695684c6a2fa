#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lab_trace.py — real etcd's backend commits beside the engine's, call by call, from
`strace -f -ttt -T -y -e trace=pwrite64,write,fdatasync,fsync,ftruncate,fallocate,mmap` (bench/lab_trace.sh).

A commit on the bbolt file (".../member/snap/db" for etcd, the engine's "db" file) is: an optional growth
(ftruncate + fsync), the page pwrites, fdatasync, the meta pwrite (4096 bytes at offset 0 or 4096),
fdatasync. For each commit: pages, contiguous runs, growth, span (first call's start to the last sync's
end), disk (the sum of the calls' durations) and gap = span - disk: the time the writer spent between its
calls (CPU, the Go scheduler, GC) rather than in the kernel. Also the WAL fdatasyncs in flight when each
backend sync was issued (the queue a commit's sync joins on one device). Prints one comparison table.

Usage: lab_trace.py NAME=STRACE_FILE ...
"""
import re
import sys

LINE = re.compile(r'^(\d+)\s+(\d+\.\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)[^<]*<(\d+\.\d+)>\s*$')
UNF = re.compile(r'^(\d+)\s+(\d+\.\d+)\s+(\w+)\((.*?)\s*<unfinished \.\.\.>\s*$')
RES = re.compile(r'^(\d+)\s+(\d+\.\d+)\s+<\.\.\. (\w+) resumed>(.*)\)\s+=\s+(-?\d+)[^<]*<(\d+\.\d+)>\s*$')
FD = re.compile(r'^(\d+)<([^>]*)>')


def kind(path):
    if path.endswith("/db") or re.search(r"/db(\.\d+)?$", path) or path.endswith(".db"):
        return "db"
    if path.endswith(".wal") or "/wal" in path:
        return "wal"
    return None


def parse(path):
    calls, pending = [], {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                pid, ts, name, args, ret, dur = m.groups()
            else:
                u = UNF.match(line)
                if u:
                    pending[u.group(1)] = (u.group(2), u.group(3), u.group(4))
                    continue
                r = RES.match(line)
                if not r or r.group(1) not in pending:
                    continue
                ts, name, a0 = pending.pop(r.group(1))
                pid, args, ret, dur = r.group(1), a0 + r.group(4), r.group(5), r.group(6)
            fm = FD.match(args)
            if not fm:
                continue
            k = kind(fm.group(2))
            if not k:
                continue
            c = {"t": float(ts), "d": float(dur), "call": name, "kind": k, "ret": int(ret), "pid": pid}
            if name == "pwrite64":
                nums = re.findall(r",\s*(\d+)", args)
                if len(nums) >= 2:
                    c["len"], c["off"] = int(nums[-2]), int(nums[-1])
            calls.append(c)
    calls.sort(key=lambda c: c["t"])
    return calls


def is_meta(c):
    return c["call"] == "pwrite64" and c.get("len") == 4096 and c.get("off") in (0, 4096)


def commits(calls):
    """Groups the db file's calls into commits: each ends with the fdatasync that follows a meta write."""
    out, cur, prev = [], [], None
    for c in calls:
        if c["kind"] != "db":
            continue
        cur.append(c)
        if c["call"] == "fdatasync" and prev is not None and is_meta(prev):
            if sum(1 for x in cur if x["call"] == "fdatasync") == 2:
                out.append({"calls": cur})
            cur = []
        prev = c
    res = []
    for cm in out:
        cs = cm["calls"]
        pages = [c for c in cs if c["call"] == "pwrite64" and not is_meta(c)]
        metas = [c for c in cs if c["call"] == "pwrite64" and c not in pages]
        runs, end = 0, None
        for p in sorted(pages, key=lambda c: c.get("off", 0)):
            if p.get("off") != end:
                runs += 1
            end = p.get("off", 0) + p.get("len", 0)
        span = cs[-1]["t"] + cs[-1]["d"] - cs[0]["t"]
        disk = sum(c["d"] for c in cs)
        syncs = [c for c in cs if c["call"] == "fdatasync"]
        res.append({"t": cs[0]["t"], "pages": sum(p.get("len", 0) for p in pages) / 4096, "runs": runs,
                    "metas": len(metas), "grow": any(c["call"] == "ftruncate" for c in cs),
                    "span": span * 1e3, "disk": disk * 1e3, "gap": (span - disk) * 1e3,
                    "sync1": syncs[0]["d"] * 1e3, "sync2": syncs[1]["d"] * 1e3,
                    "pw": sum(c["d"] for c in cs if c["call"] == "pwrite64") * 1e3, "syncs": syncs, "calls": cs,
                    "npw": len(pages), "bytes": sum(p.get("len", 0) for p in pages) + 4096 * len(metas),
                    "nsync": len(syncs), "nfsync": sum(1 for c in cs if c["call"] == "fsync")})
    return res


def q(v, f):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * f))] if v else float("nan")


def wal_io(calls):
    """The WAL's write calls per fdatasync and the median write (one raft Save's records; the engine's
    first-segment fill at the start is a few large writes the median leaves out)."""
    w = [c for c in calls if c["kind"] == "wal" and c["call"] in ("write", "pwrite64")]
    n = sum(1 for c in calls if c["kind"] == "wal" and c["call"] == "fdatasync")
    return len(w) / max(1, n), q([max(0, c["ret"]) for c in w], .5)


def wal_inflight(calls, cms):
    """WAL fdatasyncs in flight at the moment each backend fdatasync was issued."""
    wal = [(c["t"], c["t"] + c["d"]) for c in calls if c["kind"] == "wal" and c["call"] == "fdatasync"]
    n = []
    for cm in cms:
        for s in cm["syncs"]:
            n.append(sum(1 for a, b in wal if a <= s["t"] < b))
    return n, len(wal)


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    rows = []
    for arg in argv:
        name, _, path = arg.partition("=")
        calls = parse(path)
        cms = commits(calls)
        if len(cms) > 2:
            cms = cms[1:]  # the first is the open's init or a partial one at the start of the trace
        infl, nwal = wal_inflight(calls, cms)
        dur = (calls[-1]["t"] - calls[0]["t"]) if calls else 0
        rows.append((name, cms, infl, nwal, dur, wal_io(calls)))
    cols = [("commits/s", lambda cms, r: f"{len(cms) / r[4]:.1f}" if r[4] else "-"),
            ("WAL syncs/s", lambda cms, r: f"{r[3] / r[4]:.0f}" if r[4] else "-"),
            ("pages/commit", lambda cms, r: f"{sum(c['pages'] for c in cms) / len(cms):.1f}"),
            ("db calls/commit: pwrite (pages) / fdatasync / fsync", lambda cms, r: "%.1f / %.2f / %.3f" % (sum(c["npw"] for c in cms) / len(cms), sum(c["nsync"] for c in cms) / len(cms), sum(c["nfsync"] for c in cms) / len(cms))),
            ("db bytes/commit (meta page included)", lambda cms, r: "%.0f" % (sum(c["bytes"] for c in cms) / len(cms))),
            ("meta pwrites/commit", lambda cms, r: "%.2f" % (sum(c["metas"] for c in cms) / len(cms))),
            ("WAL write calls per fdatasync / median bytes per write", lambda cms, r: "%.2f / %.0f" % r[5]),
            ("runs/commit", lambda cms, r: f"{sum(c['runs'] for c in cms) / len(cms):.1f}"),
            ("growths", lambda cms, r: str(sum(c["grow"] for c in cms))),
            ("span p50/p99/max ms", lambda cms, r: "%.2f/%.2f/%.2f" % (q([c["span"] for c in cms], .5), q([c["span"] for c in cms], .99), max(c["span"] for c in cms))),
            ("disk p50/p99/max ms", lambda cms, r: "%.2f/%.2f/%.2f" % (q([c["disk"] for c in cms], .5), q([c["disk"] for c in cms], .99), max(c["disk"] for c in cms))),
            ("gap p50/p99/max ms", lambda cms, r: "%.2f/%.2f/%.2f" % (q([c["gap"] for c in cms], .5), q([c["gap"] for c in cms], .99), max(c["gap"] for c in cms))),
            ("pwrites p50/p99 ms", lambda cms, r: "%.2f/%.2f" % (q([c["pw"] for c in cms], .5), q([c["pw"] for c in cms], .99))),
            ("sync1 p50/p99 ms", lambda cms, r: "%.2f/%.2f" % (q([c["sync1"] for c in cms], .5), q([c["sync1"] for c in cms], .99))),
            ("sync2 p50/p99 ms", lambda cms, r: "%.2f/%.2f" % (q([c["sync2"] for c in cms], .5), q([c["sync2"] for c in cms], .99))),
            ("WAL syncs in flight at a backend sync: mean / share >0", lambda cms, r: "%.2f / %.0f%%" % (sum(r[2]) / max(1, len(r[2])), 100 * sum(1 for x in r[2] if x) / max(1, len(r[2])))),
            ]
    print("| measure | " + " | ".join(r[0] for r in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for title, fn in cols:
        cells = []
        for r in rows:
            cells.append(fn(r[1], r) if r[1] else "-")
        print(f"| {title} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
