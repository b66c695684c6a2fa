#!/bin/sh
# SPDX-License-Identifier: MIT
# it_abi.sh — libfioreport.so exports exactly the API: every dynamic symbol it defines is a fior_* function
# listed in the version script (libreport/fioreport.map) under a node of the header's major version
# (FIOR_4.x), every function the two public headers declare (FIOR_API in fioreport.h and
# fioreport_monitor.h) is exported and vice versa, fioreport.h stays within its budget of functions, no
# fior__ internal (the CLI's own calls of fioreport_cli.h among them) or yajl symbol leaks, the SONAME is
# libfioreport.so.MAJOR of the header, and a program built with only the public headers runs against the
# .so: the version, the size the library sets on what it hands out (FIOR_HAS), the verdict names both ways.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
SO=$BUILD/libfioreport.so
HDR=$top/libreport/include/fioreport.h
MHDR=$top/libreport/include/fioreport_monitor.h
CLIH=$top/libreport/fioreport_cli.h
MAP=$top/libreport/fioreport.map
. "$(dirname "$0")/../lib/assert.sh"
# what a program judging finished outputs has to read: fioreport.h declares at most this many functions
HDR_BUDGET=45
for t in nm objdump cc; do
  command -v $t >/dev/null || { echo "skip: $t not installed"; exit 77; }
done
[ -r "$SO" ] || { echo "FAIL: $SO not built"; exit 1; }
vmaj=$(sed -n 's/^#define FIOR_VERSION_MAJOR \([0-9]*\).*/\1/p' "$HDR")
[ -n "$vmaj" ] || { echo "FAIL: no FIOR_VERSION_MAJOR in $HDR"; exit 1; }
tmp=$(mktemp -d /tmp/it_abi.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

nm -D --defined-only "$SO" > "$tmp/nm.txt" || fail "nm -D $SO"
echo "public symbols of $(basename "$(readlink -f "$SO")"):"
sed 's/^/  /' "$tmp/nm.txt"
# Defined symbols: functions (T) named fior_*@@FIOR_4.x, plus the version nodes themselves (A FIOR_4.x).
awk '$2 == "A" { next } { print $3 }' "$tmp/nm.txt" | sed 's/@.*//' | sort > "$tmp/exported"
bad=$(grep -v '^fior_[a-z0-9_]*$' "$tmp/exported")
[ -z "$bad" ] && ok "only fior_* symbols are exported ($(wc -l < "$tmp/exported"))" || fail "exported non-API symbols: $bad"
grep -q '^fior__' "$tmp/exported" && fail "internal fior__ symbols exported"
nover=$(awk '$2 != "A" { print $3 }' "$tmp/nm.txt" | grep -Ev "@@?FIOR_$vmaj\.[0-9]+\$")
[ -z "$nover" ] && ok "every exported symbol carries a FIOR_$vmaj.x version" || fail "exports without a FIOR_$vmaj.x version: $nover"
awk '$2 == "A" { print $3 }' "$tmp/nm.txt" | grep -q "^FIOR_$vmaj\.0\$" || fail "no FIOR_$vmaj.0 version node"
other=$(awk '$2 == "A" { print $3 }' "$tmp/nm.txt" | grep -v "^FIOR_$vmaj\.[0-9]*\$")
[ -z "$other" ] || fail "version nodes of another major: $other"

# The version script lists the same set; the two public headers declare the same set.
sed 's:/\*.*\*/::; s:/\*.*::' "$MAP" | grep -o '^ *fior_[a-z0-9_]*;' | tr -d ' ;' | sort > "$tmp/map"
fns() { sed -n 's/^FIOR_API[^(]*[ *]\(fior_[a-z0-9_]*\)(.*/\1/p' "$@"; }
fns "$HDR" "$MHDR" | sort > "$tmp/hdr"
[ -s "$tmp/map" ] && [ -s "$tmp/hdr" ] || fail "could not read the map or the headers"
if cmp -s "$tmp/map" "$tmp/exported"; then ok "the .so exports exactly fioreport.map's list ($(wc -l < "$tmp/map"))"
else fail "fioreport.map and the .so differ:"; diff "$tmp/map" "$tmp/exported"; fi
if cmp -s "$tmp/hdr" "$tmp/map"; then ok "fioreport.h and fioreport_monitor.h declare exactly fioreport.map's list"
else fail "the headers (FIOR_API) and fioreport.map differ:"; diff "$tmp/hdr" "$tmp/map"; fi
nh=$(fns "$HDR" | wc -l); nm_=$(fns "$MHDR" | wc -l)
[ "$nh" -le $HDR_BUDGET ] && ok "fioreport.h declares $nh functions (at most $HDR_BUDGET), fioreport_monitor.h $nm_" \
  || fail "fioreport.h declares $nh functions, more than $HDR_BUDGET"
dup=$(fns "$HDR" "$MHDR" | sort | uniq -d)
[ -z "$dup" ] || fail "declared in both headers: $dup"
# the CLI's own calls are neither exported nor in a public header
cli=$(grep -o '\bfior__[a-z0-9_]*(' "$CLIH" | tr -d '(' | sort -u)
[ -n "$cli" ] || fail "no fior__ call found in $CLIH"
for f in $cli; do
  grep -qx "$f" "$tmp/exported" && fail "$f (fioreport_cli.h) is exported"
  grep -q "\b$f\b" "$HDR" "$MHDR" && fail "$f (fioreport_cli.h) is named in a public header"
done
ok "fioreport_cli.h's $(echo "$cli" | wc -l) calls are not exported"
grep -q 'FIOR_PHASE1\|FIOR_PROBE\|fior_run_facts\|set_heavy\|fior_bound_decide' "$HDR" "$MHDR" \
  && fail "check's procedure (phases, probe, run facts, bound rule) is in a public header" \
  || ok "no phase, probe, run facts or bound rule of check's in the public headers"
# strings in the public structs are pointers, never arrays of the caller's size
arr=$(sed -n '/^typedef struct/,/^}/p' "$HDR" "$MHDR" | grep -n 'char  *[a-z_]*\[')
[ -z "$arr" ] && ok "no fixed char array in a public struct" || fail "fixed char arrays in public structs: $arr"
# the readers' own facts are not part of the job a program sees
priv=$(sed -n '/^typedef struct fior_job {/,/^} fior_job;/p' "$HDR" | grep -E '^ +[a-z0-9_ ]+[ *](pid|pct_resolution_ns|check_verdict);')
[ -z "$priv" ] && ok "fior_job as a program sees it has no pid, print resolution or etcdctl verdict" \
  || fail "reader internals in the public fior_job: $priv"

# SONAME from the header's major version
soname=$(objdump -p "$SO" | awk '/SONAME/ {print $2}')
[ "$soname" = "libfioreport.so.$vmaj" ] && ok "SONAME $soname" || fail "SONAME '$soname', header says major $vmaj"

# A program that uses only the header links against the .so and sees the header's version, the size the
# library sets on the job and judgement it hands out (the fields FIOR_HAS then finds), and the verdict
# names both ways.
cat > "$tmp/v.c" <<'C'
#include <fioreport.h>
#include <fioreport_monitor.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    fior_criteria *c = fior_criteria_new();
    int bad = fior_criteria_set_percentile(c, 100.0) != FIOR_E_INVAL;
    fior_criteria_free(c);
    fior_report *r = fior_report_new();
    fior_result *res = NULL;
    if (argc < 2 || fior_parse_file(r, argv[1]) != FIOR_OK || !(res = fior_judge(r, NULL))) {
        bad |= 2;
    } else {
        const fior_job *j = fior_report_job(r, 0);
        const fior_judgement *jd = fior_result_job(res, 0);
        bad |= (j->size != sizeof *j || !FIOR_HAS(j, fior_job, runtime_goal_ms) || jd->size != sizeof *jd ||
                !FIOR_HAS(jd, fior_judgement, reason) || !jd->reason[0]) << 2;
    }
    fior_result_free(res);
    fior_report_free(r);
    for (int v = FIOR_PASS; v <= FIOR_NOT_JUDGED; v++) {
        fior_verdict back;
        bad |= (fior_verdict_from_name(fior_verdict_name((fior_verdict)v), &back) != FIOR_OK || back != (fior_verdict)v) << 3;
    }
    bad |= (fior_verdict_from_name("not-judged", NULL) != FIOR_E_INVAL) << 4;
    fior_bin bins[1] = {{2000000, 400}};
    fior_look *k = NULL;
    bad |= (fior_look_bins(bins, 1, NULL, FIOR_ROLE_WAL, 0.95, 0, &k) != FIOR_OK || !k || k->size != sizeof *k ||
            !FIOR_HAS(k, fior_look, why) || k->verdict != FIOR_PASS || k->basis != FIOR_BASIS_BOUND) << 5;
    fior_look_free(k);
    printf("%s %06x\n", fior_version(), fior_version_number());
    return bad || strcmp(fior_version(), FIOR_VERSION) || fior_version_number() != FIOR_VERSION_NUMBER;
}
C
# (under check-asan the library is instrumented: the program needs the sanitizer runtimes too)
SANF=""; [ "${ASAN_BUILD:-}" = 1 ] && SANF="-fsanitize=address,undefined"
if cc -std=c11 -Wall -Wextra -Werror $SANF -I"$top/libreport/include" "$tmp/v.c" -L"$BUILD" -lfioreport \
     -o "$tmp/v" 2>"$tmp/cc.err"; then
  out=$(LD_LIBRARY_PATH="$BUILD" ASAN_OPTIONS=detect_leaks=0 "$tmp/v" "$top/tests/fixtures/seeds/fio-3.7-normal-msec.txt"); rc=$?
  [ $rc -eq 0 ] && ok "header-only program against the .so: $out" || fail "version program: rc=$rc $out"
  need=$(objdump -p "$tmp/v" | awk '/NEEDED/ && /fioreport/ {print $2}')
  [ "$need" = "libfioreport.so.$vmaj" ] && ok "the program records NEEDED $need" || fail "NEEDED '$need'"
  objdump -T "$tmp/v" | grep -q "(FIOR_$vmaj\.0) *fior_version\$" && ok "it binds fior_version@FIOR_$vmaj.0" \
    || fail "the program does not bind versioned symbols"
else
  cat "$tmp/cc.err"; fail "cannot build a program against $SO"
fi

finish it_abi
