#!/bin/sh
# SPDX-License-Identifier: MIT
# it_image.sh — the image of `make image`, loaded from its archive into podman (tests/lib/podman_lib.sh) and run
# as etcd-perf's users run theirs: `podman run --rm -v DIR:/var/lib/etcd:Z IMAGE`. Asserts:
#  - the image is tagged with the tool's version, carries that etcd-fio, runs as the user the manifests
#    say (runAsUser) and has etcd-fio-pod as the entrypoint they name;
#  - DIR without etcd data: one line, UNKNOWN, exit 2, DIR left empty;
#  - DIR a (fake) etcd data dir, root file system read-only with /tmp a tmpfs (as the manifests'
#    readOnlyRootFilesystem and emptyDir): progress on stderr while it runs, then the verdict FIRST on
#    stdout agreeing with the exit status and with the JSON that follows, the same line in the
#    termination message file, etcd's files unchanged, nothing of ours left;
#  - `podman stop` (SIGTERM) mid-check: the container ends within the manifests' grace period, says it
#    was stopped, and DIR holds nothing of ours;
#  - `podman kill -s KILL` mid-check: what it leaves is removed by the next run;
#  - the archive imports into containerd as the kubelet's (ctr -n k8s.io images import).
# The runs are kept short with ETCD_FIO_ARGS (read by etcd-fio-pod). SKIP (77) without podman, root or the
# archive (make check-image builds it and runs this test).
# run.sh: lock=podman
. "$(dirname "$0")/../lib/lib.sh"
. "$TOP/tests/lib/podman_lib.sh"
trap podman_cleanup EXIT INT TERM
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
ok() { echo "ok: $*"; }
privdirs() { ls -A "$1" | grep -E '^etcd-fio' ; }
word() { case $1 in 0) echo pass ;; 1) echo fail ;; *) echo unknown ;; esac; }

# ---- what the image is, against the manifests ----
PY=/usr/bin/python3
manifest_users=$($PY -c 'import sys, yaml
for p in sys.argv[1:]:
    for d in yaml.safe_load_all(open(p)):
        if d and d["kind"] in ("Job", "DaemonSet"):
            (c,) = d["spec"]["template"]["spec"]["containers"]
            print(c["securityContext"]["runAsUser"], c["command"][0])' "$TOP"/examples/k8s/*/*.yaml 2>&1 | sort -u)
cfg=$($P image inspect -f '{{.Config.User}} {{index .Config.Entrypoint 0}} {{index .Config.Labels "org.opencontainers.image.version"}}' "$IMAGE")
set -- $cfg
iuser=${1%%:*} ientry=$2 ilabel=${3:-}
[ "$(echo "$manifest_users" | wc -l)" = 1 ] && [ "$manifest_users" = "$iuser $ientry" ] &&
  ok "image user $1 and entrypoint $ientry are the manifests' runAsUser and command" ||
  fail "image user/entrypoint '$iuser $ientry', manifests say: $manifest_users"
uid=$($P run --rm --network none --entrypoint /usr/bin/id "$IMAGE" -u 2>&1)
[ "$uid" = "$iuser" ] && ok "it runs as uid $uid" || fail "runs as '$uid', want $iuser"
v=$($P run --rm --network none --entrypoint etcd-fio "$IMAGE" --version 2>&1 | head -n 1)
[ "$v" = "etcd-fio $VERSION" ] && [ "$ilabel" = "$VERSION" ] && ok "the image carries $v (label $ilabel)" ||
  fail "image has '$v', label '$ilabel', tag $VERSION"

D=$T/etcd
mkdir -p "$D"
RUN="$P run --rm --network none --read-only --read-only-tmpfs=false --tmpfs /tmp -v $D:/var/lib/etcd:Z"

# ---- no etcd data ----
$RUN "$IMAGE" > "$T/none.out" 2> "$T/none.err"; rc=$?
if [ $rc = 2 ] && [ "$(wc -l < "$T/none.out")" = 1 ] && grep -q '^unknown on node .*no etcd data directory' "$T/none.out" &&
   [ -z "$(ls -A "$D")" ]; then
  ok "no etcd data: exit 2, one line: $(cat "$T/none.out")"
else
  fail "no etcd data: exit $rc, stdout:"; cat "$T/none.out" "$T/none.err"
fi

# ---- a check, read-only root, termination message ----
fake_etcd "$D" || { fail "cannot build the fake data dir"; exit 1; }
# --help: etcd-fio's help, exit 0, and no verdict line (a help is no PASS)
$RUN "$IMAGE" --help > "$T/help.out" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q '^usage: etcd-fio check' "$T/help.out" && ! grep -qE '^(pass|fail|unknown) on node' "$T/help.out"; then
  ok "--help: the help of etcd-fio check, no verdict line"
else
  fail "--help: exit $rc:"; head -n 3 "$T/help.out"
fi
etcd_state "$D" > "$T/before"
: > "$T/termlog"
t0=$(date +%s)
$RUN -v "$T/termlog:/dev/termination-log" -e PROGRESS_INTERVAL=3 \
  -e ETCD_FIO_ARGS='--max-time=12 --min-syncs=20 --accept-point-estimate --json' "$IMAGE" > "$T/run.out" 2> "$T/run.err"; rc=$?
secs=$(($(date +%s) - t0))
first=$(head -n 1 "$T/run.out")
echo "    stderr: $(head -n 3 "$T/run.err" | tr '\n' '|')"
echo "    stdout: $first"
case $rc in 0|1|2) ;; *) fail "check: exit $rc" ;; esac
case $first in
  "$(word $rc) on node "*"(etcd-fio check /var/lib/etcd: exit $rc)") ok "check: exit $rc in $secs s, the verdict first on stdout" ;;
  *) fail "check: exit $rc but stdout begins: $first"; tail -n 5 "$T/run.err" ;;
esac
jv=$(tail -n +2 "$T/run.out" | jq -r .verdict 2>/dev/null)
[ "$jv" = "$(word $rc)" ] && ok "check: the JSON after it says $jv" || fail "check: JSON verdict '$jv', exit $rc"
grep -q '^etcd-fio-pod: checking /var/lib/etcd on node ' "$T/run.err" && grep -q '^etcd-fio-pod: checking .*: [0-9]* s$' "$T/run.err" &&
  ok "check: progress on stderr while it ran ($(grep -c ': [0-9]* s$' "$T/run.err") lines)" || fail "check: no progress lines on stderr"
[ "$(head -n 1 "$T/termlog")" = "$first" ] && [ "$(wc -l < "$T/termlog")" = 2 ] &&
  ok "check: termination message: the verdict line and why: $(sed -n 2p "$T/termlog" | cut -c1-60)…" ||
  { fail "check: termination message:"; cat "$T/termlog"; }
[ -z "$(privdirs "$D")" ] || fail "check: left in the data dir: $(privdirs "$D")"
etcd_state "$D" > "$T/after"
cmp -s "$T/before" "$T/after" && ok "check: etcd's files unchanged" || fail "check: etcd's files changed"
$P run --rm --network none --read-only --read-only-tmpfs=false --entrypoint /bin/sh "$IMAGE" -c 'touch /x' 2>/dev/null &&
  fail "--read-only: the root file system was writable" || ok "--read-only: the root file system is read-only and the check ran"

# started NAME: until the check in container NAME writes in its private directory (fails after 60 s)
started() {
  i=0
  while [ $i -lt 600 ] && ! ls "$D"/etcd-fio.*/0000000000000000-* > /dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
  [ $i -lt 600 ] || { fail "$1: the check never started: $($P logs "$1" 2>&1 | tail -n 3)"; return 1; }
  sleep 1
}
GRACE=$($PY -c 'import sys, yaml
print(min(d["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] for p in sys.argv[1:]
          for d in yaml.safe_load_all(open(p)) if d and d["kind"] in ("Job", "DaemonSet")))' "$TOP"/examples/k8s/*/*.yaml)

# ---- podman stop (SIGTERM) ----
$P run -d --name it-term --network none --read-only --read-only-tmpfs=false --tmpfs /tmp -v "$D:/var/lib/etcd:Z" \
  -e ETCD_FIO_ARGS='--full --max-time=60' "$IMAGE" > /dev/null
if started it-term; then
  t0=$(date +%s%N)
  $P stop -t "$GRACE" it-term > /dev/null
  ms=$((($(date +%s%N) - t0) / 1000000))
  rc=$($P inspect -f '{{.State.ExitCode}}' it-term)
  $P logs it-term > "$T/term.log" 2>&1
  [ $ms -lt $((GRACE * 1000)) ] && ok "podman stop: ended after $ms ms (grace $GRACE s), exit $rc" ||
    fail "podman stop: took $ms ms, grace $GRACE s (then SIGKILL)"
  grep -q "^$(word "$rc") on node .*exit $rc (stopped by SIGTERM))$" "$T/term.log" && ok "podman stop: $(grep -E '^[a-z]+ on node ' "$T/term.log")" ||
    { fail "podman stop: no verdict line saying it was stopped (exit $rc)"; tail -n 5 "$T/term.log"; }
  [ -z "$(privdirs "$D")" ] && ok "podman stop: nothing of ours left" || fail "podman stop: left: $(privdirs "$D")"
fi
$P rm -f -t 0 it-term > /dev/null 2>&1

# ---- podman kill -s KILL, then the next run ----
$P run -d --name it-kill --network none --read-only --read-only-tmpfs=false --tmpfs /tmp -v "$D:/var/lib/etcd:Z" \
  -e ETCD_FIO_ARGS='--full --max-time=60' "$IMAGE" > /dev/null
if started it-kill; then
  $P kill -s KILL it-kill > /dev/null
  $P wait it-kill > /dev/null 2>&1
  left=$(privdirs "$D" | tr "\n" " ")
  echo "    after SIGKILL the data dir holds: ${left:-nothing of ours}"
  $RUN -e ETCD_FIO_ARGS='--max-time=12 --min-syncs=20 --accept-point-estimate' "$IMAGE" > "$T/next.out" 2> "$T/next.err"; rc=$?
  [ -z "$(privdirs "$D")" ] && ok "podman kill -s KILL: the next run (exit $rc) left nothing: '${left:-}' reaped" ||
    fail "podman kill -s KILL: after the next run (exit $rc) still: $(privdirs "$D")"
  etcd_state "$D" > "$T/after"
  cmp -s "$T/before" "$T/after" && ok "stop/kill: etcd's files unchanged" || fail "stop/kill: etcd's files changed"
fi
$P rm -f -t 0 it-kill > /dev/null 2>&1

# ---- the same archive into containerd, as on an rke2 or kubeadm node ----
# a containerd of the test's own (its root, state and socket under T; CRI off: only the image store)
if command -v containerd >/dev/null 2>&1 && command -v ctr >/dev/null 2>&1; then
  C=$T/containerd
  mkdir -p "$C"
  printf 'version = 2\nroot = "%s/root"\nstate = "%s/state"\ndisabled_plugins = ["io.containerd.grpc.v1.cri"]\n[grpc]\n  address = "%s/sock"\n[ttrpc]\n  address = "%s/sock.ttrpc"\n' \
    "$C" "$C" "$C" "$C" > "$C/config.toml"
  containerd -c "$C/config.toml" > "$C/log" 2>&1 &
  CPID=$!
  i=0
  until ctr --address "$C/sock" version > /dev/null 2>&1 || [ $i -ge 100 ]; do sleep 0.2; i=$((i + 1)); done
  t0=$(date +%s)
  if ctr --address "$C/sock" -n k8s.io images import "$ARCHIVE" > "$C/import" 2>&1 &&
     [ "$(ctr --address "$C/sock" -n k8s.io images ls -q)" = "$IMAGE" ]; then
    ok "ctr -n k8s.io images import: $IMAGE in $(($(date +%s) - t0)) s"
  else
    fail "ctr -n k8s.io images import: $(tail -n 3 "$C/import") $(tail -n 2 "$C/log")"
  fi
  kill "$CPID" 2>/dev/null; wait "$CPID" 2>/dev/null
else
  echo "SKIP: ctr -n k8s.io images import: containerd not installed (make deps-image)"
fi

[ $bad -eq 0 ] || { echo "it_image: $bad problems"; exit 1; }
echo "it_image: the image runs in podman: verdict first, exit status, SIGTERM/SIGKILL cleanup, read-only root"
