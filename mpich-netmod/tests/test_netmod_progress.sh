#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# MPI's progress rule across the delegated and the direct path: a rank
# blocked in a delegated point-to-point wait (Wait, Waitall, Waitany, Recv,
# Probe, Mprobe, a persistent receive, Sendrecv, Ssend, Issend) keeps its
# MPICH nonblocking collective moving, which the rank it waits for needs
# first (nm_progress checks itself).  Directly with MPICH (2 and 3 ranks),
# preloaded in layouts a and b, and in layout a with the block wait
# policies (the client sleeps between checks); rank 0's transcripts must be
# the same.  Without the progress the preloaded runs hang (timeout).
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
p=$top/mpich-netmod/tests/nm_progress
NM_TIMEOUT=${NM_TIMEOUT:-60}
nm_run gdirect2 2 direct "$p"
nm_run gdirect3 3 direct "$p"
nm_run gprea 4 a "$p"
nm_run gpreb 4 b "$p"
nm_run gpreablock 4 a env MPIDELEG_POLICY_BLOCKING=block \
    MPIDELEG_POLICY_NONBLOCKING=block "$p"
nm_same gdirect2 gprea
nm_same gdirect2 gpreablock
nm_same gdirect3 gpreb
exit $nm_fail
