#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lab_versions.py — one table of the slow-disk lab across etcd releases: for each lab point and load,
each release's etcd WAL and backend p99 (median of the runs), ours beside it (the profile run back to
back with that etcd), the ratios ours/etcd and whether the verdicts agree (lab_table.py's rules: within
x1/1.5..x1.5, and the same verdict wherever etcd's own bucket decides it).

Usage: lab_versions.py [--points=P,Q,...] OUTDIR...   (each a bench/lab.sh OUTDIR; its etcd_version names
       the column group; --points: those points only, in that order)
       lab_versions.py self-check   (the sampling behind the "one process" column, against brute force)

OUTDIRs of one release are one column group: a point's runs are those of every such OUTDIR (its device may
differ between them by its seed= alone, e.g. the same stall points placed by two seeds; anything else in
the model is refused).
"""
import glob
import math
import os
import random
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


def runs_of(outs, point, ld):
    """The runs of a point at load ld that hold both sides' results, from every OUTDIR given."""
    return [r for out in outs for r in sorted(glob.glob(os.path.join(out, point, "run*")))
            if all(os.path.exists(os.path.join(r, f"{w}-{ld}", "result.env")) for w in ("etcd", "ours"))]


def model(out, point):
    try:
        return open(os.path.join(out, point, "model"), encoding="utf-8").read()
    except OSError:
        return None


def points_of(out):
    """An OUTDIR's points, by name: the directories that hold a model file or runs."""
    return sorted({os.path.basename(os.path.dirname(p))
                   for p in glob.glob(os.path.join(out, "*", "model")) + glob.glob(os.path.join(out, "*", "run*"))})


def sans_seed(spec):
    """A device's fields but its seed, in one order (labdev reads them in any)."""
    return ",".join(sorted(f for f in spec.strip().split(",") if f and not f.startswith("seed=")))


def releases(argv):
    """argv's OUTDIRs grouped by release, in the order first named: [(name, [outdir, ...]), ...]; None (and a
    line on stderr) when one release's OUTDIRs hold one point on devices that differ by more than the seed."""
    groups = {}
    for out in argv:
        groups.setdefault(version(out), []).append(out)
    for name, outs in groups.items():
        seen = {}
        for out in outs:
            for pt in points_of(out):
                spec = model(out, pt)
                if spec is None:
                    print(f"lab_versions.py: {os.path.join(out, pt)}: runs but no model file (lab.sh writes one)",
                          file=sys.stderr)
                    return None
                m = sans_seed(spec)
                if seen.setdefault(pt, (out, m))[1] != m:
                    print(f"lab_versions.py: {name}: point {pt} is {seen[pt][1]} in {seen[pt][0]} but {m} in {out}"
                          " (only seed= may differ)", file=sys.stderr)
                    return None
    return list(groups.items())


def cell(outs, point, ld):
    runs = runs_of(outs, point, ld)
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


def pooled(outs, point, ld, who):
    """The backend commits of every run of a cell summed into one histogram (etcd's buckets), cumulative,
    or None."""
    tot = None
    for r in runs_of(outs, point, ld):
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


def is_stall(outs, point):
    return any("stall_every" in (model(out, point) or "") for out in outs)


def edge_ms(stall, etcd_pool):
    """The bucket edge a cell's p99 turns on: at a stall point 16 ms (a commit over it is one a 40 ms stall
    window caught); elsewhere the lowest edge etcd's slowest 5 % of commits lie over (the p99 crosses the
    bucket above it with a commit more or less over it)."""
    if stall:
        return 16.0
    n = etcd_pool[-1]
    return next((e for e, c in zip(buckets.EDGES_MS, etcd_pool) if n - c < 0.05 * n), buckets.EDGES_MS[-1])


def binomial(rng, n, p):
    """A draw of Binomial(n, p) by geometric skips between successes: O(n min(p, 1 - p)) steps, few in a
    histogram's tail."""
    if n <= 0 or p <= 0:
        return 0
    if p >= 1:
        return n
    if p > 0.5:
        return n - binomial(rng, n, 1 - p)
    lq, x, pos = math.log1p(-p), 0, 0
    while True:
        pos += int(math.log(1.0 - rng.random()) / lq) + 1
        if pos > n:
            return x
        x += 1


def drawn_p99(rng, counts, n):
    """The p99 (buckets.quantile) of n commits drawn at random from a histogram (counts per bucket, +Inf
    last). A multinomial drawn bucket by bucket from the top, until the bucket the p99 lies in is known:
    the rest only counts as below it."""
    drawn, left, mass, top = [0] * len(counts), n, float(sum(counts)), 0
    for i in range(len(counts) - 1, -1, -1):
        c = binomial(rng, left, counts[i] / mass) if mass > 0 else 0
        drawn[i], left, mass, top = c, left - c, mass - counts[i], top + c
        if top > 0.01 * n:
            drawn[max(i - 1, 0)] += left
            break
    cum, acc = [], 0
    for c in drawn:
        acc += c
        cum.append(acc)
    return buckets.quantile(cum, 0.99)[0]


def one_process_spread(e, o, draws=1000):
    """Two samples of one process, of the sizes of etcd's and ours: both sides' commits pooled into one
    histogram (as if they were one process) and drawn from `draws` times (seeded: a table regenerates the
    same). (how often their p99s lie outside x1/1.5..x1.5 of each other, how often at least as far apart as
    the two pooled p99s are). The first says how fragile a p99 of this many commits is: where it is large, a
    ratio outside x1.5 says little. The second is the chance that one process shows the ratio seen: near 0,
    the two p99s differ by more than their draw. Neither tests the counts over an edge, which can differ
    while the p99s of a fragile cell do not show it."""
    counts = [b - a + d - c for a, b, c, d in zip([0] + e[:-1], e, [0] + o[:-1], o)]
    pe0, po0 = buckets.quantile(e, 0.99)[0], buckets.quantile(o, 0.99)[0]
    seen = abs(math.log(po0 / pe0)) - 1e-9 if pe0 and po0 else math.inf
    rng, out, far = random.Random(1), 0, 0
    for _ in range(draws):
        pe, po = drawn_p99(rng, counts, int(e[-1])), drawn_p99(rng, counts, int(o[-1]))
        out += not within(po, pe)
        far += pe > 0 and po > 0 and abs(math.log(po / pe)) >= seen
    return out / draws, far / draws


def edge_table(rels, points):
    """A p99 of a few hundred commits turns on a handful of them: the ones over the bucket edge it sits on.
    How many there were on each side, all runs pooled, the p99 of the pool, and how often two samples of
    one process of these sizes differ by more than x1.5, and by as much as the pooled p99s do
    (one_process_spread)."""
    rows = []
    for p in points:
        stalls = [is_stall(outs, p) for _, outs in rels]
        for ld in LOADS:
            row = f"| {p} | {ld} |"
            seen = False
            for (_, outs), stall in zip(rels, stalls):
                e, o = pooled(outs, p, ld, "etcd"), pooled(outs, p, ld, "ours")
                if not e or not o:
                    row += " - | - | - |"
                    continue
                seen = True
                k = buckets.EDGES_MS.index(edge_ms(stall, e))
                eo, oo = int(e[-1] - e[k]), int(o[-1] - o[k])
                ep, op = buckets.quantile(e, 0.99)[0], buckets.quantile(o, 0.99)[0]
                row += (f" {buckets.EDGES_MS[k]:.0f} ms: {eo} of {int(e[-1])} ({100 * eo / e[-1]:.2f} %) / {oo} of "
                        f"{int(o[-1])} ({100 * oo / o[-1]:.2f} %) | {ep:.2f} / {op:.2f} (x{op / ep:.2f}) |"
                        " {:.0f} % / {:.0f} % |".format(*(100 * x for x in one_process_spread(e, o))))
            if seen:
                rows.append(row)
    if not rows:
        return
    print()
    head, sep = "| point | load |", "|---|---|"
    for name, _ in rels:
        head += (f" {name}: backend commits over the edge, etcd / ours | pooled p99 etcd / ours |"
                 " one process: outside x1.5 / as far apart |")
        sep += "---|---|---|"
    print(head)
    print(sep)
    print("\n".join(rows))


def self_check():
    rng = random.Random(7)
    # Binomial draws: mean n p within 4 standard errors, on both sides of p = 0.5.
    for n, p in ((50, 0.03), (50, 0.9), (1000, 0.004)):
        k = 20000
        m = sum(binomial(rng, n, p) for _ in range(k)) / k
        assert abs(m - n * p) < 4 * math.sqrt(n * p * (1 - p) / k), (n, p, m)
    # drawn_p99 (top-down, stopping at the p99's bucket) against a full multinomial sample: the share of
    # draws whose p99 lies past 32 ms, and the median p99, agree.
    counts = [0, 0, 300, 500, 200, 0, 5, 4, 3, 0, 0, 0, 0, 0, 1]
    n, k = 1000, 3000

    def brute():
        c = [0] * len(counts)
        for x in rng.choices(range(len(counts)), weights=counts, k=n):
            c[x] += 1
        cum, acc = [], 0
        for x in c:
            acc += x
            cum.append(acc)
        return buckets.quantile(cum, 0.99)[0]
    a = sorted(drawn_p99(rng, counts, n) for _ in range(k))
    b = sorted(brute() for _ in range(k))
    share = lambda xs: sum(x > 32 for x in xs) / k  # noqa: E731
    assert abs(share(a) - share(b)) < 0.04, (share(a), share(b))
    assert abs(a[k // 2] - b[k // 2]) < 8, (a[k // 2], b[k // 2])
    # One process: many commits in one bucket give p99s that agree; 1 % of commits in a far bucket (the p99
    # on a commit more or less) give p99s that often do not.
    smooth = [0, 0, 0, 100000] + [100000] * 11
    assert one_process_spread(smooth, smooth, 200)[0] == 0
    edge = [0, 0, 0, 990] + [990] * 3 + [1000] * 8
    assert one_process_spread(edge, edge, 500)[0] > 0.2
    # Both sides are pooled, each drawn at its own size: 1.5 % of etcd's commits in a far bucket and none of
    # ours is 0.75 % pooled, a p99 that falls on either side of the edge; etcd's side alone would give one
    # always past it, ours alone one never past it (outside x1.5 never, either way). The two pooled p99s
    # (one past the edge, one far below it) are further apart than one process draws them.
    e15 = [0, 0, 0, 985] + [985] * 3 + [1000] * 8
    none = [0, 0, 0, 1000] + [1000] * 11
    out, far = one_process_spread(e15, none, 500)
    assert out > 0.2 and far < 0.05, (out, far)
    out, far = one_process_spread(e15, e15, 500)
    assert far > 0.9, far
    # A small side is the more fragile one.
    mixed = [0, 0, 0, 9925] + [9925] * 3 + [10000] * 8
    small = [c // 10 for c in mixed]
    both = one_process_spread(mixed, mixed, 500)[0]
    assert one_process_spread(small, mixed, 500)[0] > both + 0.1
    assert one_process_spread(mixed, small, 500)[0] > both + 0.1
    print("lab_versions.py: self-check ok")


def main(argv):
    if argv == ["self-check"]:
        self_check()
        return 0
    only = None
    if argv and argv[0].startswith("--points="):
        only, argv = [p for p in argv[0][len("--points="):].split(",") if p], argv[1:]
    if not argv or only == [] or any(a.startswith("--") for a in argv):
        print(__doc__, file=sys.stderr)
        return 2
    rels = releases(argv)
    if rels is None:
        return 2
    points = []
    for out in argv:
        points += [p for p in points_of(out) if p not in points]
    if only is not None:
        missing = [p for p in only if p not in points]
        if missing:
            print(f"lab_versions.py: --points: {', '.join(missing)} in none of the OUTDIRs", file=sys.stderr)
            return 2
        points = only
    head = "| point | load |"
    sep = "|---|---|"
    for v, _ in rels:
        head += f" {v}: WAL p99 etcd / ours (x) | backend p99 etcd / ours (x) | verdicts, runs, load |"
        sep += "---|---|---|"
    print(head)
    print(sep)
    misses = []
    for p in points:
        for ld in LOADS:
            cells = [cell(outs, p, ld) for _, outs in rels]
            if not any(cells):
                continue
            row = f"| {p} | {ld} |"
            for (name, _), c in zip(rels, cells):
                if c is None:
                    row += " not run | not run | - |"
                    continue
                row += (f" {c['ew']:.2f} / {c['ow']:.2f} (x{c['ow'] / c['ew']:.2f}) |"
                        f" {c['eb']:.2f} / {c['ob']:.2f} (x{c['ob'] / c['eb']:.2f}) |"
                        f" {c['v']}{'' if c['ok'] else ' MISS'}, {c['n']}, {c['la']:.1f} |")
                if not c["ok"]:
                    misses.append(f"{name} {p}/{ld}")
            print(row)
    print()
    print("verdicts etcd/ours (p pass, f fail; ? = etcd's bucket does not decide its verdict); runs per cell; "
          "median 1-min load average. MISS: a ratio outside x1/1.5..x1.5 or a verdict other than a decided one "
          "of etcd's. Misses: " + ("; ".join(misses) if misses else "none"))
    edge_table(rels, points)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
