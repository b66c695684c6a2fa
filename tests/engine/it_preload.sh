#!/bin/sh
# SPDX-License-Identifier: MIT
# it_preload.sh — syncs that cannot be intercepted, with Debian's real eatmydata (an LD_PRELOAD library that
# turns fsync/fdatasync into no-ops): (1) under eatmydata fio's own sync engine issues no fdatasync at all
# (eatmydata works here) while our engine's fdatasyncs still reach the kernel, one per Save (strace);
# (2) `eatmydata etcd-fio check` is refused before fio starts, naming the library, nothing left in DIR;
# (3) /etc/ld.so.preload naming it (in a private mount namespace, root only) is refused the same way;
# (4) LD_PRELOAD set only for fio by a wrapper script (check cannot see it before the run): the engine
# inside fio reports it, the result is unknown with status "refused", exit 2; (5) with --force the run is
# judged and the result says what was forced.
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE" "$CLI"
command -v eatmydata >/dev/null 2>&1 || { echo "skip: eatmydata not installed (mk/deps.sh test)"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "skip: jq not installed"; exit 77; }
EMD=$(dpkg -L libeatmydata1 2>/dev/null | grep '/libeatmydata\.so$' | head -n 1)
[ -n "$EMD" ] || EMD=libeatmydata.so
# eatmydata around an ASan-built etcd-fio (make check-asan) loads before the ASan runtime: allowed here
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
WORK=$(mktemp -d "$TOP/$BUILD/it_preload.XXXXXX" 2>/dev/null || mktemp -d /var/tmp/it_preload.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
SHORT="--faithful --max-time 7 --min-syncs 20 --accept-point-estimate"

# 1. strace counts the fdatasync system calls: fio's sync engine has none under eatmydata, ours one per Save
if command -v strace >/dev/null 2>&1; then
  mkdir -p "$WORK/s1" "$WORK/s2"
  eatmydata strace -f -qq -e trace=fdatasync -o "$WORK/sync.st" "$FIO" --name=plain --directory="$WORK/s1" \
    --ioengine=sync --rw=write --bs=4k --size=64k --fdatasync=1 > /dev/null 2>&1
  n=$(grep -c 'fdatasync(' "$WORK/sync.st")
  [ "$n" -eq 0 ] || fail "eatmydata did not remove fio's own fdatasyncs ($n seen): the test proves nothing here"
  eatmydata strace -f -qq -e trace=fdatasync -o "$WORK/eng.st" "$FIO" --name=wal --directory="$WORK/s2" \
    --ioengine=external:"$ENGINE" --rw=write --bs=2300 --size=230k --fdatasync=1 --output-format=json \
    > "$WORK/eng.json" 2> "$WORK/eng.err"
  saves=$(jq '.jobs[0].sync.lat_ns.N' "$WORK/eng.json" 2>/dev/null)
  n=$(grep -c 'fdatasync(.*= 0' "$WORK/eng.st")
  [ "${saves:-0}" -ge 100 ] 2>/dev/null || fail "engine under eatmydata: ${saves:-no} syncs in fio's JSON"
  [ "$n" -ge "${saves:-1}" ] 2>/dev/null || fail "engine under eatmydata: $n fdatasync system calls for $saves Saves"
  grep -q "etcdwal: wal: warning: .*libeatmydata" "$WORK/eng.err" || fail "the engine did not warn about libeatmydata in fio"
  echo "eatmydata: fio's sync engine 0 fdatasyncs; the engine $n fdatasync system calls for $saves Saves"
else
  echo "SKIP part 1: strace not installed"
fi

# 2. eatmydata around check itself: refused before fio starts
mkdir -p "$WORK/d2"
eatmydata "$CLI" check $SHORT "$WORK/d2" > "$WORK/2.out" 2> "$WORK/2.err"
rc=$?
[ $rc -eq 2 ] || fail "eatmydata etcd-fio check exited $rc, want 2"
grep -q "refusing: LD_PRELOAD=.*libeatmydata" "$WORK/2.err" || { fail "the refusal does not name libeatmydata"; cat "$WORK/2.err"; }
[ -z "$(ls -A "$WORK/d2")" ] || fail "refused check left files: $(ls -A "$WORK/d2")"

# 3. /etc/ld.so.preload naming eatmydata, in a mount namespace of its own (the machine's is never touched)
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null; then
  mkdir -p "$WORK/etc-u" "$WORK/etc-w" "$WORK/d3"
  echo "$EMD" > "$WORK/etc-u/ld.so.preload"
  unshare -m sh -c 'mount --make-rprivate / && mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc &&
                    exec "$3" check $4 "$5"' sh "$WORK/etc-u" "$WORK/etc-w" "$CLI" "$SHORT" "$WORK/d3" \
    > "$WORK/3.out" 2> "$WORK/3.err"
  rc=$?
  if grep -q "overlay" "$WORK/3.err" && ! grep -q refusing "$WORK/3.err"; then
    echo "SKIP part 3: no overlay over /etc here: $(head -n 1 "$WORK/3.err")"
  else
    [ $rc -eq 2 ] || fail "/etc/ld.so.preload: check exited $rc, want 2"
    grep -q "refusing: /etc/ld.so.preload: .*libeatmydata" "$WORK/3.err" || { fail "/etc/ld.so.preload not named"; cat "$WORK/3.err"; }
  fi
else
  echo "SKIP part 3: needs root and unshare -m for a private /etc/ld.so.preload"
fi

# 4. LD_PRELOAD only in fio, through a wrapper: the run happens, the engine tells, no verdict
mkdir -p "$WORK/bin" "$WORK/d4" "$WORK/d5"
printf '#!/bin/sh\nLD_PRELOAD="%s${LD_PRELOAD:+ $LD_PRELOAD}" exec "%s" "$@"\n' "$EMD" "$(command -v "$FIO")" > "$WORK/bin/fio"
chmod +x "$WORK/bin/fio"
# shellcheck disable=SC2086
FIO="$WORK/bin/fio" "$CLI" check $SHORT --json "$WORK/d4" > "$WORK/4.json" 2> "$WORK/4.err" & c4=$!
# 5. (at the same time) eatmydata check --force: judged, and the result names what was forced
# shellcheck disable=SC2086
eatmydata "$CLI" check --force $SHORT --json "$WORK/d5" > "$WORK/5.json" 2> "$WORK/5.err"
rc5=$?
wait $c4
rc=$?
[ $rc -eq 2 ] || fail "LD_PRELOAD in fio only: exit $rc, want 2 (unknown)"
jq -e '.hosts[0].status == "refused" and .verdict == "unknown" and (.reason | test("libeatmydata"))' "$WORK/4.json" > /dev/null ||
  { fail "LD_PRELOAD in fio only: not refused by name"; jq -c '{verdict, reason, s: .hosts[0].status}' "$WORK/4.json"; }
case $rc5 in 0|1|2) ;; *) fail "eatmydata check --force exited $rc5" ;; esac
jq -e '.details.forced | any(test("preloaded: LD_PRELOAD=.*libeatmydata"))' "$WORK/5.json" > /dev/null ||
  { fail "eatmydata + --force: details.forced does not say it"; cat "$WORK/5.err"; }
p50=$(jq -r '.hosts[0].jobs[] | select(.role == "wal") | .p50_ns' "$WORK/5.json" 2>/dev/null)
echo "eatmydata check --force: exit $rc5, WAL p50 ${p50:-?} ns (the engine's fdatasyncs are real ones)"
for d in d4 d5; do [ -z "$(ls -A "$WORK/$d")" ] || fail "$d: left behind: $(ls -A "$WORK/$d")"; done
# 6. a fio whose engine stats files are gone when it exits (what the engine saw inside fio is then not
#    known: such a run is no PASS, whatever its figures)
mkdir -p "$WORK/d6" "$WORK/t6"
printf '#!/bin/sh\n"%s" "$@"; rc=$?\nfind "%s" -name "*-stats.json" -delete\nexit $rc\n' "$(command -v "$FIO")" "$WORK/t6" \
  > "$WORK/bin/fio6"
chmod +x "$WORK/bin/fio6"
# shellcheck disable=SC2086
TMPDIR="$WORK/t6" FIO="$WORK/bin/fio6" "$CLI" check $SHORT --json "$WORK/d6" > "$WORK/6.json" 2> "$WORK/6.err"
rc=$?
[ $rc -ne 0 ] || { fail "no engine stats file: exit 0 (PASS)"; jq -c '{verdict, reason}' "$WORK/6.json"; }
if jq -e '.reason | test("no engine stats file")' "$WORK/6.json" > /dev/null; then
  echo "no engine stats file: refused, exit $rc"
else
  echo "no engine stats file: exit $rc for another reason ($(jq -r .reason "$WORK/6.json" | cut -c1-100))"
fi
[ -z "$(ls -A "$WORK/d6")" ] || fail "d6: left behind: $(ls -A "$WORK/d6")"

[ $bad -eq 0 ] || exit 1
echo "preload: eatmydata cannot fake the engine's syncs; refused in check's environment, /etc/ld.so.preload and a fio wrapper; --force shown"
