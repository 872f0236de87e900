#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_fta_mpich.sh: MPICH's own fault-tolerance test programs
# (test/mpi/ft of the MPICH source package; nothing of them is in this
# tree), compiled at check time with -lftagree and launched as the README
# says (mpiexec -disable-auto-cleanup, through tests/fta-mpiexec).
#
#   FTA_MPICH_SRC=.../mpich-4.0.2 make check TESTS=ft-agree/tests/test_fta_mpich.sh
#
# Without FTA_MPICH_SRC the test skips.  FTA_MPICH_TESTS overrides the list.
# FTA_MPICH_RUNS=N (default 1) runs the whole list N times in a row (the
# programs are compiled once) and stops after the first run with a
# failure; the last line gives the runs passed and their wall times.
# A program passes as MPICH's harness judges it (resultTest of its
# testlist line): TestStatusNoErrors: " No Errors", no other output,
# whatever mpiexec's status (a rank died); TestStatus: a non-zero status;
# plain: " No Errors", no other output and status 0.  Programs that
# are not run are listed below with the reason; programs whose expectation
# goes beyond ULFM are run against the outcome ULFM specifies (see
# expect_* below and ft-agree/README.md).
set -u
src=${FTA_MPICH_SRC:-}
t=$src/test/mpi
if [ -z "$src" ] || [ ! -f "$t/util/mtest.c" ] || [ ! -d "$t/ft" ]; then
    echo "SKIP: set FTA_MPICH_SRC to an MPICH source tree (apt-get source mpich)"
    exit 77
fi
runs=${FTA_MPICH_RUNS:-1}
case $runs in
'' | *[!0-9]* | 0*)
    echo "ERROR: FTA_MPICH_RUNS='$runs' must be a positive integer (runs of the list)"
    exit 99
    ;;
esac
command -v mpicc >/dev/null 2>&1 || { echo "SKIP: mpicc not found"; exit 77; }
command -v mpiexec >/dev/null 2>&1 || { echo "SKIP: no mpiexec"; exit 77; }
b=${abs_top_builddir:-.}
s=${abs_top_srcdir:-.}/ft-agree/tests
run=${MPI_RUN:-$b/test/mpi-run}
lib=$b/ft-agree/.libs
[ -f "$lib/libftagree.so" ] || { echo "ERROR: $lib/libftagree.so not built"; exit 99; }
MPIEXEC=$s/fta-mpiexec
MPI_RUN_NP_MAX=4
FTA_FD_PERIOD_MS=${FTA_FD_PERIOD_MS:-100}
FTA_FD_TIMEOUT_MS=${FTA_FD_TIMEOUT_MS:-2000}
export MPIEXEC MPI_RUN_NP_MAX FTA_FD_PERIOD_MS FTA_FD_TIMEOUT_MS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fta-mpich.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# the harness needs a configured header: the facts of this platform that
# the ft programs use
cat >"$tmp/mpitestconf.h" <<'H'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
H
objs=
for f in mtest mtest_common mtest_single; do
    mpicc -w -I"$tmp" -I"$t/include" -c -o "$tmp/$f.o" "$t/util/$f.c" \
        2>"$tmp/harness.cc" || { echo "FAIL: $f.c does not compile"; head -3 "$tmp/harness.cc"; exit 1; }
    objs="$objs $tmp/$f.o"
done

# Not run (each needs more than the 4 ranks a check may start):
#   shrink: 8 ranks (testlist), kills ranks 1, 3 and 5 of 8.
skip_reason() {
    case $1 in
    shrink) echo "needs 8 ranks (MPICH's testlist); checks are capped at 4" ;;
    *) return 1 ;;
    esac
}

# Programs whose verdict needs more than ULFM specifies are judged by the
# outcome ULFM does specify (ft-agree/README.md, "MPICH's test/mpi/ft"):
#   bcast, agree: the harness's MTest_Finalize sums the error counts with
#     MPI_Reduce over MPI_COMM_WORLD, which holds the dead rank: ULFM makes
#     that reduce fail (MTestPrintError prints "Error class ...") and leaves
#     its output undefined, so rank 0 prints whatever the uninitialised sum
#     held.  Checked: the program's own checks print nothing, every other
#     line is the reduce's error or rank 0's verdict, and rank 0 gets there.
#   revoke_shrink: the MPI_Allreduce that meets the failure reports it (the
#     error handler then revokes and shrinks), and the program compares its
#     undefined output with the old size.  Checked: exactly one
#     "Incorrect answer: N != 4" (that call), " Found 1 errors", nothing
#     else (so every allreduce on the shrunk communicator was right).
ulfm_outcome() { # PROG OUTPUT-FILE
    case $1 in
    bcast | agree)
        grep -Evq '^(Error class [0-9]+ \(.*\)| No Errors| Found -?[0-9]+ errors)$' "$2" && return 1
        grep -Eq '^ (No Errors|Found -?[0-9]+ errors)$' "$2"
        ;;
    revoke_shrink)
        [ "$(grep -Ec '^Incorrect answer: -?[0-9]+ != 4$' "$2")" -eq 1 ] &&
            [ "$(grep -c '^ Found 1 errors$' "$2")" -eq 1 ] &&
            [ "$(grep -c . "$2")" -eq 2 ]
        ;;
    *) return 2 ;;
    esac
}

progs=${FTA_MPICH_TESTS:-$(awk '!/^#/ && NF { print $1 }' "$t/ft/testlist")}
# Compile once: the programs to run, as "prog np resulttest" lines.
torun=$tmp/torun
: >"$torun"
cfail=0 skip=0
for p in $progs; do
    line=$(awk -v p="$p" '$1 == p' "$t/ft/testlist")
    np=$(echo "$line" | awk '{ print $2 }')
    [ -n "$np" ] || { echo "FAIL $p: not in $t/ft/testlist"; cfail=$((cfail + 1)); continue; }
    if why=$(skip_reason "$p"); then
        echo "skip $p: $why"; skip=$((skip + 1)); continue
    fi
    if [ "$np" -gt 4 ]; then
        echo "skip $p: needs $np ranks; checks are capped at 4"; skip=$((skip + 1)); continue
    fi
    rt=plain
    case $line in
    *resultTest=TestStatusNoErrors*) rt=noerrors ;;
    *resultTest=TestStatus*) rt=status ;;
    esac
    if ! mpicc -w -I"$tmp" -I"$t/include" -o "$tmp/$p" "$t/ft/$p.c" $objs \
        -L"$lib" -lftagree -Wl,-rpath,"$lib" 2>"$tmp/$p.cc"; then
        echo "FAIL $p: does not compile"; head -3 "$tmp/$p.cc"; cfail=$((cfail + 1)); continue
    fi
    echo "$p $np $rt" >>"$torun"
done

# One run of the list: prints a line per program; sets pass and fail.
run_list() {
    pass=0 fail=0
    while read -r p np rt; do
        # every run under mpi-run's timeout (MPICH's testlist allows 10 s;
        # the detector alone takes 2 s and this machine is shared)
        (cd "$tmp" && "$run" -n "$np" -t 60 "./$p") >"$tmp/$p.out" 2>&1 </dev/null
        st=$?
        # mpi-run's own announcement is not the program's output
        grep -v '^mpi-run: ' "$tmp/$p.out" >"$tmp/$p.prog"
        other=$(grep -v '^[[:space:]]*No [Ee]rrors[[:space:]]*$' "$tmp/$p.prog" | grep -c .)
        noerr=$(grep -c '^[[:space:]]*No [Ee]rrors[[:space:]]*$' "$tmp/$p.prog")
        ok=0
        if [ "$st" -eq 124 ]; then
            why="timed out"
        else
            ulfm_outcome "$p" "$tmp/$p.prog"
            u=$?
            [ $u -ne 2 ] && rt=ulfm
            case $rt in
            ulfm) [ $u -eq 0 ] && ok=1 ;;
            noerrors) [ "$noerr" -ge 1 ] && [ "$other" -eq 0 ] && ok=1 ;;
            # MPICH's TestStatus stops reading at the first line (its
            # pattern /=*/ matches any): only the status counts
            status) [ "$st" -ne 0 ] && ok=1 ;;
            plain) [ "$st" -eq 0 ] && [ "$noerr" -ge 1 ] && [ "$other" -eq 0 ] && ok=1 ;;
            esac
            why="status $st, 'No Errors' x$noerr, $other other line(s)"
        fi
        if [ $ok -eq 1 ] && [ $rt = ulfm ]; then
            echo "ok   $p ($np ranks): excluded from MPICH's verdict, ULFM's outcome holds: $why"
            pass=$((pass + 1))
        elif [ $ok -eq 1 ]; then
            echo "ok   $p ($np ranks): $why"; pass=$((pass + 1))
        else
            echo "FAIL $p ($np ranks): $why"; sed 's/^/    /' "$tmp/$p.prog" | head -n 8
            fail=$((fail + 1))
        fi
    done <"$torun"
}

i=0 good=0 tmin= tmax=
while [ $i -lt "$runs" ]; do
    i=$((i + 1))
    [ "$runs" -gt 1 ] && echo "== run $i of $runs"
    t0=$(date +%s)
    run_list
    dt=$(($(date +%s) - t0))
    [ -z "$tmin" ] || [ "$dt" -lt "$tmin" ] && tmin=$dt
    [ -z "$tmax" ] || [ "$dt" -gt "$tmax" ] && tmax=$dt
    fail=$((fail + cfail))
    echo "test/mpi/ft: $pass passed, $fail failed, $skip not run"
    [ "$runs" -gt 1 ] && echo "   run $i: ${dt} s, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    [ $fail -eq 0 ] && [ $pass -gt 0 ] || break
    good=$((good + 1))
done
if [ "$runs" -gt 1 ]; then
    echo "test/mpi/ft: $good of $runs runs in a row passed ($i started, ${tmin}-${tmax} s per run)"
fi
[ $good -eq "$runs" ]
