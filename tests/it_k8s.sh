#!/bin/sh
# SPDX-License-Identifier: MIT
# it_k8s.sh — examples/k8s: the manifests pass yamllint (strict) and, parsed with python3-yaml, have what a
# cluster needs: the right kinds, the Job pinned to one node, the DaemonSet on etcd nodes with tolerations,
# hostPath volumes for both etcd layouts and node_exporter's textfile directory, every mount backed by a
# volume (and every volume mounted), PID 1 = etcd-fio-pod running `etcd-fio check` on those mounts with
# options the real CLI accepts, a grace period that covers the cleanup. The Containerfile installs the
# packages of `make deb` (the image: `make image`) and no test tools. (tests/it_k8s_run.sh runs them.)
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
K=$top/examples/k8s
command -v yamllint >/dev/null || { echo "skip: yamllint not installed (mk/deps.sh installs it)"; exit 77; }
PY=""
for p in /usr/bin/python3 python3; do
  if $p -c 'import yaml' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "skip: no python3 with the yaml module (Debian: python3-yaml)"; exit 77; }
fails=0

yamllint -s -d "{extends: default, rules: {line-length: {max: 110}}}" "$K"/*.yaml \
  && echo "ok: yamllint -s" || { echo "FAIL: yamllint"; fails=$((fails + 1)); }

help=$("$BUILD/etcd-fio" check --help 2>&1)
HELP="$help" "$PY" - "$K/job.yaml" "$K/daemonset.yaml" "$K/Containerfile" "$K/etcd-fio-pod" <<'EOF' || fails=$((fails + 1))
import os, re, shlex, sys, yaml
bad = []
def check(cond, msg):
    print(('ok: ' if cond else 'FAIL: ') + msg)
    if not cond:
        bad.append(msg)

ETCD_DIRS = {'/var/lib/rancher/rke2/server/db/etcd', '/var/lib/etcd'}
check_help = os.environ['HELP']

def pod_checks(name, doc):
    tpl = doc['spec']['template']
    spec = tpl['spec']
    tols = spec.get('tolerations') or []
    keys = {t.get('key') for t in tols}
    check({'node-role.kubernetes.io/etcd', 'node-role.kubernetes.io/control-plane'} <= keys,
          '%s tolerates the etcd and control-plane taints' % name)
    for t in tols:
        check(t.get('operator') == 'Exists' or ('value' in t and t.get('operator', 'Equal') == 'Equal'),
              '%s toleration %s is well-formed' % (name, t.get('key')))
    vols = {v['name']: v for v in spec.get('volumes', [])}
    host = {v['hostPath']['path']: n for n, v in vols.items() if 'hostPath' in v}
    check(ETCD_DIRS <= set(host), '%s has hostPath volumes for %s' % (name, sorted(ETCD_DIRS)))
    check(any('textfile' in p for p in host), '%s has a hostPath for the textfile collector' % name)
    (c,) = spec['containers']
    check(bool(c.get('image')), '%s container has an image' % name)
    mounts = {m['mountPath']: m['name'] for m in c.get('volumeMounts', [])}
    for path, vname in mounts.items():
        check(vname in vols, '%s mount %s -> volume %s exists' % (name, path, vname))
    for vname in vols:
        check(vname in mounts.values(), '%s volume %s is mounted' % (name, vname))
    mount_of = {vname: path for path, vname in mounts.items()}
    script = ' '.join(c.get('command', []) + c.get('args', []))
    # the command is the image's etcd-fio-pod (PID 1: forwards SIGTERM, prints the verdict first): what it
    # runs is in that script
    check(c.get('command', [''])[0] == '/usr/local/bin/etcd-fio-pod', '%s runs etcd-fio-pod as PID 1' % name)
    script += '\n' + POD_SCRIPT
    check('etcd-fio check "$dir" "$@"' in script, '%s runs etcd-fio check DIR with the args' % name)
    check(spec.get('terminationGracePeriodSeconds', 30) >= 70,
          '%s grace period %s s covers etcd-fio stopping fio (60 s to SIGKILL)' % (name, spec.get('terminationGracePeriodSeconds')))
    # the directories it checks are the etcd hostPath mounts
    for p in ETCD_DIRS:
        check(mount_of.get(host.get(p)) and mount_of[host[p]] in script,
              '%s checks the mount of %s (%s)' % (name, p, mount_of.get(host.get(p))))
    # the Prometheus file goes into the textfile hostPath mount
    m = re.search(r'--prometheus[ =](\S+)', script)
    tf = [mount_of.get(n, '?') for p, n in host.items() if 'textfile' in p]
    check(m and tf and m.group(1).startswith(tf[0] + '/'), '%s writes --prometheus into %s' % (name, tf))
    # every option it passes exists in the real `etcd-fio check --help`
    for opt in set(re.findall(r'(?<![\w-])(--[a-z][a-z-]*)', script)):
        check(re.search(re.escape(opt) + r'(?![\w-])', check_help) is not None,
              '%s: etcd-fio check accepts %s' % (name, opt))
    sel = spec.get('nodeSelector') or {}
    return spec, sel, tpl

POD_SCRIPT = open(sys.argv[4]).read()
docs = {}
for path in sys.argv[1:3]:
    for d in yaml.safe_load_all(open(path)):
        if d:
            docs[d['kind']] = d
check(set(docs) == {'Job', 'DaemonSet'}, 'kinds: %s' % sorted(docs))

job = docs['Job']
check(job['apiVersion'] == 'batch/v1', 'Job apiVersion batch/v1')
spec, sel, _ = pod_checks('Job', job)
check(spec.get('restartPolicy') in ('Never', 'OnFailure'), 'Job restartPolicy %s' % spec.get('restartPolicy'))
check(bool(sel.get('kubernetes.io/hostname')) or bool(spec.get('nodeName')), 'Job pinned to one node')

ds = docs['DaemonSet']
check(ds['apiVersion'] == 'apps/v1', 'DaemonSet apiVersion apps/v1')
spec, sel, tpl = pod_checks('DaemonSet', ds)
check(sel.get('node-role.kubernetes.io/etcd') == 'true', 'DaemonSet nodeSelector node-role.kubernetes.io/etcd: "true" (a string)')
ml = ds['spec']['selector']['matchLabels']
check(all(tpl['metadata']['labels'].get(k) == v for k, v in ml.items()), 'DaemonSet selector matches the pod labels')

cf = open(sys.argv[3]).read()
# the image is the packages of `make deb` on the Debian release they were built on (mk/image.sh)
froms = re.findall(r'^FROM\s+(\S+)', cf, re.M)
base = re.search(r'^ARG BASE=(\S+)', cf, re.M)
check(froms == ['${BASE}'] and base and 'debian' in base.group(1), 'Containerfile: one stage on a Debian base (%s, %s)' % (froms, base and base.group(1)))
check(re.search(r'^COPY etcd-fio_\*\.deb etcd-fio-engine_\*\.deb /tmp/debs/$', cf, re.M) is not None, 'Containerfile: the CLI and engine packages of make deb')
check(re.search(r'apt-get install[^\n]*/tmp/debs/\*\.deb', cf) is not None, 'Containerfile: installed with apt (fio comes as their dependency)')
check(not re.search(r'\bmake\b', '\n'.join(l for l in cf.splitlines() if not l.startswith('#'))), 'Containerfile: builds nothing itself')
check('COPY etcd-fio-pod /usr/local/bin/etcd-fio-pod' in cf, 'Containerfile: etcd-fio-pod in the image')
check('ENTRYPOINT ["/usr/local/bin/etcd-fio-pod"]' in cf, 'Containerfile: entrypoint etcd-fio-pod')
top = os.path.join(os.path.dirname(sys.argv[3]), '..', '..')
img = open(os.path.join(top, 'mk', 'image.sh')).read()
check('cp "$DEB_DIR"/etcd-fio_*.deb "$DEB_DIR"/etcd-fio-engine_*.deb "$TOP/examples/k8s/etcd-fio-pod" "$CTX/"' in img,
      'mk/image.sh: the build context holds the two .debs and etcd-fio-pod')
debmk = open(os.path.join(top, 'mk', 'deb.mk')).read()
check(re.search(r'^IMAGE\s*\?=\s*\S*:\$\(FIOR_VERSION\)$', debmk, re.M) is not None, 'mk/deb.mk: the image is tagged with the tool version')
# nothing of mk/deps.sh's test list goes into the image
deps = open(os.path.join(top, 'mk', 'deps.sh')).read()
test_pkgs = set(re.search(r'^TEST_PKGS="([^"]*)"', deps, re.M).group(1).split()) - {'python3'}
installed = set(re.findall(r'[\w.+-]+', ' '.join(re.findall(r'apt-get install([^&]*)', cf.replace('\\\n', ' ')))))
check(not (installed & test_pkgs), 'Containerfile: installs no test tool (%s)' % sorted(installed & test_pkgs))
sys.exit(1 if bad else 0)
EOF

[ $fails -eq 0 ] || { echo "it_k8s: $fails failure(s)"; exit 1; }
echo "it_k8s: all passed"
