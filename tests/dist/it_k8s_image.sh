#!/bin/sh
# SPDX-License-Identifier: MIT
# it_k8s_image.sh — the rendered manifests of examples/k8s (rke2, kubeadm, openshift) run with the real image
# by podman, as a kubelet would run their pod spec, without a cluster: command and args (with the kubelet's
# $(VAR) expansion), env (spec.nodeName = a node name), hostNetwork, securityContext (runAsUser, read-only
# root, privileged or no-new-privileges), each hostPath a directory under a fake node root (Directory ones
# must exist, as the kubelet demands), each emptyDir a tmpfs, the termination message file. On the node: a
# real etcd (Debian's etcd-server) with its data in the distribution's data directory, TLS with client
# certificates made here by openssl and placed where the manifest mounts them from, listening on the
# manifest's own URL (127.0.0.1:2379 / localhost:2379) in a network namespace of its own that stands for
# the node's network (hostNetwork), so nothing of the machine's is used. Asserts, per distribution:
#  - the DaemonSet's pod: the guard is on (the log says it watches etcd at the manifest's URL, and the
#    JSON names it), the verdict line first on stdout agrees with the JSON, the textfile is written with
#    the same verdict, etcd keeps running, nothing of ours is left; SIGTERM between rounds ends it;
#  - the Job's pod (NODE set as the docs say, with sed): exit status = verdict, the termination message
#    carries the verdict line.
# SKIP (77) as tests/lib/podman_lib.sh says, or without etcd, openssl or unshare.
# run.sh: alone
. "$(dirname "$0")/../lib/lib.sh"
. "$TOP/tests/lib/podman_lib.sh"
EPID=""
SHM=/dev/shm/it-k8s-image.$$
stop_etcd() { [ -n "$EPID" ] && kill "$EPID" 2>/dev/null && wait "$EPID" 2>/dev/null; EPID=""; rm -rf "$SHM"; }
trap 'stop_etcd; podman_cleanup' EXIT INT TERM
# after podman's own conditions, so that a machine without podman says that first
for t in etcd openssl unshare nsenter ip jq; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: $t not installed (make deps-image)"; exit 77; }
done
word() { case $1 in 0) echo pass ;; 1) echo fail ;; *) echo unknown ;; esac; }
NODE=it-node-1
PY=/usr/bin/python3

# podspec FILE HOSTROOT → shell assignments: ENTRY, ARGS and OPTS (quoted words), DATA (host path of the
# etcd data dir), URL, CACERT/CERT/KEY (host paths), NEED (Directory hostPaths: must exist), MKDIRS
# (DirectoryOrCreate ones: the kubelet makes them), GRACE, KIND
podspec() {
  "$PY" - "$1" "$2" "$NODE" "$T" <<'EOF'
import re, shlex, sys, yaml
path, root, node, tmp = sys.argv[1:5]
(doc,) = [d for d in yaml.safe_load_all(open(path)) if d and d['kind'] in ('Job', 'DaemonSet')]
spec = doc['spec']['template']['spec']
(c,) = spec['containers']
env = {}
opts = []
for e in c.get('env', []):
    if 'value' in e:
        env[e['name']] = e['value']
    elif e['valueFrom']['fieldRef']['fieldPath'] == 'spec.nodeName':
        env[e['name']] = node
    else:
        sys.exit('env %s: unsupported source' % e['name'])
# the kubelet expands $(VAR) in command and args from the container's env
expand = lambda s: re.sub(r'\$\((\w+)\)', lambda m: env.get(m.group(1), m.group(0)), s)
cmd = [expand(a) for a in c.get('command', [])]
args = [expand(a) for a in c.get('args', [])]
opts += ['--entrypoint', cmd[0]]
for k, v in env.items():
    opts += ['-e', '%s=%s' % (k, v)]
opts += ['--network', 'ns:/proc/$EPID/ns/net' if spec.get('hostNetwork') else 'none']
sc = c.get('securityContext') or {}
if 'runAsUser' in sc:
    opts += ['--user', str(sc['runAsUser'])]
if sc.get('readOnlyRootFilesystem'):
    opts += ['--read-only', '--read-only-tmpfs=false']
if sc.get('privileged'):
    opts += ['--privileged']
if sc.get('allowPrivilegeEscalation') is False:
    opts += ['--security-opt', 'no-new-privileges']
vols = {v['name']: v for v in spec.get('volumes', [])}
need, mk, host_of = [], [], {}
for m in c.get('volumeMounts', []):
    v = vols[m['name']]
    if 'hostPath' in v:
        hp = v['hostPath']
        if hp.get('type') == 'Directory':
            need.append(root + hp['path'])
        elif hp.get('type') == 'DirectoryOrCreate':
            mk.append(root + hp['path'])
        opts += ['-v', '%s%s:%s%s' % (root, hp['path'], m['mountPath'], ':ro' if m.get('readOnly') else '')]
        host_of[m['mountPath']] = root + hp['path']
    elif 'emptyDir' in v:
        opts += ['--tmpfs', m['mountPath']]
    else:
        sys.exit('volume %s: unsupported' % m['name'])
opts += ['-v', '%s/termlog:%s' % (tmp, c.get('terminationMessagePath', '/dev/termination-log'))]
def host(p):  # a path in the container → where it is on the node
    best = max((mp for mp in host_of if p == mp or p.startswith(mp + '/')), key=len)
    return host_of[best] + p[len(best):]
opt = dict(a[2:].split('=', 1) for a in args if a.startswith('--') and '=' in a)
q = lambda s: shlex.quote(s)
print('KIND=%s' % doc['kind'])
print('ENTRY=%s' % q(cmd[0]))
print('ARGS=%s' % q(' '.join(q(a) for a in cmd[1:] + args)))
print('OPTS=%s' % q(' '.join(q(a) for a in opts)))
print('NEED=%s' % q(' '.join(need)))
print('MKDIRS=%s' % q(' '.join(mk)))
print('DATA=%s' % q(host(env['ETCD_DIRS'])))
print('URL=%s' % q(opt['etcd']))
for k in ('cacert', 'cert', 'key'):
    print('%s=%s' % (k.upper(), q(host(opt[k]))))
print('GRACE=%d' % spec.get('terminationGracePeriodSeconds', 30))
EOF
}

# certs CACERT CERT KEY: a CA and a client certificate at the paths the manifest reads them from, and a
# server certificate for etcd (localhost, 127.0.0.1) in $T/pki
certs() {
  mkdir -p "$T/pki" "$(dirname "$1")" "$(dirname "$2")" "$(dirname "$3")"
  (cd "$T/pki" &&
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth,clientAuth\n' > ext.cnf &&
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=it-etcd-ca \
      -addext keyUsage=critical,keyCertSign,cRLSign &&
    for n in server client; do
      openssl req -newkey rsa:2048 -nodes -keyout $n.key -out $n.csr -subj /CN=$n &&
      openssl x509 -req -in $n.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out $n.crt -days 2 -extfile ext.cnf || exit 1
    done) > "$T/openssl.log" 2>&1 || { cat "$T/openssl.log"; return 1; }
  cp "$T/pki/ca.crt" "$1" && cp "$T/pki/client.crt" "$2" && cp "$T/pki/client.key" "$3" && chmod 0600 "$3"
}

# start_etcd DATA URL: etcd in a network namespace of its own (lo up), listening on URL's port on 127.0.0.1
# with client certificate auth; EPID its pid (the namespace's), ready when /metrics answers over TLS. Its
# WAL is on tmpfs (--wal-dir): the guard watches a p99 only while it is below its threshold, which a
# shared test machine's disk may not give; the data dir (member/snap, the check's directory) is on disk.
# Then 200 puts (etcd's gRPC gateway; a commit every 10 ms), so that the guard has the WAL fsyncs and
# backend commits it needs.
start_etcd() {
  port=${2##*:}
  rm -rf "$SHM" && mkdir -p "$SHM" || return 1
  unshare -n sh -c 'ip link set lo up && exec "$@"' sh etcd --name it --data-dir "$1" --wal-dir "$SHM/wal" \
    --listen-client-urls "https://127.0.0.1:$port" --advertise-client-urls "https://127.0.0.1:$port" \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster it=http://127.0.0.1:2380 --cert-file "$T/pki/server.crt" --key-file "$T/pki/server.key" \
    --trusted-ca-file "$T/pki/ca.crt" --client-cert-auth --backend-batch-interval 10ms > "$T/etcd.log" 2>&1 &
  EPID=$!
  i=0
  until nsenter -t "$EPID" -n "$PY" -c 'import ssl, sys, urllib.request
c = ssl.create_default_context(cafile=sys.argv[2]); c.load_cert_chain(sys.argv[3], sys.argv[4])
urllib.request.urlopen(sys.argv[1], timeout=2, context=c).read()' "https://127.0.0.1:$port/metrics" \
      "$T/pki/ca.crt" "$T/pki/client.crt" "$T/pki/client.key" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 120 ] || ! kill -0 "$EPID" 2>/dev/null; then fail "etcd did not start: $(tail -n 3 "$T/etcd.log")"; return 1; fi
    sleep 0.25
  done
  nsenter -t "$EPID" -n "$PY" -c 'import base64, http.client, json, ssl, sys
c = ssl.create_default_context(cafile=sys.argv[2]); c.load_cert_chain(sys.argv[3], sys.argv[4])
h = http.client.HTTPSConnection("127.0.0.1", int(sys.argv[1]), context=c, timeout=10)
for i in range(200):
    b = lambda s: base64.b64encode(s.encode()).decode()
    h.request("POST", "/v3/kv/put", json.dumps({"key": b("it/%d" % i), "value": b("x" * 100)}))
    r = h.getresponse(); r.read()
    if r.status != 200:
        sys.exit("put: HTTP %d" % r.status)' "$port" "$T/pki/ca.crt" "$T/pki/client.crt" "$T/pki/client.key" ||
    { fail "puts to etcd failed"; return 1; }
}
privdirs() { ls -A "$1" | grep -E '^etcd-fio' ; }
SHORT='--max-time=15 --min-syncs=20 --accept-point-estimate --json'

for dist in rke2 kubeadm openshift; do
  H=$T/node-$dist
  eval "$(podspec "$TOP/examples/k8s/$dist/daemonset.yaml" "$H")" || { fail "$dist: cannot read the DaemonSet"; continue; }
  certs "$CACERT" "$CERT" "$KEY" || { fail "$dist: openssl"; continue; }
  start_etcd "$DATA" "$URL" || continue
  for d in $NEED; do [ -d "$d" ] || fail "$dist: hostPath $d (type Directory) does not exist on the node"; done
  mkdir -p $MKDIRS
  : > "$T/termlog"
  OPTS=$(echo "$OPTS" | sed "s|\$EPID|$EPID|")
  # the DaemonSet: the first round's verdict, then SIGTERM between rounds
  eval "\$P run -d --name it-ds-$dist $OPTS -e PROGRESS_INTERVAL=5 -e ETCD_FIO_ARGS='$SHORT' $IMAGE $ARGS" > /dev/null ||
    { fail "$dist: podman run"; stop_etcd; continue; }
  i=0
  rm -f "$T/ds.log"
  while [ $i -lt 900 ] && ! grep -q 'next check in' "$T/ds.log" 2>/dev/null; do
    $P logs it-ds-$dist > "$T/ds.log" 2>&1; sleep 0.2; i=$((i + 1))
  done
  $P logs it-ds-$dist > "$T/ds.out" 2> "$T/ds.err"
  $P stop -t "$GRACE" it-ds-$dist > /dev/null
  drc=$($P inspect -f '{{.State.ExitCode}}' it-ds-$dist)
  $P rm -f it-ds-$dist > /dev/null
  first=$(head -n 1 "$T/ds.out")
  lrc=$(echo "$first" | sed -n 's/.*: exit \([0-9]*\))$/\1/p')
  jv=$(tail -n +2 "$T/ds.out" | jq -r .verdict 2>/dev/null)
  echo "    $dist DaemonSet: $first"
  grep "watching etcd at\|stopped to protect" "$T/ds.err" | head -n 2 | sed 's/^/    | /'
  if grep -q "watching etcd at $URL/metrics.*the check stops if" "$T/ds.err" &&
     tail -n +2 "$T/ds.out" | jq -e --arg u "$URL" '(.details.etcd.url | startswith($u)) and .details.etcd.scrapes >= 2
       and .details.etcd.before.wal.samples >= 100 and (.details.etcd.guard.fired | type) == "boolean"' > /dev/null 2>&1; then
    ok "$dist DaemonSet: the guard is on: it watches etcd at $URL with the certificates it mounts ($(tail -n +2 "$T/ds.out" |
      jq -r '"\(.details.etcd.scrapes) scrapes, guard fired: \(.details.etcd.guard.fired)"'))"
  else
    fail "$dist DaemonSet: the guard is not on"; tail -n 5 "$T/ds.err"
  fi
  case $first in
    "$(word "$lrc") on node $NODE at "*) [ "$jv" = "$(word "$lrc")" ] &&
      ok "$dist DaemonSet: verdict line first, agreeing with the JSON ($jv)" || fail "$dist DaemonSet: line says exit $lrc, JSON $jv" ;;
    *) fail "$dist DaemonSet: stdout begins: $first" ;;
  esac
  tv=$(sed -n 's/^etcd_fio_verdict{.*} \([0-9]\)$/\1/p' "$H/var/lib/node_exporter/textfile_collector/etcd_fio.prom" 2>/dev/null)
  [ "$tv" = "$lrc" ] && ok "$dist DaemonSet: textfile etcd_fio_verdict $tv" || fail "$dist DaemonSet: textfile verdict '$tv', line exit $lrc"
  [ "$drc" = 0 ] && ok "$dist DaemonSet: SIGTERM between rounds: exit 0" || fail "$dist DaemonSet: exit $drc after podman stop"
  [ -z "$(privdirs "$DATA")" ] || fail "$dist: left in etcd's data dir: $(privdirs "$DATA")"
  kill -0 "$EPID" 2>/dev/null && ok "$dist: etcd still runs" || fail "$dist: etcd died: $(tail -n 3 "$T/etcd.log")"

  # the Job, on kubeadm only (the pod spec is the DaemonSet's but for CHECK_INTERVAL): NODE by sed
  if [ $dist = kubeadm ]; then
    sed "s/\${NODE}/$NODE/" "$TOP/examples/k8s/$dist/job.yaml" > "$T/job.yaml"
    node=$("$PY" -c 'import sys, yaml; print([d for d in yaml.safe_load_all(open(sys.argv[1])) if d][0]["spec"]["template"]["spec"]["nodeName"])' "$T/job.yaml")
    [ "$node" = "$NODE" ] && ok "Job: sed 's/\${NODE}/$NODE/' names the node" || fail "Job: nodeName '$node'"
    eval "$(podspec "$T/job.yaml" "$H")"
    OPTS=$(echo "$OPTS" | sed "s|\$EPID|$EPID|")
    : > "$T/termlog"
    eval "\$P run --rm $OPTS -e ETCD_FIO_ARGS='$SHORT' $IMAGE $ARGS" > "$T/job.out" 2> "$T/job.err"; rc=$?
    first=$(head -n 1 "$T/job.out")
    case $first in
      "$(word $rc) on node $NODE at "*"exit $rc)") ok "Job: exit $rc, first line: $first" ;;
      *) fail "Job: exit $rc, first line: $first"; tail -n 3 "$T/job.err" ;;
    esac
    [ "$(head -n 1 "$T/termlog")" = "$first" ] && ok "Job: termination message: $(tr '\n' ' ' < "$T/termlog" | cut -c1-100)…" ||
      { fail "Job: termination message:"; cat "$T/termlog"; }
  fi
  stop_etcd
done

finish it_k8s_image "it_k8s_image: rke2, kubeadm and OpenShift pods run by podman beside a real etcd: the guard watches"
