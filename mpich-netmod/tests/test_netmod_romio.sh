#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# ROMIO's own test programs (src/mpi/romio/test of the MPICH source
# package; nothing of them is in this tree) print "No Errors" preloaded:
# with 2 application ranks in layout a, with 3 in layout b, and the
# one-rank ones with the default layout (a client and its delegatee).
#
#   MPIDELEG_MPICH_SRC=.../mpich-4.0.2 make check     (apt-get source mpich)
#
# Without it the test skips.  Left out: psimple (calls PMPI_Init and
# PMPI_File_open itself, which bypass any PMPI shim), darray_read (a 2x2
# process grid) and hindexed (4 ranks): 4 application ranks need more
# than the 4 processes of make check; big_extents and large_array (files
# and buffers of GiBs).
src=${MPIDELEG_MPICH_SRC:-}
t=$src/src/mpi/romio/test
if [ -z "$src" ] || [ ! -f "$t/simple.c" ]; then
    echo "SKIP: set MPIDELEG_MPICH_SRC to an MPICH source tree (apt-get source mpich)"
    exit 77
fi
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
command -v mpicc >/dev/null 2>&1 || { echo "SKIP: mpicc not found"; exit 77; }

# NAME APP-RANKS ARGS ($F: the file name)
list='simple 3 -fname $F
async 3 -fname $F
async-multiple 3 -fname $F
atomicity 2 -fname $F
coll_test 3 -fname $F
excl 3 -fname $F
file_info 3 -fname $F
i_noncontig 2 -fname $F
noncontig 2 -fname $F
noncontig_coll 2 -fname $F
noncontig_coll2 3 -fname $F
aggregation1 3 -h -f $F
aggregation2 3 $F
shared_fp 3 -fname $F
ordered_fp 3 -fname $F
split_coll 3 -fname $F
creat_excl 3 -fname $F
types_with_zeros 2 $F
error 1 -fname $F
status 1 -fname $F
syshints 1 $H'
H=$NM_TMP/hintfile
cp "$t/test_hintfile" "$H" || exit 99
n=0
echo "$list" | while read -r prog ranks args; do
    mpicc -w -o "$NM_TMP/$prog" "$t/$prog.c" 2>"$NM_TMP/$prog.cc" ||
        { echo "FAIL: $prog does not compile"; head -3 "$NM_TMP/$prog.cc"; exit 1; }
done || exit 1
runs=0
# layouts for a rank count: 2 -> a (and b would be 3), 3 -> b, 1 -> default
while read -r prog ranks args; do
    F=$NM_TMP/$prog.dat
    eval "set -- $args"
    case $ranks in
    1) lays="1" ;;
    2) lays="a" ;;
    3) lays="a b" ;;
    esac
    for lay in $lays; do
        rm -f "$F" "$F".*
        name=$prog-$lay
        case $lay in
        1) nm_run "$name" 2 direct env LD_PRELOAD="$NM_LIB" "$NM_TMP/$prog" "$@" ;;
        *) nm_run "$name" 4 "$lay" "$NM_TMP/$prog" "$@" ;;
        esac
        if ! grep -q "No Errors" "$NM_TMP/$name.out"; then
            echo "FAIL $name: no 'No Errors':"
            head -5 "$NM_TMP/$name.out" "$NM_TMP/$name.err"
            nm_fail=1
        fi
        runs=$((runs + 1))
    done
done <<EOL
$list
EOL
echo "$runs runs"
exit $nm_fail
