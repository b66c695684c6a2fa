# SPDX-License-Identifier: MIT
# gen-fixtures-lib.sh — what the fixture scripts (tests/gen/gen-fixtures*.sh) share; sourced after they set FIO,
# OUT (where the outputs go) and WORK (their scratch directory, removed at the end). fio's output kept as an
# operator saves it (fx_run, fx_start), a fio server on loopback for client/server outputs (fx_server_start,
# fx_server_stop, fx_client_job) and the cleanup on exit or signal (fx_trap: the server, WORK and FX_RM).
# The tests never run these scripts: they read the committed outputs.
SERVER_PID=""

fx_cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  # shellcheck disable=SC2086
  rm -rf "$WORK" ${FX_RM:-}
}

fx_trap() { trap fx_cleanup EXIT INT TERM; }

# fx_run MODE OUTFILE FIO-ARGS...: fio to its end into $OUT/OUTFILE. MODE text: stdout and stderr (2>&1);
# json: stdout only, stderr apart (as `fio --output-format=json > f` keeps it). Fails as fio fails.
fx_run() {
  fx_m=$1; fx_f=$2; shift 2
  if [ "$fx_m" = json ]; then "$FIO" "$@" > "$OUT/$fx_f" 2> "$WORK/stderr"; else "$FIO" "$@" > "$OUT/$fx_f" 2>&1; fi
}

# fx_start MODE OUTFILE FIO-ARGS...: the same in the background (to be signalled); its pid in FX_PID.
fx_start() {
  fx_m=$1; fx_f=$2; shift 2
  if [ "$fx_m" = json ]; then "$FIO" "$@" > "$OUT/$fx_f" 2> "$WORK/stderr" & else "$FIO" "$@" > "$OUT/$fx_f" 2>&1 & fi
  FX_PID=$!
}

# fx_server_start PORT: a fio server on 127.0.0.1:PORT (log in $WORK/server.log), given a second to listen.
fx_server_start() {
  "$FIO" --server=ip:127.0.0.1,"$1" > "$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  sleep 1
}

fx_server_stop() {
  kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

# fx_client_job SIZE: the classic job (rw=write ioengine=sync fdatasync=1 bs=2300) of SIZE in $WORK, as the
# job file $WORK/client.fio: fio's client sends job files to the server; command-line jobs stay local.
fx_client_job() {
  cat > "$WORK/client.fio" <<JOB
[mytest]
directory=$WORK
rw=write
ioengine=sync
fdatasync=1
bs=2300
size=$1
JOB
}
