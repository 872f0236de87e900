#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_stencil.sh: the fault-tolerant Jacobi demo against its failure-free
# run.  Each case kills processes inside the run (--kill ITER:LRANK); the
# survivors must report "stencil: OK", the expected number of failures
# survived, the failure-free checksum, and write a field file identical
# byte for byte to the failure-free one.  Survivors are judged by their
# output: mpiexec exits with the killed rank's status.
#
# make check: 2x2 node space (4 processes: a 1x2 rank grid + 2 spares),
# 0D with one failure and hybrid(all) with two (one killed rank dies just
# before a checkpoint, so the run falls back to the older slot), 1D with
# both computing processes killed before the same iteration, and bad
# input.  STENCIL_LONG=1 (make check-long): a 3x3 node space (9 processes:
# 2x3 ranks + 3 spares) with 1, 2 and 3 failures under each of 0D, 1D and
# hybrid(all), two simultaneous failures, random failures, and the 3-D
# 2x2x2 space (8 processes: 1x2x2 ranks + 4 spares).
set -u
b=${abs_top_builddir:-.}
s=${abs_top_srcdir:-.}
run=${MPI_RUN:-$b/test/mpi-run}
prog=$b/examples/stencil/stencil
command -v mpiexec >/dev/null 2>&1 || { echo "SKIP: no mpiexec"; exit 77; }
[ -x "$prog" ] || { echo "ERROR: $prog not built"; exit 99; }
# Survive a killed rank: ft-agree's launcher (hydra without auto-cleanup,
# each rank under a shell that ignores SIGUSR1).
MPIEXEC=$s/ft-agree/tests/fta-mpiexec
export MPIEXEC
# Generous detector settings: other builds load this 2-core machine.
FTA_FD_PERIOD_MS=${FTA_FD_PERIOD_MS:-100}
FTA_FD_TIMEOUT_MS=${FTA_FD_TIMEOUT_MS:-2000}
export FTA_FD_PERIOD_MS FTA_FD_TIMEOUT_MS
unset STENCIL_KILL STENCIL_RANDOM_KILLS STENCIL_SEED STENCIL_OUTPUT \
    STENCIL_CKPT_DIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stencil-test.XXXXXX") || exit 99
TMPDIR=$tmp
export TMPDIR
trap 'rm -rf "$tmp"' EXIT
fails=0

# ref NAME NP ARGS...: the failure-free run; its checksum and field.
ref() {
    name=$1 np=$2
    shift 2
    "$run" -n "$np" -t 240 "$prog" "$@" -o "$tmp/$name.ref" >"$tmp/$name.ref.out" 2>&1
    st=$?
    if [ "$st" -ne 0 ] || ! grep -q '^stencil: OK' "$tmp/$name.ref.out"; then
        echo "FAIL: $name: failure-free run (status $st)"
        tail -20 "$tmp/$name.ref.out"
        fails=$((fails + 1))
        return
    fi
    sed -n 's/^checksum: //p' "$tmp/$name.ref.out" >"$tmp/$name.sum"
    echo "PASS: $name: failure-free run, checksum $(cat "$tmp/$name.sum")"
}

# case NAME REF NP FAILURES ARGS...: a run with kills against REF.
case_() {
    name=$1 rname=$2 np=$3 want=$4
    shift 4
    out=$tmp/$name.out
    "$run" -n "$np" -t 240 "$prog" "$@" -o "$tmp/$name.field" >"$out" 2>&1
    st=$?
    sum=$(sed -n 's/^checksum: //p' "$out")
    got=$(sed -n 's/^failures survived: \([0-9]*\) .*/\1/p' "$out")
    if [ "$st" -eq 124 ]; then
        echo "FAIL: $name: timed out"
    elif ! grep -q '^stencil: OK' "$out"; then
        echo "FAIL: $name: no OK report (status $st)"
    elif [ "$got" != "$want" ]; then
        echo "FAIL: $name: survived '$got' failures, want $want"
    elif [ "$sum" != "$(cat "$tmp/$rname.sum" 2>/dev/null)" ]; then
        echo "FAIL: $name: checksum $sum, failure-free $(cat "$tmp/$rname.sum" 2>/dev/null)"
    elif ! cmp -s "$tmp/$name.field" "$tmp/$rname.ref"; then
        echo "FAIL: $name: field file differs from the failure-free one"
    else
        echo "PASS: $name: $want failure(s) survived, checksum and field equal the failure-free run"
        sed -n 's/^  time lost: /    time lost: /p; s/^failure \([0-9]*\): /    failure \1: /p; s/^checkpoints: /    checkpoints: /p; s/^iterations done: /    iterations done: /p' "$out"
        return
    fi
    sed -n '1,60p' "$out"
    fails=$((fails + 1))
}

# bad NAME NP PATTERN ARGS...: bad input gives a one-line error, status 2.
bad() {
    name=$1 np=$2 pat=$3
    shift 3
    "$run" -n "$np" -t 60 "$prog" "$@" >"$tmp/bad.out" 2>&1
    st=$?
    if [ "$st" -ne 0 ] && [ "$st" -ne 124 ] && grep -q "$pat" "$tmp/bad.out"; then
        echo "PASS: $name: rejected ($(grep "$pat" "$tmp/bad.out" | head -1))"
    else
        echo "FAIL: $name: status $st"
        cat "$tmp/bad.out"
        fails=$((fails + 1))
    fi
}

if [ "${STENCIL_LONG:-0}" = 1 ]; then
    MPI_RUN_NP_MAX=9
    export MPI_RUN_NP_MAX
    g="-d 3x3 -b 24x24 -i 80 -k 10"
    # shellcheck disable=SC2086
    ref d2 9 $g
    # Kills in distinct rows (logical rank = x + 2y), so that 1D sliding
    # along X always finds the row's spare.
    for m in 0D 1D 'hybrid(all)'; do
        tag=$(echo "$m" | tr -d '()')
        # shellcheck disable=SC2086
        case_ "d2-$tag-1" d2 9 1 $g -m "$m" --kill 17:2
        # shellcheck disable=SC2086
        case_ "d2-$tag-2" d2 9 2 $g -m "$m" --kill 13:0,40:5
        # shellcheck disable=SC2086
        case_ "d2-$tag-3" d2 9 3 $g -m "$m" --kill 13:0,27:3,64:4
    done
    # Two processes killed before the same iteration: one recovery.
    # shellcheck disable=SC2086
    case_ d2-0D-simultaneous d2 9 2 $g -m 0D --kill 31:1,31:4
    # Random iterations and ranks, from the environment.
    # shellcheck disable=SC2086
    STENCIL_RANDOM_KILLS=3 STENCIL_SEED=7 case_ d2-0D-random d2 9 3 $g -m 0D
    g3="-d 2x2x2 -b 12x12x12 -i 60 -k 8"
    # shellcheck disable=SC2086
    ref d3 8 $g3
    # shellcheck disable=SC2086
    case_ d3-hybridall-3 d3 8 3 $g3 -m 'hybrid(all)' --kill 9:1,25:3,42:0
    # shellcheck disable=SC2086
    case_ d3-1D-2 d3 8 2 $g3 -m 1D --kill 20:2,33:1
    # shellcheck disable=SC2086
    case_ d3-0D-4 d3 8 4 $g3 -m 0D --kill 5:0,17:1,30:2,49:3
else
    g="-d 2x2 -b 32x32 -i 50 -k 10"
    # shellcheck disable=SC2086
    ref d2 4 $g
    # shellcheck disable=SC2086
    case_ d2-0D-1 d2 4 1 $g -m 0D --kill 23:1
    # shellcheck disable=SC2086
    case_ d2-hybridall-2 d2 4 2 $g -m 'hybrid(all)' --kill 20:0,37:1
    # Every computing process at once: both blocks come from the files.
    # shellcheck disable=SC2086
    case_ d2-1D-all-at-once d2 4 2 $g -m 1D --kill 12:0,12:1
    bad "wrong process count" 3 'start 4 processes' -d 2x2
    bad "more kills than spares" 4 'only 2 spare' -d 2x2 --kill 5:0,6:1,7:0
    bad "bad method" 4 "bad method" -d 2x2 -m 7D
    bad "bad kill list" 4 "bad kill list" -d 2x2 --kill 5-0
fi
[ "$fails" -eq 0 ]
