#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_earth_handoff.sh: nonblocking collectives that the progress thread
# hands to ROMIO complete in MPI_Wait, MPI_Test and MPI_Waitall even when
# the waiting rank has nothing else in flight (1 rank), and on 2 ranks;
# data checked, EARTH's counters must show the hand-overs.
#
# EARTH_TEST_BIG=1 adds i_bigtype's case: an explicit-offset nonblocking
# write and read of 2 GiB + 1 MiB through a view on 1 rank, from a memory
# type with holes, carried out by EARTH (needs 6.5 GiB of free memory and
# 2.2 GiB free in TMPDIR, or it is skipped).
# EARTH itself, not the one-node hand-off to ROMIO (earth_enable=auto).
export EARTH_ENABLE=enable
set -u
b=${abs_top_builddir:-.}/mpiio-earth/tests
run=${MPI_RUN:-${abs_top_builddir:-.}/test/mpi-run}
[ -x "$b/earth_handoff" ] || { echo "ERROR: earth_handoff not built"; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/earth-handoff.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
for np in 1 2; do
    "$run" -n $np -t 60 "$b/earth_handoff" "$tmp/f$np" >"$tmp/o$np" 2>&1
    st=$?
    if [ $st -eq 0 ] && grep -q '^ No Errors$' "$tmp/o$np"; then
        echo "ok   $np rank(s): $(grep 'handed to ROMIO' "$tmp/o$np")"
    else
        echo "FAIL $np rank(s): status $st (124: timed out)"
        sed 's/^/    /' "$tmp/o$np" | tail -n 8
        fails=$((fails + 1))
    fi
done
if [ "${EARTH_TEST_BIG:-0}" = 1 ]; then
    mem=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
    disk=$(df -Pm "$tmp" | awk 'NR == 2 { print $4 }')
    if [ "${mem:-0}" -lt 6700 ] || [ "${disk:-0}" -lt 2300 ]; then
        echo "skip big: $mem MiB of memory and $disk MiB in $tmp available, need 6700 and 2300"
    else
        "$run" -n 1 -t 600 "$b/earth_handoff" "$tmp/big" big >"$tmp/obig" 2>&1
        st=$?
        if [ $st -eq 0 ] && grep -q '^ No Errors$' "$tmp/obig"; then
            echo "ok   big: $(grep '^big:' "$tmp/obig")"
        else
            echo "FAIL big: status $st"; sed 's/^/    /' "$tmp/obig" | tail -n 8
            fails=$((fails + 1))
        fi
    fi
fi
[ $fails -eq 0 ]
