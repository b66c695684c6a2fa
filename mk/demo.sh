#!/bin/sh
# SPDX-License-Identifier: MIT
# `make demo`: run `etcd-fio check` on a fresh temporary directory on the disk that holds this working tree,
# remove it afterwards, and exit with check's status (0 PASS, 1 FAIL, 2 cannot judge).
BUILD=${1:-build}
mkdir -p "$BUILD"
dir=$(mktemp -d "$(cd "$BUILD" && pwd)/demo.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT INT TERM
"$BUILD/etcd-fio" check "$dir"
