# lib.sh — the common start of the engine integration tests (sourced, not run): where the tree and the
# build are, which fio, the artifacts, and a check that they were built. Exit 77 means skipped (run.sh).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
FIO=${FIO:-fio}
ENGINE=$B/libetcdwal.so
SHIM=$B/tests/faultshim.so
CLI=$B/etcd-fio
command -v "$FIO" >/dev/null 2>&1 || { echo "skip: fio not installed"; exit 77; }
# need_built FILE…: fail (not skip) when an artifact of this tree is missing
need_built() {
    for f; do [ -e "$f" ] || { echo "FAIL: $f not built (make tests builds it)"; exit 1; }; done
}
