#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Bad layouts and environment values end the job with a one-line reason
# and a non-zero status, never a hang.
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
expect_error place 'MPIDELEG_PLACE=.x. must be none or hwloc' 2 MPIDELEG_PLACE=x
expect_error oversub 'MPIDELEG_OVERSUBSCRIBED=.maybe. must be auto, yes or no' 2 MPIDELEG_OVERSUBSCRIBED=maybe
expect_error cma 'MPIDELEG_CMA=.fast. must be auto, pull, push or off' 2 MPIDELEG_CMA=fast
expect_error cmamin 'MPIDELEG_CMA_MIN=.64k. must be a number of bytes' 2 MPIDELEG_CMA_MIN=64k
expect_error cmazero 'MPIDELEG_CMA_MIN=.0. must be a number of bytes' 2 MPIDELEG_CMA_MIN=0
expect_error placecpu 'MPIDELEG_PLACE=hwloc: rank .*: invalid argument' 2 MPIDELEG_PLACE=hwloc DLG_HOST_CPUS=4096
exit $nm_fail
