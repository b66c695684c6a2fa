#!/bin/sh
# SPDX-License-Identifier: MIT
# it_job.sh — `etcd-fio job` as a user meets it: --help; every load level (with --ionice) gives a job file
# the real fio accepts (fio --parse-only loads the engine and checks every option, etcd_* included), the
# Kubernetes load k8s[:NODES] too, whose file runs through fio with the engine's kinds and whose node counts
# 0, 6000 and abc are refused (by check as well);
# defaults (load s, 60 s, the current directory as an absolute path); bad options and values give one
# line on stderr, nothing on stdout and exit 2; and examples/etcd.fio, with its engine path and runtime
# replaced as its comments tell, runs through fio with a WAL job and a backend job that both have sync
# percentiles.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
FIO=${FIO:-fio}
SO=$BUILD/libetcdwal.so
CLI=$BUILD/etcd-fio
for t in jq "$FIO"; do
  command -v "$t" >/dev/null 2>&1 || { echo "skip: $t not installed (mk/deps.sh installs it)"; exit 77; }
done
[ -r "$SO" ] && [ -x "$CLI" ] || { echo "FAIL: build $SO and $CLI first (make BUILD=... all)"; exit 1; }
tmp=$(mktemp -d /var/tmp/it_job.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/../lib/assert.sh"

"$CLI" job --help > "$tmp/help" 2>&1 && grep -q -- '--load' "$tmp/help" && grep -q -- '--ionice' "$tmp/help" \
  && ok "job --help" || fail "job --help"

for l in s m l xl; do
  if "$CLI" job --load "$l" --ionice --engine "$SO" --dir "$tmp" > "$tmp/$l.fio" 2>"$tmp/$l.err" \
     && "$FIO" --parse-only "$tmp/$l.fio" > "$tmp/$l.parse" 2>&1; then
    ok "load $l: fio accepts the job file ($(grep -c '^\[' "$tmp/$l.fio") sections)"
  else
    cat "$tmp/$l.err" "$tmp/$l.parse"; fail "load $l: job file rejected"
  fi
  grep -q '^prioclass=2$' "$tmp/$l.fio" && grep -q '^prio=0$' "$tmp/$l.fio" || fail "load $l: --ionice lines missing"
done
# the four levels differ where etcd's load does: the WAL byte rate and the pages per commit
rates=$(for l in s m l xl; do sed -n 's/^rate=//p' "$tmp/$l.fio"; done | tr '\n' ' ')
[ "$rates" = "201600 1344000 10752000 20160000 " ] && ok "WAL byte rates: $rates" || fail "WAL byte rates: $rates"
pages=$(for l in s m l xl; do sed -n '/\[etcd-backend\]/,$ s/^fdatasync=//p' "$tmp/$l.fio"; done | tr '\n' ' ')
[ "$pages" = "12 54 407 760 " ] && ok "backend pages per commit: $pages" || fail "backend pages per commit: $pages"

# the Kubernetes load: fio accepts it; a 3 s run writes the mix (the WAL's stats count both kinds' entries:
# 1000 nodes are 100 leases and 3.3 Node statuses a second) and a backend job beside it
for l in k8s k8s:1 k8s:1000 k8s:5000; do
  "$CLI" job --load "$l" --ionice --engine "$SO" --dir "$tmp" > "$tmp/$l.fio" 2>"$tmp/$l.err"     && "$FIO" --parse-only "$tmp/$l.fio" > "$tmp/$l.parse" 2>&1 && grep -q '^etcd_kinds=lease:' "$tmp/$l.fio"     && ok "load $l: fio accepts the job file ($(sed -n 's/^etcd_kinds=//p' "$tmp/$l.fio"))"     || { cat "$tmp/$l.err" "$tmp/$l.parse"; fail "load $l: job file rejected"; }
done
mkdir "$tmp/k8s"
"$CLI" job --load k8s:1000 --runtime 3 --engine "$SO" --dir "$tmp/k8s" \
  | sed "s|^\(\[etcd-wal\]\)\$|\1\netcd_stats_file=$tmp/k8s-wal.json|" > "$tmp/k8s-run.fio"
if timeout 60 "$FIO" "$tmp/k8s-run.fio" --output-format=json > "$tmp/k8s.json" 2>"$tmp/k8s.err"; then
  n=$(jq '[.jobs[] | select((.sync.lat_ns.percentile["99.000000"] // 0) > 0)] | length' "$tmp/k8s.json")
  kinds=$(jq -r '[.kinds[] | "\(.name)=\(.entries)"] | join(" ")' "$tmp/k8s-wal.json")
  lease=$(jq '.kinds[0].entries' "$tmp/k8s-wal.json")
  [ "$n" = 2 ] && [ "$lease" -ge 150 ] && ok "load k8s:1000 runs: 2 jobs with sync percentiles, entries $kinds" \
    || fail "load k8s:1000: $n jobs with sync percentiles, entries $kinds"
  [ -z "$(ls -A "$tmp/k8s")" ] || fail "load k8s:1000 left files: $(ls -A "$tmp/k8s")"
else
  cat "$tmp/k8s.err"; fail "fio on the k8s:1000 job file"
fi

# defaults: load s, runtime 60, the current directory made absolute
mkdir "$tmp/here"
(cd "$tmp/here" && "$CLI" job --engine "$SO") > "$tmp/def.fio" || fail "job with defaults"
grep -q "^directory=$tmp/here\$" "$tmp/def.fio" && grep -q '^runtime=60$' "$tmp/def.fio" \
  && grep -q '^rate=201600$' "$tmp/def.fio" && ! grep -q '^prioclass' "$tmp/def.fio" \
  && ok "defaults: load s, 60 s, cwd as absolute directory, no ionice" || fail "defaults"
# the engine is found beside the CLI when not given
"$CLI" job > "$tmp/found.fio" 2>"$tmp/found.err" && grep -q "^ioengine=external:.*libetcdwal.so\$" "$tmp/found.fio" \
  && ok "engine found without --engine" || { cat "$tmp/found.err"; fail "engine not found beside the CLI"; }

# bad input: one line on stderr, nothing on stdout, exit 2
bad() {
  "$CLI" job "$@" > "$tmp/bad.out" 2> "$tmp/bad.err"
  rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$tmp/bad.out" ] && [ "$(wc -l < "$tmp/bad.err")" -eq 1 ]; then
    ok "rejected ($*): $(cat "$tmp/bad.err")"
  else
    fail "job $* gave exit $rc, stdout $(wc -c < "$tmp/bad.out") bytes, stderr: $(cat "$tmp/bad.err")"
  fi
}
bad --load xxl --engine "$SO"
bad --load k8s:0 --engine "$SO"
bad --load k8s:6000 --engine "$SO"
bad --load k8s:abc --engine "$SO"
# check refuses them the same way, before anything runs
for l in k8s:0 k8s:6000 k8s:abc; do
  "$CLI" check --load "$l" "$tmp" > "$tmp/bad.out" 2> "$tmp/bad.err"
  rc=$?
  [ $rc -eq 2 ] && [ ! -s "$tmp/bad.out" ] && [ "$(wc -l < "$tmp/bad.err")" -eq 1 ] && grep -q 'k8s\[:NODES\]' "$tmp/bad.err" \
    && ok "check rejected --load $l: $(cat "$tmp/bad.err")" || fail "check --load $l gave exit $rc: $(cat "$tmp/bad.err")"
done
bad --bogus
bad --runtime 0 --engine "$SO"
bad --runtime 12abc --engine "$SO"
bad --runtime --engine "$SO"
bad --engine "$tmp/nonexistent.so"
bad --engine "$SO" extra-arg
bad --dir "$(printf 'a\nb')" --engine "$SO"
ETCD_FIO_ENGINE=$tmp/nope.so bad
bad --dir "$tmp/etcd#new" --engine "$SO"    # fio's job-file parser would cut the value at '#'
bad --engine "$SO" --dir "$tmp/etcd;new"    # ... and at ';'; options in any order
# a run too short to judge: a warning naming the minimum, the job file still printed
"$CLI" job --runtime=1 --engine "$SO" > "$tmp/short.fio" 2> "$tmp/short.err" && grep -q '^runtime=1$' "$tmp/short.fio" \
  && grep -q "use --runtime 12 or more" "$tmp/short.err" && ok "--runtime 1 warns: $(cat "$tmp/short.err")" \
  || fail "--runtime 1: $(cat "$tmp/short.err")"
# ... and under a k8s load of one node the WAL's 0.1 puts a second set it, not the backend's 10 commits
"$CLI" job --load k8s:1 --runtime 12 --engine "$SO" > "$tmp/k1.fio" 2> "$tmp/k1.err" \
  && grep -q "WAL syncs about 0.103 times a second under --load k8s:1 .* use --runtime 970 or more" "$tmp/k1.err" \
  && ok "--load k8s:1 --runtime 12 warns by the WAL's pace" || fail "--load k8s:1 --runtime 12: $(cat "$tmp/k1.err")"

# examples/etcd.fio, edited as its comments say (engine path; a short runtime for the test)
mkdir "$tmp/ex"
sed -e "s|^ioengine=external:.*|ioengine=external:$SO|" -e 's/^runtime=.*/runtime=2/' \
  "$top/examples/etcd.fio" > "$tmp/ex.fio"
if (cd "$tmp/ex" && timeout 60 "$FIO" "$tmp/ex.fio" --output-format=json > "$tmp/ex.json" 2>"$tmp/ex.err"); then
  n=$(jq '[.jobs[] | select((.sync.lat_ns.percentile["99.000000"] // 0) > 0)] | length' "$tmp/ex.json")
  modes=$(jq -r '[.jobs[]."job options".etcd_mode] | join(",")' "$tmp/ex.json")
  [ "$n" = 2 ] && [ "$modes" = "wal,backend" ] && ok "examples/etcd.fio: jobs $modes, both with sync percentiles" \
    || fail "examples/etcd.fio: $n jobs with sync percentiles, modes '$modes'"
  [ -z "$(ls -A "$tmp/ex")" ] && ok "examples/etcd.fio leaves nothing behind" || fail "files left: $(ls -A "$tmp/ex")"
else
  cat "$tmp/ex.err"; fail "fio examples/etcd.fio"
fi

finish it_job
