# SPDX-License-Identifier: MIT
# lib.sh — helpers shared by the bench scripts (sourced, not run): where things are, free loopback ports,
# starting/stopping one real etcd, and the one-line result records that report.py turns into the table.
# Everything started here is stopped by pid; nothing here asserts timings (numbers only go to output).

BENCH_DIR=${BENCH_DIR:-$(cd "$(dirname "$0")" && pwd)}
TOP=$(cd "$BENCH_DIR/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD="$TOP/$BUILD" ;; esac
FIO=${FIO:-fio}
ETCD_FIO=${ETCD_FIO:-$BUILD/etcd-fio}
ENGINE_SO=${ENGINE_SO:-$BUILD/libetcdwal.so}
PY=${PYTHON:-python3}
BUCKETS="$PY $BENCH_DIR/buckets.py"

bench_log() { echo "bench: $*" >&2; }

# Which etcd: ETCD=/path/to/etcd (e.g. an unpacked etcd-server .deb of another release, see
# etcd_fetch.sh) and ETCDCTL (default: the etcdctl beside ETCD, else the one on PATH). Both are put first
# on PATH through a directory of two symlinks under $BUILD/bench/etcd-path, so every script's `etcd`/`etcdctl` (also under
# taskset, timeout, chrt) is that one. ETCD_VERSION is the release it reports ("3.5.16").
if [ -n "${ETCD:-}" ]; then
  [ -x "$ETCD" ] || { echo "bench: ETCD=$ETCD is not an executable" >&2; exit 2; }
  case "$ETCD" in /*) ;; *) ETCD="$(pwd)/$ETCD" ;; esac
  if [ -z "${ETCDCTL:-}" ]; then
    ETCDCTL=$(dirname "$ETCD")/etcdctl
    [ -x "$ETCDCTL" ] || ETCDCTL=$(command -v etcdctl)
  fi
  case "$ETCDCTL" in /*) ;; *) ETCDCTL="$(pwd)/$ETCDCTL" ;; esac
  ETCD_BIN_DIR="$BUILD/bench/etcd-path/$(printf '%s %s' "$ETCD" "$ETCDCTL" | cksum | cut -d' ' -f1)"
  mkdir -p "$ETCD_BIN_DIR" && ln -sfn "$ETCD" "$ETCD_BIN_DIR/etcd" && ln -sfn "$ETCDCTL" "$ETCD_BIN_DIR/etcdctl" || exit 2
  PATH="$ETCD_BIN_DIR:$PATH"; export PATH
fi
ETCD_VERSION=$(etcd --version 2>/dev/null | sed -n 's/^etcd Version: *//p' | head -n1)

# Appends one record to $RESULTS (tab-separated: section, name, value, unit, note). report.py reads these.
bench_record() {
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" "${5:-}" >> "$RESULTS"
}

# Two free TCP ports on 127.0.0.1 (the kernel picks them; etcd binds right after, so a clash is unlikely).
bench_free_ports() {
  $PY -c 'import socket
s=[socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1",0))
print(*[x.getsockname()[1] for x in s])
for x in s: x.close()'
}

bench_scrape() { # URL FILE
  $PY -c 'import sys,urllib.request
open(sys.argv[2],"wb").write(urllib.request.urlopen(sys.argv[1],timeout=10).read())' "$1" "$2"
}

# etcd_start DATADIR LOGFILE: one member on loopback client+peer ports. Sets ETCD_PID, ETCD_EP.
# ETCD_WRAP (e.g. "taskset -c 0") is put before the command; it must exec etcd so that the pid is etcd's.
etcd_start() {
  set -- "$1" "$2" $(bench_free_ports)
  ETCD_EP="http://127.0.0.1:$3"
  ${ETCD_WRAP:-} etcd --name bench --data-dir "$1" \
    --listen-client-urls "$ETCD_EP" --advertise-client-urls "$ETCD_EP" \
    --listen-peer-urls "http://127.0.0.1:$4" --initial-advertise-peer-urls "http://127.0.0.1:$4" \
    --initial-cluster "bench=http://127.0.0.1:$4" --initial-cluster-state new \
    >"$2" 2>&1 &
  ETCD_PID=$!
  i=0
  while [ $i -lt 100 ]; do
    if $PY -c 'import sys,urllib.request
sys.exit(0 if b"true" in urllib.request.urlopen(sys.argv[1]+"/health",timeout=1).read() else 1)' "$ETCD_EP" 2>/dev/null; then
      return 0
    fi
    kill -0 "$ETCD_PID" 2>/dev/null || { bench_log "etcd exited at start; see $2"; ETCD_PID=""; return 1; }
    sleep 0.1; i=$((i + 1))
  done
  bench_log "etcd not healthy after 10 s; see $2"
  etcd_stop
  return 1
}

etcd_stop() {
  if [ -n "${ETCD_PID:-}" ]; then
    kill "$ETCD_PID" 2>/dev/null
    wait "$ETCD_PID" 2>/dev/null
    ETCD_PID=""
  fi
}

# etcd-fio verdict's overall word for a fio output (PASS, FAIL, UNKNOWN, ...), ERR when it gives none.
bench_verdict() {
  if [ ! -x "$ETCD_FIO" ]; then echo n/a; return; fi
  w=$("$ETCD_FIO" verdict "$@" 2>&1 | sed -n 's/^overall: *\([A-Za-z_-]*\).*/\1/p' | head -n1)
  echo "${w:-ERR}"
}

# The bucket verdict: p99 (ms, from buckets.py) against a limit in ms -> PASS/FAIL/"-".
bench_limit() {
  case "$1" in nan|"") echo "-" ;; *) $PY -c 'import sys; print("PASS" if float(sys.argv[1].lstrip(">"))<float(sys.argv[2]) and not sys.argv[1].startswith(">") else "FAIL")' "$1" "$2" ;; esac
}

# ---- a disk throttled to 60 write IOPS (time_to_verdict.sh, wal_only.sh; as tests/cli/it_check_throttled.sh):
# a 512 MiB ext4 image in DIR, loop-mounted at DIR/mnt, and a cgroup v1 blkio group CG whose processes'
# writes to it are throttled. Needs root, loop devices, mkfs.ext4 and blkio. ----
# bench_throttle DIR CG: sets THROTTLED_MNT (the mount point) and BENCH_WHY ("" when ready, else why not);
# bench_unthrottle DIR CG undoes whatever was set up (in the trap); bench_incg CG CMD… runs CMD in CG.
bench_throttle() {
  BENCH_WHY=""; BENCH_LOOP=""; THROTTLED_MNT="$1/mnt"
  [ "$(id -u)" = 0 ] || BENCH_WHY="not root"
  [ -z "$BENCH_WHY" ] && { [ -e /sys/fs/cgroup/blkio/blkio.throttle.write_iops_device ] || BENCH_WHY="no cgroup v1 blkio"; }
  [ -z "$BENCH_WHY" ] && { command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null || BENCH_WHY="no losetup/mkfs.ext4"; }
  if [ -z "$BENCH_WHY" ]; then
    truncate -s 512M "$1/disk.img"
    BENCH_LOOP=$(losetup -f --show "$1/disk.img") || { BENCH_LOOP=""; BENCH_WHY="no loop device"; }
  fi
  if [ -z "$BENCH_WHY" ]; then
    mkfs.ext4 -q -F "$BENCH_LOOP" >/dev/null 2>&1 && mkdir -p "$THROTTLED_MNT" && mount "$BENCH_LOOP" "$THROTTLED_MNT" &&
      mkdir "$2" && echo "$(lsblk -dno MAJ:MIN "$BENCH_LOOP" | tr -d ' ') 60" > "$2/blkio.throttle.write_iops_device" ||
      BENCH_WHY="setup failed"
  fi
}
bench_unthrottle() {
  mountpoint -q "$1/mnt" 2>/dev/null && umount "$1/mnt"
  [ -n "${BENCH_LOOP:-}" ] && losetup -d "$BENCH_LOOP" 2>/dev/null
  [ -d "$2" ] && rmdir "$2" 2>/dev/null
}
bench_incg() { sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$@"; }
