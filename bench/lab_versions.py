#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lab_versions.py — one table of the slow-disk lab across etcd releases: for each lab point and load,
each release's etcd WAL and backend p99 (median of the runs), ours beside it (the profile run back to
back with that etcd), the ratios ours/etcd and whether the verdicts agree (lab_table.py's rules: within
x1/1.5..x1.5, and the same verdict wherever etcd's own bucket decides it).

Usage: lab_versions.py OUTDIR...   (each a bench/lab.sh OUTDIR; its etcd_version names the column group)
"""
import glob
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_table import decided, med, num, read_env, verdict, within  # noqa: E402
import buckets  # noqa: E402

LOADS = ["s", "m", "l", "xl"]


def version(out):
    try:
        return "etcd " + open(os.path.join(out, "etcd_version"), encoding="utf-8").read().strip()
    except OSError:
        return os.path.basename(out.rstrip("/"))


def cell(out, point, ld):
    runs = glob.glob(os.path.join(out, point, "run*"))
    e = [read_env(os.path.join(r, f"etcd-{ld}", "result.env")) for r in runs]
    o = [read_env(os.path.join(r, f"ours-{ld}", "result.env")) for r in runs]
    ew, eb = med([num(x.get("wal_p99")) for x in e]), med([num(x.get("be_p99")) for x in e])
    ow, ob = med([num(x.get("wal_p99")) for x in o]), med([num(x.get("be_p99")) for x in o])
    la = med([num(x.get("loadavg")) for x in e + o])
    if None in (ew, eb, ow, ob):
        return None
    ok = within(ow, ew) and within(ob, eb)
    dec = decided(ew, eb)
    same = verdict(ow, ob) == verdict(ew, eb)
    return {"n": len(runs), "ew": ew, "eb": eb, "ow": ow, "ob": ob, "la": la,
            "ok": ok and (same or not dec), "v": f"{verdict(ew, eb)[0]}/{verdict(ow, ob)[0]}"
            + ("" if dec else "?")}


def pooled(out, point, ld, who):
    """The backend commits of every run of a cell summed into one histogram (etcd's buckets), cumulative,
    or None."""
    tot = None
    for r in glob.glob(os.path.join(out, point, "run*")):
        d = os.path.join(r, f"{who}-{ld}")
        try:
            if who == "etcd":
                cum = buckets.from_prom(os.path.join(d, "metrics.before"), os.path.join(d, "metrics.after"),
                                        "etcd_disk_backend_commit_duration_seconds")
            else:
                cum = buckets.from_engine(os.path.join(d, "backend.stats.json"), "commit")
        except (OSError, buckets.BucketError, ValueError, KeyError):
            continue
        tot = cum if tot is None else [a + b for a, b in zip(tot, cum)]
    return tot if tot and tot[-1] else None


def is_stall(out, point):
    try:
        return "stall_every" in open(os.path.join(out, point, "model"), encoding="utf-8").read()
    except OSError:
        return False


def edge_ms(stall, etcd_pool):
    """The bucket edge a cell's p99 turns on: at a stall point 16 ms (a commit over it is one a 40 ms stall
    window caught); elsewhere the lowest edge etcd's slowest 5 % of commits lie over (the p99 crosses the
    bucket above it with a commit more or less over it)."""
    if stall:
        return 16.0
    n = etcd_pool[-1]
    return next((e for e, c in zip(buckets.EDGES_MS, etcd_pool) if n - c < 0.05 * n), buckets.EDGES_MS[-1])


def edge_table(argv, points):
    """A p99 of a few hundred commits turns on a handful of them: the ones over the bucket edge it sits on.
    How many there were on each side, all runs pooled, and the p99 of the pool."""
    rows = []
    for p in points:
        stalls = [is_stall(out, p) for out in argv]
        for ld in LOADS:
            row = f"| {p} | {ld} |"
            seen = False
            for out, stall in zip(argv, stalls):
                e, o = pooled(out, p, ld, "etcd"), pooled(out, p, ld, "ours")
                if not e or not o:
                    row += " - | - |"
                    continue
                seen = True
                k = buckets.EDGES_MS.index(edge_ms(stall, e))
                eo, oo = int(e[-1] - e[k]), int(o[-1] - o[k])
                ep, op = buckets.quantile(e, 0.99)[0], buckets.quantile(o, 0.99)[0]
                row += (f" {buckets.EDGES_MS[k]:.0f} ms: {eo} of {int(e[-1])} ({100 * eo / e[-1]:.2f} %) / {oo} of "
                        f"{int(o[-1])} ({100 * oo / o[-1]:.2f} %) | {ep:.2f} / {op:.2f} (x{op / ep:.2f}) |")
            if seen:
                rows.append(row)
    if not rows:
        return
    print()
    head, sep = "| point | load |", "|---|---|"
    for out in argv:
        head += f" {version(out)}: backend commits over the edge, etcd / ours | pooled p99 etcd / ours |"
        sep += "---|---|"
    print(head)
    print(sep)
    print("\n".join(rows))


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    points = []
    for out in argv:
        for p in sorted(glob.glob(os.path.join(out, "*", "model"))):
            name = os.path.basename(os.path.dirname(p))
            if name not in points:
                points.append(name)
    head = "| point | load |"
    sep = "|---|---|"
    for out in argv:
        v = version(out)
        head += f" {v}: WAL p99 etcd / ours (x) | backend p99 etcd / ours (x) | verdicts, runs, load |"
        sep += "---|---|---|"
    print(head)
    print(sep)
    misses = []
    for p in points:
        for ld in LOADS:
            cells = [cell(out, p, ld) for out in argv]
            if not any(cells):
                continue
            row = f"| {p} | {ld} |"
            for out, c in zip(argv, cells):
                if c is None:
                    row += " not run | not run | - |"
                    continue
                row += (f" {c['ew']:.2f} / {c['ow']:.2f} (x{c['ow'] / c['ew']:.2f}) |"
                        f" {c['eb']:.2f} / {c['ob']:.2f} (x{c['ob'] / c['eb']:.2f}) |"
                        f" {c['v']}{'' if c['ok'] else ' MISS'}, {c['n']}, {c['la']:.1f} |")
                if not c["ok"]:
                    misses.append(f"{version(out)} {p}/{ld}")
            print(row)
    print()
    print("verdicts etcd/ours (p pass, f fail; ? = etcd's bucket does not decide its verdict); runs per cell; "
          "median 1-min load average. MISS: a ratio outside x1/1.5..x1.5 or a verdict other than a decided one "
          "of etcd's. Misses: " + ("; ".join(misses) if misses else "none"))
    edge_table(argv, points)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
