#!/usr/bin/env python3
"""lab_table.py — the slow-disk lab's tables (bench/lab.sh): one per device-model point.

Reads OUTDIR/<point>/run<i>/{etcd-L,ours-L,classic}/result.env (p99s in ms from buckets.py, sample counts,
the 1-min load average at the start of each part) and prints, per point and load: etcd's WAL and backend
p99 (median of the runs, min-max, and the 1 ms x 2^k bucket the median falls in), ours, the classic job,
ratios of the medians, and the bucket verdicts (WAL p99 < 10 ms and backend p99 < 25 ms; the classic job
has only a WAL) of the medians and of each run. "decided" says whether etcd's own buckets decide its
verdict: every p99 bucket of a failing metric entirely at or above its limit, or every bucket entirely
below it for a pass. "agree" flags what misses the goal: a ratio outside x1/1.5..x1.5, or a verdict of
ours that differs from a decided one of etcd.

Usage: lab_table.py OUTDIR [--readme FILE]   (--readme: replace the text between <!-- lab:begin --> and
<!-- lab:end --> in FILE with the tables)
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
    lines = [f"**{name}** — device `{model}`, {len(runs)} runs", "",
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
    out, readme = argv[0], None
    if len(argv) == 3 and argv[1] == "--readme":
        readme = argv[2]
    points = sorted(p for p in glob.glob(os.path.join(out, "*")) if os.path.isfile(os.path.join(p, "model")))
    order = {}
    text, allmiss = [], []
    for p in sorted(points, key=lambda p: order.get(p, p)):
        lines, miss = point_table(p)
        text += lines + [""]
        allmiss += miss
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
        b, e = "<!-- lab:begin -->", "<!-- lab:end -->"
        if b not in doc or e not in doc:
            print(f"lab_table.py: {readme}: no {b} ... {e} markers", file=sys.stderr)
            return 2
        doc = doc[:doc.index(b) + len(b)] + "\n" + body + "\n" + doc[doc.index(e):]
        with open(readme, "w", encoding="utf-8") as f:
            f.write(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
