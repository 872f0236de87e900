#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Correctness suite: every pattern through ROMIO and through EARTH.
prog=${abs_top_builddir:-.}/mpiio-earth/tests/earth_patterns
[ -n "$MPI_RUN" ] || { echo "MPI_RUN not set" >&2; exit 99; }
[ -x "$prog" ] || { echo "missing $prog" >&2; exit 99; }
# EARTH itself, not its hand-over to ROMIO on one node (earth_enable=auto)
export EARTH_ENABLE=enable
tmp=$(mktemp -d "${TMPDIR:-/tmp}/earth-pat.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0
# Every hint set once, the most demanding (many aggregators, stripe-cyclic
# domains, 256-byte buffers) on 4 ranks, an odd rank count for uneven
# domains, the rest on 2 ranks: within make check's time on a loaded 2-core
# machine (4 ranks oversubscribe it).  earth_patterns without -c runs all
# four sets.
for run in 4:0 3:2 2:13; do
    n=${run%%:*}
    cfg=${run#*:}
    TMPDIR=$tmp "$MPI_RUN" -n "$n" -t 240 "$prog" -c "$cfg"
    rc=$?
    [ $rc -eq 0 ] || status=$rc
done
exit $status
