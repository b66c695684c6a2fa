#!/bin/sh
# SPDX-License-Identifier: MIT
# it_abi.sh — libfioreport.so exports exactly the API: every dynamic symbol it defines is a fior_* function
# listed in the version script (libreport/fioreport.map) under a FIOR_2.x node, every function the header
# declares (FIOR_API) is exported and vice versa, no fior__ internal or yajl symbol leaks, the SONAME is
# libfioreport.so.MAJOR of the header, and a program built with only the header runs against the .so.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
SO=$BUILD/libfioreport.so
HDR=$top/libreport/include/fioreport.h
MAP=$top/libreport/fioreport.map
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
for t in nm objdump cc; do
  command -v $t >/dev/null || { echo "skip: $t not installed"; exit 77; }
done
[ -r "$SO" ] || { echo "FAIL: $SO not built"; exit 1; }
tmp=$(mktemp -d /tmp/it_abi.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

nm -D --defined-only "$SO" > "$tmp/nm.txt" || fail "nm -D $SO"
echo "public symbols of $(basename "$(readlink -f "$SO")"):"
sed 's/^/  /' "$tmp/nm.txt"
# Defined symbols: functions (T) named fior_*@@FIOR_2.x, plus the version node itself (A FIOR_2.x).
awk '$2 == "A" { next } { print $3 }' "$tmp/nm.txt" | sed 's/@.*//' | sort > "$tmp/exported"
bad=$(grep -v '^fior_[a-z0-9_]*$' "$tmp/exported")
[ -z "$bad" ] && ok "only fior_* symbols are exported ($(wc -l < "$tmp/exported"))" || fail "exported non-API symbols: $bad"
grep -q '^fior__' "$tmp/exported" && fail "internal fior__ symbols exported"
nover=$(awk '$2 != "A" && $3 !~ /@@?FIOR_2\.[0-9]+$/' "$tmp/nm.txt")
[ -z "$nover" ] && ok "every exported symbol carries a FIOR_2.x version" || fail "unversioned exports: $nover"
awk '$2 == "A" { print $3 }' "$tmp/nm.txt" | grep -q '^FIOR_2\.0$' || fail "no FIOR_2.0 version node"

# The version script lists the same set; the header declares the same set.
sed 's:/\*.*\*/::; s:/\*.*::' "$MAP" | grep -o '^ *fior_[a-z0-9_]*;' | tr -d ' ;' | sort > "$tmp/map"
sed -n 's/^FIOR_API[^(]*[ *]\(fior_[a-z0-9_]*\)(.*/\1/p' "$HDR" | sort > "$tmp/hdr"
[ -s "$tmp/map" ] && [ -s "$tmp/hdr" ] || fail "could not read the map or the header"
if cmp -s "$tmp/map" "$tmp/exported"; then ok "the .so exports exactly fioreport.map's list"
else fail "fioreport.map and the .so differ:"; diff "$tmp/map" "$tmp/exported"; fi
if cmp -s "$tmp/hdr" "$tmp/map"; then ok "fioreport.h declares exactly fioreport.map's list"
else fail "fioreport.h (FIOR_API) and fioreport.map differ:"; diff "$tmp/hdr" "$tmp/map"; fi

# SONAME from the header's major version
vmaj=$(sed -n 's/^#define FIOR_VERSION_MAJOR \([0-9]*\).*/\1/p' "$HDR")
soname=$(objdump -p "$SO" | awk '/SONAME/ {print $2}')
[ "$soname" = "libfioreport.so.$vmaj" ] && ok "SONAME $soname" || fail "SONAME '$soname', header says major $vmaj"

# A program that uses only the header links against the .so and sees the header's version.
cat > "$tmp/v.c" <<'C'
#include <fioreport.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    fior_criteria *c = fior_criteria_new();
    int bad = fior_criteria_set_percentile(c, 100.0) != FIOR_E_INVAL;
    fior_criteria_free(c);
    printf("%s %06x\n", fior_version(), fior_version_number());
    return bad || strcmp(fior_version(), FIOR_VERSION) || fior_version_number() != FIOR_VERSION_NUMBER;
}
C
# (under check-asan the library is instrumented: the program needs the sanitizer runtimes too)
SANF=""; [ "${ASAN_BUILD:-}" = 1 ] && SANF="-fsanitize=address,undefined"
if cc -std=c11 -Wall -Wextra -Werror $SANF -I"$top/libreport/include" "$tmp/v.c" -L"$BUILD" -lfioreport \
     -o "$tmp/v" 2>"$tmp/cc.err"; then
  out=$(LD_LIBRARY_PATH="$BUILD" ASAN_OPTIONS=detect_leaks=0 "$tmp/v"); rc=$?
  [ $rc -eq 0 ] && ok "header-only program against the .so: $out" || fail "version program: rc=$rc $out"
  need=$(objdump -p "$tmp/v" | awk '/NEEDED/ && /fioreport/ {print $2}')
  [ "$need" = "libfioreport.so.$vmaj" ] && ok "the program records NEEDED $need" || fail "NEEDED '$need'"
  objdump -T "$tmp/v" | grep -q '(FIOR_2\.0) *fior_version$' && ok "it binds fior_version@FIOR_2.0" \
    || fail "the program does not bind versioned symbols"
else
  cat "$tmp/cc.err"; fail "cannot build a program against $SO"
fi

[ $fails -eq 0 ] || { echo "it_abi: $fails failure(s)"; exit 1; }
echo "it_abi: all passed"
