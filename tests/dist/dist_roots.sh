#!/bin/sh
# SPDX-License-Identifier: MIT
# dist_roots.sh — the x86-64 release tarball (mk/dist.sh) where etcd-fio was never installed: unpacked
# read-only into cached Debian roots (make check-dist passes bullseye: the build root, which has a compiler
# but no fio; bookworm with no fio; trixie with trixie's own fio installed, which must be left alone), then
# in each (chroot, as root, its own /proc): `etcd-fio --version` names the bundled fio, `etcd-fio check
# --wal-only` judges a directory there (exit 0 or 1) and leaves it empty, and a check stopped by SIGTERM
# mid-run leaves it empty too. The roots need only a shell and coreutils (mmdebstrap's essential variant).
# Before that, on every ELF of the tarball: needs only the C library family and no symbol above glibc 2.28.
# Usage: tests/dist/dist_roots.sh TARBALL ROOT...  (make check-dist; the roots come from make dist-deps)
set -u
TAR=${1:?usage: dist_roots.sh TARBALL ROOT...}
shift
[ $# -gt 0 ] || { echo "usage: dist_roots.sh TARBALL ROOT..." >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "skip: needs root (chroot, mount namespaces)"; exit 77; }
[ -f "$TAR" ] || { echo "FAIL: $TAR missing (make dist)"; exit 1; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
WORK=$(mktemp -d /tmp/dist-roots.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
tar -xzf "$TAR" -C "$WORK" || { echo "FAIL: cannot unpack $TAR"; exit 1; }
TOPDIR=$(ls -d "$WORK"/etcd-fio-*/ | head -n 1)
NAME=$(basename "$TOPDIR")

. "$(dirname "$0")/../lib/dist_elf.sh"
for f in bin/etcd-fio lib/etcd-fio/fio lib/etcd-fio/libetcdwal.so; do dist_elf_check "$TOPDIR$f" "$f"; done
BV=$(sed -n 's/^lib\/etcd-fio\/fio is fio \([0-9.]*\).*/\1/p' "$TOPDIR/LICENSES/SOURCES")

for ROOT in "$@"; do
  r=$(basename "$ROOT")
  [ -d "$ROOT" ] || { fail "$ROOT missing (make dist-deps)"; continue; }
  t0=$(date +%s)
  rm -rf "$ROOT/opt/etcd-fio" "$ROOT/work" && mkdir -p "$ROOT/opt" "$ROOT/work"
  cp -a "$TOPDIR" "$ROOT/opt/etcd-fio" && chmod -R a-w "$ROOT/opt/etcd-fio"
  cat > "$ROOT/work/run.sh" <<'EOS'
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
unset ETCD_FIO_ENGINE FIO
cd /work
echo "== hostfio"; command -v fio && fio --version
echo "== version"; /opt/etcd-fio/bin/etcd-fio --version; echo "rc=$?"
rm -rf /var/tmp/chk && mkdir -p /var/tmp/chk
echo "== check"; /opt/etcd-fio/bin/etcd-fio check --wal-only --max-time 20 --min-syncs 20 --accept-point-estimate /var/tmp/chk > check.out 2>&1; echo "rc=$?"
echo "== left"; ls -A /var/tmp/chk | wc -l
/opt/etcd-fio/bin/etcd-fio check --wal-only --full --max-time 60 /var/tmp/chk > term.out 2>&1 &
pid=$!; sleep 6; kill -TERM $pid 2>/dev/null && echo sent > term.sent; wait $pid; rc=$?; echo "== term"; echo "rc=$rc"
sleep 1; echo "== tleft"; ls -A /var/tmp/chk | wc -l
echo "== procs"; cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^fio$' || true
EOS
  unshare -m -p -f --propagation private sh -c '
    mount -t proc proc "$1/proc" && mount --rbind /dev "$1/dev" && exec chroot "$1" sh /work/run.sh' sh "$ROOT" \
    > "$WORK/$r.out" 2>&1
  O=$WORK/$r.out
  sect() { awk -v s="== $1" '$0 == s {on = 1; next} /^== / {on = 0} on' "$O"; }
  hf=$(sect hostfio | sed -n 2p)
  if sect version | grep -q "^fio $BV (bundled: /opt/etcd-fio/lib/etcd-fio/fio)$"; then
    ok "$r: --version names the bundled fio $BV${hf:+ (the root's own $hf ignored)}"
  else fail "$r: --version: $(sect version | tr '\n' '|')"; fi
  crc=$(sect check | sed -n 's/^rc=//p')
  case $crc in 0|1) ok "$r: check --wal-only judged /var/tmp/chk (exit $crc): $(head -n 1 "$ROOT/work/check.out")" ;;
    *) fail "$r: check exit ${crc:-?}: $(head -n 5 "$ROOT/work/check.out" | tr '\n' '|')" ;; esac
  grep -q "fio-$BV" "$ROOT/work/check.out" 2>/dev/null || true
  [ "$(sect left)" = 0 ] && ok "$r: the directory is empty after the check" || fail "$r: $(sect left) entries left"
  trc=$(sect term | sed -n 's/^rc=//p')
  [ -f "$ROOT/work/term.sent" ] || fail "$r: the check had ended before the SIGTERM"
  case $trc in 0|1|2) ok "$r: SIGTERM mid-run: exit $trc: $(head -n 1 "$ROOT/work/term.out")" ;;
    *) fail "$r: SIGTERM mid-run: exit ${trc:-?}: $(head -n 5 "$ROOT/work/term.out" | tr '\n' '|')" ;; esac
  [ "$(sect tleft)" = 0 ] && ok "$r: the directory is empty after the SIGTERM" || fail "$r: $(sect tleft) entries left after SIGTERM"
  [ "$(sect procs)" = 0 ] && ok "$r: no fio left running" || fail "$r: $(sect procs) fio processes left"
  chmod -R u+w "$ROOT/opt/etcd-fio"; rm -rf "$ROOT/opt/etcd-fio" "$ROOT/work" "$ROOT/var/tmp/chk"
  echo "  ($r: $(( $(date +%s) - t0 )) s)"
done
echo "dist_roots: $NAME, $fails failure(s)"
[ "$fails" = 0 ]
