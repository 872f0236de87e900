#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Conformance beyond point-to-point and collectives: MPICH's own test
# programs of test/mpi/{comm,group,datatype,attr,topo,init,info,errhan,
# part,rma} (from the MPICH source package; nothing of them is in this
# tree), each program of the directory's testlist once:
#   - directly with 2 ranks: a program that does not say "No Errors" there
#     is not the shim's business and is listed as excluded;
#   - preloaded in layout a (2 boards x 1 client, 4 processes): must say
#     "No Errors";
#   - where it says "No Errors" directly with 3 ranks, preloaded in layout
#     b too (MPIDELEG_MPICH_B=0 leaves b out: it doubles the run time).
#
#   MPIDELEG_MPICH_SRC=.../mpich-4.0.2 make check TESTS=mpich-netmod/tests/test_netmod_mpich_dirs.sh
#
# Skipped without MPIDELEG_MPICH_SRC.  MPIDELEG_MPICH_DIRS overrides the
# directories, MPIDELEG_MPICH_TESTS the programs (DIR/NAME ...).  Several
# hundred runs: expect an hour or more on a shared 2-core machine.
src=${MPIDELEG_MPICH_SRC:-}
t=$src/test/mpi
if [ -z "$src" ] || [ ! -f "$t/util/mtest.c" ]; then
    echo "SKIP: set MPIDELEG_MPICH_SRC to an MPICH source tree (apt-get source mpich)"
    exit 77
fi
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
command -v mpicc >/dev/null 2>&1 || { echo "SKIP: mpicc not found"; exit 77; }

# Left out, with the reason (the list the summary prints as well):
excluded="
init/session:MPI~Sessions~refused~by~the~shim~(test_netmod_conform.sh~checks~the~refusal)
init/session_mult_init:MPI~Sessions~refused~by~the~shim
init/session_psets:MPI~Sessions~refused~by~the~shim
init/session_self:MPI~Sessions~refused~by~the~shim
init/exitst1:expects~a~non-zero~exit~status~(resultTest)
init/exitst2:expects~a~non-zero~exit~status~(resultTest)
init/timeout:expects~to~be~killed~by~its~time~limit~(resultTest)
rma/get_acc_local:MPICH~4.0.2~itself~gets~wrong~MPI_Get_accumulate~results~on~its~own~window~now~and~then~(directly~with~4~ranks:~2~of~2~runs~failed)
"
# 2 ranks only (layout b has 3 clients): programs that take minutes with 3
# ranks on 2 shared cores directly as well
two_only=" errhan/commcall errhan/commcall_oldapi comm/ctxalloc comm/ctxsplit "

nm_mpich_harness "$t"
objs=$nm_harness

# DIR/NAME TIMELIMIT ARGS... of each testlist, one line per program (its
# first entry): no comments, no configure-time entries (@...@), no
# expected-failure entries (resultTest=)
list() {
    for d in ${MPIDELEG_MPICH_DIRS:-comm group datatype attr topo init info errhan part rma}; do
        f=$t/$d/testlist
        [ -f "$f" ] || f=$t/$d/testlist.in
        [ -f "$f" ] || continue
        grep -v -e '^#' -e '^@' -e '^ *$' "$f" | grep -v 'resultTest=' |
            awk -v d="$d" '!seen[$1]++ {
                a = ""; tl = 0
                for (i = 3; i <= NF; i++) {
                    if ($i ~ /^arg=/) a = a " " substr($i, 5)
                    if ($i ~ /^timeLimit=/) tl = substr($i, 11)
                }
                print d "/" $1 " " tl a
            }'
    done
}
if [ -n "${MPIDELEG_MPICH_TESTS:-}" ]; then
    printf '%s 0\n' $MPIDELEG_MPICH_TESTS >"$NM_TMP/list"
else
    list >"$NM_TMP/list"
fi

said() { grep -q 'No Errors' "$NM_TMP/$1.out"; }
# a direct run only decides what to run preloaded: its failure is not ours
direct() {
    keep=$nm_fail
    nm_run "$@" </dev/null >"$NM_TMP/$1.log" && said "$1"
    rc=$?
    nm_fail=$keep
    return $rc
}
n=0 nx=0 nb=0
while read -r dp tl args; do
    p=${dp#*/}
    # the testlist's time limit, if longer (at most 300 s)
    NM_TIMEOUT=${MPIDELEG_MPICH_TIMEOUT:-60}
    [ "$tl" -gt "$NM_TIMEOUT" ] 2>/dev/null && NM_TIMEOUT=$tl
    [ "$NM_TIMEOUT" -gt 300 ] && NM_TIMEOUT=300
    reason=$(printf '%s\n' $excluded | grep "^$dp:" | cut -d: -f2- | tr '~' ' ')
    if [ -n "$reason" ]; then
        echo "EXCLUDED $dp: $reason"; nx=$((nx + 1)); continue
    fi
    # a program MPICH builds from another source or with its own flags
    # (NAME_SOURCES / NAME_CPPFLAGS of the directory's Makefile.am)
    d=${dp%%/*} c=$t/$dp.c fl=
    ma=$t/$d/Makefile.am
    s1=$(sed -n "s/^${p}_SOURCES *= *\([^ ]*\.c\).*/\1/p" "$ma" 2>/dev/null | head -1)
    [ -n "$s1" ] && c=$t/$d/$s1
    fl=$(sed -n "s/^${p}_CPPFLAGS *= *//p" "$ma" 2>/dev/null | head -1 | sed 's/\$([A-Z_]*)//g')
    # shellcheck disable=SC2086
    if ! mpicc -w $fl -I"$NM_TMP" -I"$t/include" -I"$NM_TMP/dtp/include" \
        -o "$NM_TMP/$p" "$c" $objs -lpthread -lm 2>"$NM_TMP/$p.cc"; then
        echo "EXCLUDED $dp: does not build outside MPICH's test tree: $(grep -m1 error "$NM_TMP/$p.cc")"
        nx=$((nx + 1)); continue
    fi
    # shellcheck disable=SC2086
    if ! direct "$p-direct" 2 direct "$NM_TMP/$p" $args; then
        echo "EXCLUDED $dp: does not say No Errors directly with 2 ranks"
        nx=$((nx + 1)); continue
    fi
    # shellcheck disable=SC2086
    if nm_run "$p-a" 4 a "$NM_TMP/$p" $args </dev/null && said "$p-a"; then
        n=$((n + 1))
    else
        echo "FAIL $dp (layout a): no 'No Errors'"; tail -5 "$NM_TMP/$p-a.out" "$NM_TMP/$p-a.err"; nm_fail=1
        continue
    fi
    case "${MPIDELEG_MPICH_B:-1}:$two_only" in
    0:*|*" $dp "*) continue ;;
    esac
    # shellcheck disable=SC2086
    direct "$p-direct3" 3 direct "$NM_TMP/$p" $args || continue
    # shellcheck disable=SC2086
    if nm_run "$p-b" 4 b "$NM_TMP/$p" $args </dev/null && said "$p-b"; then
        nb=$((nb + 1))
    else
        echo "FAIL $dp (layout b): no 'No Errors'"; tail -5 "$NM_TMP/$p-b.out" "$NM_TMP/$p-b.err"; nm_fail=1
    fi
done <"$NM_TMP/list"
echo "$n programs said No Errors preloaded in layout a, $nb in layout b; $nx excluded"
exit $nm_fail
