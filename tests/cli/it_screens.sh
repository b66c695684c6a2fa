#!/bin/sh
# SPDX-License-Identifier: MIT
# it_screens.sh — what a person sees at 80x24: each command runs in a tmux pane of 80 columns (a real
# terminal: fio would print its eta lines there if it could, the progress lines are drawn) and the screen
# is read back with wrapped lines joined. For check --wal-only, a full check, verdict of a real fio 3.23
# output, capacity --clients 1,16, compare and fleet (two fio servers on loopback):
#  - no line wider than 80 columns;
#  - the verdict first (the first line on the screen: the progress lines are gone; only the warnings a run
#    prints before it starts, such as a live etcd on the filesystem, may come before it);
#  - no fio status or eta line ("Jobs: 1 (f=1): [W(1)] … [eta 00m:36s]"), and every fio etcd-fio started
#    was given --eta=never (a wrapper FIO logs the arguments);
#  - the bound printed as one string wherever it appears (check: the table's cell = the HTML report's
#    reason of the same role) and the confidence as asked ("95 %", or "≥ 95 %"), never "95.31 %";
#  - the screen's shape (its kinds of lines: tests/screens/NAME.shape, an extended regex over one letter a
#    line) as in the screens kept in tests/screens/NAME.txt; verdict and compare, whose inputs are fixed, are
#    compared whole with their kept screens.
. "$(dirname "$0")/../lib/lib.sh"
command -v tmux >/dev/null 2>&1 || { echo "skip: tmux not installed (make deps)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 not installed"; exit 77; }
need_built "$ENGINE" "$CLI"
WORK=$(mktemp -d "$B/it-screens.XXXXXX") || exit 1
SOCK=it-screens-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
SCREENS=$TOP/tests/screens
# one session held for the whole test: a server whose last session is killed exits, and a new-session that
# reaches it while it exits fails ("server exited unexpectedly")
tmux -L "$SOCK" new-session -d -s hold -x 80 -y 24 "sleep 3600" || { fail "tmux: no server"; finish it_screens; }

# the fio every command starts: the real one, its arguments logged
REALFIO=$(command -v "$FIO")
cat > "$WORK/fio" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >> "$WORK/fio-args.log"
exec "$REALFIO" "\$@"
EOF
chmod +x "$WORK/fio"

# screen NAME CMD…: CMD in an 80x24 pane; its screen (scrollback included, wrapped lines joined) in
# $WORK/NAME.txt, its exit status in $WORK/NAME.rc
screen() {
  name=$1; shift
  printf '%s\n' "$*" > "$WORK/$name.cmd"
  tmux -L "$SOCK" new-session -d -s "$name" -x 80 -y 24 \
    "cd '$TOP' && FIO='$WORK/fio' $* ; echo \$? > '$WORK/$name.rc'; tmux -L '$SOCK' wait-for -S '$name-done'; sleep 3600"
  tmux -L "$SOCK" wait-for "$name-done"
  tmux -L "$SOCK" capture-pane -p -J -t "$name" -S -2000 | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$WORK/$name.txt"
  tmux -L "$SOCK" kill-session -t "$name"
}

# what every screen must be; check, for the checks
assert_screen() {
  name=$1 f=$WORK/$1.txt
  python3 "$TOP/tests/lib/screens.py" check "$f" "$name" || fails=$((fails + 1))
}

# shape NAME: each line's kind, one letter, against tests/screens/NAME.shape
shape_of() {
  python3 "$TOP/tests/lib/screens.py" shape "$1"
}
assert_shape() {
  got=$(shape_of "$WORK/$1.txt")
  want=$(grep -v '^#' "$SCREENS/$1.shape")
  if printf '%s\n' "$got" | grep -Eqx "$want"; then ok "$1: shape $got"
  else fail "$1: shape $got, not $want"; sed 's/^/  | /' "$WORK/$1.txt"; fi
}

# one bound string per role: the table's cell is the one the HTML report's reason of that role cites
same_bound() {
  python3 "$TOP/tests/lib/screens.py" bound "$WORK/$1.txt" "$WORK/$1.html" "$1" || fails=$((fails + 1))
}

mkdir -p "$WORK/d"
FX=$TOP/tests/fixtures/fio-3.23

# fixed inputs: the whole screen as kept
screen verdict "'$CLI' verdict tests/fixtures/fio-3.23/profile-jsonplus.json"
screen compare "'$CLI' compare tests/fixtures/fio-3.23/profile.json tests/fixtures/fio-3.23/classic.json"
for n in verdict compare; do
  assert_screen $n
  if cmp -s "$WORK/$n.txt" "$SCREENS/$n.txt"; then ok "$n: the screen as kept"
  else fail "$n: the screen differs from tests/screens/$n.txt:"; diff "$SCREENS/$n.txt" "$WORK/$n.txt" | sed 's/^/  | /'; fi
done

# runs on this disk: their shape
screen check-wal "'$CLI' check --force --wal-only --html '$WORK/check-wal.html' '$WORK/d'"
screen check "'$CLI' check --force --max-time 50 --html '$WORK/check.html' '$WORK/d'"
screen capacity "'$CLI' capacity --force --clients 1,16 --step 2 --max-time 20 '$WORK/d'"
# fleet: two fio servers on loopback (lib.sh), one row per host and job, the count at the end
pids=""
trap 'stop_pids $pids $(kids); tmux -L "$SOCK" kill-server 2>/dev/null; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
fio_server_wrapper "$WORK/fio-server"
P1=$(free_port 28911); "$WORK/fio-server" --server=ip:127.0.0.1,$P1 > "$WORK/srv1.log" 2>&1 & pids="$pids $!"
wait_listen $P1
P2=$(free_port $((P1 + 1))); "$WORK/fio-server" --server=ip:127.0.0.1,$P2 > "$WORK/srv2.log" 2>&1 & pids="$pids $!"
wait_listen $P2
mkdir -p "$WORK/f"
screen fleet "'$CLI' fleet --client 127.0.0.1,$P1 --client 127.0.0.1,$P2 --dir '$WORK/f' --runtime 15 --accept-point-estimate"
wait_kids
for n in check-wal check capacity fleet; do
  case $(cat "$WORK/$n.rc") in 0|1|2) ;; *) fail "$n: exit $(cat "$WORK/$n.rc")" ;; esac
  assert_screen $n
  assert_shape $n
done
same_bound check-wal
same_bound check
[ -z "$(ls -A "$WORK/d")" ] || fail "left behind: $(ls -A "$WORK/d")"

# every fio run etcd-fio started was told --eta=never (a --version or --parse-only run prints no eta)
n=0
while IFS= read -r args; do
  case " $args " in *" --version "*|*" --parse-only "*|*" --enghelp"*) continue ;; esac
  n=$((n + 1))
  case " $args " in *" --eta=never "*) ;; *) fail "fio started without --eta=never: $args" ;; esac
done < "$WORK/fio-args.log"
[ $n -ge 4 ] && ok "$n fio runs, each with --eta=never" || fail "only $n fio runs logged"

finish it_screens
