#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Nonblocking collectives that a synchronous implementation would deadlock
# on (mpi-run's timeout turns such a hang into a failure): EARTH's
# asynchronous progress on 4 and 3 ranks, and ROMIO's own nonblocking forms
# (EARTH_ASYNC=0) on 2 ranks for comparison.
prog=${abs_top_builddir:-.}/mpiio-earth/tests/earth_nonblocking
[ -n "$MPI_RUN" ] || { echo "MPI_RUN not set" >&2; exit 99; }
[ -x "$prog" ] || { echo "missing $prog" >&2; exit 99; }
# EARTH itself, not its hand-over to ROMIO on one node (earth_enable=auto)
export EARTH_ENABLE=enable
tmp=$(mktemp -d "${TMPDIR:-/tmp}/earth-nb.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0
for run in 4:1 3:1 2:0; do
    n=${run%%:*}
    EARTH_ASYNC=${run#*:} "$MPI_RUN" -n "$n" -t 90 "$prog" "$tmp"
    rc=$?
    echo "earth_nonblocking -n $n EARTH_ASYNC=${run#*:}: exit $rc"
    [ $rc -eq 0 ] || status=$rc
done
exit $status
