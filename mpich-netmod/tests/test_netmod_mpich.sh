#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Acceptance: MPICH's own point-to-point test programs (test/mpi/pt2pt of
# the MPICH source package; nothing of them is in this tree) pass
# unmodified under LD_PRELOAD across two boards, as they do directly.
#
#   MPIDELEG_MPICH_SRC=.../mpich-4.0.2 make check     (apt-get source mpich)
#
# Without it the test skips.  MPIDELEG_MPICH_TESTS overrides the list.
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
progs=${MPIDELEG_MPICH_TESTS:-anyall sendrecv2 mprobe rcancel probe_unexp isendself waitany_null eagerdt bsend1 bsend2 recv_any cancelanysrc dtype_send sendall many_isend rqstatus bottom isendselfprobe probenull large_tag bsendfrag}
n=0
for p in $progs; do
    if ! mpicc -w -I"$NM_TMP" -I"$t/include" -o "$NM_TMP/$p" "$t/pt2pt/$p.c" \
        "$t/util/mtest.c" "$t/util/mtest_common.c" "$t/util/mtest_single.c" \
        "$t/util/dtypes.c" -lpthread 2>"$NM_TMP/$p.cc"; then
        echo "FAIL $p: does not compile"; head -3 "$NM_TMP/$p.cc"; nm_fail=1; continue
    fi
    lays="direct a b"
    # programs written for exactly 2 ranks: layout b has 3 clients
    case " ${MPIDELEG_MPICH_TWO:-anyall cancelanysrc dtype_send sendrecv2 rcancel} " in
    *" $p "*) lays="direct a" ;;
    esac
    for lay in $lays; do
        np=4
        [ $lay = direct ] && np=2
        if nm_run "$p-$lay" $np $lay "$NM_TMP/$p"; then
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
