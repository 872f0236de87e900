#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The PiP form: mpideleg-pip runs each delegatee group as PiP tasks (thread
# mode) of one process, each task an MPICH rank of its own, so the
# delegatee reads and writes its clients' buffers in place.  The suite and
# the Jacobi solver (linked with the shim, PIE, -rdynamic) must give the
# same transcripts as directly with MPICH, in layouts a and b (and
# nm_progress in layout a, nm_coll with MPIDELEG_COLL=hier in layout b); a
# refused mode and a program that is not PIE end with a one-line reason.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
pip=$top/mpich-netmod/mpideleg-pip
[ -x "$pip" ] || { echo "SKIP: mpideleg-pip not built (no libpip)"; exit 77; }
# ASan's runtime cannot start again inside a PiP namespace ("shadow memory
# range interleaves"): sanitizer builds skip the PiP form
if ldd "$NM_LIB" 2>/dev/null | grep -q 'lib[at]san'; then
    echo "SKIP: sanitizer build: instrumented code cannot run in PiP namespaces"
    exit 77
fi
LD_LIBRARY_PATH=$top/libpip/.libs:$top/mpich-netmod/.libs:$LD_LIBRARY_PATH
export LD_LIBRARY_PATH
unset PIP_MODE
s=$top/mpich-netmod/tests/nm_suite
sp=$top/mpich-netmod/tests/nm_suite_pip
j=$top/mpich-netmod/tests/nm_jacobi
jp=$top/mpich-netmod/tests/nm_jacobi_pip
# nm_pip NAME NP ENV... PROG ARGS: run in the PiP form
nm_pip() {
    name=$1 np=$2
    shift 2
    NM_RUN_OPTS=-P
    nm_run "$name" "$np" direct env "$@"
    NM_RUN_OPTS=
}
nm_run direct2 2 direct "$s"
nm_run direct3 3 direct "$s"
nm_pip pipa 4 MPIDELEG_BOARD_SIZE=1 MPIDELEG_DEBUG=1 "$pip" "$sp"
nm_same direct2 pipa
# the in-place paths were taken (the suite's 1 MiB and 4 MiB messages)
if grep -q 'sends without a copy, [1-9][0-9]* receives filled in place' "$NM_TMP/pipa.err" &&
    grep -q ' [1-9][0-9]* sends without a copy' "$NM_TMP/pipa.err"; then
    echo "in place: $(grep -o '[0-9]* sends without a copy, [0-9]* receives filled in place' "$NM_TMP/pipa.err" | tr '\n' ';')"
else
    echo "FAIL: the PiP form moved no message in place:"; grep 'delegatee done' "$NM_TMP/pipa.err"; nm_fail=1
fi
nm_pip pipb 4 MPIDELEG_BOARD_SIZE=2 MPIDELEG_BOARDS_PER_DELEGATEE=2 "$pip" "$sp"
nm_same direct3 pipb
# MPIDELEG_NO_TURNS: 1 switches the clients' turns off, 0 leaves them on
for nt in 0 1; do
    nm_pip "turns$nt" 4 MPIDELEG_BOARD_SIZE=1 MPIDELEG_NO_TURNS=$nt MPIDELEG_DEBUG=1 "$pip" "$sp"
    nm_same direct2 "turns$nt"
done
if grep -q 'turns of the delegatee: on' "$NM_TMP/turns0.err" &&
    ! grep -q 'turns of the delegatee: off' "$NM_TMP/turns0.err" &&
    grep -q 'turns of the delegatee: off (MPIDELEG_NO_TURNS=1)' "$NM_TMP/turns1.err" &&
    ! grep -q 'turns of the delegatee: on' "$NM_TMP/turns1.err"; then
    echo "MPIDELEG_NO_TURNS: 0 keeps the turns, 1 switches them off"
else
    echo "FAIL: MPIDELEG_NO_TURNS=0/1 not as documented:"
    grep -h 'turns of the delegatee' "$NM_TMP/turns0.err" "$NM_TMP/turns1.err"
    nm_fail=1
fi
# Payloads between the two processes by one process_vm_readv/writev
# (MPIDELEG_CMA): nm_cma's orders of receives and sends (announced
# receives, cancels racing the send, truncation, synchronous and buffered
# sends), each way of moving them forced once, then MPI carrying them
m=$top/mpich-netmod/tests/nm_cma
mp=$top/mpich-netmod/tests/nm_cma_pip
nm_run mdirect2 2 direct "$m" 100
for how in auto push pull off; do
    nm_pip "cma$how" 4 MPIDELEG_BOARD_SIZE=1 MPIDELEG_CMA=$how MPIDELEG_DEBUG=1 "$pip" "$mp" 100
    nm_same mdirect2 "cma$how"
    echo "cma$how: $(grep -o '[0-9]* payloads pulled, [0-9]* pushed, [0-9]* receives announced' "$NM_TMP/cma$how.err" | tr '\n' ';')"
done
# each way was taken where it was forced, and none with off
for want in 'auto [1-9][0-9]* pushed' 'push [1-9][0-9]* pushed' 'pull [1-9][0-9]* payloads pulled'; do
    how=${want%% *} pat=${want#* }
    if ! grep -q "$pat" "$NM_TMP/cma$how.err"; then
        echo "FAIL: MPIDELEG_CMA=$how: no '$pat' in the delegatees' counts"; nm_fail=1
    fi
done
if grep -q '[1-9][0-9]* payloads pulled\|[1-9][0-9]* pushed' "$NM_TMP/cmaoff.err"; then
    echo "FAIL: MPIDELEG_CMA=off moved payloads itself"; nm_fail=1
fi
# MPI_THREAD_MULTIPLE: 4 threads per rank, all of them running turns of
# their delegatee's work while they wait
t=$top/mpich-netmod/tests/nm_threads
tp=$top/mpich-netmod/tests/nm_threads_pip
nm_run tdirect3 3 direct "$t" 30
nm_pip tpipb 4 MPIDELEG_BOARD_SIZE=2 MPIDELEG_BOARDS_PER_DELEGATEE=2 "$pip" "$tp" 30
nm_same tdirect3 tpipb
# ... and in layout a (two processes) with every message above 200 B moved
# by the payload protocol between the processes (announcements, pulls and
# pushes from 4 threads per rank at once)
nm_run tdirect2 2 direct "$t" 30
nm_pip tpipa 4 MPIDELEG_BOARD_SIZE=1 MPIDELEG_CMA_MIN=200 "$pip" "$tp" 30
nm_same tdirect2 tpipa
# MPI's progress rule: a client blocked on a delegated message keeps its
# MPICH collective moving (nm_progress; the turns path of the waits)
g=$top/mpich-netmod/tests/nm_progress
gp=$top/mpich-netmod/tests/nm_progress_pip
nm_run gdirect2 2 direct "$g"
nm_pip gpipa 4 MPIDELEG_BOARD_SIZE=1 "$pip" "$gp"
nm_same gdirect2 gpipa
# hierarchical collectives (MPIDELEG_COLL=hier) in the PiP form, layout b
c=$top/mpich-netmod/tests/nm_coll
cp=$top/mpich-netmod/tests/nm_coll_pip
nm_run cdirect3 3 direct "$c"
nm_pip cpipb 4 MPIDELEG_BOARD_SIZE=2 MPIDELEG_BOARDS_PER_DELEGATEE=2 MPIDELEG_COLL=hier "$pip" "$cp"
nm_same cdirect3 cpipb
nm_run jdirect2 2 direct "$j" 64 100
nm_pip jpipa 4 MPIDELEG_BOARD_SIZE=1 "$pip" "$jp" 64 100
nm_same jdirect2 jpipa
# refusals: one line, non-zero status, no hang
NM_RUN_OPTS=-P
nm_expect_fail mode 'PIP_MODE=process: mpideleg-pip runs thread-mode tasks only (for process-mode tasks: LD_PRELOAD=libmpideleg.so PIP_MODE=process)' 2 env PIP_MODE=process "$pip" "$sp"
# libpip finds an unexported main in the file's symbol table (as PiP 2.4),
# or in a stripped program from its _start: only a _start of another shape
# leaves it unknown
nm_gotmain "$s" "$NM_TMP/nm_suite_gotmain" || { echo "FAIL: no lea of main at the entry of the suite"; nm_fail=1; }
nm_expect_fail nomain "no 'main' in its symbol tables" 2 "$pip" "$NM_TMP/nm_suite_gotmain"
NM_RUN_OPTS=
nm_expect_fail noport 'PMI_ID is not set: run under mpiexec -pmi-port' 2 "$pip" "$sp"
exit $nm_fail
