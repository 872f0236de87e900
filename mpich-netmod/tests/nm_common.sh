# SPDX-License-Identifier: BSD-2-Clause
# nm_common.sh: shared by the mpich-netmod test scripts (sourced).
[ -n "$MPI_RUN" ] || { echo "MPI_RUN not set" >&2; exit 99; }
top=${abs_top_builddir:-.}
NM_LIB=$top/mpich-netmod/.libs/libmpideleg.so
[ -f "$NM_LIB" ] || { echo "missing $NM_LIB" >&2; exit 99; }
# libdeleg of this build tree (the installed copy may be older or absent)
LD_LIBRARY_PATH=$top/delegation/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
unset MPIDELEG_BOARD_SIZE MPIDELEG_BOARDS_PER_DELEGATEE MPIDELEG_DISABLE
# The shim's form in the preloaded runs (NM_FORM): process (the default
# here: MPIDELEG_FORM=process), pip (MPIDELEG_FORM=pip) or default
# (MPIDELEG_FORM unset: what a user's plain LD_PRELOAD runs); the last two
# with libpip of this build tree on the path.
case ${NM_FORM:-process} in
process) MPIDELEG_FORM=process; export MPIDELEG_FORM ;;
pip | default)
    [ "$NM_FORM" = pip ] && { MPIDELEG_FORM=pip; export MPIDELEG_FORM; }
    [ "$NM_FORM" = default ] && unset MPIDELEG_FORM
    LD_LIBRARY_PATH=$top/libpip/.libs:$LD_LIBRARY_PATH ;;
*) echo "NM_FORM='$NM_FORM' must be process, pip or default" >&2; exit 99 ;;
esac
# sanitizer builds: the preloaded shim comes before the ASan runtime the
# test program carries; that order is fine, only ASan's check refuses it
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
export ASAN_OPTIONS
NM_TMP=$(mktemp -d "${TMPDIR:-/tmp}/nm-test.XXXXXX") || exit 99
trap 'rm -rf "$NM_TMP"' EXIT
nm_fail=0
# NM_NODES=2: every run on two nodes emulated by hydra's fork launcher
# (hosts nodeA and nodeB, which need not resolve; each takes half the
# ranks, rounded up: a 4-rank layout a puts each delegatee group on one
# node, layout b's group spans both)
case ${NM_NODES:-1} in
1) ;;
2)
    {
        echo '#!/bin/sh'
        echo 'n=2 prev='
        echo 'for a; do [ "$prev" = -n ] && n=$a; prev=$a; done'
        echo "exec ${MPIEXEC:-mpiexec}"' -launcher fork -hosts nodeA,nodeB -ppn $(( (n + 1) / 2 )) "$@"'
    } >"$NM_TMP/mpiexec-2n"
    chmod +x "$NM_TMP/mpiexec-2n"
    MPIEXEC=$NM_TMP/mpiexec-2n
    export MPIEXEC
    ;;
*) echo "NM_NODES='$NM_NODES' must be 1 or 2" >&2; exit 99 ;;
esac

# nm_run NAME NP LAYOUT(a|b|direct) PROG ARGS...: run, keep stdout in
# $NM_TMP/NAME.out; layout a = 2 boards x 1 client, 2 delegatees (4 ranks);
# layout b = boards {0,1} and {2}, one delegatee (4 ranks).  NM_RUN_OPTS:
# more mpi-run options (-P: PMI_PORT model).
nm_run() {
    name=$1 np=$2 lay=$3
    shift 3
    case $lay in
    a) set -- env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=1 "$@" ;;
    b) set -- env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=2 MPIDELEG_BOARDS_PER_DELEGATEE=2 "$@" ;;
    esac
    t0=$(date +%s)
    "$MPI_RUN" $NM_RUN_OPTS -n "$np" -t "${NM_TIMEOUT:-100}" "$@" >"$NM_TMP/$name.out" 2>"$NM_TMP/$name.err"
    rc=$?
    echo "$name: $(($(date +%s) - t0)) s$(nm_form_of "$lay" "$NM_TMP/$name.err")"
    if [ $rc -ne 0 ]; then
        echo "FAIL $name (status $rc):"
        tail -n 20 "$NM_TMP/$name.out" "$NM_TMP/$name.err"
        nm_fail=1
    fi
    return $rc
}

# nm_pipform ERRFILE: rank 0's layout line says the PiP form ran
nm_pipform() {
    grep -q '^mpideleg: .*delegatees* .*PiP form' "$1" 2>/dev/null
}

# nm_form_of LAYOUT ERRFILE: ", PiP form" or ", process form" after a
# preloaded run with NM_FORM pip or default (from rank 0's layout line;
# nothing when the line is not there, as with MPIDELEG_QUIET=1)
nm_form_of() {
    case ${NM_FORM:-process}:$1 in
    pip:[ab] | default:[ab]) ;;
    *) return 0 ;;
    esac
    if nm_pipform "$2"; then
        echo ", PiP form"
    elif grep -q '^mpideleg: .*delegatee' "$2" 2>/dev/null; then
        echo ", process form"
    fi
}

# nm_same A B: the two runs printed the same lines (after filtering $3).
nm_same() {
    grep -v "${3:-^@@}" "$NM_TMP/$1.out" >"$NM_TMP/$1.cmp"
    grep -v "${3:-^@@}" "$NM_TMP/$2.out" >"$NM_TMP/$2.cmp"
    if cmp -s "$NM_TMP/$1.cmp" "$NM_TMP/$2.cmp" && [ -s "$NM_TMP/$1.cmp" ]; then
        echo "same output: $1 and $2 ($(wc -l <"$NM_TMP/$1.cmp") lines)"
    else
        echo "FAIL: $1 and $2 differ:"
        diff "$NM_TMP/$1.cmp" "$NM_TMP/$2.cmp" | head -20
        nm_fail=1
    fi
}

# nm_expect_fail NAME PATTERN NP CMD...: the run must end (not time out)
# with a non-zero status and PATTERN on stderr (mpi-run options from
# NM_RUN_OPTS).
nm_expect_fail() {
    name=$1 pat=$2 np=$3
    shift 3
    "$MPI_RUN" $NM_RUN_OPTS -n "$np" -t 60 "$@" >"$NM_TMP/$name.out" 2>"$NM_TMP/$name.err"
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        echo "FAIL $name: status $rc"; nm_fail=1
    elif ! grep -q "$pat" "$NM_TMP/$name.err"; then
        echo "FAIL $name: no '$pat' in:"; head -5 "$NM_TMP/$name.err"; nm_fail=1
    else
        echo "ok $name: $(grep -m1 "$pat" "$NM_TMP/$name.err")"
    fi
}

# nm_mpich_harness T: compile MPICH's test harness (test/mpi/util) and
# dtpools from the test tree T into $NM_TMP once; sets nm_harness to the
# objects.  The headers configure would write carry the facts of this
# platform that the chosen programs use.
nm_mpich_harness() {
    cat >"$NM_TMP/mpitestconf.h" <<'H'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_LIMITS_H 1
#define HAVE_MPI_WIN_CREATE 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
H
    mkdir "$NM_TMP/dtp" && cp -r "$1/dtpools/include" "$1/dtpools/src" "$NM_TMP/dtp/" &&
        cat >"$NM_TMP/dtp/dtpoolsconf.h" <<'H'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_LIMITS_H 1
#define HAVE_MEMSET 1
#define HAVE_STRDUP 1
H
    nm_harness=
    for f in "$1/util/mtest.c" "$1/util/mtest_common.c" "$1/util/mtest_single.c" \
        "$1/util/dtypes.c" "$NM_TMP"/dtp/src/*.c; do
        o=$NM_TMP/$(basename "$f" .c).o
        mpicc -w -I"$NM_TMP" -I"$1/include" -I"$NM_TMP/dtp/include" -c -o "$o" "$f" \
            2>"$NM_TMP/harness.cc" || {
            echo "FAIL: $f does not compile"
            head -3 "$NM_TMP/harness.cc"
            exit 1
        }
        nm_harness="$nm_harness $o"
    done
}

# nm_gotmain PIE COPY: a stripped copy of PIE whose _start loads main
# through the GOT (its `lea main(%rip),%rdi` patched into a `mov`): libpip
# cannot find main in it.  Non-zero when PIE's entry has no such lea.
nm_gotmain() {
    strip -o "$2" "$1" || return 1
    entry=$(od -An -t u8 -j 24 -N 8 "$2" | tr -d ' ')
    at=$(od -An -v -t x1 -j "$entry" -N 48 "$2" | tr -s ' \n' '  ' |
        awk '{for (i = 1; i + 2 <= NF; i++) if ($i == "48" && $(i+1) == "8d" && $(i+2) == "3d") { print i; exit }}')
    [ -n "$at" ] || return 1
    printf '\213' | dd of="$2" bs=1 seek=$((entry + at)) conv=notrunc 2>/dev/null
}
