#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Hint handling and ROMIO hand-over, on 2 ranks.
prog=${abs_top_builddir:-.}/mpiio-earth/tests/test_earth_hints
[ -n "$MPI_RUN" ] || { echo "MPI_RUN not set" >&2; exit 99; }
[ -x "$prog" ] || { echo "missing $prog" >&2; exit 99; }
# EARTH itself, not its hand-over to ROMIO on one node (earth_enable=auto)
export EARTH_ENABLE=enable
exec "$MPI_RUN" -n 2 -t 120 "$prog"
