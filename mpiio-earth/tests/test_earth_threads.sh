#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Threads of an MPI_THREAD_MULTIPLE program use different files at once
# through EARTH (open, collective write and read, close; earth_threads.c),
# each thread on a communicator of its own rank, on 2 and 3 ranks, with
# and without EARTH's progress threads: every byte right, EARTH carried
# the calls, no crash, no hang (mpi-run's timeout).  Skips (77) where MPI
# does not provide MPI_THREAD_MULTIPLE.
prog=${abs_top_builddir:-.}/mpiio-earth/tests/earth_threads
[ -n "$MPI_RUN" ] || { echo "MPI_RUN not set" >&2; exit 99; }
[ -x "$prog" ] || { echo "missing $prog" >&2; exit 99; }
# EARTH itself, not its hand-over to ROMIO on one node (earth_enable=auto)
export EARTH_ENABLE=enable
tmp=$(mktemp -d "${TMPDIR:-/tmp}/earth-thr.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0
for run in 2:1 3:1 2:0; do
    n=${run%%:*}
    EARTH_ASYNC=${run#*:} "$MPI_RUN" -n "$n" -t 120 "$prog" "$tmp" 20
    rc=$?
    echo "earth_threads -n $n EARTH_ASYNC=${run#*:}: exit $rc"
    [ $rc -eq 77 ] && exit 77
    [ $rc -eq 0 ] || status=1
done
exit $status
