#!/bin/sh
# SPDX-License-Identifier: MIT
# fake-remote-etcd-fio.sh — what tests/cli/it_fleet_ssh.sh puts in the remote PATH as `etcd-fio` on the hosts that
# misbehave; its own sshd picks the behaviour per address (SetEnv FAKE=...). Never a real check.
case "${FAKE:-}" in
  old-option)  # an etcd-fio from before check --stop-on-eof, as its option parser says it
    echo "etcd-fio check: unknown or ambiguous option '--stop-on-eof' (see etcd-fio help check)" >&2; exit 2 ;;
  old-schema)
    printf '{"schema": 0, "command": "check", "verdict": "pass", "hosts": []}\n'; exit 0 ;;
  garbage)
    echo "Welcome to node!"; echo "Last login: never"; exit 0 ;;
  hang)        # answers nothing until its session closes
    while read -r _; do :; done; exit 0 ;;
  huge)        # more than fleet reads (1 MiB): stopped, never parsed
    head -c 3000000 /dev/zero | tr '\0' '{'; exit 0 ;;
  errflood)    # stderr without end
    while :; do echo "err err err err err err err err err err err err err err err err err err err err" >&2; done ;;
  dupkey)      # a key twice: a reader that keeps the last would see "pass"
    printf '{"schema": 1, "command": "check", "verdict": "fail", "verdict": "pass"}\n'; exit 0 ;;
  pass-no-numbers)
    printf '{"schema":1,"command":"check","tool_version":"9","fio_version":"fio-3.33","hostname":"n","timestamp":1,'
    printf '"verdict":"pass","exit_status":0,"basis":"bound","reason":"trust me \\u001b[2J","criteria":{"percentile":99,'
    printf '"wal_threshold_ns":10000000,"backend_threshold_ns":25000000,"min_samples":20,"confidence":0.95},"load":"s",'
    printf '"hosts":[{"host":"n","port":null,"dir":"/x","status":"judged","server_hostname":null,"fio_version":null,'
    printf '"verdict":"pass","basis":"bound","reason":"all good \\u001b]0;owned\\u0007","rollovers":null,"duration_s":1,'
    printf '"jobs":[]}],"details":{"run":{"seconds":1,"end":"ran-to-time"},"phases":{"decided_by":2,'
    printf '"phase1":null,"phase2":{"seconds":1,"end":"x"},"probe":null}},"explain":[]}\n'
    exit 0 ;;
  few-samples|below-floor)  # a check's result whose numbers cannot prove its PASS: an upper bound on the p99
               # from 100 samples (a bound needs 368 at 95 %), or a median of 1 us (no flush to a disk is that fast)
    if [ "$FAKE" = few-samples ]; then n=100; p50=200000; else n=1000; p50=1000; fi
    printf '{"schema":1,"command":"check","tool_version":"2.2.0","fio_version":"fio-3.33","hostname":"n",'
    printf '"timestamp":1,"verdict":"pass","exit_status":0,"basis":"bound","reason":"ok","criteria":{"percentile":99,'
    printf '"wal_threshold_ns":10000000,"backend_threshold_ns":25000000,"min_samples":20,"confidence":0.95},"load":"s",'
    printf '"hosts":[{"host":"n","port":null,"dir":"/x","status":"judged","server_hostname":null,'
    printf '"fio_version":"fio-3.33","verdict":"pass","basis":"bound","reason":"ok","rollovers":1,"duration_s":7,"jobs":['
    for r in "wal 2000000 10000000" "backend 5000000 25000000"; do
      set -- $r
      [ "$1" = backend ] && printf ','
      printf '{"name":"j-%s","source":"fio","run":1,"role":"%s","samples":%s,"p50_ns":%s,"p99_ns":%s,' "$1" "$1" "$n" "$p50" "$2"
      printf '"p99_9_ns":%s,"max_ns":%s,"judged_ns":%s,"bound_lo_ns":%s,"bound_hi_ns":%s,"threshold_ns":%s,' "$2" "$2" "$2" "$p50" "$2" "$3"
      printf '"verdict":"pass","reason":"fine"}'
    done
    printf ']}],"details":{"run":{"seconds":7,"end":"ran-to-time"},"phases":{"decided_by":2,'
    printf '"phase1":null,"phase2":{"seconds":7,"end":"ran-to-time"},"probe":null}},"explain":[]}\n'
    exit 0 ;;
  escapes)     # well-formed, numbers that can prove a PASS (p50 above the floor, an upper bound from enough
               # samples), and terminal escapes in every string it can
    E='\u001b[31m\u001b]0;owned\u0007'
    printf '{"schema":1,"command":"check","tool_version":"2.1.0","fio_version":"fio-3.33%s","hostname":"h%s",' "$E" "$E"
    printf '"timestamp":1,"verdict":"pass","exit_status":0,"basis":"bound","reason":"r%s","criteria":{"percentile":99,' "$E"
    printf '"wal_threshold_ns":10000000,"backend_threshold_ns":25000000,"min_samples":20,"confidence":0.95},"load":"s",'
    printf '"hosts":[{"host":"evil%s","port":null,"dir":"/x","status":"judged","server_hostname":null,' "$E"
    printf '"fio_version":"fio-3.33%s","verdict":"pass","basis":"bound","reason":"r%s","rollovers":1,"duration_s":7,"jobs":[' "$E" "$E"
    for j in "wal 1000 2000000 10000000" "backend 400 5000000 25000000"; do
      set -- $j
      [ "$1" = backend ] && printf ','
      printf '{"name":"job%s-%s","source":"fio","run":1,"role":"%s","samples":%s,"p50_ns":200000,"p99_ns":%s,' "$E" "$1" "$1" "$2" "$3"
      printf '"p99_9_ns":%s,"max_ns":%s,"judged_ns":%s,"bound_lo_ns":1000,"bound_hi_ns":%s,"threshold_ns":%s,' "$3" "$3" "$3" "$3" "$4"
      printf '"verdict":"pass","reason":"fine%s"}' "$E"
    done
    printf ']}],"details":{"run":{"seconds":7,"end":"ran-to-time"},"phases":{"decided_by":2,'
    printf '"phase1":null,"phase2":{"seconds":7,"end":"ran-to-time"},"probe":null}},"explain":[]}\n'
    exit 0 ;;
esac
echo "fake-remote-etcd-fio: FAKE='${FAKE:-}' unknown" >&2
exit 3
