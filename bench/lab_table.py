#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lab_table.py — the slow-disk lab's tables (bench/lab.sh): one per device-model point.

Reads OUTDIR/<point>/run<i>/{etcd-L,ours-L,classic}/result.env (p99s in ms from buckets.py, sample counts,
the 1-min load average at the start of each part) and prints, per point and load: etcd's WAL and backend
p99 (median of the runs, min-max, and the 1 ms x 2^k bucket the median falls in), ours, the classic job,
ratios of the medians, and the bucket verdicts (WAL p99 < 10 ms and backend p99 < 25 ms; the classic job
has only a WAL) of the medians and of each run. "decided" says whether etcd's own buckets decide its
verdict: every p99 bucket of a failing metric entirely at or above its limit, or every bucket entirely
below it for a pass. "agree" flags what misses the goal: a ratio outside x1/1.5..x1.5, or a verdict of
ours that differs from a decided one of etcd.

Usage: lab_table.py OUTDIR [--readme FILE [--marker NAME]]   (--readme: replace the text between
<!-- NAME:begin --> and <!-- NAME:end --> in FILE with the tables; NAME defaults to "lab")
The etcd release in each heading is OUTDIR/etcd_version (written by lab.sh).
"""
import glob
import os
import re
import statistics
import sys

LIMITS = {"wal": 10.0, "be": 25.0}
EDGES = [float(1 << k) for k in range(14)]


def read_env(path):
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                if k:
                    out[k] = v
    except OSError:
        pass
    return out


def num(v):
    try:
        x = float(str(v).lstrip(">"))
        return None if x != x else x
    except (TypeError, ValueError):
        return None


def bucket(v):
    if v is None:
        return None
    lo = 0.0
    for e in EDGES:
        if v <= e:
            return (lo, e)
        lo = e
    return (EDGES[-1], float("inf"))


def bstr(v):
    b = bucket(v)
    if b is None:
        return "-"
    return f"{b[0]:g}-{b[1]:g}" if b[1] != float("inf") else f">{b[0]:g}"


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def fmt(vals):
    m = med(vals)
    vals = [v for v in vals if v is not None]
    if m is None:
        return "n/a"
    if len(vals) == 1:
        return f"{m:.2f}"
    return f"{m:.2f} ({min(vals):.2f}-{max(vals):.2f})"


def ratio(a, b):
    return f"x{a / b:.2f}" if a is not None and b else "-"


def verdict(wal, be=None, has_be=True):
    if wal is None or (has_be and be is None):
        return "-"
    ok = wal < LIMITS["wal"] and (not has_be or be < LIMITS["be"])
    return "pass" if ok else "fail"


def decided(wal, be):
    """Does etcd's own bucket decide its verdict (None: no value)."""
    if wal is None or be is None:
        return None
    bw, bb = bucket(wal), bucket(be)
    fails = [b for b, lim in ((bw, LIMITS["wal"]), (bb, LIMITS["be"])) if b[0] >= lim]
    if fails:
        return True
    return bw[1] <= LIMITS["wal"] and bb[1] <= LIMITS["be"]


def prom_mean(d, metric):
    """(mean ms, count) of metric over the part from the _sum/_count deltas, or (None, 0)."""
    vals = []
    for name in ("metrics.before", "metrics.after"):
        got = {}
        try:
            with open(os.path.join(d, name), encoding="utf-8") as f:
                for line in f:
                    for k in ("_sum", "_count"):
                        if line.startswith(metric + k + " "):
                            got[k] = float(line.split()[1])
        except OSError:
            return None, 0
        vals.append(got)
    try:
        n = vals[1]["_count"] - vals[0]["_count"]
        return ((vals[1]["_sum"] - vals[0]["_sum"]) / n * 1e3 if n > 0 else None), int(n)
    except KeyError:
        return None, 0


SPLIT = [("commit", "etcd_disk_backend_commit_duration_seconds"),
         ("write", "etcd_debugging_disk_backend_commit_write_duration_seconds"),
         ("spill", "etcd_debugging_disk_backend_commit_spill_duration_seconds"),
         ("rebalance", "etcd_debugging_disk_backend_commit_rebalance_duration_seconds")]


def split_table(points):
    """etcd's own split of a commit (means over the runs' parts): bbolt's CPU phases (rebalance, spill)
    against its write phase (page pwrites, fdatasync, meta pwrite, fdatasync)."""
    lines = ["etcd's backend commit split by its own histograms (mean ms over all runs; sums / counts): "
             "`write` is bbolt's write phase (the pwrites and both fdatasyncs, with whatever waits between "
             "them), `spill` + `rebalance` its CPU work before it.", "",
             "| point | load | commits | commit | write | spill | rebalance | commit - write - spill - rebalance |",
             "|---|---|---|---|---|---|---|---|"]
    for p in points:
        runs = sorted(glob.glob(os.path.join(p, "run*")))
        for ld in ("s", "m"):
            tot = {k: [0.0, 0] for k, _ in SPLIT}
            for r in runs:
                d = os.path.join(r, f"etcd-{ld}")
                for k, m in SPLIT:
                    mean, n = prom_mean(d, m)
                    if mean is not None:
                        tot[k][0] += mean * n
                        tot[k][1] += n
            if not tot["commit"][1]:
                continue
            mn = {k: (v[0] / v[1] if v[1] else 0.0) for k, v in tot.items()}
            lines.append(f"| {os.path.basename(p)} | {ld} | {tot['commit'][1]} | {mn['commit']:.2f} | {mn['write']:.2f} "
                         f"| {mn['spill']:.2f} | {mn['rebalance']:.2f} "
                         f"| {mn['commit'] - mn['write'] - mn['spill'] - mn['rebalance']:.2f} |")
    return lines


def trace_commits(pdir):
    """Per part (etcd-s, ours-s, etcd-m, ours-m of each run, in that order), the device time of each
    backend commit from labfs's trace: its two db syncs (page sync + meta sync), arrival to finish, so
    queueing behind WAL syncs included; and the time between them (the page sync's finish to the meta
    sync's arrival: the writer's own time, on no device), the part's first commit left out of both. The
    db file of a part is the inode whose syncs carry > 12 KiB on average, every other one the 4096-byte
    meta page (a WAL's syncs carry a few pages of entries, the classic job's one page). [(devices, gaps)]"""
    seen, order = {}, []
    for t in sorted(glob.glob(os.path.join(pdir, "labfs.trace.*"))):
        with open(t, encoding="utf-8") as f:
            for line in f:
                r = line.split()
                if len(r) != 6:
                    continue
                ino = (t, r[4])
                if ino not in seen:
                    seen[ino] = []
                    order.append(ino)
                seen[ino].append((int(r[0]), int(r[2]), int(r[3])))
    def is_db(v):  # bbolt: every other sync is the 4096-byte meta page, the ones between carry the pages
        # (a WAL segment the engine fills before its run syncs mostly single pages and few of over 8 KiB)
        return (len(v) >= 100 and sum(x[2] for x in v) / len(v) > 12288
                and sum(1 for x in v if x[2] == 4096) >= 0.3 * len(v)
                and sum(1 for x in v if x[2] > 8192) >= 0.3 * len(v))
    dbs = [i for i in order if is_db(seen[i])]
    out = []
    for i in dbs:
        v, commits, gaps, k = seen[i], [], [], 0
        while k + 1 < len(v):
            if v[k + 1][2] <= 4096 < v[k][2] or (v[k][2] > 4096 and v[k + 1][2] <= 8192):
                commits.append((v[k][1] - v[k][0] + v[k + 1][1] - v[k + 1][0]) / 1e6)
                gaps.append((v[k + 1][0] - v[k][1]) / 1e6)
                k += 2
            else:
                k += 1
        out.append((commits[1:], gaps[1:]))
    return out


def pauses(gaps):
    """The pauses of a writer between its two db syncs: those over 5 ms, listed when a few, else counted."""
    if not gaps:
        return "-"
    over = sorted(g for g in gaps if g > 5)
    if not over:
        return f"0 of {len(gaps)}, max {max(gaps):.1f}"
    if len(over) <= 8:
        return f"{len(over)} of {len(gaps)}: " + " ".join(f"{g:.1f}" for g in over)
    return f"{len(over)} of {len(gaps)}, max {over[-1]:.1f}"


def device_table(points):
    """Only for points run with LAB_TRACE=1 (a labfs.trace.* file): none, no table."""
    points = [p for p in points if glob.glob(os.path.join(p, "labfs.trace.*"))]
    if not points:
        return []
    lines = ["Backend commits against their device time (labfs trace: the commit's two db syncs from "
             "arrival to finish, queueing behind WAL syncs included; all runs pooled; p99 by the same buckets; "
             "pauses: the commits whose writer took over 5 ms between its two syncs (ms, when a few), each part's first "
             "commit left out):", "",
             "| point | load | etcd commit p99 | etcd device p99 | etcd commit mean / device mean | etcd pauses "
             "| ours commit p99 | ours device p99 | ours commit mean / device mean | ours pauses |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for p in points:
        parts = trace_commits(p)
        runs = sorted(glob.glob(os.path.join(p, "run*")))
        names = [(r, who, ld) for r in runs for ld in ("s", "m") for who in ("etcd", "ours")
                 if os.path.isdir(os.path.join(r, f"{who}-{ld}"))]
        if len(parts) != len(names):
            lines.append(f"| {os.path.basename(p)} | - | trace has {len(parts)} db files for {len(names)} parts: "
                         "not matched | | | | | | | |")
            continue
        pool, gpool = {}, {}
        for (r, who, ld), (dev, gap) in zip(names, parts):
            pool.setdefault((who, ld), []).extend(dev)
            gpool.setdefault((who, ld), []).extend(gap)
        for ld in ("s", "m"):
            if not any(k[1] == ld for k in pool):
                continue
            cells = []
            for who in ("etcd", "ours"):
                dev = pool.get((who, ld), [])
                cm, n, cp = [], 0, []
                for r in runs:
                    d = os.path.join(r, f"{who}-{ld}")
                    if who == "etcd":
                        mean, k = prom_mean(d, "etcd_disk_backend_commit_duration_seconds")
                    else:
                        mean, k = engine_mean(os.path.join(d, "backend.stats.json"))
                    if mean is not None:
                        cm.append(mean * k)
                        n += k
                    cp.append(num(read_env(os.path.join(d, "result.env")).get("be_p99")))
                dq, gap = bucket_q(dev, 0.99), gpool.get((who, ld), [])
                cells += [fmt(cp), f"{dq:.2f}" if dq is not None else "-",
                          f"{sum(cm) / n:.2f} / {sum(dev) / len(dev):.2f}" if n and dev else "-",
                          pauses(gap)]
            lines.append(f"| {os.path.basename(p)} | {ld} | " + " | ".join(cells) + " |")
    return lines


def bucket_q(vals, q):
    if not vals:
        return None
    cum = [sum(1 for v in vals if v <= e) for e in EDGES] + [len(vals)]
    rank, below, lower = q * len(vals), 0, 0.0
    for i, e in enumerate(EDGES):
        if cum[i] >= rank:
            inb = cum[i] - below
            return e if inb <= 0 else lower + (e - lower) * (rank - below) / inb
        below, lower = cum[i], e
    return EDGES[-1]


def engine_mean(path):
    import json
    try:
        with open(path, encoding="utf-8") as f:
            c = json.load(f)["backend"]["commit"]
        return c["mean_ns"] / 1e6, c["count"]
    except (OSError, ValueError, KeyError, TypeError):
        return None, 0


def within(r_a, r_b):
    return r_a is not None and r_b and 1 / 1.5 <= r_a / r_b <= 1.5


def point_table(pdir):
    name = os.path.basename(pdir)
    try:
        model = open(os.path.join(pdir, "model"), encoding="utf-8").read().strip()
    except OSError:
        model = "?"
    runs = sorted(glob.glob(os.path.join(pdir, "run*")), key=lambda p: int(re.sub(r"\D", "", os.path.basename(p)) or 0))
    loads = sorted({os.path.basename(p)[5:] for r in runs for p in glob.glob(os.path.join(r, "etcd-*"))} |
                   {os.path.basename(p)[5:] for r in runs for p in glob.glob(os.path.join(r, "ours-*"))},
                   key=lambda s: ["s", "m", "l", "xl"].index(s) if s in ["s", "m", "l", "xl"] else 9)
    classic = [read_env(os.path.join(r, "classic", "result.env")) for r in runs]
    cl = [num(c.get("wal_p99")) for c in classic]
    try:
        etcd = "etcd " + open(os.path.join(os.path.dirname(pdir), "etcd_version"), encoding="utf-8").read().strip()
    except OSError:
        etcd = "etcd (release not recorded)"
    lines = [f"**{name}** — {etcd}, device `{model}`, {len(runs)} runs", "",
             "| load | etcd WAL p99 [bucket] | ours WAL | ours/etcd | classic | classic/etcd "
             "| etcd backend p99 [bucket] | ours backend | ours/etcd | verdicts etcd/ours/classic (medians; per run) "
             "| etcd's bucket decides | agree | load avg |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    misses = []
    for ld in loads:
        e = [read_env(os.path.join(r, f"etcd-{ld}", "result.env")) for r in runs]
        o = [read_env(os.path.join(r, f"ours-{ld}", "result.env")) for r in runs]
        ew, eb = [num(x.get("wal_p99")) for x in e], [num(x.get("be_p99")) for x in e]
        ow, ob = [num(x.get("wal_p99")) for x in o], [num(x.get("be_p99")) for x in o]
        mew, meb, mow, mob, mcl = med(ew), med(eb), med(ow), med(ob), med(cl)
        ve, vo, vc = verdict(mew, meb), verdict(mow, mob), verdict(mcl, has_be=False)
        per_run = " ".join(f"{verdict(a, b)[0] if verdict(a, b) != '-' else '-'}"
                           f"{verdict(c, d)[0] if verdict(c, d) != '-' else '-'}"
                           f"{verdict(x, has_be=False)[0] if verdict(x, has_be=False) != '-' else '-'}"
                           for a, b, c, d, x in zip(ew, eb, ow, ob, cl))
        dec = decided(mew, meb)
        bad = []
        if not within(mow, mew):
            bad.append("WAL ratio")
        if not within(mob, meb):
            bad.append("backend ratio")
        if dec and vo != ve:
            bad.append("verdict")
        if bad:
            misses.append(f"{name}/{ld}: " + ", ".join(bad))
        la = [num(x.get("loadavg")) for x in e + o]
        lines.append(
            f"| {ld} | {fmt(ew)} [{bstr(mew)}] | {fmt(ow)} | {ratio(mow, mew)} | {fmt(cl)} | {ratio(mcl, mew)} "
            f"| {fmt(eb)} [{bstr(meb)}] | {fmt(ob)} | {ratio(mob, meb)} | {ve}/{vo}/{vc}; {per_run} "
            f"| {'-' if dec is None else 'yes' if dec else 'no'} | {'yes' if not bad else 'NO: ' + ', '.join(bad)} "
            f"| {fmt(la)} |")
    return lines, misses


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out, readme, mark = argv[0], None, "lab"
    rest = argv[1:]
    while len(rest) >= 2 and rest[0] in ("--readme", "--marker"):
        if rest[0] == "--readme":
            readme = rest[1]
        else:
            mark = rest[1]
        rest = rest[2:]
    points = sorted(p for p in glob.glob(os.path.join(out, "*")) if os.path.isfile(os.path.join(p, "model")))
    order = {}
    text, allmiss = [], []
    for p in sorted(points, key=lambda p: order.get(p, p)):
        lines, miss = point_table(p)
        text += lines + [""]
        allmiss += miss
    text += split_table(sorted(points, key=lambda p: order.get(p, p))) + [""]
    dev = device_table(sorted(points, key=lambda p: order.get(p, p)))
    text += dev + [""] if dev else []
    text.append("Per run: three letters etcd/ours/classic, p = pass, f = fail, - = no value. p99s in ms, "
                "median (min-max) of the runs, from 1 ms x 2^k buckets (buckets.py).")
    text.append("")
    text.append("Misses (ratio outside x1/1.5..x1.5, or a verdict other than etcd's where etcd's bucket decides): "
                + ("; ".join(allmiss) if allmiss else "none"))
    body = "\n".join(text)
    print(body)
    if readme:
        with open(readme, encoding="utf-8") as f:
            doc = f.read()
        b, e = f"<!-- {mark}:begin -->", f"<!-- {mark}:end -->"
        if b not in doc or e not in doc:
            print(f"lab_table.py: {readme}: no {b} ... {e} markers", file=sys.stderr)
            return 2
        doc = doc[:doc.index(b) + len(b)] + "\n" + body + "\n" + doc[doc.index(e):]
        with open(readme, "w", encoding="utf-8") as f:
            f.write(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
