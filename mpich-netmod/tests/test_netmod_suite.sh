#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The point-to-point suite (nm_suite checks itself) run directly with MPICH
# and through the delegatees in two layouts, preloaded and linked; the
# transcripts of rank 0 must be the same.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
s=$top/mpich-netmod/tests/nm_suite
nm_run direct2 2 direct "$s"
nm_run direct3 3 direct "$s"
# a: clients 0 and 2 on two boards, each with its own delegatee
nm_run prea 4 a "$s" --unsupported
# b: clients 0,1 on board 0 and 2 on board 1 (ANY_SOURCE mixes an on-board
# and an off-board sender), one delegatee for both boards
nm_run preb 4 b "$s"
# the link form: the suite linked with libmpideleg, no LD_PRELOAD
nm_run linked 4 direct env MPIDELEG_BOARD_SIZE=1 "$top/mpich-netmod/tests/nm_suite_linked"
nm_same direct2 prea '^delegated world'
nm_same direct3 preb
nm_same direct2 linked
# the orders of large sends and receives of nm_cma (the PiP form moves
# them between processes in its own way: test_netmod_pip.sh)
m=$top/mpich-netmod/tests/nm_cma
nm_run mdirect 2 direct "$m" 30
nm_run mprea 4 a env PVAS_LOG=mpideleg:debug "$m" 30
nm_same mdirect mprea
# the process form moves them without MPI: the receiving client reads each
# from the sending client (or its delegatee does, taking the copy over);
# MPIDELEG_CMA=off leaves them to MPI
nm_run mpreaoff 4 a env MPIDELEG_CMA=off PVAS_LOG=mpideleg:debug "$m" 30
nm_same mdirect mpreaoff
if [ "${NM_FORM:-process}" = process ]; then
    if ! grep -q 'process form: [1-9][0-9]* sends left for the receiver to read' "$NM_TMP/mprea.err"; then
        echo "FAIL mprea: no payload left for the receiving client to read:"
        grep 'delegatee done' "$NM_TMP/mprea.err"
        nm_fail=1
    fi
    if grep -q 'process form: [1-9][0-9]* sends left' "$NM_TMP/mpreaoff.err"; then
        echo "FAIL mpreaoff: MPIDELEG_CMA=off left payloads to the receiver"
        nm_fail=1
    fi
    echo "mprea: $(grep -o '[0-9]* sends left for the receiver to read, [0-9]* read by our clients, [0-9]* by us' "$NM_TMP/mprea.err" | tr '\n' ';')"
fi
# windows of short sends to one rank, which the process form's delegatee
# packs into one MPI message each (MPIDELEG_PACK); the receiver probes,
# selects by tag, receives in order, cancels
w=$top/mpich-netmod/tests/nm_window
nm_run wdirect 2 direct "$w" 10
nm_run wprea 4 a env PVAS_LOG=mpideleg:debug "$w" 10
nm_same wdirect wprea
nm_run wnopack 4 a env MPIDELEG_PACK=0 PVAS_LOG=mpideleg:debug "$w" 10
nm_same wdirect wnopack
if [ "${NM_FORM:-process}" = process ]; then
    # 4,000 sends, posted 200 at a time: some turns of the sending
    # delegatee take several of them
    if ! grep -o 'process form: [0-9]* short messages sent in [0-9]* MPI messages' "$NM_TMP/wprea.err" |
        awk '$3 > $8 { ok = 1 } END { exit !ok }'; then
        echo "FAIL wprea: no short messages packed:"
        grep 'short messages' "$NM_TMP/wprea.err"
        nm_fail=1
    fi
    if grep -q 'short messages sent in' "$NM_TMP/wnopack.err"; then
        echo "FAIL wnopack: MPIDELEG_PACK=0 packed short messages"
        nm_fail=1
    fi
    echo "wprea: $(grep -o '[0-9]* short messages sent in [0-9]* MPI messages' "$NM_TMP/wprea.err" | tr '\n' ';')"
fi
grep -q '^delegated world: yes' "$NM_TMP/prea.out" || { echo "FAIL: world not delegated under the shim"; nm_fail=1; }
grep -q 'MPI_Irecv_c with a count above INT_MAX is not supported' "$NM_TMP/prea.err" || { echo "FAIL: no one-line refusal message"; nm_fail=1; }
exit $nm_fail
