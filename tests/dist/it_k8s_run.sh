#!/bin/sh
# SPDX-License-Identifier: MIT
# it_k8s_run.sh — examples/k8s run for real, without a cluster and without the image: the kubeadm Job's and
# DaemonSet's exact container command, args, env and volume mounts are read from the YAML (python3-yaml) and
# run as the pod would: PID 1 of a new pid namespace, in a root of its own (a tmpfs, read-only as
# readOnlyRootFilesystem says, with the host's /usr and /etc, the image's /usr/local/bin from this build
# and examples/k8s/etcd-fio-pod), each hostPath a temp directory (a fake kubeadm etcd data dir,
# node_exporter's textfile directory), each emptyDir a tmpfs. The etcd watch (--etcd and its certificates)
# is left out: it needs a live etcd, which tests/dist/it_k8s_image.sh runs beside the real image. Asserts:
#  - the Job: the verdict line "pass|fail|unknown on node NODE ..." agreeing with its exit status, and the
#    Prometheus textfile written with the same verdict (etcd_fio_verdict);
#  - no etcd data dir (no member/): "unknown on node NODE ...", exit 2;
#  - SIGTERM to PID 1 mid-check (Job and DaemonSet): the pod ends within terminationGracePeriodSeconds
#    and no private directory is left in the etcd data dir (the time it took is printed);
#  - etcd's files keep their checksums throughout.
# K8S_IMAGE_ROOT=DIR runs the pods in a built image's file system instead (e.g. DIR=$(buildah mount
# $(buildah from localhost/etcd-fio:VERSION))): its /usr, /usr/local and /etc instead of the host's and this build.
# ETCD_FIO_ARGS (read by etcd-fio-pod, not set by the manifests) keeps the full run short (--max-time=8
# --min-syncs=20 --accept-point-estimate) and the SIGTERM runs from deciding before the signal (--full).
. "$(dirname "$0")/../lib/lib.sh"
K=$TOP/examples/k8s/kubeadm
need_built "$CLI" "$ENGINE"
command -v unshare >/dev/null 2>&1 || { echo "skip: unshare (util-linux) missing"; exit 77; }
[ "$(id -u)" = 0 ] && unshare -m -pf --mount-proc true 2>/dev/null ||
  { echo "skip: needs root for mount and pid namespaces"; exit 77; }
PY=""
for p in /usr/bin/python3 python3; do
  if $p -c 'import yaml' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "skip: no python3 with the yaml module (Debian: python3-yaml)"; exit 77; }

WORK=$(mktemp -d /var/tmp/it-k8s-run.XXXXXX) || exit 1
POD=""
cleanup() {
  [ -n "$POD" ] && kill -KILL "$POD" 2>/dev/null
  [ -n "${KEEP_WORK:-}" ] && { echo "work kept in $WORK"; return; }
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
NODE=test-node-$$

# ---- the node's host paths ----
H=$WORK/host
E=$H/var/lib/etcd
fake_etcd "$E" || { echo "FAIL: cannot build the fake data dir"; exit 1; }
state() { etcd_state "$E"; }
state > "$WORK/before"
unchanged() { state > "$WORK/after"; cmp -s "$WORK/before" "$WORK/after" || fail "$1: etcd's files changed"; }
privdirs() { ls -A "$E" | grep -E '^etcd-fio' ; }

# ---- the pod spec, from the YAML ----
# spec KIND → $WORK/KIND.sh defining CMD (the argv, quoted), ENVS (NAME=VALUE words, quoted), GRACE, RO
# and MOUNTS (lines "hostPath|emptyDir SOURCE MOUNTPATH").
spec() {
  "$PY" - "$K/job.yaml" "$K/daemonset.yaml" "$1" "$NODE" > "$WORK/$1.sh" <<'EOF' || { fail "cannot read the $1 spec"; return 1; }
import shlex, sys, yaml
docs = [d for p in sys.argv[1:3] for d in yaml.safe_load_all(open(p)) if d]
(doc,) = [d for d in docs if d['kind'] == sys.argv[3]]
spec = doc['spec']['template']['spec']
(c,) = spec['containers']
# the etcd watch (--etcd and its certificates) needs a live etcd: tests/dist/it_k8s_image.sh runs it
watch = [a for a in c.get('args', []) if a.split('=')[0] in ('--etcd', '--cacert', '--cert', '--key')]
args = [a for a in c.get('args', []) if a not in watch]
argv = list(c.get('command', [])) + args
env = []
for e in c.get('env', []):
    if 'value' in e:
        env.append('%s=%s' % (e['name'], e['value']))
    elif e.get('valueFrom', {}).get('fieldRef', {}).get('fieldPath') == 'spec.nodeName':
        env.append('%s=%s' % (e['name'], sys.argv[4]))
    else:
        sys.exit('env %s: unsupported source' % e['name'])
vols = {v['name']: v for v in spec.get('volumes', [])}
mounts = []
for m in c.get('volumeMounts', []):
    if any(a.split('=', 1)[1].startswith(m['mountPath'] + '/') for a in watch[1:]):
        continue  # the certificates of the watch
    v = vols[m['name']]
    if 'hostPath' in v:
        mounts.append('hostPath %s %s' % (v['hostPath']['path'], m['mountPath']))
    elif 'emptyDir' in v:
        mounts.append('emptyDir - %s' % m['mountPath'])
    else:
        sys.exit('volume %s: unsupported kind' % m['name'])
print('CMD=%s' % shlex.quote(' '.join(shlex.quote(a) for a in argv)))
print('ENVS=%s' % shlex.quote(' '.join(shlex.quote(a) for a in env)))
print('GRACE=%d' % spec.get('terminationGracePeriodSeconds', 30))
print('RO=%d' % bool((c.get('securityContext') or {}).get('readOnlyRootFilesystem')))
print('MOUNTS=%s' % shlex.quote('\n'.join(mounts)))
EOF
}

# pod KIND OUT [ENV=VALUE…]: runs the pod in the background (its PID 1's parent in $POD), output in OUT
pod() {
  kind=$1; out=$2; shift 2
  . "$WORK/$kind.sh"
  R=$WORK/root-$kind
  mkdir -p "$R"
  # The image's /usr/local/bin: what `make install` and the Containerfile put there.
  IMG=$WORK/image-bin
  mkdir -p "$IMG"
  cp "$CLI" "$ENGINE" "$TOP/examples/k8s/etcd-fio-pod" "$IMG/"
  # make check-asan: the ASan engine needs fio with the ASan runtime preloaded (tests/faults.mk's wrapper,
  # which runs /usr/bin/fio); first in the pod's PATH
  [ "${ASAN_BUILD:-}" = 1 ] && cp "$FIO" "$IMG/fio"
  echo "$MOUNTS" | while read -r kind_ src dst; do
    [ "$kind_" = hostPath ] && mkdir -p "$H$src"
  done
  # shellcheck disable=SC2016
  unshare -m sh -c '
    set -e
    R=$1 H=$2 IMG=$3 RO=$4 MOUNTS=$5 IMAGE_ROOT=$6; shift 6
    mount --make-rprivate /
    mount -t tmpfs -o mode=0755 pod-root "$R"
    mkdir -p "$R/usr" "$R/etc" "$R/dev" "$R/proc" "$R/tmp"
    ln -s usr/bin "$R/bin"; ln -s usr/lib "$R/lib"; ln -s usr/lib64 "$R/lib64"; ln -s usr/sbin "$R/sbin"
    if [ -n "$IMAGE_ROOT" ]; then  # the real image: its /usr (with /usr/local) and /etc
      mount --rbind "$IMAGE_ROOT/usr" "$R/usr"; mount -o remount,bind,ro "$R/usr"
      mount --bind "$IMAGE_ROOT/etc" "$R/etc"; mount -o remount,bind,ro "$R/etc"
    else
      mount --rbind /usr "$R/usr"; mount -o remount,bind,ro "$R/usr"
      mount -t tmpfs -o mode=0755 image-local "$R/usr/local"
      mkdir -p "$R/usr/local/bin"; cp "$IMG"/* "$R/usr/local/bin/"
      mount --bind /etc "$R/etc"; mount -o remount,bind,ro "$R/etc"
    fi
    mount --rbind /dev "$R/dev"
    echo "$MOUNTS" | while read -r kind src dst; do
      mkdir -p "$R$dst"
      if [ "$kind" = hostPath ]; then mount --bind "$H$src" "$R$dst"; else mount -t tmpfs emptydir "$R$dst"; fi
    done
    [ "$RO" = 1 ] && mount -o remount,ro "$R"
    exec unshare -pf --mount-proc --root="$R" --wd=/ "$@"' sh "$R" "$H" "$IMG" "$RO" "$MOUNTS" "${K8S_IMAGE_ROOT:-}" \
    sh -c "exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOSTNAME=pod $ENVS $* $CMD" \
    > "$out" 2>&1 &
  POD=$!
}
# pid1: the pod's PID 1 as the host sees it (the child of unshare -pf), empty if none (yet)
pid1() { ps -o pid= --ppid "$POD" 2>/dev/null | tr -d ' ' | head -n 1; }
first_line_ok() {  # OUT RC LABEL: the first verdict line names the verdict that the exit status says, and the node
  l=$(grep -m 1 -E '^(pass|fail|unknown) on node ' "$1")
  case $2 in 0) w=pass ;; 1) w=fail ;; *) w=unknown ;; esac
  case $l in
    "$w on node $NODE "*) ok "$3: verdict line: $l" ;;
    *) fail "$3: exit $2 but the verdict line is: $l" ;;
  esac
}

spec Job || exit 1
spec DaemonSet || exit 1

# ---- 1. no etcd data dir on the node: UNKNOWN at once ----
mv "$E/member" "$E/member.away"
pod Job "$WORK/nomember.out"; wait "$POD"; rc=$?; POD=""
mv "$E/member.away" "$E/member"
[ $rc = 2 ] || fail "no member/: exit $rc, want 2"
first_line_ok "$WORK/nomember.out" $rc "no member/"

# ---- 1b. --help (in ETCD_FIO_ARGS): the help, exit 0, and no verdict line: a help is no PASS ----
pod Job "$WORK/help.out" "ETCD_FIO_ARGS=--help"; wait "$POD"; rc=$?; POD=""
if [ $rc = 0 ] && grep -q '^usage: etcd-fio check' "$WORK/help.out" && ! grep -qE '^(pass|fail|unknown) on node' "$WORK/help.out"; then
  ok "--help: the help of etcd-fio check, no verdict line"
else
  fail "--help: exit $rc: $(head -n 2 "$WORK/help.out")"
fi

# ---- 2. the Job, a full (short) check ----
TF=$H/var/lib/node_exporter/textfile_collector/etcd_fio.prom
pod Job "$WORK/job.out" "ETCD_FIO_ARGS='--max-time=8 --min-syncs=20 --accept-point-estimate'"; wait "$POD"; rc=$?; POD=""
echo "Job log:"; sed 's/^/    | /' "$WORK/job.out" | head -n 12
first_line_ok "$WORK/job.out" $rc "Job"
if [ -f "$TF" ]; then
  tv=$(sed -n 's/^etcd_fio_verdict{.*} \([0-9]\)$/\1/p' "$TF")
  [ "$tv" = "$rc" ] || fail "Job: textfile says etcd_fio_verdict $tv, the exit status is $rc"
  ok "Job: textfile $(basename "$TF"): etcd_fio_verdict $tv"
else
  fail "Job: no Prometheus textfile in the textfile hostPath"
fi
[ -z "$(privdirs)" ] || fail "Job: left in the etcd data dir: $(privdirs)"
unchanged "Job"

# ---- 3. SIGTERM to PID 1 mid-check: gone within the grace period, nothing left ----
for kind in Job DaemonSet; do
  . "$WORK/$kind.sh"
  # --full: no early decision, so the check is surely running when SIGTERM comes
  pod $kind "$WORK/term-$kind.out" "ETCD_FIO_ARGS='--full --max-time=60'"
  i=0
  while [ $i -lt 600 ] && ! ls "$E"/etcd-fio.*/0000000000000000-* > /dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
  [ $i -lt 600 ] || { fail "$kind: the check never started writing: $(head -n 3 "$WORK/term-$kind.out")"; }
  sleep 1
  init=$(pid1)
  t0=$(date +%s%N)
  [ -n "$init" ] && kill -TERM "$init"
  i=0
  while [ $i -lt $((GRACE * 10)) ] && kill -0 "$POD" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
  if kill -0 "$POD" 2>/dev/null; then
    fail "$kind: still running ${GRACE} s (terminationGracePeriodSeconds) after SIGTERM: SIGKILL, as the kubelet would"
    init=$(pid1); [ -n "$init" ] && kill -KILL "$init"
  fi
  wait "$POD"; rc=$?; POD=""
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  ok "$kind: SIGTERM to PID 1 -> pod gone after $ms ms (grace ${GRACE} s), exit $rc"
  # the Job exits with the check's status; the DaemonSet, stopped, with 0: compare with the line's own
  lrc=$(grep -m 1 -E '^(pass|fail|unknown) on node ' "$WORK/term-$kind.out" | sed -n 's/.*: exit \([0-9]*\).*/\1/p')
  [ $kind = Job ] && [ "$lrc" != "$rc" ] && fail "Job: exit $rc, but its verdict line says exit $lrc"
  first_line_ok "$WORK/term-$kind.out" "${lrc:-x}" "$kind after SIGTERM"
  grep -q "stopped by SIGTERM" "$WORK/term-$kind.out" || fail "$kind: the verdict line does not say it was stopped"
  [ -z "$(privdirs)" ] || { fail "$kind: private directory left after SIGTERM: $(privdirs)"; rm -rf "$E"/etcd-fio*; }
  unchanged "$kind SIGTERM"
done

finish it_k8s_run "it_k8s_run: manifests run as pods: verdict line, textfile, SIGTERM cleanup within the grace period"
