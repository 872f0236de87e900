#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# nm_conform (checks itself: communicator names, the communicator a user
# error handler gets, partitioned requests paired in init order, a message
# ending inside a derived type's element, MPI_DATATYPE_NULL with count 0,
# communicators created and freed by the thousand) directly with MPICH and
# preloaded in layouts a and b: rank 0's transcripts must be the same.
# MPI Sessions: directly they work; preloaded, MPI_Session_init refuses
# at once with MPI_ERR_UNSUPPORTED_OPERATION and a one-line reason.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
p=$top/mpich-netmod/tests/nm_conform
NM_TIMEOUT=${NM_TIMEOUT:-100}
nm_run cdirect2 2 direct "$p"
# (3 ranks on the shared 2 cores: the thousands of communicators only with 2)
nm_run cdirect3 3 direct "$p" names errhandler partitioned partial
nm_run cprea 4 a "$p"
nm_run cpreb 4 b "$p" names errhandler partitioned partial
nm_same cdirect2 cprea '^delegated world'
nm_same cdirect3 cpreb '^delegated world'
grep -q '^delegated world: yes' "$NM_TMP/cprea.out" || { echo "FAIL: world not delegated under the shim"; nm_fail=1; }
# sessions
nm_run sdirect 2 direct "$p" --session &&
    { grep -q '^ok session of 2 ranks' "$NM_TMP/sdirect.out" || { echo "FAIL: session directly"; nm_fail=1; }; }
for lay in a b; do
    if [ $lay = a ]; then set -- MPIDELEG_BOARD_SIZE=1; else set -- MPIDELEG_BOARD_SIZE=2 MPIDELEG_BOARDS_PER_DELEGATEE=2; fi
    "$MPI_RUN" -n 4 -t 60 env LD_PRELOAD="$NM_LIB" "$@" "$p" --session \
        >"$NM_TMP/s$lay.out" 2>"$NM_TMP/s$lay.err"
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        echo "FAIL session ($lay): status $rc"; nm_fail=1
    elif [ "$(grep -c 'MPI_Session_init refused: class .* (MPI_ERR_UNSUPPORTED_OPERATION)' "$NM_TMP/s$lay.out")" -ne 4 ]; then
        echo "FAIL session ($lay): not refused with MPI_ERR_UNSUPPORTED_OPERATION on every rank:"; head -5 "$NM_TMP/s$lay.out"; nm_fail=1
    elif ! grep -q '^mpideleg: MPI_Session_init: MPI Sessions are not supported' "$NM_TMP/s$lay.err"; then
        echo "FAIL session ($lay): no one-line reason:"; head -5 "$NM_TMP/s$lay.err"; nm_fail=1
    else
        echo "ok session ($lay): refused, status $rc"
    fi
done
exit $nm_fail
