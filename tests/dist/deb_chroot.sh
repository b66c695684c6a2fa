#!/bin/sh
# SPDX-License-Identifier: MIT
# deb_chroot.sh DEB_DIR — `make check-deb`: the packages `make deb` built, installed with apt into a fresh
# Debian root made by mmdebstrap (the host's release, so that its fio is the one the engine was built
# for), then run there from the installed paths only: `etcd-fio verdict` on real fio outputs (pass and
# fail), a short `etcd-fio check` with the chroot's fio and /usr/lib/etcd-fio/libetcdwal.so, pkg-config
# of libfioreport-dev, and the engine refusing a fio it was not built for (fio told so in one line).
# Slow (a Debian root from the network: ~1-3 min): not part of make check. Needs root; skipped (77)
# without it or without mmdebstrap. The root is made under DEB_CHROOT_DIR (default /var/tmp), on a real
# disk, and removed; its apt cache is kept in DEB_DIR/apt-cache for the next run.
set -u
DEB_DIR=${1:?usage: deb_chroot.sh DEB_DIR}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "skip: needs root (mmdebstrap, chroot, mount namespaces)"; exit 77; }
command -v mmdebstrap >/dev/null 2>&1 || { echo "skip: mmdebstrap not installed (make deps-deb)"; exit 77; }
DEB_DIR=$(cd "$DEB_DIR" && pwd)
set -- "$DEB_DIR"/etcd-fio_*.deb "$DEB_DIR"/etcd-fio-engine_*.deb "$DEB_DIR"/libfioreport4_*.deb "$DEB_DIR"/libfioreport-dev_*.deb
for f; do [ -f "$f" ] || { echo "FAIL: $f missing (make deb)"; exit 1; }; done
SUITE=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$SUITE" ] || { echo "skip: cannot tell this host's Debian release"; exit 77; }
ROOT=$(mktemp -d "${DEB_CHROOT_DIR:-/var/tmp}/etcd-fio-chroot.XXXXXX") || exit 1
trap 'rm -rf "$ROOT"' EXIT INT TERM
CACHE=$DEB_DIR/apt-cache
mkdir -p "$CACHE"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
t0=$(date +%s)

# The .debs are installed by apt inside the new root (mmdebstrap passes paths to apt), with their
# dependencies from the archive: fio at the version the engine package names, yajl, curl.
incl=""
for f; do incl="$incl --include=$f"; done
# shellcheck disable=SC2086
if ! mmdebstrap --variant=apt $incl --include=pkgconf --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
    --setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
    --setup-hook="sync-in $CACHE /var/cache/apt/archives" \
    --customize-hook="sync-out /var/cache/apt/archives $CACHE" \
    "$SUITE" "$ROOT" > "$DEB_DIR/mmdebstrap.log" 2>&1; then
  tail -n 20 "$DEB_DIR/mmdebstrap.log"; echo "FAIL: mmdebstrap $SUITE with the packages"; exit 1
fi
t1=$(date +%s)
ok "Debian $SUITE root with the packages in $((t1 - t0)) s ($(du -sm "$ROOT" | cut -f1) MB)"
rm -f "$CACHE"/lock; rm -rf "$CACHE"/partial

# Everything below runs in the root: a mount namespace of its own (its /proc and /dev go with it) and a pid
# namespace (nothing it starts outlives it).
mkdir -p "$ROOT/work"
cp "$TOP/tests/fixtures/fio/fio-3.33-json.json" "$TOP/tests/fixtures/seeds/fio-3.7-normal-msec.txt" "$ROOT/work/"
cat > "$ROOT/work/run.sh" <<'EOF'
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
unset ETCD_FIO_ENGINE FIO
cd /work
echo "== dpkg"; dpkg-query -W -f='${Package} ${Version} ${Status}\n' etcd-fio etcd-fio-engine libfioreport4 libfioreport-dev fio
echo "== paths"; command -v etcd-fio; ls /usr/lib/etcd-fio/libetcdwal.so
echo "== version"; etcd-fio --version; fio --version
echo "== verdict-pass"; etcd-fio verdict fio-3.33-json.json; echo "rc=$?"
echo "== verdict-fail"; etcd-fio verdict fio-3.7-normal-msec.txt; echo "rc=$?"
echo "== pkg-config"; pkg-config --cflags --libs libfioreport; echo "rc=$?"
mkdir -p /var/tmp/chk
echo "== check"; etcd-fio check --json --max-time 15 --min-syncs 20 --accept-point-estimate /var/tmp/chk > check.json 2> check.err; echo "rc=$?"
echo "== left"; ls -A /var/tmp/chk | wc -l
echo "== foreign"
# a fio that is not the one the engine was built for: the chroot's own fio, with its version string
# changed in a copy (same length), must refuse the engine with one line of the engine's and not crash
sed 's/fio-3\.[0-9][0-9]/fio-9.99/' /usr/bin/fio > /tmp/fio-other && chmod +x /tmp/fio-other
/tmp/fio-other --version
/tmp/fio-other --name=x --ioengine=external:/usr/lib/etcd-fio/libetcdwal.so --directory=/var/tmp/chk \
  --rw=write --bs=2300 --fdatasync=1 --size=1m > foreign.out 2>&1; echo "rc=$?"
cat foreign.out
EOF
unshare -m -p -f --propagation private sh -c '
  mount -t proc proc "$1/proc" && mount --rbind /dev "$1/dev" && exec chroot "$1" sh /work/run.sh' sh "$ROOT" \
  > "$DEB_DIR/chroot.out" 2>&1
t2=$(date +%s)
sed 's/^/  | /' "$DEB_DIR/chroot.out"
O=$DEB_DIR/chroot.out
sect() { awk -v s="== $1" '$0 == s {on = 1; next} /^== / {on = 0} on' "$O"; }

[ "$(sect dpkg | grep -c ' install ok installed$')" = 5 ] && ok "the four packages and fio installed" || fail "dpkg: $(sect dpkg)"
[ "$(sect paths | head -n1)" = /usr/bin/etcd-fio ] && ok "etcd-fio at /usr/bin/etcd-fio, engine in /usr/lib/etcd-fio/" || fail "paths: $(sect paths)"
ver=$(sed -n 's/^#define FIOR_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$TOP/libreport/include/fioreport.h" | paste -sd.)
sect version | grep -q "$ver" && ok "etcd-fio --version says $ver" || fail "version: $(sect version)"
sect verdict-pass | grep -q '^rc=0$' && sect verdict-pass | grep -qi '^pass' && ok "verdict on a passing fio 3.33 JSON: PASS (exit 0)" || fail "verdict-pass: $(sect verdict-pass)"
sect verdict-fail | grep -q '^rc=1$' && ok "verdict on a failing fio 3.7 normal output: FAIL (exit 1)" || fail "verdict-fail: $(sect verdict-fail)"
sect pkg-config | grep -q -- '-lfioreport' && sect pkg-config | grep -q '^rc=0$' && ok "pkg-config libfioreport: $(sect pkg-config | head -n1)" || fail "pkg-config: $(sect pkg-config)"
crc=$(sect check | sed -n 's/^rc=//p')
case $crc in
  0|1) ok "etcd-fio check judged the disk from the installed paths (exit $crc): $(head -c 300 "$ROOT/work/check.err" | head -n1)" ;;
  *) fail "etcd-fio check exit ${crc:-?}: $(head -n 3 "$ROOT/work/check.err")" ;;
esac
python3 - "$ROOT/work/check.json" <<'EOF' && ok "check's JSON: both jobs judged with samples" || fail "check's JSON"
import json, sys
d = json.load(open(sys.argv[1]))
jobs = [j for h in d['hosts'] for j in h['jobs']]
roles = sorted(j['role'] for j in jobs)
print('  check: verdict %s, %s' % (d['verdict'], ', '.join('%s %s samples p99 %s ns' % (j['role'], j['samples'], j['p99_ns']) for j in jobs)))
sys.exit(0 if roles == ['backend', 'wal'] and all(j['samples'] for j in jobs) and d['verdict'] in ('pass', 'fail') else 1)
EOF
[ "$(sect left)" = 0 ] && ok "check left nothing in its directory" || fail "check left $(sect left) entries"
frc=$(sect foreign | sed -n 's/^rc=//p')
if [ "${frc:-0}" -ge 128 ]; then fail "the engine in another fio crashed it (exit $frc)"
elif [ "${frc:-0}" = 0 ]; then fail "the engine loaded into a fio it was not built for"
elif sect foreign | grep -q '^etcdwal: this engine was built against the source of fio-3\..* and cannot run in fio-9.99'; then
  ok "another fio refuses the engine, with its one line: $(sect foreign | grep '^etcdwal:' | cut -c1-110)…"
else fail "foreign fio: $(sect foreign)"; fi
echo "deb_chroot: mmdebstrap $((t1 - t0)) s, tests in the root $((t2 - t1)) s, total $(($(date +%s) - t0)) s"
[ $fails -eq 0 ] || { echo "deb_chroot: $fails failure(s)"; exit 1; }
echo "deb_chroot: all passed"
