#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_earth_hdf5.sh: parallel HDF5 over EARTH.  tests/earth_hdf5.c (2-D
# hyperslab decomposition, a contiguous and a chunked dataset, collective
# H5Dwrite, read back and checked) is compiled at check time against
# HDF5's MPICH build and run on 4 ranks directly and with
# LD_PRELOAD=libmpiio-earth.so: both must print " No Errors", h5diff must
# find the two files' contents identical, and EARTH's log must show that it
# carried out the collective writes (at least one per rank and dataset).
# Skipped without libhdf5-mpich-dev (pkg-config hdf5-mpich) and hdf5-tools
# (h5diff).
# EARTH itself, not the one-node hand-off to ROMIO (earth_enable=auto).
export EARTH_ENABLE=enable
set -u
s=${abs_top_srcdir:-.}/mpiio-earth/tests
run=${MPI_RUN:-${abs_top_builddir:-.}/test/mpi-run}
lib=${abs_top_builddir:-.}/mpiio-earth/.libs/libmpiio-earth.so
[ -f "$lib" ] || { echo "ERROR: missing $lib"; exit 99; }
# A sanitizer build of the library brings the ASan runtime into a program
# that is not instrumented (nor are HDF5 and MPICH, whose leaks are not
# ours): let it load after them.  Preloading the runtime first instead
# makes this program hang in MPICH, with or without EARTH.
if ldd "$lib" 2>/dev/null | grep -q libasan; then
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0
    export ASAN_OPTIONS
fi
command -v mpicc >/dev/null 2>&1 || { echo "SKIP: mpicc not found"; exit 77; }
pkg-config --exists hdf5-mpich 2>/dev/null || { echo "SKIP: parallel HDF5 for MPICH not installed (libhdf5-mpich-dev)"; exit 77; }
command -v h5diff >/dev/null 2>&1 || { echo "SKIP: h5diff not found (hdf5-tools)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/earth-hdf5.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
mpicc -O1 -w $(pkg-config --cflags hdf5-mpich) -I"${abs_top_srcdir:-.}/mpiio-earth/include" \
    -o "$tmp/earth_hdf5" "$s/earth_hdf5.c" $(pkg-config --libs hdf5-mpich) 2>"$tmp/cc" ||
    { echo "FAIL: earth_hdf5.c does not compile"; head -5 "$tmp/cc"; exit 1; }
np=4
fails=0
"$run" -n $np -t 120 "$tmp/earth_hdf5" "$tmp/direct.h5" >"$tmp/direct.out" 2>&1
st_d=$?
"$run" -n $np -t 120 env LD_PRELOAD="$lib" EARTH_LOG=3 "$tmp/earth_hdf5" "$tmp/earth.h5" \
    >"$tmp/earth.out" 2>"$tmp/earth.err"
st_e=$?
for m in direct earth; do
    if grep -q '^ No Errors$' "$tmp/$m.out"; then
        echo "ok   $m run: No Errors"
    else
        echo "FAIL $m run:"; tail -n 5 "$tmp/$m.out" "$tmp/$m.err" 2>/dev/null
        fails=$((fails + 1))
    fi
done
[ $st_d -eq 0 ] && [ $st_e -eq 0 ] || { echo "FAIL: status direct $st_d, preloaded $st_e"; fails=$((fails + 1)); }
if h5diff -r "$tmp/direct.h5" "$tmp/earth.h5" >"$tmp/diff" 2>&1 &&
    [ "$(grep -c '^0 differences found' "$tmp/diff")" -eq 2 ]; then
    echo "ok   h5diff: both datasets (contig, chunked) without differences"
else
    echo "FAIL h5diff:"; head -n 10 "$tmp/diff"; fails=$((fails + 1))
fi
writes=$(grep -c 'collective write by EARTH' "$tmp/earth.err")
reads=$(grep -c 'collective read by EARTH' "$tmp/earth.err")
opens=$(grep -c '^earth\[[0-9]*[^]]*\]: open' "$tmp/earth.err")
if [ "$writes" -ge $((2 * np)) ] && [ "$opens" -ge $np ]; then
    echo "ok   EARTH: $opens opens, $writes collective writes and $reads collective reads carried out"
else
    echo "FAIL EARTH: $opens opens, $writes collective writes (want >= $((2 * np))), $reads reads"
    grep '^earth\[' "$tmp/earth.err" | head -n 40
    fails=$((fails + 1))
fi
[ $fails -eq 0 ]
