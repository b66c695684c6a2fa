#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: alone
# it_etcd_tls.sh — a URL over https with client certificates, as etcd runs in production: a real etcd
# (Debian's etcd-server) on 127.0.0.1 with a CA, server and client certificates made here by openssl and
# --client-cert-auth. Without --cacert the scrape fails naming the option; without a client certificate
# too; with --cacert/--cert/--key (etcdctl's names) it is read and judged — by verdict, and by check --etcd.
set -u
BUILD=${BUILD:-build}
case $BUILD in /*) BIN=$BUILD/etcd-fio ;; *) BIN=$(pwd)/$BUILD/etcd-fio ;; esac
[ -x "$BIN" ] || { echo "it_etcd_tls: $BIN not built"; exit 1; }
for t in etcd openssl python3 jq; do
  command -v $t >/dev/null || { echo "it_etcd_tls: skipped: $t not installed"; exit 77; }
done
T=$(mktemp -d /var/tmp/it_etcd_tls.XXXXXX)
EPID=""
trap '[ -n "$EPID" ] && kill "$EPID" 2>/dev/null && wait "$EPID" 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib/assert.sh"
cd "$T" || exit 1
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' > ext.cnf
{ openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=it-ca \
    -addext keyUsage=critical,keyCertSign,cRLSign &&
  for n in srv cli; do
    openssl req -newkey rsa:2048 -nodes -keyout $n.key -out $n.csr -subj /CN=$n &&
    openssl x509 -req -in $n.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out $n.crt -days 2 -extfile ext.cnf || exit 1
  done; } > openssl.log 2>&1 || { echo "it_etcd_tls: openssl failed"; cat openssl.log; exit 1; }
set -- $(python3 -c 'import socket
a=socket.socket(); a.bind(("127.0.0.1",0)); b=socket.socket(); b.bind(("127.0.0.1",0))
print(a.getsockname()[1], b.getsockname()[1])')
PC=$1 PP=$2
URL=https://127.0.0.1:$PC/metrics
etcd --name t --data-dir "$T/data" --listen-client-urls "https://127.0.0.1:$PC" --advertise-client-urls "https://127.0.0.1:$PC" \
     --listen-peer-urls "http://127.0.0.1:$PP" --initial-advertise-peer-urls "http://127.0.0.1:$PP" \
     --initial-cluster "t=http://127.0.0.1:$PP" --cert-file srv.crt --key-file srv.key --trusted-ca-file ca.crt \
     --client-cert-auth > etcd.log 2>&1 &
EPID=$!
i=0
# ready = /metrics answers over TLS with the client certificate (not a fixed sleep after the port opens)
while ! python3 -c 'import ssl, sys, urllib.request
c = ssl.create_default_context(cafile="ca.crt"); c.load_cert_chain("cli.crt", "cli.key")
urllib.request.urlopen(sys.argv[1], timeout=2, context=c).read()' "$URL" 2>/dev/null; do
  i=$((i+1))
  if [ $i -gt 120 ] || ! kill -0 "$EPID" 2>/dev/null; then echo "it_etcd_tls: etcd did not start"; tail -3 etcd.log; exit 1; fi
  sleep 0.25
done

"$BIN" verdict "$URL" > out 2> err; rc=$?
[ $rc = 2 ] && [ "$(wc -l < err)" = 1 ] && grep -q -- "--cacert" err && ok "no CA: one line naming --cacert: $(cat err)" \
  || { bad "no CA: exit $rc"; cat err; }
"$BIN" verdict --cacert ca.crt "$URL" > out 2> err; rc=$?
[ $rc = 2 ] && [ "$(wc -l < err)" = 1 ] && grep -q -- "--cert FILE --key FILE" err && ok "no client certificate: names --cert/--key" \
  || { bad "no client cert: exit $rc"; cat err; }
"$BIN" verdict --json --cacert ca.crt --cert cli.crt --key cli.key "$URL" > out.json 2> err; rc=$?
if [ $rc = 2 ] && [ -s out.json ] && jq -e --arg u "$URL" '[.hosts[].jobs[]] | length == 2 and all(.source == $u)
      and (map(.name) | sort) == ["etcd_disk_backend_commit_duration_seconds", "etcd_disk_wal_fsync_duration_seconds"]' out.json > /dev/null; then
  ok "with --cacert/--cert/--key: both histograms read over https (a fresh etcd: unknown, exit 2)"
else
  bad "with certificates: exit $rc"; cat out.json err
fi
# check --etcd over the same https with the same options: the watch reads etcd before the (here failing)
# run; without --cacert it refuses before anything starts
mkdir -p chk
FIO=false "$BIN" check --faithful --max-time 6 --accept-point-estimate --min-syncs 10 --etcd "$URL" chk > /dev/null 2> err; rc=$?
[ $rc = 2 ] && grep -q -- "--etcd.*--cacert" err && [ -z "$(ls -A chk)" ] && ok "check --etcd https without --cacert: refused" ||
  { bad "check --etcd without CA: exit $rc"; cat err; }
# --force: on a shared machine another etcd may use this filesystem (the identity check is it_etcd_watch's)
FIO=false "$BIN" check --faithful --force --max-time 6 --accept-point-estimate --min-syncs 10 --json --cacert ca.crt --cert cli.crt \
  --key cli.key --etcd "$URL" chk > out.json 2> err; rc=$?
if [ $rc = 2 ] && jq -e --arg u "$URL" '.details.etcd.url == $u and .details.etcd.before.wal.samples >= 0 and
      .details.etcd.guard.fired == false' out.json > /dev/null && grep -q "watching etcd at" err; then
  ok "check --etcd https with --cacert/--cert/--key: etcd watched ($(grep -o 'before the check, WAL fsync p99 [^,]*' err))"
else
  bad "check --etcd https: exit $rc"; cat err; jq .details.etcd out.json
fi
finish it_etcd_tls
