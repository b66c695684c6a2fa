#!/bin/sh
# SPDX-License-Identifier: MIT
# it_engine_kinds.sh — etcd_kinds= with the real fio: a WAL job of 600 puts under the k8s:1000 mix writes
# entries whose sizes are the kinds' (waldump -v: every entry's data is a lease's or a Node status's raft
# Entry, the count of each as the stats file gives, the Node statuses near their 3.2 % share); the same seed
# writes the same WAL bytes again, another seed another sequence; a bad mix is refused in one line.
. "$(dirname "$0")/../lib/lib.sh"
WALDUMP=$B/tests/waldump
command -v jq >/dev/null 2>&1 || { echo "skip: jq not installed (make deps)"; exit 77; }
need_built "$ENGINE" "$WALDUMP" "$CLI"
WORK=$(mktemp -d /var/tmp/it-engine-kinds.XXXXXX) || exit 1  # not /tmp: a tmpfs on Debian 13, refused by the engine
trap 'rm -rf "$WORK"' EXIT INT TERM

# the mix exactly as `etcd-fio job --load k8s:1000` writes it
KINDS=$("$CLI" job --load k8s:1000 --engine "$ENGINE" --dir "$WORK" | sed -n 's/^etcd_kinds=//p')
[ -n "$KINDS" ] || { fail "no etcd_kinds= line in the k8s:1000 job file"; finish it_engine_kinds; exit; }

run() { # NAME SEED: 600 puts, files kept in $WORK/NAME
  mkdir -p "$WORK/$1"
  "$FIO" --name=wal --ioengine=external:"$ENGINE" --directory="$WORK/$1" --rw=write --bs=1210 --fdatasync=1 \
    --size=64m --number_ios=600 --etcd_kinds="$KINDS" --etcd_seed="$2" --etcd_segment_bytes=4000000 \
    --etcd_keep_files=1 --etcd_stats_file="$WORK/$1.json" --output-format=json > "$WORK/$1.out" 2>&1
}
run a 7 || { fail "fio exited $?"; sed 's/^/    | /' "$WORK/a.out" | head; finish it_engine_kinds; exit; }
run b 7 || fail "second run exited $?"
run c 8 || fail "third run exited $?"

KA=$(ls -d "$WORK"/a/etcd-fio-kept.* | head -n 1)
"$WALDUMP" -v "$KA" > "$WORK/dump" 2>&1 || fail "waldump rejected the run: $(tail -n 2 "$WORK/dump")"
# an entry's data is the raft Entry: the put's bytes plus its term, index and type (9..12 bytes)
lease_b=$(jq '.kinds[0].entry_bytes' "$WORK/a.json"); node_b=$(jq '.kinds[1].entry_bytes' "$WORK/a.json")
lease_n=$(jq '.kinds[0].entries' "$WORK/a.json"); node_n=$(jq '.kinds[1].entries' "$WORK/a.json")
sed -n 's/.* entry .* data=\([0-9]*\)$/\1/p' "$WORK/dump" > "$WORK/sizes"
awk -v l="$lease_b" -v n="$node_b" -v ln="$lease_n" -v nn="$node_n" '
  { d = $1 - l; e = $1 - n
    if (d >= 9 && d <= 12) a++; else if (e >= 9 && e <= 12) b++; else { other++; if (!bad) bad = $1 } }
  END { printf "%d %d %d %s\n", a, b, other, bad; exit !(a == ln && b == nn && other == 0) }' "$WORK/sizes" > "$WORK/split"
rc=$?
read -r got_l got_n other first_bad < "$WORK/split"
[ $rc -eq 0 ] && ok "entries: $got_l leases of $lease_b bytes and $got_n Node statuses of $node_b, as the stats count them" \
  || fail "entries: $got_l leases, $got_n Node statuses, $other of another size (first: $first_bad); stats: $lease_n and $node_n"
[ $((lease_n + node_n)) -eq 600 ] || fail "stats count $((lease_n + node_n)) entries, not 600"
# 3.33 of 103.3 puts a second are Node statuses: 19.4 of 600 expected; a seeded draw within 8..35
[ "$node_n" -ge 8 ] && [ "$node_n" -le 35 ] && ok "Node statuses $node_n of 600 (3.2 % expected: 19)" \
  || fail "Node statuses $node_n of 600: not near the mix's 3.2 %"

# the same seed, the same WAL bytes; another seed, another sequence of kinds
KB=$(ls -d "$WORK"/b/etcd-fio-kept.* | head -n 1); KC=$(ls -d "$WORK"/c/etcd-fio-kept.* | head -n 1)
same=1
for f in "$KA"/*.wal; do cmp -s "$f" "$KB/$(basename "$f")" || same=0; done
[ $same -eq 1 ] && ok "seed 7 twice: the same WAL bytes ($(ls "$KA" | wc -l) files)" || fail "seed 7 twice: the WALs differ"
"$WALDUMP" -v "$KC" | sed -n 's/.* entry .* data=\([0-9]*\)$/\1/p' > "$WORK/sizes.c"
cmp -s "$WORK/sizes" "$WORK/sizes.c" && fail "seed 8 drew the same sequence of kinds as seed 7" \
  || ok "seed 8 draws another sequence of kinds"

# a malformed mix: fio refuses the job with the engine's one line
"$FIO" --name=wal --ioengine=external:"$ENGINE" --directory="$WORK" --rw=write --bs=1000 --fdatasync=1 --size=1m \
  --etcd_kinds="lease:0:49:512" > "$WORK/bad.out" 2>&1
grep -q "etcd_kinds: lease: the rate must be" "$WORK/bad.out" && ok "a zero rate is refused: $(grep -m1 etcd_kinds "$WORK/bad.out")" \
  || fail "a zero rate was not refused: $(head -c 300 "$WORK/bad.out")"
finish it_engine_kinds
