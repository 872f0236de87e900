#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# MPI-IO under the shim: nm_mpiio (collective open on MPI_COMM_WORLD, a
# dup, a reversed split, pairs and MPI_COMM_SELF; writes and reads of
# every family, checked by the program) directly with 1, 2 and 3 ranks and
# preloaded with as many application ranks (default layout: one client and
# its delegatee; layouts a and b); rank 0's transcripts and every file
# written must be identical.  Before MPI_File_open was wrapped, the
# preloaded runs hung in the open.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
p=$top/mpich-netmod/tests/nm_mpiio
NM_TIMEOUT=60
# nm_io NAME NP LAYOUT [ENV...]: run into the directory $NM_TMP/NAME
nm_io() {
    name=$1 np=$2 lay=$3
    shift 3
    mkdir "$NM_TMP/$name" || exit 99
    nm_run "$name" "$np" "$lay" "$@" "$p" "$NM_TMP/$name"
}
# nm_files A B: the same files with the same bytes
nm_files() {
    a=$(cd "$NM_TMP/$1" && ls) b=$(cd "$NM_TMP/$2" && ls)
    if [ -z "$a" ] || [ "$a" != "$b" ]; then
        echo "FAIL: files of $1 ($a) and $2 ($b) differ"; nm_fail=1; return
    fi
    for f in $a; do
        cmp "$NM_TMP/$1/$f" "$NM_TMP/$2/$f" || { echo "FAIL: $1/$f differs"; nm_fail=1; }
    done
    echo "same files: $1 and $2 ($(echo $a))"
}
nm_io direct1 1 direct
nm_io deflt 2 direct env LD_PRELOAD="$NM_LIB"
nm_same direct1 deflt
nm_files direct1 deflt
nm_io direct2 2 direct
nm_io prea 4 a
nm_same direct2 prea
nm_files direct2 prea
nm_io direct3 3 direct
nm_io preb 4 b
nm_same direct3 preb
nm_files direct3 preb
exit $nm_fail
