#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# check-aarch64.sh: cross-build the tree for aarch64 and run the libpip
# (thread mode), libulp, delegation and spare tests under qemu-aarch64.
#
#   sh test/check-aarch64.sh SRCDIR OUTDIR [DISTDIR]    (make check-aarch64)
#   sh test/check-aarch64.sh --probe     exit 77 (one line) if tools are missing
#
# Needs Debian's gcc-aarch64-linux-gnu, qemu-user and the arm64 cmocka (and
# hwloc, for delegation) development packages; without them it skips as a
# whole (exit 77, one line).  DISTDIR is a clean copy of the sources (make
# distdir): a source tree configured in place cannot take a second,
# out-of-tree build.  Each test leaves OUTDIR/build/<test>.log and .trs in
# automake's format; the last line is "N passed, N failed, N skipped".
#
# Environment: QEMU_LD_PREFIX (sysroot, default /usr/aarch64-linux-gnu),
# CHECK_AARCH64_TIMEOUT (seconds per test program, default 600).
set -u
probe=no
[ "${1:-}" = --probe ] && probe=yes
src=${1:-}
out=${2:-}
dist=${3:-$src}
host=aarch64-linux-gnu
sysroot=${QEMU_LD_PREFIX:-/usr/$host}
pcdir=/usr/lib/$host/pkgconfig
tmo=${CHECK_AARCH64_TIMEOUT:-600}

skip() {
    echo "check-aarch64: SKIP: $*"
    exit 77
}
command -v "$host-gcc" >/dev/null 2>&1 ||
    skip "$host-gcc not found (Debian package gcc-aarch64-linux-gnu)"
command -v qemu-aarch64 >/dev/null 2>&1 ||
    skip "qemu-aarch64 not found (Debian package qemu-user)"
[ -e "$sysroot/lib/ld-linux-aarch64.so.1" ] ||
    skip "no aarch64 sysroot in $sysroot (libc6-dev-arm64-cross)"
[ -f "$pcdir/cmocka.pc" ] || skip "arm64 cmocka not found (libcmocka-dev:arm64)"
command -v timeout >/dev/null 2>&1 || skip "timeout not found (coreutils)"
[ $probe = yes ] && exit 0

mkdir -p "$out/build" || exit 99
build=$(cd "$out/build" && pwd)
# The loader comes from the sysroot (-L); the libc must be the same glibc
# build, so the sysroot's lib comes first (a multiarch libc6:arm64 would
# otherwise be found through ld.so.cache).  Other arm64 libraries (cmocka,
# hwloc) come from the multiarch directories.  libpip's .libs is for
# pip-exec, run as its real binary (libtool's wrapper is a shell script,
# which the emulator cannot start).
qemu="qemu-aarch64 -L $sysroot -E LD_LIBRARY_PATH=$sysroot/lib:$build/libpip/.libs"
jobs=$(nproc 2>/dev/null || echo 2)
echo "check-aarch64: configuring for $host in $build"
(cd "$build" &&
    PKG_CONFIG_LIBDIR=$pcdir:/usr/share/pkgconfig \
        "$dist/configure" --host=$host >configure.out 2>&1) || {
    tail -n 30 "$build/configure.out"
    echo "check-aarch64: configure failed (log: $build/config.log)"
    exit 1
}
sed -n '/^Components:/,$p' "$build/configure.out"
echo "check-aarch64: building"
(cd "$build" && make -j"$jobs" >make.out 2>&1 &&
    make -j"$jobs" check TESTS= >make-check.out 2>&1) || {
    grep -E 'error|Error' "$build/make.out" "$build/make-check.out" | head -n 30
    echo "check-aarch64: build failed (logs: $build/make.out, make-check.out)"
    exit 1
}

pass=0 fail=0 nskip=0
# run NAME ENV... PROGRAM: one entry, its log and trs beside the program.
run() {
    name=$1
    shift
    log=$build/$name.log
    rm -f "$log" "$build/$name.trs"
    t0=$(date +%s)
    (cd "$build" && env TH_EXEC_WRAPPER="$qemu" abs_top_builddir="$build" \
        abs_top_srcdir="$dist" PIP_EXEC="$build/libpip/.libs/pip-exec" \
        "$@" >"$log" 2>&1)
    rc=$?
    secs=$(($(date +%s) - t0))
    case $rc in
    0) res=PASS pass=$((pass + 1)) ;;
    77) res=SKIP nskip=$((nskip + 1)) ;;
    *) res=FAIL fail=$((fail + 1)) ;;
    esac
    printf ':test-result: %s\n:global-test-result: %s\n:recheck: %s\n:copy-in-global-log: %s\n' \
        "$res" "$res" "$([ $res = FAIL ] && echo yes || echo no)" \
        "$([ $res = PASS ] && echo no || echo yes)" >"$build/$name.trs"
    echo "$res: $name (exit $rc, ${secs}s)"
    [ $res = FAIL ] && tail -n 20 "$log"
    return 0
}
prog() {
    # prog NAME [ENV...]: a test program of the cross build, if it was built
    p=$1
    shift
    [ -x "$build/$p" ] || return 0
    run "$p.aarch64" "$@" timeout "$tmo" $qemu "$build/$p"
}

echo "check-aarch64: libpip (thread mode only: qemu-user cannot run" \
    "clone(CLONE_VM) without CLONE_THREAD, which process mode needs)"
for t in init spawn wait exit export barrier signal hooks coreno cloexec \
    stdio privacy tls xmem query exec scale compat; do
    prog libpip/tests/test_pip_$t PIP_MODE=thread PT_XFREE_OPS=100000
done
echo "check-aarch64: libulp"
for t in switch sync couple task guard; do
    prog libulp/tests/test_ulp_$t
done
echo "check-aarch64: delegation"
for t in core multi proc place ranktab stress pip; do
    prog delegation/tests/test_delegation_$t
done
echo "check-aarch64: spare (not test_spare_closed, an exhaustive search of" \
    "about 10 minutes under the emulator, nor the spare-sim command line)"
for t in topo map load; do
    prog spare/tests/test_spare_$t
done
echo "check-aarch64: $pass passed, $fail failed, $nskip skipped"
[ $fail -eq 0 ]
