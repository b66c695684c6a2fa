#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-fixtures-ends.sh — real fio outputs of runs that did not end normally, and of syncs that never reached
# a disk (issues 25, 26, 21), made with the fio given (default: the installed one) into tests/fixtures/fio/.
# The tests read the committed files and never run this script (outputs vary run to run, and it sleeps to
# let fio run a few seconds before it is signalled). Rerun by hand, then re-check the values asserted in
# tests/libreport/test_run_end.c, tests/cli/it_verdict.sh and tests/cli/it_compare.sh:
#     sh tests/gen/gen-fixtures-ends.sh              # needs fio, /dev/shm and a free TCP port (client/server)
#     SECTIONS="names" sh tests/gen/gen-fixtures-ends.sh   # some sections only: ends samples late client names hand
# Each healthy twin is the same job run to its end, so that the tests show the rule only takes away what
# it must. The classic job throughout: rw=write ioengine=sync fdatasync=1 bs=2300 in a /tmp directory.
set -eu
FIO=${FIO:-fio}
OUT=$(cd "$(dirname "$0")/.." && pwd)/fixtures/fio
PORT=${FIXTURE_PORT:-18766}
WORK=$(mktemp -d /tmp/etcd-fio-ends.XXXXXX)
SHM=$(mktemp -d /dev/shm/etcd-fio-ends.XXXXXX)
FX_RM=$SHM
. "$(dirname "$0")/gen-fixtures-lib.sh"
fx_trap
V=$($FIO --version)
C="--name=mytest --directory=$WORK --rw=write --ioengine=sync --fdatasync=1 --bs=2300"

SECTIONS=${SECTIONS:-ends samples late client names hand}
want() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }

clean() { rm -f "$WORK"/mytest.* "$WORK"/grp.* "$WORK"/fio* "$SHM"/mytest.*; }

run() { # OUTFILE FIO-ARGS... : stdout and stderr as an operator saves them (2>&1)
  f=$1; shift
  fx_run text "$f" "$@" || true
  clean; echo "wrote $f"
}

run_json() { # OUTFILE FIO-ARGS... : stdout only (stderr apart), as `fio --output-format=json > f` keeps it
  f=$1; shift
  fx_run json "$f" "$@" || true
  clean; echo "wrote $f"
}

signal_after() { # OUTFILE SIGNAL SECONDS MODE FIO-ARGS... : fio signalled after SECONDS; MODE text (2>&1) or json
  f=$1; sig=$2; s=$3; mode=$4; shift 4
  fx_start "$mode" "$f" "$@"
  p=$FX_PID
  sleep "$s"; kids=$(pgrep -P "$p" fio || true); kill "-$sig" "$p"; wait "$p" || true
  # a SIGKILLed fio leaves its job processes writing on: they go too (by pid)
  [ "$sig" = KILL ] && for c in $kids; do kill -KILL "$c" 2>/dev/null || true; done
  clean; echo "wrote $f (SIG$sig after $s s)"
}

job_killed_after() { # OUTFILE SECONDS MODE FIO-ARGS... : the job processes (fio's children) SIGKILLed
  f=$1; s=$2; mode=$3; shift 3
  fx_start "$mode" "$f" "$@"
  p=$FX_PID
  sleep "$s"; for c in $(pgrep -P "$p" fio); do kill -KILL "$c"; done; wait "$p" || true
  clean; echo "wrote $f (job processes killed after $s s)"
}

# ---- issue 25: runs fio did not finish, and their complete twins ----
if want ends; then
signal_after "$V-sigint.json"        INT 3 json $C --size=100m --output-format=json
signal_after "$V-sigint-jsonplus.json" INT 3 json $C --size=100m --output-format=json+
signal_after "$V-sigint.txt"         INT 3 text $C --size=100m
signal_after "$V-sigint-normal-json.txt" INT 3 text $C --size=100m --output-format=normal,json
signal_after "$V-sigterm.json"       TERM 3 json $C --size=100m --output-format=json
# timeout(1) sends SIGTERM, as `timeout 60 fio …` in a script does
timeout 3 $FIO $C --size=100m > "$OUT/$V-timeout.txt" 2>&1 || true; clean; echo "wrote $V-timeout.txt"
signal_after "$V-time-based-cut.json" INT 3 json $C --size=100m --runtime=30 --time_based --output-format=json
run_json "$V-time-based.json"        $C --size=100m --runtime=2 --time_based --output-format=json
run_json "$V-io-size.json"           $C --size=100m --io_size=3m --output-format=json
signal_after "$V-io-size-cut.json"   INT 3 json $C --size=10m --io_size=100m --output-format=json
# status-interval streams: fio killed (no final document) and interrupted (the final one after the line)
signal_after "$V-status-kill.json"   KILL 3.5 json $C --size=100m --runtime=30 --time_based --status-interval=1 \
    --output-format=json
signal_after "$V-status-kill.txt"    KILL 3.5 text $C --size=100m --runtime=30 --time_based --status-interval=1
signal_after "$V-status-sigint.json" INT 3.5 json $C --size=100m --runtime=30 --time_based --status-interval=1 \
    --output-format=json
fi
if want ends || want status-text; then
signal_after "$V-status-sigint.txt"  INT 3.5 text $C --size=100m --runtime=30 --time_based --status-interval=1

fi

# ---- issue 26: what made the sync samples ----
if want samples || want null; then
run "$V-null.txt"                    --name=mytest --directory="$WORK" --rw=write --ioengine=null --fdatasync=1 \
    --bs=2300 --size=4m
run_json "$V-null.json"              --name=mytest --directory="$WORK" --rw=write --ioengine=null --fdatasync=1 \
    --bs=2300 --size=4m --output-format=json
fi
if want samples; then
run "$V-sfr.txt"                     --name=mytest --directory="$WORK" --rw=write --ioengine=sync \
    --sync_file_range=write --bs=2300 --size=2m
run_json "$V-sfr.json"               --name=mytest --directory="$WORK" --rw=write --ioengine=sync \
    --sync_file_range=write --bs=2300 --size=2m --output-format=json
run "$V-osync.txt"                   --name=mytest --directory="$WORK" --rw=write --ioengine=sync --fdatasync=1 \
    --sync=1 --bs=8m --size=1g
run_json "$V-osync.json"             --name=mytest --directory="$WORK" --rw=write --ioengine=sync --fdatasync=1 \
    --sync=1 --bs=8m --size=1g --output-format=json
run_json "$V-odsync.json"            --name=mytest --directory="$WORK" --rw=write --ioengine=sync --fdatasync=1 \
    --sync=dsync --bs=8m --size=1g --output-format=json
run_json "$V-bs8m.json"              --name=mytest --directory="$WORK" --rw=write --ioengine=sync --fdatasync=1 \
    --bs=8m --size=1g --output-format=json
job_killed_after "$V-job-killed.json" 2 json $C --size=100m --output-format=json
job_killed_after "$V-job-killed.txt"  2 text $C --size=100m
job_killed_after "$V-job-killed-group.json" 2 json --name=grp --directory="$WORK" --rw=write --ioengine=sync \
    --fdatasync=1 --bs=2300 --size=100m --numjobs=2 --group_reporting --output-format=json
job_killed_after "$V-job-killed-group.txt" 2 text --name=grp --directory="$WORK" --rw=write --ioengine=sync \
    --fdatasync=1 --bs=2300 --size=100m --numjobs=2 --group_reporting
run "$V-shm.txt"                     --name=mytest --directory="$SHM" --rw=write --ioengine=sync --fdatasync=1 \
    --bs=2300 --size=4m
run_json "$V-shm.json"               --name=mytest --directory="$SHM" --rw=write --ioengine=sync --fdatasync=1 \
    --bs=2300 --size=4m --output-format=json
run "$V-end-fsync.txt"               --name=mytest --directory="$WORK" --rw=write --ioengine=sync --end_fsync=1 \
    --bs=2300 --size=2m
run_json "$V-end-fsync.json"         --name=mytest --directory="$WORK" --rw=write --ioengine=sync --end_fsync=1 \
    --bs=2300 --size=2m --output-format=json

fi

# ---- a job process killed after interim reports, with no size of its own (the file's size stands in) ----
# Interim reports (--status-interval, SIGUSR1) fill in io_bytes and job_runtime, so the signs of job-killed
# above are gone; what is left is a read/write runtime of 0 beside bytes (run_end.c). And SIGINT in the last
# 1 % of a runtime: fio stopped, not ended.
if want late; then
late_killed() { # OUTFILE SECONDS MODE USR1-AT FIO-ARGS...: a 200 MiB file laid out first; fio's job processes
  f=$1; s=$2; mode=$3; usr1=$4; shift 4  # SIGKILLed after SECONDS; USR1-AT > 0: fio gets SIGUSR1 then
  $FIO --name=lay --filename="$WORK/pre.dat" --rw=write --bs=1m --size=200m > /dev/null 2>&1
  fx_start "$mode" "$f" "$@"
  p=$FX_PID
  if [ "$usr1" != 0 ]; then sleep "$usr1"; kill -USR1 "$p"; fi
  sleep "$s"; for c in $(pgrep -P "$p" fio); do kill -KILL "$c"; done; wait "$p" || true
  rm -f "$WORK/pre.dat"; clean; echo "wrote $f (job processes killed)"
}
L="--name=t --filename=$WORK/pre.dat --rw=write --ioengine=sync --fdatasync=1 --bs=2300"
late_killed "$V-status-job-killed-nosize.json" 3 json 0 $L --status-interval=1 --output-format=json
late_killed "$V-usr1-job-killed-nosize.json" 1.2 json 1 $L --output-format=json
late_killed "$V-usr1-job-killed-nosize.txt" 1.2 text 1 $L
signal_after "$V-sigint-near-runtime.json" INT 2.93 json $C --size=100m --runtime=3 --output-format=json
fi

leaves() { # PID: the fio processes below PID that have no fio child (the job processes)
  for c in $(pgrep -P "$1" fio); do
    if pgrep -P "$c" fio > /dev/null; then leaves "$c"; else echo "$c"; fi
  done
}

# client/server on loopback: the server's job process killed; the client exits 0 and says nothing
if want client; then
fx_server_start "$PORT"
fx_client_job 100m
for mode in json text; do
  f="$V-client-job-killed.$( [ "$mode" = json ] && echo json || echo txt)"
  if [ "$mode" = json ]; then
    fx_start json "$f" --client=ip:127.0.0.1,$PORT --output-format=json "$WORK/client.fio"
  else
    fx_start text "$f" --client=ip:127.0.0.1,$PORT "$WORK/client.fio"
  fi
  p=$FX_PID
  sleep 2
  # the server forks a process per connection, and that one the backend and its job: kill the leaves
  leaves "$SERVER_PID" | while read -r g; do kill -KILL "$g"; done
  wait "$p" || true
  clean; echo "wrote $f"
done
fx_server_stop
fi

# ---- jobs named like fio's own lines: they are jobs, not a signal or a dead process ----
if want names; then
run "$V-name-signal.txt" --name="fio: terminating on signal 2" --directory="$WORK" --rw=write --ioengine=sync \
    --fdatasync=1 --bs=2300 --size=2m
run_json "$V-name-signal.json" --name="fio: terminating on signal 2" --directory="$WORK" --rw=write \
    --ioengine=sync --fdatasync=1 --bs=2300 --size=2m --output-format=json
run "$V-name-got-signal.txt" --name="fio: pid=1, got signal=9" --directory="$WORK" --rw=write --ioengine=sync \
    --fdatasync=1 --bs=2300 --size=2m
rm -f "$WORK"/fio*
fi

# ---- hand-made from the committed fio 3.7 outputs (no fio older than 3.4 is built here): what fio before
# 3.4 prints for an fsync=1 job, which it never timed (stat.c had no DDIR_SYNC statistics): no "sync"
# object in the JSON, no sync section and the three-number "issued rwt:" in normal output ----
if want hand; then
F37=$(cd "$(dirname "$0")/.." && pwd)/fixtures/fio-3.7
sed -e 's/"fio version" : "fio-3.7"/"fio version" : "fio-3.1"/' -e '/^      "sync" : {/,/^      },/d' \
    "$F37/fsync.json" > "$OUT/hand-fio-3.1-fsync.json"
sed -e 's/^fio-3.7$/fio-2.2.10/' -e '/fsync\/fdatasync\/sync_file_range:/,/^  cpu/{/^  cpu/!d}' \
    -e 's/issued rwts: total=\([0-9]*\),\([0-9]*\),\([0-9]*\),[0-9]* short=\([0-9]*\),\([0-9]*\),\([0-9]*\),[0-9]*/issued rwt: total=\1,\2,\3 short=\4,\5,\6/' \
    "$F37/fsync.txt" > "$OUT/hand-fio-2.2.10-fsync.txt"
echo "wrote hand-fio-3.1-fsync.json hand-fio-2.2.10-fsync.txt"
fi
