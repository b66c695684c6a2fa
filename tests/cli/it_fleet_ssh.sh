#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: lock=ports
# it_fleet_ssh.sh — `etcd-fio fleet --ssh` through the real OpenSSH client against an sshd of the test's own
# (Debian openssh-server) on 127.0.0.2-127.0.0.18: a private host key, client keys, known_hosts and ssh_config
# (ssh -F), so nothing of this machine's ~/.ssh is used or changed (asserted). Per address, sshd's Match
# LocalAddress + SetEnv give each "node" its PATH: the build's etcd-fio (the real check), none, or
# tests/lib/fake-remote-etcd-fio.sh (FAKE=...). Asserted:
#  0. without sshd: check --stop-on-eof stops, cleans up and is interrupted when its stdin ends; the warning
#     for a non-loopback --client (once, and never for loopback); hostile host names and hosts-file lines;
#  1. one run judges three real checks (an alias, USER@alias, a ProxyJump host) from a hosts file and
#     re-proves each (the row is the remote's own numbers; the verdict agrees with them); beside them, each
#     unknown with its reason: unreachable, bad key, no etcd-fio, an older etcd-fio (no --stop-on-eof; JSON
#     schema 0), garbage, a key given twice, "pass" without numbers, 3 MB of output, a stderr flood; JSON
#     schema, promtool;
#  2. a host that never answers: timeout (--ssh-timeout 3), its session closed;
#  3. terminal escapes in every remote string reach neither the table nor stderr;
#  4. SIGINT to fleet mid-run: every host interrupted, no fio left, every DIR and remote TMPDIR empty;
#     SIGKILL of fleet mid-run: the same on the remote side (the session ends, check --stop-on-eof stops).
# Skipped (77) when sshd cannot run here (not root, no openssh-server).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
EF=$BUILD/etcd-fio
[ -x "$EF" ] && [ -e "$BUILD/libetcdwal.so" ] || { echo "FAIL: $EF or the engine not built"; exit 1; }
command -v "${FIO:-fio}" >/dev/null || { echo "skip: fio not installed"; exit 77; }
PY=python3
/usr/bin/python3 -c 'import json' 2>/dev/null && PY=/usr/bin/python3

tmp=$(mktemp -d /var/tmp/it_fleet_ssh.XXXXXX) || exit 1
chmod 755 "$tmp"
sshd_pid=""; bg=""; fails=0
. "$(dirname "$0")/../lib/assert.sh"
ours() {  # processes started for this test: their command line names $tmp (fio, checks, fakes, ssh); the
  # pattern is written so that grep's own command line does not match it
  grep -lsE "${tmp%.*}[.]${tmp##*.}" /proc/[0-9]*/cmdline 2>/dev/null | while IFS=/ read -r _ _ p _; do
    [ "$p" = $$ ] || [ "$p" = "$sshd_pid" ] || echo "$p"
  done
}
left_in() {  # what is left in these directories (nothing: "")
  find "$@" -mindepth 1 2>/dev/null
}
cleanup() {
  trap - EXIT INT TERM HUP PIPE
  for p in $bg; do kill "$p" 2>/dev/null; done
  [ -n "$sshd_pid" ] && sshd_stop
  left=$(ours)
  [ -n "$left" ] && kill $left 2>/dev/null
  i=0; while [ -n "$(ours)" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  left=$(ours); [ -n "$left" ] && kill -9 $left 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE
wait_for() {  # seconds, then a shell condition: polls it every 0.1 s
  n=$(($1 * 10)); shift; i=0
  while ! eval "$*"; do i=$((i + 1)); [ $i -ge $n ] && return 1; sleep 0.1; done
}
engine_dirs() { ls "$1" 2>/dev/null | grep -c '^etcd-fio\.'; }

# ---------- 0a. check --stop-on-eof: the end of stdin stops it like SIGINT, and it cleans up ----------
mkdir -p "$tmp/eof" "$tmp/eoft"
( while [ ! -e "$tmp/eof.go" ]; do sleep 0.1; done ) | TMPDIR=$tmp/eoft "$EF" check --json --stop-on-eof \
  --faithful --max-time 60 --accept-point-estimate "$tmp/eof" >"$tmp/eof.json" 2>"$tmp/eof.err" &
eofp=$!; bg="$eofp"
if wait_for 60 '[ "$(engine_dirs "$tmp/eof")" -ge 2 ]'; then
  touch "$tmp/eof.go"
  t0=$(date +%s); wait $eofp; rc=$?; t=$(( $(date +%s) - t0 ))
  end=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["verdict"], d["details"]["run"]["end"])' "$tmp/eof.json" 2>&1)
  [ $rc -eq 2 ] && [ "$end" = "unknown interrupted" ] && [ $t -le 20 ] && ok "stdin EOF stopped check in ${t} s: $end" \
    || fail "check --stop-on-eof: rc=$rc after ${t} s: $end $(cat "$tmp/eof.err")"
  [ -z "$(left_in "$tmp/eof" "$tmp/eoft")" ] && [ -z "$(ours)" ] && ok "nothing left after the EOF stop" \
    || fail "left after EOF: $(left_in "$tmp/eof" "$tmp/eoft") procs: $(ours)"
else
  fail "check --stop-on-eof: its fio never started ($(cat "$tmp/eof.err"))"; touch "$tmp/eof.go"; wait $eofp
fi
bg=""

# ---------- 0b. fio's server: a non-loopback --client is warned about once (no connection is made: the
# engine is missing, so fleet stops before it probes) ----------
err=$(ETCD_FIO_ENGINE=$tmp/none "$EF" fleet --client 192.0.2.10 --client 192.0.2.11,9000 --client 127.0.0.1 2>&1 >/dev/null)
n=$(printf '%s\n' "$err" | grep -c 'warning: .*not a loopback address.*exec_prerun.*ssh -L')
[ "$n" = 1 ] && ok "one warning for non-loopback fio servers" || fail "warning printed $n times: $err"
err=$(ETCD_FIO_ENGINE=$tmp/none "$EF" fleet --client 127.0.0.1 --client localhost,9000 --client ip6:::1 --client 127.3.4.5 2>&1 >/dev/null)
printf '%s\n' "$err" | grep -q warning && fail "warning for loopback servers: $err" || ok "no warning for loopback servers"

# ---------- 0c. hostile host names and hosts files: refused before anything runs ----------
for h in "-oProxyCommand=touch $tmp/pwned" "node;touch $tmp/pwned" 'node$(touch /tmp/x)' "node:/srv/a'b" \
         "node:relative" "-l" "us er@node" "[::1" "node:/a\`id\`"; do
  err=$("$EF" fleet --ssh "$h" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] && printf '%s\n' "$err" | grep -q "^etcd-fio fleet: --ssh: " || fail "--ssh '$h' not refused: rc=$rc $err"
done
[ -e "$tmp/pwned" ] && fail "a host name ran a command" || ok "hostile host names refused, nothing ran"
printf 'node-a # a comment\r\n\tnode-b:/srv/etcd\n\nnode c\n' > "$tmp/hosts.bad"
err=$("$EF" fleet --ssh-hosts "$tmp/hosts.bad" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ "$err" = "etcd-fio fleet: $tmp/hosts.bad:4: unexpected 'c' (expected [USER@]HOST[:DIR])" ] \
  && ok "hosts file: FILE:LINE for a bad line" || fail "hosts file: rc=$rc: $err"
printf 'node-a\nn\033[2Jx\n' > "$tmp/hosts.esc"
err=$("$EF" fleet --ssh-hosts "$tmp/hosts.esc" 2>&1 >/dev/null)
printf '%s' "$err" | grep -q "$(printf '\033')" && fail "an escape in a hosts file reached stderr" \
  || { printf '%s\n' "$err" | grep -q "hosts.esc:2: bad host" && ok "escape in a hosts file refused, not echoed"; } \
  || fail "hosts.esc: $err"

# ---------- the sshd (tests/lib/sshd_lib.sh) ----------
. "$top/tests/lib/sshd_lib.sh"
export COLUMNS=400 # the rows and reasons unwrapped, for the greps below (it_screens.sh holds 80 columns)
if ! sshd_usable; then
  [ $fails -eq 0 ] || { echo "it_fleet_ssh: $fails failure(s)"; exit 1; }
  echo "skip: the sshd part needs root and openssh-server/openssh-client (make deps-test)"; exit 77
fi
S=$tmp/ssh; mkdir -p "$tmp/rtmp" "$tmp/bin-real" "$tmp/bin-fake" "$tmp/bin-none"
chmod 1777 "$tmp/rtmp"
me=$(id -un); home=$(getent passwd "$me" | cut -d: -f6)
dot_before=$(ls -la --time-style=full-iso "$home/.ssh" 2>&1)
sshd_init "$S" 2 17 || { echo "FAIL: ssh-keygen"; exit 1; }
P=$SSHD_PORT
cp "$S/other.pub" "$S/other_keys"
ln -s "$EF" "$tmp/bin-real/etcd-fio"
cp "$top/tests/lib/fake-remote-etcd-fio.sh" "$tmp/bin-fake/etcd-fio"; chmod 755 "$tmp/bin-fake/etcd-fio"
envs="TMPDIR=$tmp/rtmp"   # the remote checks' temp dirs: asserted empty afterwards
for v in FIO ASAN_OPTIONS UBSAN_OPTIONS; do eval "x=\${$v:-}"; [ -n "$x" ] && envs="$envs $v=$x"; done
PATHS="/usr/local/bin:/usr/bin:/bin"
# per address: 2-5 the real etcd-fio, 6 none, 7-16 fakes, 17 a key it does not know, 18 nobody (sshd listens
# on at most 16 addresses)
for n in 2 3 4 5; do sshd_env $n "$tmp/bin-real:$PATHS" "$envs"; done
sshd_env 6 "$tmp/bin-none:$PATHS" "$envs"
fakes="old-option old-schema garbage hang huge errflood dupkey pass-no-numbers escapes few-samples"
n=7; for m in $fakes; do sshd_env $n "$tmp/bin-fake:$PATHS" FAKE=$m "$envs"; sshd_alias $m $n; n=$((n + 1)); done
printf 'Match LocalAddress 127.0.0.17\n  AuthorizedKeysFile %s\n' "$S/other_keys" >> "$S/sshd_config"
sshd_alias node-a 2; sshd_alias node-b 3; sshd_alias node-j 4; echo "  ProxyJump node-a" >> "$S/config"
sshd_alias node-k 5; sshd_alias no-etcd-fio 6; sshd_alias bad-key 17; sshd_alias down 18
sshd_start || { echo "skip: sshd cannot run here: $(cat "$S/sshd-t.err" "$S/sshd.log" 2>/dev/null)"; exit 77; }
sshd_pid=$SSHD_PID
SSHF="--ssh-config $S/config"
mkdir -p "$tmp/da" "$tmp/db" "$tmp/dj" "$tmp/keep"

# ---------- 1. one run: three real checks beside every kind of unknown ----------
printf '# the real nodes\r\nnode-a:%s\r\n\t%s@node-b:%s   # USER@alias\n\nnode-j:%s\n' "$tmp/da" "$me" "$tmp/db" "$tmp/dj" > "$tmp/hosts"
"$EF" fleet $SSHF --ssh-hosts "$tmp/hosts" --ssh down --ssh bad-key --ssh no-etcd-fio:/x --ssh old-option \
  --ssh old-schema --ssh garbage --ssh dupkey --ssh pass-no-numbers --ssh huge --ssh errflood \
  --ssh few-samples \
  --faithful --max-time 7 --min-syncs 20 --accept-point-estimate --json --prometheus "$tmp/fleet.prom" \
  --keep-output "$tmp/keep" >"$tmp/fleet.json" 2>"$tmp/fleet.err" &
f1=$!; bg="$f1"
# ---------- 2. (beside it) a host that never answers ----------
"$EF" fleet $SSHF --ssh hang --max-time 7 --min-syncs 20 --accept-point-estimate --ssh-timeout 3 --json \
  >"$tmp/hang.json" 2>"$tmp/hang.err" &
f2=$!; bg="$bg $f2"
# ---------- 3. (beside it) terminal escapes ----------
"$EF" fleet $SSHF --ssh escapes --ssh pass-no-numbers --max-time 7 --min-syncs 20 --accept-point-estimate \
  >"$tmp/esc.out" 2>"$tmp/esc.err"; rc=$?
if grep -q "$(printf '\033')" "$tmp/esc.out" "$tmp/esc.err"; then fail "an escape sequence from a remote reached the output"
elif [ $rc -eq 2 ] && grep -q 'escapes .*job?\[31m?\]0;owned?-wal .*pass' "$tmp/esc.out" \
     && grep -q 'pass-no-numbers: unknown (unproven)\|unproven: .*0 WAL and 0 backend jobs' "$tmp/esc.out"; then
  ok "escapes shown as '?', a pass without numbers unproven"
else fail "escape run (rc $rc): $(cat "$tmp/esc.out" "$tmp/esc.err")"; fi
t0=$(date +%s); wait $f2; rc=$?; t=$(( $(date +%s) - t0 ))
st=$("$PY" -c 'import json,sys; h=json.load(open(sys.argv[1]))["hosts"][0]; print(h["status"], h["reason"])' "$tmp/hang.json" 2>&1)
case "$rc $st" in "2 timeout no result within 3 s"*) ok "timeout: $st" ;; *) fail "hang host: rc=$rc $st $(cat "$tmp/hang.err")" ;; esac
wait $f1; rc=$?; bg=""
echo "fleet run 1: exit $rc"; cat "$tmp/fleet.err"
ME=$me TMPD=$tmp RC=$rc "$PY" - "$tmp/fleet.json" "$tmp/keep" "$tmp/fleet.prom" <<'EOF' || fails=$((fails + 1))
import json, os, sys, glob
fleet = json.load(open(sys.argv[1]))
keep, prom = sys.argv[2], open(sys.argv[3]).read().splitlines()
me, t, rc = os.environ['ME'], os.environ['TMPD'], int(os.environ['RC'])
bad = []
def check(cond, msg):
    print(('ok: ' if cond else 'FAIL: ') + msg)
    cond or bad.append(msg)
hosts = {h['host']: h for h in fleet['hosts']}
want_unknown = {
    'down': ('unreachable', 'Connection refused'),
    'bad-key': ('ssh-failed', 'Permission denied (publickey)'),
    'no-etcd-fio': ('no-etcd-fio', 'etcd-fio'),
    'old-option': ('etcd-fio-version', 'no --stop-on-eof'),
    'old-schema': ('etcd-fio-version', 'writes JSON schema 0, this one reads 1'),
    'garbage': ('bad-output', 'Welcome to node!'),
    'dupkey': ('bad-output', 'key "verdict" given twice'),
    'pass-no-numbers': ('unproven', '0 WAL and 0 backend jobs'),
    'few-samples': ('unproven', 'an upper bound on the p99 from 100 samples, which cannot give one with 95 % confidence (that needs 368)'),
    'huge': ('bad-output', 'more than 1 MiB on stdout'),
    'errflood': ('bad-output', 'or 16 MiB on stderr'),
}
real = {'node-a': t + '/da', me + '@node-b': t + '/db', 'node-j': t + '/dj'}
check(set(hosts) == set(want_unknown) | set(real), 'one row per host: %s' % sorted(hosts))
for name, (status, text) in want_unknown.items():
    h = hosts.get(name, {})
    check(h.get('verdict') == 'unknown' and h.get('status') == status and text in h.get('reason', '') and
          '\n' not in h.get('reason', ''), '%s: unknown, %s: %s' % (name, status, h.get('reason')))
kept = {}
for f in glob.glob(keep + '/ssh-*.host'):
    kept[open(f).read().strip().split(':')[0]] = f[:-5] + '.json'
for name, d in real.items():
    h = hosts.get(name, {})
    check(h.get('status') == 'judged' and h.get('dir') == d, '%s judged, in %s (%s: %s)' % (name, d, h.get('status'), h.get('reason')))
    r = json.load(open(kept[name]))          # the remote's own JSON, as it came
    rh = r['hosts'][0]
    check(r['criteria']['min_samples'] == 20 and r['load'] == 's' and rh['dir'] == d, '%s ran with the criteria sent' % name)
    for role in ('wal', 'backend'):
        j = [x for x in h['jobs'] if x['role'] == role][0]
        rj = [x for x in rh['jobs'] if x['role'] == role][0]
        same = all(j[k] == rj[k] for k in ('samples', 'p50_ns', 'p99_ns', 'max_ns', 'judged_ns', 'bound_lo_ns', 'bound_hi_ns', 'threshold_ns'))
        check(same, '%s %s: the row is the remote\'s numbers (p99 %s, %s samples)' % (name, role, j['p99_ns'], j['samples']))
    if rh['verdict'] in ('pass', 'fail'):
        check(h['verdict'] == rh['verdict'], '%s: %s, as its numbers prove (remote: %s)' % (name, h['verdict'], rh['verdict']))
        for j in h['jobs']:
            if j['verdict'] in ('pass', 'fail'):
                check((j['judged_ns'] < j['threshold_ns']) == (j['verdict'] == 'pass'), '%s %s verdict on the right side' % (name, j['role']))
    else:
        check(h['verdict'] == 'unknown', '%s: unknown like the remote' % name)
rank = {'fail': 0, 'unknown': 1, 'pass': 2}
order = [rank[h['verdict']] for h in fleet['hosts']]
check(order == sorted(order), 'worst host first')
check(fleet['verdict'] in ('fail', 'unknown') and rc == {'fail': 1, 'unknown': 2}[fleet['verdict']], 'overall %s, exit %d' % (fleet['verdict'], rc))
code = {'pass': 0, 'fail': 1, 'unknown': 2}
for name, h in hosts.items():
    line = 'etcd_fio_verdict{host="%s",dir="%s",basis="%s"} %d' % (name, h['dir'], h['basis'], code[h['verdict']])
    check(line in prom, 'prometheus: ' + line)
sys.exit(1 if bad else 0)
EOF
/usr/bin/python3 "$top/tests/lib/validate_json.py" "$tmp/fleet.json" "$tmp/hang.json" && ok "JSON matches the schema" || fail "JSON schema"
promtool check metrics < "$tmp/fleet.prom" && ok "promtool check metrics" || fail "promtool"
wait_for 30 '[ -z "$(ours)" ]' || fail "processes left after run 1: $(ours)"
[ -z "$(left_in "$tmp/da" "$tmp/db" "$tmp/dj" "$tmp/rtmp")" ] && ok "run 1 left no file in any DIR or remote TMPDIR" \
  || fail "left: $(left_in "$tmp/da" "$tmp/db" "$tmp/dj" "$tmp/rtmp")"

# ---------- 4. SIGINT and SIGKILL of fleet mid-run (two runs at once, four remote checks) ----------
mkdir -p "$tmp/ia" "$tmp/ib" "$tmp/ka" "$tmp/kb"
"$EF" fleet $SSHF --ssh node-a:$tmp/ia --ssh node-b:$tmp/ib --faithful --full --max-time 60 --accept-point-estimate \
  --json >"$tmp/int.json" 2>"$tmp/int.err" &
fi=$!
"$EF" fleet $SSHF --ssh node-k:$tmp/ka --ssh node-j:$tmp/kb --faithful --full --max-time 60 --accept-point-estimate \
  --json >"$tmp/kill.json" 2>"$tmp/kill.err" &
fk=$!; bg="$fi $fk"
if wait_for 60 '[ "$(engine_dirs "$tmp/ia")$(engine_dirs "$tmp/ib")$(engine_dirs "$tmp/ka")$(engine_dirs "$tmp/kb")" = 2222 ]'; then
  kill -INT $fi; kill -KILL $fk
  wait $fi; rc=$?
  "$PY" - "$tmp/int.json" $rc <<'EOF' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
st = [(h['host'], h['status'], h['verdict']) for h in d['hosts']]
good = int(sys.argv[2]) == 2 and d['verdict'] == 'unknown' and len(st) == 2 and all(s == 'interrupted' and v == 'unknown' for _, s, v in st)
print(('ok: ' if good else 'FAIL: ') + 'SIGINT: exit %s, %s' % (sys.argv[2], st))
sys.exit(0 if good else 1)
EOF
  wait $fk 2>/dev/null; bg=""
  if wait_for 40 '[ -z "$(ours)" ] && [ -z "$(left_in "$tmp/ia" "$tmp/ib" "$tmp/ka" "$tmp/kb" "$tmp/rtmp")" ]'; then
    ok "after SIGINT and SIGKILL: no fio or check left, every DIR and remote TMPDIR empty"
  else
    fail "left after SIGINT/SIGKILL: procs $(ours); files $(left_in "$tmp/ia" "$tmp/ib" "$tmp/ka" "$tmp/kb" "$tmp/rtmp")"
  fi
else
  fail "the remote checks did not all start: $(cat "$tmp/int.err" "$tmp/kill.err")"
fi

dot_after=$(ls -la --time-style=full-iso "$home/.ssh" 2>&1)
[ "$dot_before" = "$dot_after" ] && ok "$home/.ssh untouched" || fail "$home/.ssh changed: $dot_before -> $dot_after"
finish it_fleet_ssh
