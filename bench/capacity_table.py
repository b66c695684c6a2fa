#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""capacity_table.py — the table of bench/capacity.sh: per point and client count, real etcd (bench/putload on
clientv3) beside `etcd-fio capacity` — writes/s, put latency p50/p90/p99, WAL fsync and backend commit p99,
etcd's CPU (% of one core), our limit, and the two ratios the fidelity target is about (writes/s ours/etcd,
p90 ours/etcd). Usage: capacity_table.py OUTDIR"""
import json
import os
import sys


def env(path):
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if "=" in line:
                    k, v = line.strip().split("=", 1)
                    out[k] = v
    except OSError:
        pass
    return out


def fnum(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def ms(ns):
    return "-" if ns is None else f"{ns / 1e6:.2f}"


def main():
    out = sys.argv[1]
    try:
        with open(os.path.join(out, "etcd_version"), encoding="utf-8") as f:
            print(f"**etcd {f.read().strip()}**\n")
    except OSError:
        pass
    print("| point | clients | etcd w/s | ours w/s | ×w/s | etcd p50/p90/p99 ms | ours p50/p90/p99 ms | ×p90 "
          "| etcd WAL/be p99 ms | ours WAL/be p99 ms | etcd CPU | per Save ours | our limit | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for point in sorted(os.listdir(out)):
        p = os.path.join(out, point)
        if not os.path.isdir(p):
            continue
        ours = {}
        try:
            with open(os.path.join(p, "ours", "capacity.json"), encoding="utf-8") as f:
                d = json.load(f)
            for r in d["details"]["capacity"]["rows"]:
                if not r["confirmation"]:
                    ours[r["clients"]] = r
            oenv = env(os.path.join(p, "ours", "result.env"))
        except (OSError, ValueError, KeyError):
            oenv = {}
        counts = sorted({int(x[6:]) for x in os.listdir(p) if x.startswith("etcd-c")} | set(ours))
        for c in counts:
            e = env(os.path.join(p, f"etcd-c{c}", "result.env"))
            try:
                with open(os.path.join(p, f"etcd-c{c}", "putload.json"), encoding="utf-8") as f:
                    pl = json.loads(f.read().strip().splitlines()[-1])
            except (OSError, ValueError, IndexError):
                pl = {}
            o = ours.get(c, {})
            ew, ow = pl.get("writes_per_s"), o.get("writes_per_s")
            e90, o90 = pl.get("p90_ms"), (o.get("latency_p90_ns") or 0) / 1e6 or None
            rw = f"{ow / ew:.2f}" if ew and ow else "-"
            ews, ows = (f"{v:.0f}" if v else "-" for v in (ew, ow))
            r90 = f"{o90 / e90:.2f}" if e90 and o90 else "-"
            el = "/".join(f"{pl[k]:.2f}" for k in ("p50_ms", "p90_ms", "p99_ms")) if pl else "-"
            ol = "/".join(ms(o.get(k)) for k in ("latency_p50_ns", "latency_p90_ns", "latency_p99_ns")) if o else "-"
            eb = f"{e.get('wal_p99', '-')}/{e.get('be_p99', '-')}"
            if point == "cluster":  # three members: each one's WAL p99
                eb = "WAL " + "/".join(e.get(f"m{n}_wal_p99", "-") for n in (1, 2, 3))
                eb += f", leader {e.get('leader', '-')}, peer rtt p50 {e.get('rtt_p50_ms', '-')}"
            ob = f"{ms(o.get('wal_fdatasync_p99_ns'))}/{ms(o.get('backend_commit_p99_ns'))}" if o else "-"
            per = f"{o['entries_per_save']:.1f}" if o.get("entries_per_save") else "-"
            load = f"{e.get('loadavg', '-')}/{oenv.get('loadavg', '-')}"
            print(f"| {point} | {c} | {ews} | {ows} | {rw} | {el} | {ol} | {r90} | {eb} | {ob} "
                  f"| {e.get('cpu_pct', '-')} % | {per} | {o.get('limit', '-')} | {load} |")
        if oenv:
            print(f"| {point} | capacity run | | | | | | | | | | | {oenv.get('seconds', '?')} s, exit {oenv.get('rc', '?')} | |")


if __name__ == "__main__":
    main()
