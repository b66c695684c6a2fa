#!/bin/sh
# SPDX-License-Identifier: MIT
# it_fio_matrix.sh — every real output of every fio version in tests/fixtures/fio-3.N/ (fio 3.7 to 3.42:
# the classic job and the etcd profile, normal, json and json+; tests/gen/gen-fio-matrix.sh made them) read
# by `etcd-fio verdict --json` exactly as tests/gen/fio_matrix_expect.py derived it at fixture time with a
# parser of its own (expected.json beside them): each job's role, sample count and p99, its verdict, the
# file's verdict and the exit status. Prints one line per file and, at the end, the cases that differ.
# tests/fixtures/fio-matrix-known.txt lists the cases the reader does not read right yet, each with the one
# kind of difference allowed for it (never a PASS that is not expected, never a wrong number); a listed case
# that is read right fails too, so that the list only ever holds what is still wrong.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
CLI=$B/etcd-fio
[ -x "$CLI" ] || { echo "FAIL: $CLI not built (make tests builds it)"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 not installed (make deps)"; exit 77; }
set -- "$TOP"/tests/fixtures/fio-3.*/expected.json
[ -f "$1" ] || { echo "FAIL: no tests/fixtures/fio-3.N/expected.json"; exit 1; }
python3 - "$CLI" "$TOP/tests/fixtures/fio-matrix-known.txt" "$@" <<'EOF'
import json, os, subprocess, sys
cli, known_path, expected = sys.argv[1], sys.argv[2], sys.argv[3:]
EXIT = {'pass': 0, 'fail': 1, 'unknown': 2}
known = {}
for line in open(known_path):
    if line.strip() and not line.startswith('#'):
        case, kind = line.split()[:2]
        known[case] = kind

def allowed(kind, want, got, gjobs):
    """Is this difference the one the known case may have? Never a PASS not expected, never a wrong number."""
    if got['verdict'] == 'pass' and want['verdict'] != 'pass':
        return False
    for wj in want['jobs']:
        gj = gjobs.get(wj['name'])
        if gj is None:
            return False
        if kind == 'no-count':
            # the count not found: unknown, with the right p99 and role
            if gj['samples'] is not None or gj['verdict'] != 'unknown' or gj['p99_ns'] != wj['p99_ns'] or gj['role'] != wj['role']:
                return False
        elif kind == 'normal-role':
            # a backend job judged as a WAL job (stricter: 10 ms): right count and p99, verdict by 10 ms
            if gj['samples'] != wj['samples'] or gj['p99_ns'] != wj['p99_ns']:
                return False
            if wj['role'] == 'backend':
                v10 = 'pass' if wj['p99_ns'] < 10_000_000 else 'fail'
                if gj['role'] != 'wal' or gj['verdict'] not in (wj['verdict'], v10):
                    return False
            elif gj['role'] != wj['role'] or gj['verdict'] != wj['verdict']:
                return False
        else:
            return False
    return True

bad, knowns, n = [], [], 0
for path in expected:
    exp = json.load(open(path))
    d = os.path.dirname(path)
    ver = exp['fio_version']
    for fname, want in sorted(exp['files'].items()):
        n += 1
        case = '%s/%s' % (ver, fname)
        p = subprocess.run([cli, 'verdict', '--json', os.path.join(d, fname)], capture_output=True, text=True)
        errs = []
        try:
            got = json.loads(p.stdout)
        except ValueError:
            bad.append('%s: no JSON (exit %d): %s' % (case, p.returncode, p.stderr.strip()[:200]))
            print('FAIL: ' + bad[-1])
            continue
        if got['verdict'] != want['verdict']:
            errs.append('verdict %s, want %s (%s)' % (got['verdict'], want['verdict'], got.get('reason', '')))
        if p.returncode != EXIT[want['verdict']]:
            errs.append('exit %d, want %d' % (p.returncode, EXIT[want['verdict']]))
        jobs = {j['name']: j for h in got.get('hosts', []) for j in h.get('jobs', [])}
        for wj in want['jobs']:
            gj = jobs.get(wj['name'])
            if gj is None:
                errs.append('job %s missing' % wj['name'])
                continue
            for key in ('role', 'samples', 'p99_ns', 'verdict'):
                w = wj[key]
                # fio prints a percentile as its bin's middle, which may lie above the job's exact max: every
                # figure is shown within [min, max], so the p99 is at most the max fio printed for the job
                if key == 'p99_ns' and w is not None and gj.get('max_ns') is not None and gj['max_ns'] < w:
                    w = gj['max_ns']
                if gj.get(key) != w:
                    errs.append('job %s: %s %s, want %s%s' % (wj['name'], key, gj.get(key), w,
                                ' (%s)' % gj.get('reason') if key == 'verdict' else ''))
        if len(jobs) != len(want['jobs']):
            errs.append('%d jobs, want %d' % (len(jobs), len(want['jobs'])))
        if errs and case in known and allowed(known[case], want, got, jobs):
            knowns.append('%s (%s): %s' % (case, known[case], '; '.join(errs)))
            print('known: ' + knowns[-1])
        elif errs:
            bad.append('%s: %s' % (case, '; '.join(errs)))
            print('FAIL: ' + bad[-1])
        elif case in known:
            bad.append('%s: read right now: remove it from tests/fixtures/fio-matrix-known.txt' % case)
            print('FAIL: ' + bad[-1])
        else:
            print('ok: %s: %s, %s' % (case, want['verdict'], ', '.join(
                '%s %s %d samples p99 %s ns' % (j['name'], j['role'], j['samples'], j['p99_ns']) for j in want['jobs'])))
print('it_fio_matrix: %d of %d files read right, %d known not yet (tests/fixtures/fio-matrix-known.txt), %d wrong'
      % (n - len(bad) - len(knowns), n, len(knowns), len(bad)))
for k in known:
    if not os.path.exists(os.path.join(os.path.dirname(os.path.dirname(expected[0])), k)):
        bad.append('fio-matrix-known.txt names %s, which is not a fixture' % k)
        print('FAIL: ' + bad[-1])
if bad:
    print('differences:')
    for b in bad:
        print('  ' + b)
sys.exit(1 if bad else 0)
EOF
