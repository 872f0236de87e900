#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A bad earth_* hint on one rank only fails open, set_view and set_info on
# every rank (no hang: mpi-run's timeout), leaves no file and keeps the
# view; files outlive the communicator they were opened on (earth_agree.c).
# On 2 ranks, and on 3 with MPI_THREAD_MULTIPLE (EARTH_ASYNC=1).
prog=${abs_top_builddir:-.}/mpiio-earth/tests/earth_agree
[ -n "$MPI_RUN" ] || { echo "MPI_RUN not set" >&2; exit 99; }
[ -x "$prog" ] || { echo "missing $prog" >&2; exit 99; }
for v in $(env | sed -n 's/^\(EARTH_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/earth-agree.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0
for run in 2:unset 3:1; do
    n=${run%%:*} a=${run#*:}
    if [ "$a" = unset ]; then
        out=$("$MPI_RUN" -n "$n" -t 120 "$prog" "$tmp")
    else
        out=$(EARTH_ASYNC=$a "$MPI_RUN" -n "$n" -t 120 "$prog" "$tmp")
    fi
    rc=$?
    echo "earth_agree -n $n EARTH_ASYNC=$a: exit $rc, '$out'"
    [ $rc -eq 0 ] && [ "$out" = ok ] || status=1
done
exit $status
