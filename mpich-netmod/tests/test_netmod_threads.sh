#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# MPI_THREAD_MULTIPLE: nm_threads (4 threads per rank calling MPI at once:
# concurrent communicator creation, ring, all-to-all on MPI_COMM_WORLD by
# tag, ANY_SOURCE, Mprobe; it checks itself) directly with MPICH and through
# the delegatees in layouts a and b; the transcripts of rank 0 must be the
# same.  Twice per layout: races show up in some runs only.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
t=$top/mpich-netmod/tests/nm_threads
nm_run tdirect2 2 direct "$t" 40
nm_run tdirect3 3 direct "$t" 40
for i in 1 2; do
    nm_run tprea$i 4 a "$t" 40
    nm_same tdirect2 tprea$i
    nm_run tpreb$i 4 b "$t" 40
    nm_same tdirect3 tpreb$i
done
exit $nm_fail
