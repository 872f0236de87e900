#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Persistent requests, Isendrecv(_replace) and the large-count bindings
# (nm_persist checks itself) run directly with MPICH and through the
# delegatees in layouts a and b; the transcripts of rank 0 must be the same.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
p=$top/mpich-netmod/tests/nm_persist
NM_TIMEOUT=${NM_TIMEOUT:-60}
nm_run pdirect2 2 direct "$p"
nm_run pdirect3 3 direct "$p"
# a: clients 0 and 2 on two boards, each with its own delegatee
nm_run pprea 4 a "$p" --refuse
# b: clients 0,1 on board 0 and 2 on board 1, one delegatee for both
nm_run ppreb 4 b "$p"
nm_same pdirect2 pprea '^delegated world'
nm_same pdirect3 ppreb
grep -q '^delegated world: yes' "$NM_TMP/pprea.out" || { echo "FAIL: world not delegated under the shim"; nm_fail=1; }
grep -q 'MPI_Send_c with a count above INT_MAX is not supported' "$NM_TMP/pprea.err" || { echo "FAIL: no one-line refusal message"; nm_fail=1; }
exit $nm_fail
