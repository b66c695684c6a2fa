#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""buckets.py — one quantile rule for every column of the bench tables.

etcd exposes its disk latencies only as Prometheus histograms with buckets le = 1 ms x 2^k (k = 0..13) and +Inf.
To compare etcd with fio and with the engine fairly, every source is first reduced to those same cumulative
buckets and the quantile is then computed from the buckets alone, never from the finer data a source may have:

  * etcd:   delta of two /metrics scrapes (after - before) of <metric>_bucket{le="..."}
  * fio:    json+ "bins" of a job's latency section (key = fio's value of the bin in ns, counted in the
            first bucket whose le >= that value)
  * engine: the stats file's "etcd_buckets_ms" cumulative counts

Interpolation rule (the same as Prometheus' histogram_quantile): rank = q x total; find the first bucket whose
cumulative count >= rank; return lower + (upper - lower) x (rank - cum_below) / count_in_bucket, with lower = 0
for the first bucket (le = 1 ms). If the rank falls in the +Inf bucket the result is the largest finite edge
(8192 ms) and is flagged as a lower bound. Empty histograms give no value (None), never 0.

Usage (prints the quantile in ms, or "nan" when there are no samples):
  buckets.py prom  BEFORE AFTER METRIC [--q 0.99]
  buckets.py fio   FIO_JSON [--job NAME | --mode wal|backend] [--section sync] [--q 0.99]
  buckets.py engine STATS_JSON [--key commit] [--q 0.99]
  buckets.py self-check
"""
import argparse
import json
import math
import re
import sys

EDGES_MS = [float(1 << k) for k in range(14)]  # 1 .. 8192 ms, then +Inf


class BucketError(Exception):
    """Input that cannot be turned into buckets; the message names the file."""


def from_prom(before_path, after_path, metric):
    """Cumulative bucket counts (14 finite + Inf) of metric, after - before."""
    def read(path):
        out = {}
        pat = re.compile(r'^' + re.escape(metric) + r'_bucket\{(?:[^}]*,)?le="([^"]+)"[^}]*\}\s+(\S+)')
        try:
            with open(path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = pat.match(line)
                    if not m:
                        continue
                    le = m.group(1)
                    try:
                        key = math.inf if le == "+Inf" else float(le) * 1000.0
                        out[key] = out.get(key, 0.0) + float(m.group(2))
                    except ValueError:
                        raise BucketError(f"{path}:{lineno}: bad bucket line for {metric}")
        except OSError as e:
            raise BucketError(f"{path}: {e.strerror}")
        if not out:
            raise BucketError(f"{path}: no {metric}_bucket lines")
        return out
    b, a = read(before_path), read(after_path)
    cum = []
    for edge in EDGES_MS + [math.inf]:
        key = next((k for k in a if abs(k - edge) < 1e-6 or (k == edge)), None)
        if key is None:
            raise BucketError(f"{after_path}: {metric} has no bucket le={edge:g} ms (not etcd's 1 ms x 2^k layout)")
        cum.append(a[key] - b.get(key, 0.0))
    return cum


def _job_mode(doc, j):
    """etcd_mode of a fio job ("wal" when it uses the engine without etcd_mode), or None for other engines."""
    opts = dict(doc.get("global options") or {})
    opts.update(j.get("job options") or {})
    if "etcdwal" not in opts.get("ioengine", ""):
        return None
    return opts.get("etcd_mode", "wal")


def from_fio(path, job=None, section="sync", mode=None):
    """Cumulative buckets of a fio json+ job's latency bins (sync: fio's fdatasync latencies)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise BucketError(f"{path}: {e.strerror}")
    start = text.find("{")  # fio may print warnings before the JSON document
    if start < 0:
        raise BucketError(f"{path}: no JSON object in fio output")
    try:
        doc = json.JSONDecoder().raw_decode(text[start:])[0]
    except json.JSONDecodeError as e:
        raise BucketError(f"{path}: byte {start + e.pos}: bad JSON: {e.msg}")
    jobs = doc.get("jobs") or []
    if job is not None:
        jobs = [j for j in jobs if j.get("jobname") == job]
    if mode is not None:
        jobs = [j for j in jobs if _job_mode(doc, j) == mode]
    if not jobs:
        raise BucketError(f"{path}: no job " + (repr(job) if job else f"in etcd_mode={mode}" if mode else "s"))
    counts = [0] * (len(EDGES_MS) + 1)
    for j in jobs:
        sec = j.get(section) or {}
        lat = sec.get("lat_ns") if section == "sync" else sec.get("clat_ns")
        if not lat or "bins" not in (lat or {}):
            if (lat or {}).get("N", 0) == 0 and sec.get("total_ios", 0) == 0:
                continue
            raise BucketError(f"{path}: job {j.get('jobname')!r} {section} has no bins (run fio with json+)")
        for val, n in lat["bins"].items():
            ms = float(val) / 1e6
            i = next((i for i, e in enumerate(EDGES_MS) if ms <= e), len(EDGES_MS))
            counts[i] += n
    cum, run = [], 0
    for c in counts:
        run += c
        cum.append(run)
    return cum


def _find_key(doc, key):
    """The etcd_buckets_ms list of the first object found under key (depth-first), or at the top."""
    if isinstance(doc, dict):
        if key in doc and isinstance(doc[key], dict) and "etcd_buckets_ms" in doc[key]:
            return doc[key]["etcd_buckets_ms"]
        for v in doc.values():
            r = _find_key(v, key)
            if r is not None:
                return r
    elif isinstance(doc, list):
        for v in doc:
            r = _find_key(v, key)
            if r is not None:
                return r
    return None


def from_engine(path, key):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise BucketError(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise BucketError(f"{path}: line {e.lineno}: bad JSON: {e.msg}")
    lst = _find_key(doc, key)
    if lst is None:
        raise BucketError(f"{path}: no \"{key}\" object with etcd_buckets_ms")
    by_le = {}
    for b in lst:
        le = b.get("le")
        by_le[math.inf if le == "+Inf" else float(le)] = float(b.get("count", 0))
    try:
        return [by_le[e] for e in EDGES_MS + [math.inf]]
    except KeyError as e:
        raise BucketError(f"{path}: \"{key}\" etcd_buckets_ms lacks le={e.args[0]:g}")


def quantile(cum, q):
    """(value_ms, is_lower_bound) by the Prometheus rule above; (None, False) when empty."""
    total = cum[-1]
    if total <= 0:
        return None, False
    rank = q * total
    below, lower = 0.0, 0.0
    for i, edge in enumerate(EDGES_MS):
        if cum[i] >= rank:
            inb = cum[i] - below
            if inb <= 0:
                return edge, False
            return lower + (edge - lower) * (rank - below) / inb, False
        below, lower = cum[i], edge
    return EDGES_MS[-1], True


def self_check():
    # 100 samples, 99 below 1 ms, 1 in (8,16]: p99 = 1 ms x 99/99 = 1.0, p50 = 50.5/99 ms... etc.
    cum = [99, 99, 99, 99, 100] + [100] * 9 + [100]
    assert abs(quantile(cum, 0.99)[0] - 1.0) < 1e-9
    assert abs(quantile(cum, 0.5)[0] - 50 / 99) < 1e-9
    assert abs(quantile(cum, 0.995)[0] - (8 + 8 * 0.5)) < 1e-9
    cum2 = [0] * 14 + [10]  # all past 8192 ms
    assert quantile(cum2, 0.99) == (8192.0, True)
    assert quantile([0] * 15, 0.99) == (None, False)
    print("buckets.py: self-check ok")


def main(argv):
    p = argparse.ArgumentParser(prog="buckets.py")
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("prom"); a.add_argument("before"); a.add_argument("after"); a.add_argument("metric")
    b = sub.add_parser("fio"); b.add_argument("file"); b.add_argument("--job"); b.add_argument("--section", default="sync")
    b.add_argument("--mode", choices=["wal", "backend"], help="only the engine's jobs in this etcd_mode")
    c = sub.add_parser("engine"); c.add_argument("file"); c.add_argument("--key", default="fdatasync")
    sub.add_parser("self-check")
    for s in (a, b, c):
        s.add_argument("--q", type=float, default=0.99)
        s.add_argument("--count", action="store_true", help="print the sample count too")
    args = p.parse_args(argv)
    if args.cmd == "self-check":
        self_check()
        return 0
    try:
        if args.cmd == "prom":
            cum = from_prom(args.before, args.after, args.metric)
        elif args.cmd == "fio":
            cum = from_fio(args.file, args.job, args.section, args.mode)
        else:
            cum = from_engine(args.file, args.key)
    except BucketError as e:
        print(f"buckets.py: {e}", file=sys.stderr)
        return 2
    v, lb = quantile(cum, args.q)
    out = "nan" if v is None else (">" if lb else "") + f"{v:.3f}"
    if args.count:
        out += f" {int(cum[-1])}"
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
