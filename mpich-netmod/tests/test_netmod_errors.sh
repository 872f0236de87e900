#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Bad layouts and environment values end the job with a one-line reason
# and a non-zero status, never a hang; a bad MPIDELEG_* value gives exactly
# one line for the job, naming the variable, the value and the MPI error
# class.  Rank 0 states the layout in one line unless MPIDELEG_QUIET=1.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
j=$top/mpich-netmod/tests/nm_jacobi
expect_error() { # NAME PATTERN NP ENV...: the Jacobi solver, preloaded
    name=$1 pat=$2 np=$3
    shift 3
    nm_expect_fail "$name" "$pat" "$np" env LD_PRELOAD="$NM_LIB" "$@" "$j" 12 2
}
expect_error badsize 'MPIDELEG_BOARD_SIZE=.abc. is not a positive integer' 2 MPIDELEG_BOARD_SIZE=abc
expect_error zero 'MPIDELEG_BOARDS_PER_DELEGATEE=.0. is not a positive integer' 2 MPIDELEG_BOARDS_PER_DELEGATEE=0
expect_error nogroup 'cannot form delegatee groups' 3 MPIDELEG_BOARD_SIZE=1
expect_error single 'cannot form delegatee groups' 1 MPIDELEG_BOARD_SIZE=1
expect_error policy 'must be poll, block or adaptive' 2 MPIDELEG_POLICY_BLOCKING=fast
expect_error place 'MPIDELEG_PLACE=.x. must be none, hwloc or pair' 2 MPIDELEG_PLACE=x
expect_error oversub 'MPIDELEG_OVERSUBSCRIBED=.maybe. must be auto, yes or no' 2 MPIDELEG_OVERSUBSCRIBED=maybe
expect_error cma 'MPIDELEG_CMA=.fast. must be auto, pull, push or off' 2 MPIDELEG_CMA=fast
expect_error cmamin 'MPIDELEG_CMA_MIN=.64k. must be a number of bytes' 2 MPIDELEG_CMA_MIN=64k
expect_error cmazero 'MPIDELEG_CMA_MIN=.0. must be a number of bytes' 2 MPIDELEG_CMA_MIN=0
expect_error placecpu 'MPIDELEG_PLACE=hwloc: rank .*: invalid argument' 2 MPIDELEG_PLACE=hwloc DLG_HOST_CPUS=4096
# every MPIDELEG_* variable: one line naming it, its value and the class
bad_var() { # VAR VALUE
    name=var_$1
    expect_error "$name" "$1='$2'.*MPI_ERR_ARG" 2 "$1=$2"
    n=$(grep -c "^mpideleg:" "$NM_TMP/$name.err")
    [ "$n" -eq 1 ] || { echo "FAIL $name: $n lines from the shim"; nm_fail=1; }
}
bad_var MPIDELEG_BOARD_SIZE 0x
bad_var MPIDELEG_BOARDS_PER_DELEGATEE -1
bad_var MPIDELEG_DISABLE yes
bad_var MPIDELEG_POLICY_BLOCKING spin
bad_var MPIDELEG_POLICY_NONBLOCKING sleep
bad_var MPIDELEG_DELEGATEE_IDLE busy
bad_var MPIDELEG_PLACE everywhere
bad_var MPIDELEG_COLL tree
bad_var MPIDELEG_OVERSUBSCRIBED 2
bad_var MPIDELEG_NO_TURNS on
bad_var MPIDELEG_CMA maybe
bad_var MPIDELEG_CMA_MIN 1e6
bad_var MPIDELEG_PIP true
bad_var MPIDELEG_DEBUG verbose
bad_var PVAS_LOG mpideleg:loud
bad_var MPIDELEG_QUIET please
bad_var MPIDELEG_PACK some
# the layout line: once, on rank 0, with the numbers of the layout
"$MPI_RUN" -n 4 -t 60 env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=2 \
    MPIDELEG_BOARDS_PER_DELEGATEE=2 "$j" 12 2 >"$NM_TMP/ban.out" 2>"$NM_TMP/ban.err"
want='mpideleg: 4 processes: 3 application ranks on boards of 2, 1 delegatee (world ranks 3); MPIDELEG_QUIET=1 silences this line'
if [ "$(grep -c '^mpideleg:' "$NM_TMP/ban.err")" -eq 1 ] && grep -qxF "$want" "$NM_TMP/ban.err"; then
    echo "ok banner: $want"
else
    echo "FAIL banner:"; cat "$NM_TMP/ban.err"; nm_fail=1
fi
"$MPI_RUN" -n 4 -t 60 env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=1 \
    "$j" 12 2 >"$NM_TMP/ban2.out" 2>"$NM_TMP/ban2.err"
want='mpideleg: 4 processes: 2 application ranks on boards of 1, 2 delegatees (world ranks 1,3); MPIDELEG_QUIET=1 silences this line'
grep -qxF "$want" "$NM_TMP/ban2.err" && echo "ok banner a" ||
    { echo "FAIL banner a:"; cat "$NM_TMP/ban2.err"; nm_fail=1; }
"$MPI_RUN" -n 4 -t 60 env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=1 \
    MPIDELEG_QUIET=1 "$j" 12 2 >"$NM_TMP/quiet.out" 2>"$NM_TMP/quiet.err"
if grep -q '^mpideleg:' "$NM_TMP/quiet.err" || ! cmp -s "$NM_TMP/ban2.out" "$NM_TMP/quiet.out"; then
    echo "FAIL quiet:"; cat "$NM_TMP/quiet.err"; nm_fail=1
else
    echo "ok quiet: nothing from the shim"
fi
exit $nm_fail
