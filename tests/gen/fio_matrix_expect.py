#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# fio_matrix_expect.py DIR — the expected reading of every fio output in a tests/fixtures/fio-3.N/ directory
# (made by tests/gen/gen-fio-matrix.sh), derived here with a parser of its own, never from libfioreport's
# output: per job the role, the sync sample count, the p99 and the verdict; per file the overall verdict.
# Prints expected.json. Each count is cross-checked against the job's writes and its fdatasync=N (a sync
# every N writes): a file whose numbers do not agree stops the generation instead of becoming a fixture.
#
# Where fio puts the sync count:
#   json/json+  jobs[].sync.lat_ns.N (fio >= 3.18, commit 56440e63); json+ also has the bins, which add up
#               to it in every version; before 3.18 in plain json: sync.total_ios for fsync=, and for
#               fdatasync= read.short_ios — fio counts DDIR_DATASYNC (4) in total_io_u[], which has 4
#               entries, so it lands in the next member, short_io_u[0] (stat.h struct thread_stat)
#   normal      "issued rwts: total=R,W,T,SYNC short=DATASYNC,..." (the same two slots)
# The verdict rule is the documented one (README, etcd-fio(1)): p99 < 10 ms (WAL) / 25 ms (backend:
# etcd_mode=backend in the job file) with >= 100 samples; fewer samples, no p99, or a printed p99 within its
# print unit of the threshold: unknown. Overall: fail if any job fails, else unknown if any is, else pass.
import configparser
import json
import os
import re
import sys

MIN_SAMPLES = 100
THRESH = {'wal': 10_000_000, 'backend': 25_000_000}
UNIT_NS = {'nsec': 1, 'usec': 1000, 'msec': 1_000_000}


def die(msg):
    sys.exit('fio_matrix_expect: ' + msg)


def roles_from_jobfile(path):
    """job name -> (role, fdatasync N) from the fio job file the profile ran."""
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    cp.read(path)
    g = cp['global'] if cp.has_section('global') else {}
    out = {}
    for sec in cp.sections():
        if sec == 'global':
            continue
        s = cp[sec]
        mode = s.get('etcd_mode', g.get('etcd_mode', 'wal'))
        every = int(s.get('fdatasync', g.get('fdatasync', '0')))
        out[sec] = ('backend' if mode == 'backend' else 'wal', every)
    return out


def judge(role, samples, p99, unit_ns):
    t = THRESH[role]
    if samples is None or samples < MIN_SAMPLES or p99 is None:
        return 'unknown'
    if abs(p99 - t) < unit_ns:
        return 'unknown'
    return 'pass' if p99 < t else 'fail'


def check_count(fname, name, samples, writes, every, timed):
    """A sync every `every` writes: writes // every of them (a timed run may end between a write and its
    sync, so one fewer there)."""
    if not every:
        die('%s: job %s: no fdatasync=N to check the count against' % (fname, name))
    want = writes // every
    ok = samples == want or (timed and samples == want - 1)
    if not ok:
        die('%s: job %s: %s syncs for %d writes at fdatasync=%d (want %d)' % (fname, name, samples, writes, every, want))


def read_json(path, roles, timed):
    text = open(path).read()
    start = re.search(r'^\{', text, re.M)
    if not start:
        die('%s: no JSON object' % path)
    doc = json.loads(text[start.start():])
    jobs = []
    for j in doc['jobs']:
        name = j['jobname']
        role, every = roles[name]
        lat = j['sync']['lat_ns']
        if 'N' in lat:
            n, src = lat['N'], 'sync.lat_ns.N'
        elif 'bins' in lat:
            n, src = sum(lat['bins'].values()), 'sum of sync.lat_ns.bins'
        elif j['sync'].get('total_ios'):
            n, src = j['sync']['total_ios'], 'sync.total_ios'
        else:
            n, src = j['read']['short_ios'], 'read.short_ios (DDIR_DATASYNC past total_io_u[])'
        if 'bins' in lat and 'N' in lat and sum(lat['bins'].values()) != lat['N']:
            die('%s: job %s: bins add up to %d, N is %d' % (path, name, sum(lat['bins'].values()), lat['N']))
        check_count(path, name, n, j['write']['total_ios'], every, timed)
        p99 = lat.get('percentile', {}).get('99.000000')
        jobs.append({'name': name, 'role': role, 'samples': n, 'samples_from': src, 'p99_ns': p99,
                     'verdict': judge(role, n, p99, 1)})
    return jobs


JOB_HEAD = re.compile(r'^(\S[^\n]*?): \(groupid=\d+, jobs=\d+\): err=\s*(-?\d+)', re.M)


def read_normal(path, roles, timed):
    text = open(path).read()
    heads = list(JOB_HEAD.finditer(text))
    if not heads:
        die('%s: no job result' % path)
    jobs = []
    for i, h in enumerate(heads):
        name = h.group(1)
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        block = text[h.end():end]
        role, every = roles[name]
        m = re.search(r'sync percentiles \((nsec|usec|msec)\):\n((?:\s+\|[^\n]*\n)+)', block)
        if not m:
            die('%s: job %s: no sync percentiles' % (path, name))
        unit = UNIT_NS[m.group(1)]
        pct = {float(k): int(v) for k, v in re.findall(r'(\d+\.\d+)th=\[\s*(\d+)\]', m.group(2))}
        p99 = pct[99.0] * unit if 99.0 in pct else None
        iss = re.search(r'issued rwts: total=(\d+),(\d+),(\d+),(\d+) short=(\d+),', block)
        if not iss:
            die('%s: job %s: no "issued rwts" line' % (path, name))
        writes, fsyncs, datasyncs = int(iss.group(2)), int(iss.group(4)), int(iss.group(5))
        n, src = (fsyncs, 'issued total[3]') if fsyncs else (datasyncs, 'issued short[0] (DDIR_DATASYNC)')
        check_count(path, name, n, writes, every, timed)
        jobs.append({'name': name, 'role': role, 'samples': n, 'samples_from': src, 'p99_ns': p99,
                     'p99_unit_ns': unit, 'verdict': judge(role, n, p99, unit)})
    return jobs


def overall(jobs):
    vs = [j['verdict'] for j in jobs]
    if 'fail' in vs:
        return 'fail'
    if 'unknown' in vs or not vs:
        return 'unknown'
    return 'pass'


def main():
    if len(sys.argv) != 2:
        die('usage: fio_matrix_expect.py DIR')
    d = sys.argv[1]
    classic = {'classic': ('wal', 1)}
    profile = roles_from_jobfile(os.path.join(d, 'profile.fio'))
    if sorted(r for r, _ in profile.values()) != ['backend', 'wal']:
        die('profile.fio: expected one WAL and one backend job, got %s' % profile)
    files = {}
    for f, reader, roles, timed in (('classic-normal.txt', read_normal, classic, False),
                                    ('classic.json', read_json, classic, False),
                                    ('classic-jsonplus.json', read_json, classic, False),
                                    ('profile-normal.txt', read_normal, profile, True),
                                    ('profile.json', read_json, profile, True),
                                    ('profile-jsonplus.json', read_json, profile, True)):
        jobs = reader(os.path.join(d, f), roles, timed)
        files[f] = {'verdict': overall(jobs), 'jobs': jobs}
    ver = os.path.basename(os.path.normpath(d))
    json.dump({'fio_version': ver, 'min_samples': MIN_SAMPLES, 'thresholds_ns': THRESH, 'files': files},
              sys.stdout, indent=1, sort_keys=True)
    print()


main()
