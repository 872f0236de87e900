#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Collectives (nm_coll checks itself) run directly with MPICH and through
# the shim in layouts a and b, with the hierarchical collectives
# (MPIDELEG_COLL=hier) and with MPICH's (=direct); rank 0's transcripts
# must be the same, and the hierarchical runs must have taken their path.
# The suite, the threads test and the Jacobi solver also run under hier.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
p=$top/mpich-netmod/tests/nm_coll
NM_TIMEOUT=${NM_TIMEOUT:-150}
nm_run cdirect2 2 direct "$p"
nm_run cdirect3 3 direct "$p"
# a: clients 0 and 2 on two boards, each with its own delegatee
nm_run chiera 4 a env MPIDELEG_COLL=hier MPIDELEG_DEBUG=1 "$p"
nm_run cdira 4 a env MPIDELEG_COLL=direct MPIDELEG_DEBUG=1 "$p"
# b: clients 0,1 on board 0 and 2 on board 1, one delegatee for both
nm_run chierb 4 b env MPIDELEG_COLL=hier MPIDELEG_DEBUG=1 "$p"
nm_run cdirb 4 b env MPIDELEG_COLL=direct MPIDELEG_DEBUG=1 "$p"
nm_same cdirect2 chiera
nm_same cdirect2 cdira
nm_same cdirect3 chierb
nm_same cdirect3 cdirb
# which path ran: every client counts its hierarchical collectives
for r in chiera chierb; do
    n=$(sed -n 's/.*collectives: \([0-9]*\) hierarchical.*/\1/p' "$NM_TMP/$r.err" | sort -n | head -1)
    if [ -n "$n" ] && [ "$n" -gt 100 ]; then
        echo "$r: at least $n hierarchical collectives per client"
    else
        echo "FAIL $r: too few hierarchical collectives (${n:-none})"; nm_fail=1
    fi
done
for r in cdira cdirb; do
    if grep -q 'collectives: [1-9][0-9]* hierarchical' "$NM_TMP/$r.err"; then
        echo "FAIL $r: hierarchical collectives under MPIDELEG_COLL=direct"; nm_fail=1
    fi
done
# the other programs under MPIDELEG_COLL=hier: the point-to-point suite
# (layout b), MPI_THREAD_MULTIPLE with concurrent communicator creation
# (layout b) and the Jacobi solver's Allreduce and Gather (layout a)
s=$top/mpich-netmod/tests/nm_suite
t=$top/mpich-netmod/tests/nm_threads
j=$top/mpich-netmod/tests/nm_jacobi
nm_run sdirect3 3 direct "$s"
nm_run shierb 4 b env MPIDELEG_COLL=hier "$s"
nm_same sdirect3 shierb
nm_run tdirect3 3 direct "$t" 30
nm_run thierb 4 b env MPIDELEG_COLL=hier "$t" 30
nm_same tdirect3 thierb
nm_run jdirect2 2 direct "$j" 64 100
nm_run jhiera 4 a env MPIDELEG_COLL=hier "$j" 64 100
nm_same jdirect2 jhiera
# a bad value ends the job at MPI_Init with a one-line reason
nm_expect_fail badcoll "MPIDELEG_COLL='tree' must be direct or hier" 4 env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=1 MPIDELEG_COLL=tree "$p"
exit $nm_fail
