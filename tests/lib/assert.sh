# SPDX-License-Identifier: MIT
# assert.sh — the checks the shell tests share and their one way of saying what they found (sourced, not
# run; lib.sh sources it, a test that needs no fio sources it alone). Each check prints one line, "ok: WHAT"
# or "FAIL: WHAT" (a FAIL is counted in $fails); a part a test cannot run prints its own "SKIP: WHY" line,
# which run.sh counts and lists. `finish NAME [SUMMARY]` ends the test: "NAME: N failure(s)" and exit 1 when
# any check failed, else SUMMARY (default "NAME: all passed") and exit 0.
fails=0
ok()   { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
bad()  { fail "$@"; }
# has FILE TEXT WHAT, lacks FILE TEXT WHAT: FILE holds (does not hold) the fixed string TEXT; a FAIL shows
# the file, indented.
has() {
  if grep -qF -- "$2" "$1" 2> /dev/null; then ok "$3"
  else fail "$3: no '$2' in:"; sed 's/^/  | /' "$1" 2> /dev/null; fi
}
lacks() {
  if ! grep -qF -- "$2" "$1" 2> /dev/null && [ -e "$1" ]; then ok "$3"
  else fail "$3: '$2' (or no file) in:"; sed 's/^/  | /' "$1" 2> /dev/null; fi
}
# expect_rc WANT GOT WHAT: an exit status as wanted ("ok: WHAT (exit N)").
expect_rc() {
  if [ "$2" = "$1" ]; then ok "$3 (exit $2)"; else fail "$3: exit $2, want $1"; fi
}
# jqe [JQ-OPTION…] FILTER FILE: jq -e on FILE, quiet; false when FILE is missing or empty (jq -e succeeds
# on an empty input, so a missing output would pass).
jqe() { for last; do :; done; [ -s "$last" ] && jq -e "$@" > /dev/null; }
# finish NAME [SUMMARY…]: the test's last line and its exit status.
finish() {
  if [ "$fails" -ne 0 ]; then echo "$1: $fails failure(s)"; exit 1; fi
  _name=$1; shift
  echo "${*:-$_name: all passed}"
  exit 0
}
