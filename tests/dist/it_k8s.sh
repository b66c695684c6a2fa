#!/bin/sh
# SPDX-License-Identifier: MIT
# it_k8s.sh — examples/k8s without a cluster: the manifests committed for rke2, kubeadm and OpenShift are
# what examples/k8s/render makes of template.yaml for this version; they pass yamllint (strict) and, parsed
# with python3-yaml, have what a cluster needs: the right kinds and API versions; the Job one per run
# (generateName), on the node the user names (nodeName ${NODE}), never retried; the DaemonSet on the
# distribution's etcd nodes (its node label) with its taints tolerated; hostPath volumes for the
# distribution's etcd data directory and its etcd client certificates (read-only), every mount backed by
# a volume and every volume mounted; PID 1 = etcd-fio-pod looking in the data mount, `--etcd` with
# --cacert/--cert/--key inside the certificate mount (the guard on), hostNetwork (etcd's 127.0.0.1), options
# the real `etcd-fio check` accepts, the termination message from the log on error, a grace period that
# covers the cleanup, root with a read-only root file system, and on OpenShift privileged with the SCC
# granted by setup.yaml. The Containerfile installs the packages of `make deb` and no test tools, as the
# user the manifests run as. (tests/dist/it_k8s_run.sh and it_k8s_image.sh run them.)
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
K=$top/examples/k8s
command -v yamllint >/dev/null || { echo "skip: yamllint not installed (mk/deps.sh installs it)"; exit 77; }
PY=""
for p in /usr/bin/python3 python3; do
  if $p -c 'import yaml' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "skip: no python3 with the yaml module (Debian: python3-yaml)"; exit 77; }
[ -x "$BUILD/etcd-fio" ] || { echo "FAIL: $BUILD/etcd-fio not built"; exit 1; }
fails=0
version=$("$BUILD/etcd-fio" --version | sed -n '1s/^etcd-fio \([0-9][0-9.]*\).*/\1/p')
T=$(mktemp -d /tmp/it-k8s.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

yamllint -s -d "{extends: default, rules: {line-length: {max: 110}}}" "$K"/*/*.yaml \
  && echo "ok: yamllint -s" || { echo "FAIL: yamllint"; fails=$((fails + 1)); }
"$PY" "$K/render" "$version" "localhost/etcd-fio:$version" "$T/r" &&
  (cd "$T/r" && find . -name '*.yaml' | sort) > "$T/rendered" &&
  (cd "$K" && find . -mindepth 2 -name '*.yaml' | sort) > "$T/committed" &&
  cmp -s "$T/rendered" "$T/committed" &&
  (while read -r f; do cmp -s "$T/r/$f" "$K/$f" || exit 1; done < "$T/rendered") &&
  echo "ok: the committed manifests are template.yaml rendered for $version ($(tr '\n' ' ' < "$T/rendered"))" ||
  { echo "FAIL: examples/k8s/*/ differ from the render of template.yaml for $version (make manifests)"; fails=$((fails + 1)); }

help=$("$BUILD/etcd-fio" check --help 2>&1)
HELP="$help" VERSION="$version" "$PY" - "$K" <<'EOF' || fails=$((fails + 1))
import os, re, sys, yaml
bad = []
def check(cond, msg):
    print(('ok: ' if cond else 'FAIL: ') + msg)
    if not cond:
        bad.append(msg)

K = sys.argv[1]
version = os.environ['VERSION']
check_help = os.environ['HELP']
DIST = {  # data dir, certificate dir, DaemonSet nodeSelector, taints that must be tolerated
    'rke2': ('/var/lib/rancher/rke2/server/db/etcd', '/var/lib/rancher/rke2/server/tls/etcd',
             {'node-role.kubernetes.io/etcd': 'true'}, {'node-role.kubernetes.io/etcd', 'node-role.kubernetes.io/control-plane'}),
    'kubeadm': ('/var/lib/etcd', '/etc/kubernetes/pki/etcd',
                {'node-role.kubernetes.io/control-plane': ''}, {'node-role.kubernetes.io/control-plane'}),
    'openshift': ('/var/lib/etcd', '/etc/kubernetes/static-pod-resources/etcd-certs',
                  {'node-role.kubernetes.io/master': ''}, {'node-role.kubernetes.io/master', 'node-role.kubernetes.io/control-plane'}),
}
pod_script = open(os.path.join(K, 'etcd-fio-pod')).read()

def pod_checks(name, dist, doc):
    data, certs, _, taints = DIST[dist]
    tpl = doc['spec']['template']
    spec = tpl['spec']
    tols = spec.get('tolerations') or []
    check(taints <= {t.get('key') for t in tols}, '%s tolerates %s' % (name, sorted(taints)))
    for t in tols:
        check(t.get('operator') == 'Exists' or ('value' in t and t.get('operator', 'Equal') == 'Equal'),
              '%s toleration %s is well-formed' % (name, t.get('key')))
    check(spec.get('hostNetwork') is True, '%s hostNetwork (etcd on the node\'s 127.0.0.1)' % name)
    vols = {v['name']: v for v in spec.get('volumes', [])}
    host = {v['hostPath']['path']: n for n, v in vols.items() if 'hostPath' in v}
    check({data, certs} <= set(host), '%s has hostPath volumes for %s and %s' % (name, data, certs))
    check(any('textfile' in p for p in host), '%s has a hostPath for the textfile collector' % name)
    (c,) = spec['containers']
    check(c.get('image') == 'localhost/etcd-fio:' + version, '%s image %s' % (name, c.get('image')))
    check(doc['metadata']['labels'].get('app.kubernetes.io/version') == version, '%s labelled with version %s' % (name, version))
    mounts = {m['mountPath']: m for m in c.get('volumeMounts', [])}
    for path, m in mounts.items():
        check(m['name'] in vols, '%s mount %s -> volume %s exists' % (name, path, m['name']))
    for vname in vols:
        check(vname in [m['name'] for m in mounts.values()], '%s volume %s is mounted' % (name, vname))
    mount_of = {m['name']: path for path, m in mounts.items()}
    check(c.get('command') == ['/usr/local/bin/etcd-fio-pod'], '%s runs etcd-fio-pod as PID 1' % name)
    check('etcd-fio check "$dir" "$@"' in pod_script, '%s: etcd-fio-pod runs etcd-fio check DIR with the args' % name)
    env = {e['name']: e for e in c.get('env', [])}
    check(env.get('ETCD_DIRS', {}).get('value') == mount_of.get(host.get(data)),
          '%s: etcd-fio-pod looks in the data mount (ETCD_DIRS=%s)' % (name, env.get('ETCD_DIRS', {}).get('value')))
    check(env.get('NODE_NAME', {}).get('valueFrom', {}).get('fieldRef', {}).get('fieldPath') == 'spec.nodeName',
          '%s: NODE_NAME from spec.nodeName' % name)
    args = c.get('args', [])
    opt = dict(a[2:].split('=', 1) for a in args if a.startswith('--') and '=' in a)
    cm = mount_of.get(host.get(certs), '?')
    check(mounts.get(cm, {}).get('readOnly') is True, '%s mounts the certificates read-only at %s' % (name, cm))
    check(opt.get('etcd', '').startswith('https://') and
          all(opt.get(k, '').startswith(cm + '/') for k in ('cacert', 'cert', 'key')),
          '%s: --etcd %s with --cacert/--cert/--key from %s (the guard is on)' % (name, opt.get('etcd'), cm))
    tf = [mount_of.get(n, '?') for p, n in host.items() if 'textfile' in p]
    check(tf and opt.get('prometheus', '').startswith(tf[0] + '/'), '%s writes --prometheus into %s' % (name, tf))
    for o in set(re.findall(r'^(--[a-z][a-z-]*)', ' '.join(args), re.M)) | {a.split('=')[0] for a in args}:
        check(re.search(re.escape(o) + r'(?![\w-])', check_help) is not None, '%s: etcd-fio check accepts %s' % (name, o))
    check(c.get('terminationMessagePolicy') == 'FallbackToLogsOnError', '%s: terminationMessagePolicy FallbackToLogsOnError' % name)
    check(spec.get('terminationGracePeriodSeconds', 30) >= 70,
          '%s grace period %s s covers etcd-fio stopping fio (60 s to SIGKILL)' % (name, spec.get('terminationGracePeriodSeconds')))
    sc = c.get('securityContext') or {}
    check(sc.get('runAsUser') == 0 and sc.get('readOnlyRootFilesystem') is True, '%s: root, read-only root file system' % name)
    if dist == 'openshift':
        check(sc.get('privileged') is True and 'allowPrivilegeEscalation' not in sc, '%s: privileged (SELinux spc_t)' % name)
        check(spec.get('serviceAccountName') == 'etcd-fio', '%s: service account etcd-fio' % name)
    else:
        check(not sc.get('privileged') and sc.get('allowPrivilegeEscalation') is False, '%s: not privileged, no escalation' % name)
    return spec

for dist, (data, certs, sel, _) in DIST.items():
    docs = {}
    for f in ('job.yaml', 'daemonset.yaml'):
        for d in yaml.safe_load_all(open(os.path.join(K, dist, f))):
            if d:
                docs[d['kind']] = d
    check(set(docs) == {'Job', 'DaemonSet'}, '%s: kinds %s' % (dist, sorted(docs)))
    job = docs['Job']
    name = dist + ' Job'
    check(job['apiVersion'] == 'batch/v1', name + ' apiVersion batch/v1')
    check(job['metadata'].get('generateName') == 'etcd-fio-check-' and 'name' not in job['metadata'],
          name + ': generateName, one Job per `kubectl create`')
    spec = pod_checks(name, dist, job)
    check(spec.get('restartPolicy') == 'Never' and job['spec'].get('backoffLimit') == 0, name + ': never retried')
    check(spec.get('nodeName') == '${NODE}' and 'nodeSelector' not in spec, name + ': on the node named by ${NODE}')
    ds = docs['DaemonSet']
    name = dist + ' DaemonSet'
    check(ds['apiVersion'] == 'apps/v1', name + ' apiVersion apps/v1')
    spec = pod_checks(name, dist, ds)
    check(spec.get('nodeSelector') == sel, '%s nodeSelector %s' % (name, spec.get('nodeSelector')))
    ml = ds['spec']['selector']['matchLabels']
    check(all(ds['spec']['template']['metadata']['labels'].get(k) == v for k, v in ml.items()), name + ' selector matches the pod labels')
    env = {e['name']: e.get('value') for e in spec['containers'][0].get('env', [])}
    check((env.get('CHECK_INTERVAL') or '').isdigit() and int(env['CHECK_INTERVAL']) >= 3600, name + ': CHECK_INTERVAL %s s' % env.get('CHECK_INTERVAL'))
    if dist == 'openshift':
        setup = {d['kind']: d for d in yaml.safe_load_all(open(os.path.join(K, dist, 'setup.yaml'))) if d}
        ns = job['metadata']['namespace']
        check(setup.get('Namespace', {}).get('metadata', {}).get('name') == ns == ds['metadata']['namespace'],
              'openshift setup.yaml: the namespace %s' % ns)
        sa = setup.get('ServiceAccount', {}).get('metadata', {})
        rb = setup.get('RoleBinding', {})
        check(sa.get('name') == 'etcd-fio' and sa.get('namespace') == ns, 'openshift setup.yaml: service account etcd-fio')
        check(rb.get('roleRef', {}).get('name') == 'system:openshift:scc:privileged' and
              {'kind': 'ServiceAccount', 'name': 'etcd-fio', 'namespace': ns} in rb.get('subjects', []),
              'openshift setup.yaml: etcd-fio may use the privileged SCC')
    else:
        check(job['metadata']['namespace'] == ds['metadata']['namespace'] == 'kube-system', dist + ': in kube-system')

cf = open(os.path.join(K, 'Containerfile')).read()
# the image is the packages of `make deb` on the Debian release they were built on (mk/image.sh)
froms = re.findall(r'^FROM\s+(\S+)', cf, re.M)
base = re.search(r'^ARG BASE=(\S+)', cf, re.M)
check(froms == ['${BASE}'] and base and 'debian' in base.group(1), 'Containerfile: one stage on a Debian base (%s, %s)' % (froms, base and base.group(1)))
check(re.search(r'^COPY etcd-fio_\*\.deb etcd-fio-engine_\*\.deb /tmp/debs/$', cf, re.M) is not None, 'Containerfile: the CLI and engine packages of make deb')
check(re.search(r'apt-get install[^\n]*/tmp/debs/\*\.deb', cf) is not None, 'Containerfile: installed with apt (fio comes as their dependency)')
check(not re.search(r'\bmake\b', '\n'.join(l for l in cf.splitlines() if not l.startswith('#'))), 'Containerfile: builds nothing itself')
check('COPY etcd-fio-pod /usr/local/bin/etcd-fio-pod' in cf, 'Containerfile: etcd-fio-pod in the image')
check('ENTRYPOINT ["/usr/local/bin/etcd-fio-pod"]' in cf, 'Containerfile: entrypoint etcd-fio-pod')
check(re.search(r'^USER 0(:0)?$', cf, re.M) is not None, 'Containerfile: USER 0, the manifests\' runAsUser')
top = os.path.join(K, '..', '..')
img = open(os.path.join(top, 'mk', 'image.sh')).read()
check('cp "$DEB_DIR"/etcd-fio_*.deb "$DEB_DIR"/etcd-fio-engine_*.deb "$TOP/examples/k8s/etcd-fio-pod" "$CTX/"' in img,
      'mk/image.sh: the build context holds the two .debs and etcd-fio-pod')
check('docker-archive:' in img, 'mk/image.sh: writes a docker-archive')
debmk = open(os.path.join(top, 'mk', 'deb.mk')).read()
check(re.search(r'^IMAGE\s*\?=\s*localhost/etcd-fio:\$\(FIOR_VERSION\)$', debmk, re.M) is not None, 'mk/deb.mk: the image is tagged with the tool version')
# nothing of mk/deps.sh's test list goes into the image
deps = open(os.path.join(top, 'mk', 'deps.sh')).read()
test_pkgs = set(re.search(r'^TEST_PKGS="([^"]*)"', deps, re.M).group(1).split()) - {'python3'}
installed = set(re.findall(r'[\w.+-]+', ' '.join(re.findall(r'apt-get install([^&]*)', cf.replace('\\\n', ' ')))))
check(not (installed & test_pkgs), 'Containerfile: installs no test tool (%s)' % sorted(installed & test_pkgs))
sys.exit(1 if bad else 0)
EOF

[ $fails -eq 0 ] || { echo "it_k8s: $fails failure(s)"; exit 1; }
echo "it_k8s: all passed"
