# SPDX-License-Identifier: MIT
# dist_elf.sh — sourced by the release tests (dist_roots.sh, dist_arm64.sh): dist_elf_check FILE LABEL says
# ok/FAIL for what the ELF needs: only the C library family (libc, libm, libpthread, libdl, librt, ld-linux,
# and libmvec: glibc's vector math, part of libm's package everywhere, which fio's -ffast-math -O3 uses on x86-64)
# and no glibc symbol version above 2.28, the floor the tarball is built for (RHEL 8; mk/glibc_floor.h).
dist_elf_check() {
  n=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  # shellcheck disable=SC2086
  other=$(printf '%s\n' $n | grep -v -E '^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libmvec\.so\.1|ld-linux[-a-z0-9_.]*\.so\.[12])$')
  [ -z "$other" ] && ok "$2 needs only: $n" || fail "$2 needs $other"
  top=$(objdump -T "$1" | grep -o 'GLIBC_2\.[0-9.]*' | sort -V | tail -n 1)
  case $top in GLIBC_2.[0-9]|GLIBC_2.[0-9].*|GLIBC_2.1[0-9]|GLIBC_2.1[0-9].*|GLIBC_2.2[0-8]|GLIBC_2.2[0-8].*|"")
      ok "$2: newest glibc symbol ${top:-none}" ;;
    *) fail "$2 needs $top (above the glibc 2.28 floor)" ;; esac
}
