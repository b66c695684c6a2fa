#!/bin/sh
# SPDX-License-Identifier: MIT
# it_lib_stages.sh — libfioreport calls only downward along the path the data takes (libreport/README.md):
#     base < read < bound < judge < monitor
# read from the objects the build made (build/libreport/STAGE/…/*.o), not from the text: every fior_*
# symbol an object leaves undefined and another object of the library defines must be defined in the same
# stage or a lower one; and no files call each other in a loop, except files of one format's folder
# (read/json/, read/normal/, read/prom/: a folder below a stage counts as one node). The list of the
# calls that break either rule is printed, with the symbols.
#     BUILD=build sh tests/libreport/it_lib_stages.sh            # after make (the objects must exist)
#     sh tests/libreport/it_lib_stages.sh DIR                    # any tree of objects laid out the same way
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
OBJ=${1:-$BUILD/libreport}
STAGES="base read bound judge monitor"
for t in nm tsort; do
  command -v $t > /dev/null || { echo "skip: $t not installed"; exit 77; }
done
[ -d "$OBJ" ] || { echo "FAIL: $OBJ: no objects (build first)"; exit 1; }
tmp=$(mktemp -d /tmp/it_lib_stages.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# every object: its path below OBJ, its stage (first folder) and its node (a file of a stage's own folder,
# or the whole folder below a stage: one format)
# (an object whose source is gone, left by an earlier build, is not the library's: left out)
(cd "$OBJ" && find . -name '*.o' | sed 's#^\./##' | LC_ALL=C sort) | while read -r o; do
  if [ -f "$top/libreport/${o%.o}.c" ]; then echo "$o"; else echo "not in the library (no source): $o" >&2; fi
done > "$tmp/objs"
[ -s "$tmp/objs" ] || { echo "FAIL: no objects under $OBJ"; exit 1; }
# one nm over all objects (nm -A: "OBJ: value type name"), each line tagged with the object's stage, its
# rank and its node
(cd "$OBJ" && xargs nm -A --defined-only -g < "$tmp/objs") > "$tmp/nm.defs" || fail "nm on $OBJ"
(cd "$OBJ" && xargs nm -A -u < "$tmp/objs") > "$tmp/nm.uses" || fail "nm on $OBJ"
tag='BEGIN { n = split(stages, st, " "); for (i = 1; i <= n; i++) rank[st[i]] = i - 1 }
     { o = $1; sub(/:.*$/, "", o); s = o; sub(/\/.*/, "", s)
       node = o; if (o ~ /^[^\/]*\/[^\/]*\//) sub(/\/[^\/]*$/, "/", node); else sub(/\.o$/, ".c", node)
       f = o; sub(/\.o$/, ".c", f); sym = $NF
       if (!(s in rank)) { print "FAIL: " o ": in no stage (the stages: " stages ")" > "/dev/stderr"; bad = 1; next } }'
awk -v stages="$STAGES" "$tag"' sym ~ /^fior_/ { print sym, rank[s], s, node } END { exit bad }' "$tmp/nm.defs" > "$tmp/defs" ||
  fail "objects outside the stages"
awk -v stages="$STAGES" "$tag"' sym ~ /^fior_/ { print sym, rank[s], s, node, f }' "$tmp/nm.uses" 2> /dev/null > "$tmp/uses"
LC_ALL=C sort -k1,1 "$tmp/defs" > "$tmp/defs.s"
LC_ALL=C sort -k1,1 "$tmp/uses" > "$tmp/uses.s"
dup=$(cut -d' ' -f1 "$tmp/defs.s" | uniq -d)
[ -z "$dup" ] || fail "defined in more than one object: $dup"
# symbol, user's rank, stage, node, file, definer's rank, stage, node
LC_ALL=C join "$tmp/uses.s" "$tmp/defs.s" > "$tmp/calls"
echo "$(wc -l < "$tmp/objs") objects, $(wc -l < "$tmp/calls") calls between them"

# 1. only downward (or within a stage)
awk '$2 < $6 { printf "  %s (%s) calls %s of %s (%s)\n", $5, $3, $1, $8, $7 }' "$tmp/calls" > "$tmp/up"
if [ -s "$tmp/up" ]; then
  fail "$(wc -l < "$tmp/up") calls run up a stage ($STAGES):"
  cat "$tmp/up"
else
  echo "ok: every call runs to the same stage or a lower one ($STAGES)"
fi

# 2. no loop between nodes (tsort names the files of each loop it meets)
awk '$4 != $8 { print $4, $8 }' "$tmp/calls" | LC_ALL=C sort -u > "$tmp/edges"
if tsort "$tmp/edges" > /dev/null 2> "$tmp/loops"; then
  echo "ok: no files call each other in a loop (a format's folder counted as one)"
else
  fail "files that call each other in a loop (each loop, then the calls that close it):"
  sed -n 's/^tsort: //p' "$tmp/loops" | awk '
    /input contains a loop/ { if (line != "") print "  loop:" line; line = ""; next }
    { line = line " " $0 }
    END { if (line != "") print "  loop:" line }'
  awk 'FNR == NR { if ($0 ~ /input contains a loop/) g++; else { sub(/^tsort: /, ""); m[g, $0] = 1 }; next }
       $4 != $8 { for (i = 1; i <= g; i++) if ((i, $4) in m && (i, $8) in m) { print "    " $4 " -> " $8 ": " $1; break } }' \
    "$tmp/loops" "$tmp/calls" | LC_ALL=C sort -u
fi
[ $fails -eq 0 ] || exit 1
for s in $STAGES; do
  printf '%s: %s objects, %s symbols defined\n' "$s" "$(grep -c "^$s/" "$tmp/objs")" "$(awk -v s="$s" '$3 == s' "$tmp/defs" | wc -l)"
done
