#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# quickstart.sh: set up a Debian machine, build the tree and run something.
#
#   sh quickstart.sh demo    install what is missing, build, run the main demo
#   sh quickstart.sh check   install what is missing, build, run the test suite
#
# Packages are installed with apt-get only when missing (root needed then).
# Set QUICKSTART_CONFIGURE_FLAGS to pass extra options to configure.
set -eu

what=${1:-}
case $what in
demo | check) ;;
*)
    echo "usage: sh quickstart.sh demo|check" >&2
    exit 2
    ;;
esac

cd "$(dirname "$0")"
top=$(pwd)

packages="build-essential autoconf automake libtool pkg-config libcmocka-dev gdb
libhwloc-dev hwloc libmpich-dev mpich procps gfortran libcoarrays-mpich-dev
gnuplot-nox libhdf5-mpich-dev hdf5-tools python3 clang-format lowdown
netpipe-mpich2 sqlite3 gzip libfabric-dev"

missing=
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "quickstart: installing:$missing"
    if [ "$(id -u)" -ne 0 ]; then
        echo "quickstart: these packages are missing and installing them needs root:$missing" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $missing
fi

# check on x86-64 also runs `make check-aarch64` (cross-build, tests under
# qemu-user): its tools are installed here, best effort (it skips in one
# line without them).
if [ "$what" = check ] && [ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ]; then
    cross_missing=
    for p in gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user \
        libcmocka-dev:arm64 libhwloc-dev:arm64; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
            cross_missing="$cross_missing $p"
    done
    if [ -n "$cross_missing" ] && [ "$(id -u)" -eq 0 ]; then
        echo "quickstart: installing for make check-aarch64:$cross_missing"
        export DEBIAN_FRONTEND=noninteractive
        { dpkg --print-foreign-architectures | grep -qx arm64 ||
            dpkg --add-architecture arm64; } &&
            apt-get update &&
            # shellcheck disable=SC2086
            apt-get install -y --no-install-recommends $cross_missing ||
            echo "quickstart: could not install them: make check-aarch64 will skip"
    fi
fi

jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
    ./autogen.sh
fi
if [ ! -f config.status ]; then
    # shellcheck disable=SC2086
    ./configure ${QUICKSTART_CONFIGURE_FLAGS:-}
fi
make -j"$jobs"

case $what in
demo)
    exec make demo
    ;;
check)
    status=0
    make -j"$jobs" check || status=$?
    make check-aarch64 || status=$?
    # The summary of every test, and the logs of those that did not pass.
    for log in $(find . -name '*.log' ! -name config.log ! -name test-suite.log | sort); do
        trs=${log%.log}.trs
        [ -f "$trs" ] || continue
        result=$(sed -n 's/^:test-result: //p' "$trs" | sort -u | tr '\n' ' ')
        case $result in
        *FAIL* | *ERROR*)
            echo "---- $log ----"
            tail -n 60 "$log"
            ;;
        esac
    done
    if [ -f test-suite.log ]; then
        pass=$(grep -c '^:test-result: PASS' $(find . -name '*.trs') /dev/null | awk -F: '{s+=$NF} END {print s+0}')
        fail=$(grep -c '^:test-result: \(FAIL\|ERROR\|XPASS\)' $(find . -name '*.trs') /dev/null | awk -F: '{s+=$NF} END {print s+0}')
        skip=$(grep -c '^:test-result: SKIP' $(find . -name '*.trs') /dev/null | awk -F: '{s+=$NF} END {print s+0}')
        echo "$pass passed, $fail failed, $skip skipped"
    fi
    exit "$status"
    ;;
esac
