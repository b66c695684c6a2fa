#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# fake-fio.py — what tests/cli/it_check_fake.sh gives `etcd-fio check` as FIO: a fio that prints the
# --output-format=json+ --status-interval stream of the etcd profile's two jobs (etcd-wal, etcd-backend;
# etcd_mode wal/backend, fast bins that every bound passes) without doing I/O, and misbehaves at the
# moments that matter, as FAKE_FIO says:
#   p1pass-SIG   phase 1 (its job file is in etcd-fio-check-phase1.*): on check's SIGINT it prints fio's
#                "terminating on signal 2" line and the final document, then sends SIG (INT, TERM, HUP) to
#                check — an operator's signal that lands between phase 1's PASS and phase 2's probe
#   p1fail-SIG   the same, but phase 1's WAL syncs take 50 ms (a FAIL under the heavy load: never a verdict)
#   p1pass-eof   phase 1 as above, but instead of a signal it creates $FAKE_DIR/p1done and waits for
#                $FAKE_DIR/eofsent (the test closes check's stdin: --stop-on-eof) before it exits
#   p2slow       phase 2 brings 20 WAL syncs and 2 backend commits per document (etcd's pace, not enough to
#                decide alone within the probe): phase 1's PASS must be confirmed by the probe
#   p2sig        as p2slow, and SIGTERM to check after phase 2's second document (during the probe)
#   cut-sigint   on check's SIGINT: the signal line and no final document (fio died before printing it)
#   cut-runout   interim documents until its runtime=, then exit 0 without the final document
#   late-final   phase 1 too slow to pass; phase 2's interim documents too few to decide, its final document
#                (runtime= run out) enough: check decides on it and stops a fio still ending (a loaded
#                machine's fio takes a while to exit after its final output); on that SIGINT it prints fio's
#                "terminating on signal 2" line and exits 0
# Documents follow fio's stat.c: cumulative figures, job_runtime in ms, one every status interval.
import os, signal, sys, time

mode = os.environ.get("FAKE_FIO", "")
args = sys.argv[1:]
if "--version" in args:
    print("fio-3.33")
    sys.exit(0)
job = args[-1] if args else ""
phase1 = "check-phase1" in job
interval = 1.0
for a in args:
    if a.startswith("--status-interval="):
        v = a.split("=", 1)[1]
        interval = float(v[:-2]) / 1000 if v.endswith("ms") else float(v)
runtime = 10
try:
    for line in open(job):
        if line.startswith("runtime="):
            runtime = int(line.split("=", 1)[1].strip().rstrip("s"))
except OSError:
    pass

wal_ns = 50000000 if phase1 and (mode.startswith("p1fail-") or mode == "late-final") else 1000000
t0 = time.time()
stop = []
signal.signal(signal.SIGINT, lambda s, f: stop.append(s))
signal.signal(signal.SIGTERM, lambda s, f: stop.append(s))


def job_json(name, m, ns, n, rt_ms):
    pct = ", ".join('"%f" : %d' % (q, ns) for q in (1, 50, 90, 95, 99, 99.5, 99.9))
    return ('    {\n      "jobname" : "%s",\n      "groupid" : 0,\n      "error" : 0,\n      "job_runtime" : %d,\n'
            '      "job options" : {"name" : "%s", "ioengine" : "external:/x/libetcdwal.so", "etcd_mode" : "%s", '
            '"runtime" : "%d", "time_based" : "1"},\n'
            '      "sync" : {\n        "total_ios" : %d,\n        "lat_ns" : {\n          "min" : %d,\n'
            '          "max" : %d,\n          "mean" : %d.0,\n          "stddev" : 1.0,\n          "N" : %d,\n'
            '          "percentile" : {%s},\n          "bins" : {"%d" : %d}\n        }\n      }\n    }'
            % (name, rt_ms, name, m, runtime, n, ns, ns, ns, n, pct, ns, n))


def doc(k, final=False):
    # an interim document is taken while the jobs run: short of runtime=, at most by a little (the case a
    # reader must not take for the end); the final one has run it out (stat.c: at least the runtime)
    rt = int((time.time() - t0) * 1000)
    if not final and not stop:
        rt = min(rt, runtime * 1000 - 30)
    elif not stop:
        rt = max(rt, runtime * 1000 + 5)
    ts = int(time.time() * 1000)
    nw, nb = (20, 2) if mode in ("p2slow", "p2sig", "late-final") and not phase1 else (400, 300)
    if final and mode == "late-final":
        nw, nb = 400, 300
    jobs = [job_json("etcd-wal", "wal", wal_ns, nw * k, rt), job_json("etcd-backend", "backend", 3000000, nb * k, rt)]
    sys.stdout.write('{\n  "fio version" : "fio-3.33",\n  "timestamp" : %d,\n  "timestamp_ms" : %d,\n'
                     '  "time" : "x",\n  "jobs" : [\n%s\n  ]\n}\n' % (ts // 1000, ts, ",\n".join(jobs)))
    sys.stdout.flush()


k = 0
while not stop and time.time() - t0 < runtime:
    time.sleep(interval)
    if stop:
        break
    k += 1
    doc(k)
    if mode == "p2sig" and not phase1 and k == 2:
        os.kill(os.getppid(), signal.SIGTERM)
if not stop:  # ran its runtime
    if mode != "cut-runout":
        doc(k + 1, True)
    if mode == "late-final" and not phase1:
        t1 = time.time()
        while not stop and time.time() - t1 < 5:
            time.sleep(0.02)
        if stop:
            sys.stdout.write("fio: terminating on signal 2\n")
    sys.exit(0)
sys.stdout.write("fio: terminating on signal 2\n")
sys.stdout.flush()
if mode == "cut-sigint":
    sys.exit(0)
doc(k + 1)
if phase1 and mode[:7] in ("p1pass-", "p1fail-"):
    what = mode.split("-", 1)[1]
    if what == "eof":
        d = os.environ["FAKE_DIR"]
        open(os.path.join(d, "p1done"), "w").close()
        while not os.path.exists(os.path.join(d, "eofsent")):
            time.sleep(0.02)
        time.sleep(0.6)  # check's poll sees stdin's end within 250 ms
    else:
        os.kill(os.getppid(), getattr(signal, "SIG" + what))
sys.exit(0)
