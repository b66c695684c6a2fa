#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fast_table.py — tables for bench/fast_check.sh (normal) and bench/fast_lab.sh (lab) from their rows.tsv.
Usage: fast_table.py normal|lab ROWS.tsv"""
import statistics
import sys


def normal(rows):
    pairs = {}
    for r in rows:
        pairs.setdefault(r[0], {})[r[1]] = r
    print("| pair | classic s (load) | check s (load) | check / classic | verdict | decided by | rollovers | worst rollover ms | WAL p99 ms | backend p99 ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios, ok = [], 0
    for i in sorted(pairs, key=int):
        p = pairs[i]
        if "classic" not in p or "check" not in p:
            continue
        c, k = p["classic"], p["check"]
        cs, ks = float(c[3]), float(k[3])
        ratio = ks / cs if cs else float("nan")
        ratios.append(ratio)
        verdict, by, ro, worst, wp, bp = k[4:10]
        ok += verdict == "pass" and ratio <= 0.5 and ro not in ("-", "0")
        print(f"| {i} | {cs:.2f} ({c[2]}) | {ks:.2f} ({k[2]}) | {ratio:.2f} | {verdict} | {by} | {ro} | {worst} | {wp} | {bp} |")
        if "faithful" in p:
            f = p["faithful"]
            print(f"| {i} | | faithful only: {float(f[3]):.2f} ({f[2]}) | {float(f[3]) / cs:.2f} | {f[4]} | {f[5]} | {f[6]} | {f[7]} | {f[8]} | {f[9]} |")
    if ratios:
        print(f"\nmedian check/classic {statistics.median(ratios):.2f} over {len(ratios)} pairs; "
              f"{ok} of {len(ratios)} pairs: PASS in <= 0.5 of the classic job's time with >= 1 rollover")


def lab(rows):
    pts = {}
    for r in rows:
        pts.setdefault(r[0], {}).setdefault(r[2], []).append(r)
    print("| point | run | load | heavy WAL p99 | faithful WAL p99 | heavy >= | heavy backend p99 | faithful backend p99 | heavy >= | heavy time view WAL / backend |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    bad_p99 = 0
    for name, kinds in pts.items():
        hs, fs = kinds.get("profile-heavy", []), kinds.get("profile-faithful", [])
        for h, f in zip(hs, fs):
            if "error" in h[4:] or "error" in f[4:]:
                print(f"| {name} | {h[1]} | | error | error | | | | | |")
                continue
            hw, hb, htw, htb = map(float, h[4:8])
            fw, fb = float(f[4]), float(f[5])
            gw, gb = hw >= fw, hb >= fb
            bad_p99 += (not gw) + (not gb)
            print(f"| {name} | {h[1]} | {h[3]}/{f[3]} | {hw:.2f} | {fw:.2f} | {'yes' if gw else 'NO'} | {hb:.2f} | {fb:.2f} | "
                  f"{'yes' if gb else 'NO'} | {htw:.1f} / {htb:.1f} |")
    print()
    print("| point | run | two-phase: verdict, decided by, s (load) | faithful only: verdict, s (load) | two-phase PASS where faithful FAIL? |")
    print("|---|---|---|---|---|")
    wrong = 0
    for name, kinds in pts.items():
        tp, fo = kinds.get("check-two-phase", []), kinds.get("check-faithful", [])
        for a, b in zip(tp, fo):
            w = a[4] == "pass" and b[4] == "fail"
            wrong += w
            print(f"| {name} | {a[1]} | {a[4]}, {a[5]}, {a[6]} ({a[3]}) | {b[4]}, {b[6]} ({b[3]}) | {'YES' if w else 'no'} |")
    print(f"\np99 comparisons where the heavy profile was below the faithful one: {bad_p99}; "
          f"two-phase PASS where the faithful check said FAIL: {wrong}")


def main():
    kind, path = sys.argv[1], sys.argv[2]
    rows = [l.rstrip("\n").split() for l in open(path) if l.strip()]
    # rows are tab-separated, fields after the fixed ones space-separated: split() handles both
    (normal if kind == "normal" else lab)(rows)


if __name__ == "__main__":
    main()
