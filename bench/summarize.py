#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""summarize.py — turns the bench scripts' raw numbers into medians, spreads, ratios and the one table.

  summarize.py overhead IOPS_FILE RESULTS NOTE       lines "run engine iops cpu_us_per_io" -> result records
  summarize.py fidelity RESULTS OUT.md CELLDIR...    CELLDIR/run*/result.env (etcd_compare.sh) -> records + table
  summarize.py report RESULTS [FIDELITY.md]          prints the whole table
  summarize.py cgdiff SMALL.out LARGE.out NIOS       per-I/O self instructions by function (callgrind)
  summarize.py cgtop FILE.out [N]                    the N functions with the most self instructions
  summarize.py pattern STRACE.txt                    bbolt commit write pattern from `strace -f -e pwrite64,fdatasync`

RESULTS is a tab-separated file: section, name, value, target, note (one record per line).
Medians are of the runs' values; spread is min-max. Ratios are taken of the medians.
"""
import os
import statistics
import sys


def rec(results, section, name, value, target="", note=""):
    with open(results, "a", encoding="utf-8") as f:
        f.write(f"{section}\t{name}\t{value}\t{target}\t{note}\n")


def overhead(iops_file, results, note):
    iops, cpu = {}, {}
    with open(iops_file, encoding="utf-8") as f:
        for line in f:
            i, e, v, c = line.split()
            iops.setdefault(e, {})[i] = float(v)
            cpu.setdefault(e, {})[i] = float(c)
    p, w = iops["psync"], iops["etcdwal"]
    mp, mw = statistics.median(p.values()), statistics.median(w.values())
    pairs = sorted(w[i] / p[i] for i in p if i in w)  # each etcdwal run against the psync run just before it
    cp, cw = statistics.median(cpu["psync"].values()), statistics.median(cpu["etcdwal"].values())
    ratio = mw / mp
    rec(results, "overhead", "psync IOPS, median (min-max)", f"{mp:.0f}", "",
        f"{min(p.values()):.0f}-{max(p.values()):.0f}; {note}")
    rec(results, "overhead", "etcdwal IOPS, median (min-max)", f"{mw:.0f}", "",
        f"{min(w.values()):.0f}-{max(w.values()):.0f}")
    rec(results, "overhead", "IOPS ratio etcdwal/psync", f"{ratio:.3f}", ">= 0.95",
        f"{'met' if ratio >= 0.95 else 'MISSED'}; per-pair ratios {pairs[0]:.2f}-{pairs[-1]:.2f}")
    rec(results, "overhead", "CPU us per I/O psync / etcdwal", f"{cp:.2f} / {cw:.2f}", "",
        f"ratio {cw / cp:.3f} (usr+sys of the fio job, median)")
    print(f"overhead: psync IOPS {sorted(p.values())}, etcdwal IOPS {sorted(w.values())}: ratio {ratio:.3f}; "
          f"CPU us/IO {cp:.2f} vs {cw:.2f}")


def read_env(path):
    d = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                d[k] = v
    return d


def num(v):
    if v is None or v in ("nan", "", "n/a"):
        return None
    try:
        return float(v.lstrip(">"))
    except ValueError:
        return None


def med_spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None, "n/a"
    m = statistics.median(vals)
    if len(vals) == 1:
        return m, f"{m:.2f}"
    return m, f"{m:.2f} ({min(vals):.2f}-{max(vals):.2f})"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def fidelity(results, out_md, cells):
    cols = ["cell", "runs", "etcd WAL", "ours WAL", "ours/etcd", "classic", "classic/etcd",
            "etcd backend", "ours backend", "ours/etcd", "verdicts etcd/ours/classic [etcd-fio verdict ours/classic]"]
    rows = []
    for cell in cells:
        runs = sorted(d for d in os.listdir(cell) if os.path.isfile(os.path.join(cell, d, "result.env")))
        envs = [read_env(os.path.join(cell, d, "result.env")) for d in runs]
        if not envs:
            continue
        name = os.path.basename(cell.rstrip("/"))
        col = {k: [num(e.get(k)) for e in envs] for k in
               ("etcd_wal_p99", "eng_wal_p99", "classic_p99", "etcd_be_p99", "eng_be_p99")}
        m = {k: med_spread(v) for k, v in col.items()}
        rw = ratio(m["eng_wal_p99"][0], m["etcd_wal_p99"][0])
        rc = ratio(m["classic_p99"][0], m["etcd_wal_p99"][0])
        rb = ratio(m["eng_be_p99"][0], m["etcd_be_p99"][0])
        # per run: etcd/ours/classic by the buckets, then [etcd-fio verdict on ours/classic]
        verd = " ".join(f"{e.get('etcd_verdict', '-')}/{e.get('eng_bverdict', '-')}/{e.get('classic_bverdict', '-')}"
                        f" [{e.get('eng_verdict', '-')}/{e.get('classic_verdict', '-')}]" for e in envs)
        fmt = lambda r: "n/a" if r is None else f"x{r:.2f}"
        rows.append([name, str(len(envs)), m["etcd_wal_p99"][1], m["eng_wal_p99"][1], fmt(rw),
                     m["classic_p99"][1], fmt(rc), m["etcd_be_p99"][1], m["eng_be_p99"][1], fmt(rb), verd])
        within = [r for r in (rw, rb) if r is not None]
        ok = within and all(1 / 1.5 <= r <= 1.5 for r in within) and len(within) == 2
        same = all(e.get("etcd_verdict") == e.get("eng_bverdict") for e in envs)
        rec(results, "fidelity", f"{name}: ours/etcd WAL, backend; classic/etcd", f"{fmt(rw)}, {fmt(rb)}; {fmt(rc)}",
            "within x1.5, same verdict",
            f"{'met' if ok else 'MISSED'} ratios; bucket verdicts of etcd and ours {'same' if same else 'DIFFER'}")
    with open(out_md, "w", encoding="utf-8") as f:
        f.write("p99 in ms from 1 ms x 2^k buckets (median (min-max) of the runs); ratios of the medians\n\n")
        f.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
        for r in rows:
            f.write("| " + " | ".join(r) + " |\n")


def report(results, extra):
    recs = []
    if os.path.exists(results):
        with open(results, encoding="utf-8") as f:
            recs = [(line.rstrip("\n").split("\t") + [""] * 5)[:5] for line in f if line.strip()]
    w = [max([len(r[i]) for r in recs] + [len(h)]) for i, h in enumerate(["section", "measure", "value", "target"])]
    w = [min(x, 46) for x in w]
    hdr = ["section", "measure", "value", "target", "note"]
    print("  ".join(h.ljust(w[i]) if i < 4 else h for i, h in enumerate(hdr)))
    print("  ".join("-" * (w[i] if i < 4 else 4) for i in range(5)))
    for r in recs:
        print("  ".join(c.ljust(w[i]) if i < 4 else c for i, c in enumerate(r)))
    for path in extra:
        if os.path.exists(path):
            print()
            with open(path, encoding="utf-8") as f:
                sys.stdout.write(f.read())


def _cg_self(path, by_object=False):
    """function (or object file) -> self Ir, from callgrind_annotate."""
    import re
    import subprocess
    out = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", path],
                         capture_output=True, text=True, check=False).stdout
    d, go = {}, False
    for line in out.splitlines():
        if "file:function" in line:
            go = True
            continue
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)", line) if go else None
        if m:
            full = m.group(2).strip()
            if by_object:
                o = re.search(r"\[(.*)\]$", full)
                name = os.path.basename(o.group(1)) if o else "?"
                name = re.sub(r"\.so[.\d]*$", "", name)
            else:
                name = re.sub(r"\s*\[.*\]$", "", full)
            d[name] = d.get(name, 0) + int(m.group(1).replace(",", ""))
    return d


def cgdiff(small, large, nios, top=6):
    a, b = _cg_self(small), _cg_self(large)
    diffs = sorted(((b.get(k, 0) - a.get(k, 0)) / nios, k) for k in set(a) | set(b))
    return "; ".join(f"{k.split('/')[-1]} {x:.0f}" for x, k in diffs[::-1][:top] if x >= 1)


def cgtop(path, top=6):
    out = []
    for by_obj in (True, False):
        d = _cg_self(path, by_obj)
        total = sum(d.values()) or 1
        out.append(", ".join(f"{k.split('/')[-1]} {100 * v / total:.0f}%" for k, v in
                             sorted(d.items(), key=lambda kv: -kv[1])[:top]))
    return f"{sum(_cg_self(path).values()) / 1e6:.0f}M instructions; by object: {out[0]}; functions: {out[1]}"


def pattern(path):
    """Pages per commit, contiguous runs per commit and the share of pages appended at the high-water mark,
    for the file that gets 4096-byte pwrites (bbolt's, or the engine's backend file). A commit's data pages
    are the pwrites since the previous fdatasync of that file; a lone page at offset 0 or 4096 is a meta page."""
    import collections
    import re
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    fds = collections.Counter(m.group(1) for m in (re.search(r"pwrite64\((\d+), .*?, 4096, \d+\)", x) for x in lines) if m)
    if not fds:
        return None
    fd = fds.most_common(1)[0][0]
    pw = re.compile(r"pwrite64\(%s, .*?, (\d+), (\d+)\)" % fd)
    sy = re.compile(r"fdatasync\(%s[) ]" % fd)
    batches, cur = [], []
    for x in lines:
        m = pw.search(x)
        if m:
            cur.append((int(m.group(2)), int(m.group(1))))
        elif sy.search(x) and cur:
            batches.append(cur)
            cur = []
    data = [c for c in batches if not (len(c) == 1 and c[0][0] in (0, 4096) and c[0][1] == 4096)]
    if not data:
        return None
    pages, runs, hw, app, rew = [], [], 0, 0, 0
    for c in data:
        c = sorted(c)
        pages.append(sum(n for _, n in c) // 4096)
        runs.append(1 + sum(1 for (o1, n1), (o2, _) in zip(c, c[1:]) if o2 != o1 + n1))
        for o, n in c:
            if o >= hw:
                app += n // 4096
            else:
                rew += n // 4096
            hw = max(hw, o + n)
    return (len(data), statistics.mean(pages), statistics.mean(runs), 100.0 * app / max(1, app + rew))


def main(argv):
    if len(argv) >= 4 and argv[0] == "overhead":
        overhead(argv[1], argv[2], " ".join(argv[3:]))
    elif len(argv) >= 3 and argv[0] == "fidelity":
        fidelity(argv[1], argv[2], argv[3:])
    elif len(argv) == 4 and argv[0] == "cgdiff":
        print(cgdiff(argv[1], argv[2], float(argv[3])))
    elif len(argv) in (2, 3) and argv[0] == "cgtop":
        print(cgtop(argv[1], int(argv[2]) if len(argv) == 3 else 6))
    elif len(argv) == 2 and argv[0] == "pattern":
        r = pattern(argv[1])
        print("n/a" if r is None else "%d %.1f %.1f %.0f" % r)
    elif len(argv) >= 2 and argv[0] == "report":
        report(argv[1], argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
