#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: lock=ports
# it_kill_server.sh — a job process SIGKILLed (as the OOM killer does) while a `fio --server` on 127.0.0.1
# runs our jobs for a client (the way `etcd-fio fleet --client` runs them): when the client has returned,
# nothing of ours is left in DIR. fio's server runs the jobs in a process that ends with _exit (server.c
# handle_run_cmd), so the engine's destructor (lifeline.h life_end) never runs there: the killed job's
# directory, its lock free, must go with a sibling job's cleanup. Without that it stays until the next run.
# A directory with our name that we did not make stays. ~6 s.
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE"
command -v "$FIO" >/dev/null || { echo "skip: fio not installed"; exit 77; }
tmp=$(mktemp -d /var/tmp/it_kill_server.XXXXXX) || exit 1
pids=""
cleanup() {
  trap - EXIT INT TERM HUP PIPE
  [ -n "${cl:-}" ] && kill "$cl" 2>/dev/null
  # shellcheck disable=SC2086
  stop_pids $pids $(kids)
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

PORT=$(free_port $((20000 + $$ % 20000)))
SRV=$tmp/fio-server
fio_server_wrapper "$SRV"
"$SRV" --server=ip:127.0.0.1,$PORT > "$tmp/srv.log" 2>&1 &
pids=$!
wait_listen "$PORT"
d=$tmp/dir
mkdir -p "$d/etcd-fio.99999.etcd-wal.tmp-abcdef"
# the WAL job is killed; the backend job runs on 2 s longer and ends normally
cat > "$tmp/job.fio" <<EOF
[global]
ioengine=external:$ENGINE
directory=$d
time_based=1
[etcd-wal]
rw=write
bs=2300
size=1g
fdatasync=1
runtime=2
[etcd-backend]
etcd_mode=backend
rw=write
bs=4096
size=1g
runtime=4
EOF
"$FIO" --client=127.0.0.1,$PORT "$tmp/job.fio" > "$tmp/client.out" 2>&1 & cl=$!
i=0
while [ $i -lt 300 ] && ! ls "$d" | grep -Eq '^etcd-fio\.[0-9]+\.etcd-wal\.0$'; do sleep 0.02; i=$((i + 1)); done
job=$(ls "$d" | sed -n 's/^etcd-fio\.\([0-9]*\)\.etcd-wal\.0$/\1/p' | head -n1)
[ -n "$job" ] || { echo "FAIL: no WAL job directory appeared"; cat "$tmp/client.out" "$tmp/srv.log"; exit 1; }
sleep 0.5
kill -KILL "$job"
wait $cl
cl=""
wait_kids
left=$(ls -A "$d" | grep -vxF etcd-fio.99999.etcd-wal.tmp-abcdef)
[ -d "$d/etcd-fio.99999.etcd-wal.tmp-abcdef" ] || { echo "FAIL: the planted directory (not ours) was removed"; exit 1; }
if [ -n "$left" ]; then
  echo "FAIL: a job SIGKILLed under fio --server left in DIR after the run: $(echo $left)"
  exit 1
fi
echo "kill: a job SIGKILLed under fio --server: DIR clean when the client returns"
