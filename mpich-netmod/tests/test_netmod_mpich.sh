#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Acceptance: MPICH's own point-to-point and collective test programs
# (test/mpi/pt2pt and test/mpi/coll of the MPICH source package; nothing of
# them is in this tree) pass unmodified under LD_PRELOAD across two boards,
# as they do directly.
#
#   MPIDELEG_MPICH_SRC=.../mpich-4.0.2 make check     (apt-get source mpich)
#
# Without it the test skips.  MPIDELEG_MPICH_TESTS overrides the list
# (DIR/NAME, or NAME for pt2pt/NAME).
src=${MPIDELEG_MPICH_SRC:-}
t=$src/test/mpi
if [ -z "$src" ] || [ ! -f "$t/util/mtest.c" ]; then
    echo "SKIP: set MPIDELEG_MPICH_SRC to an MPICH source tree (apt-get source mpich)"
    exit 77
fi
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
command -v mpicc >/dev/null 2>&1 || { echo "SKIP: mpicc not found"; exit 77; }
# The test harness needs a configured header; these are the facts of this
# platform that the chosen programs use.
cat >"$NM_TMP/mpitestconf.h" <<'H'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
H
# the harness (and dtpools, the datatype pools of allred, allred2, reduce
# and op_coll), compiled once
mkdir "$NM_TMP/dtp" && cp -r "$t/dtpools/include" "$t/dtpools/src" "$NM_TMP/dtp/" &&
cat >"$NM_TMP/dtp/dtpoolsconf.h" <<'H'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_LIMITS_H 1
#define HAVE_MEMSET 1
#define HAVE_STRDUP 1
H
objs=
for f in "$t/util/mtest.c" "$t/util/mtest_common.c" "$t/util/mtest_single.c" \
    "$t/util/dtypes.c" "$NM_TMP"/dtp/src/*.c; do
    o=$NM_TMP/$(basename "$f" .c).o
    mpicc -w -I"$NM_TMP" -I"$t/include" -I"$NM_TMP/dtp/include" -c -o "$o" "$f" \
        2>"$NM_TMP/harness.cc" || { echo "FAIL: $f does not compile"; head -3 "$NM_TMP/harness.cc"; exit 1; }
    objs="$objs $o"
done
pt2pt="anyall sendrecv2 mprobe rcancel probe_unexp isendself waitany_null eagerdt bsend1 bsend2 recv_any cancelanysrc dtype_send sendall many_isend rqstatus bottom isendselfprobe probenull large_tag bsendfrag"
coll="nonblocking nonblocking2 nonblocking3 allred allred2 allred4 allred6 reduce reduce_local op_commutative op_coll bcasttest bcastzerotype alltoall1 alltoallv alltoallw1 alltoallw2 allgather2 allgatherv2 allgather_struct gather scatter2 scatterv iallred ibarrier scantst exscan redscat red_scat_block coll2 coll4 coll8 coll10 coll12 gatherv longuser icbarrier icallreduce icbcast uoplong"
progs=${MPIDELEG_MPICH_TESTS:-$pt2pt $(for c in $coll; do printf 'coll/%s ' $c; done)}
n=0
for dp in $progs; do
    case $dp in */*) ;; *) dp=pt2pt/$dp ;; esac
    p=${dp#*/}
    if ! mpicc -w -I"$NM_TMP" -I"$t/include" -I"$NM_TMP/dtp/include" \
        -o "$NM_TMP/$p" "$t/$dp.c" $objs -lpthread -lm 2>"$NM_TMP/$p.cc"; then
        echo "FAIL $p: does not compile"; head -3 "$NM_TMP/$p.cc"; nm_fail=1; continue
    fi
    args=
    [ $p = allred ] && args=-count=10
    lays="direct a b"
    # programs written for exactly 2 ranks (or a rank count dividing 10):
    # layout b has 3 clients; nonblocking3 takes a minute with 3 ranks on 2
    # cores (directly too)
    case " ${MPIDELEG_MPICH_TWO:-anyall cancelanysrc dtype_send sendrecv2 rcancel iallred coll2 gatherv nonblocking3} " in
    *" $p "*) lays="direct a" ;;
    esac
    for lay in $lays; do
        np=4
        [ $lay = direct ] && np=2
        if nm_run "$p-$lay" $np $lay "$NM_TMP/$p" $args; then
            if grep -q 'No Errors' "$NM_TMP/$p-$lay.out"; then
                n=$((n + 1))
            else
                echo "FAIL $p ($lay): no 'No Errors'"; tail -5 "$NM_TMP/$p-$lay.out"; nm_fail=1
            fi
        fi
    done
done
echo "$n runs said No Errors"
exit $nm_fail
