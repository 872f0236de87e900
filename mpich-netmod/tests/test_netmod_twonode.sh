#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Two nodes emulated on one machine (hydra's fork launcher, hosts nodeA and
# nodeB, which need not resolve): the suite's programs print the same as
# directly in the default form (-ppn 2: each group on one node, the PiP
# form) and the process form, and with groups split across nodes (-ppn 1:
# the process form, chosen at once).  MPI_Abort's code (7, 255) is
# mpiexec's status in both forms, with MPICH's line only; a group larger
# than PIP_NAMESPACES runs as private process images, and with
# PIP_IMAGE=namespace falls back with one line naming the variable (the
# run must end before the harness timeout); libmpiio-earth preloaded with
# the shim is refused in either order with one line.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
[ -f "$top/libpip/.libs/libpip.so.0" ] || { echo "SKIP: libpip not built"; exit 77; }
if ldd "$NM_LIB" 2>/dev/null | grep -q 'lib[at]san'; then
    echo "SKIP: sanitizer build: instrumented code cannot run in PiP namespaces"
    exit 77
fi
LD_LIBRARY_PATH=$top/libpip/.libs:$LD_LIBRARY_PATH
export LD_LIBRARY_PATH
unset PIP_MODE PIP_IMAGE PIP_NAMESPACES MPIDELEG_FORM MPIDELEG_QUIET MPIDELEG_DEBUG
t=$top/mpich-netmod/tests
real_mpiexec=${MPIEXEC:-mpiexec}
for ppn in 1 2; do
    printf '#!/bin/sh\nexec %s -launcher fork -hosts nodeA,nodeB -ppn %s "$@"\n' \
        "$real_mpiexec" $ppn >"$NM_TMP/mpiexec-ppn$ppn"
    chmod +x "$NM_TMP/mpiexec-ppn$ppn"
done
# ppn N: the later runs on the two nodes, N ranks each (0: one node)
ppn() {
    if [ "$1" = 0 ]; then MPIEXEC=$real_mpiexec; else MPIEXEC=$NM_TMP/mpiexec-ppn$1; fi
    export MPIEXEC
}
# the emulation itself: four ranks, two per "node"
ppn 2
"$MPI_RUN" -n 4 -t 60 sh -c 'echo "$MPI_LOCALNRANKS"' \
    >"$NM_TMP/nodes.out" 2>"$NM_TMP/nodes.err"
if [ "$(sort -u "$NM_TMP/nodes.out")" != 2 ]; then
    echo "SKIP: hydra's fork launcher does not emulate two nodes here"
    cat "$NM_TMP/nodes.err"
    exit 77
fi

# nm_2n NAME PPN LAYOUT PROG ARGS: a run of 4 ranks on two nodes
nm_2n() {
    n=$1
    ppn "$2"
    shift 2
    nm_run "$n" 4 "$@"
}
# nm_2n_form NAME PIP(yes|no): rank 0's layout line says which form ran
nm_2n_form() {
    if nm_pipform "$NM_TMP/$1.err"; then got=yes; else got=no; fi
    if ! grep -q '^mpideleg: .*delegatee' "$NM_TMP/$1.err"; then
        echo "FAIL $1: no layout line"; nm_fail=1
    elif [ "$got" != "$2" ]; then
        echo "FAIL $1: PiP form '$got', expected '$2':"; head -3 "$NM_TMP/$1.err"; nm_fail=1
    else
        echo "ok $1: PiP form $got"
    fi
}
ppn 1
nm_run direct2 2 direct "$t/nm_suite"
nm_run direct3 3 direct "$t/nm_suite"
nm_run mdirect2 2 direct "$t/nm_cma" 30
nm_run jdirect2 2 direct "$t/nm_jacobi" 64 100
nm_run cdirect3 3 direct "$t/nm_coll"
for form in default process; do
    if [ $form = process ]; then MPIDELEG_FORM=process; export MPIDELEG_FORM; else unset MPIDELEG_FORM; fi
    # -ppn 2, layout a: groups {0,1} on nodeA and {2,3} on nodeB
    pip=no
    [ $form = default ] && pip=yes
    nm_2n "${form}_suite" 2 a "$t/nm_suite"
    nm_2n_form "${form}_suite" $pip
    nm_same direct2 "${form}_suite" '^delegated world'
    nm_2n "${form}_cma" 2 a "$t/nm_cma" 30
    nm_same mdirect2 "${form}_cma"
    nm_2n "${form}_jacobi" 2 a "$t/nm_jacobi" 64 100
    nm_same jdirect2 "${form}_jacobi"
    # -ppn 1: every group split across the nodes, the process form
    nm_2n "${form}_split" 1 a "$t/nm_suite"
    nm_2n_form "${form}_split" no
    nm_same direct2 "${form}_split" '^delegated world'
    # layout b: one group of four ranks over both nodes
    nm_2n "${form}_suiteb" 2 b "$t/nm_suite"
    nm_2n_form "${form}_suiteb" no
    nm_same direct3 "${form}_suiteb"
    nm_2n "${form}_collb" 2 b env MPIDELEG_COLL=hier "$t/nm_coll"
    nm_same cdirect3 "${form}_collb"
done
# the process form with delegatees that poll while all their clients sleep
MPIDELEG_FORM=process
export MPIDELEG_FORM
nm_2n spin_suite 2 a env MPIDELEG_DELEGATEE_IDLE=spin "$t/nm_suite"
nm_same direct2 spin_suite '^delegated world'
nm_2n spin_jacobi 2 a env MPIDELEG_DELEGATEE_IDLE=spin "$t/nm_jacobi" 64 100
nm_same jdirect2 spin_jacobi
unset MPIDELEG_FORM

# MPI_Abort: the code is mpiexec's status, and stderr has MPICH's line only
# (hydra may end the job before it forwards a rank's last lines: those may
# be missing, directly too)
for code in 7 255; do
    ppn 0
    "$MPI_RUN" -n 2 -t 60 "$t/nm_ranks" 0 $code abort >"$NM_TMP/ad.out" 2>"$NM_TMP/ad.err"
    drc=$?
    for form in pip process; do
        for ppn in 0 2; do
            ppn $ppn
            "$MPI_RUN" -n 4 -t 60 env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=1 \
                MPIDELEG_FORM=$form MPIDELEG_QUIET=1 "$t/nm_ranks" 0 $code abort \
                >"$NM_TMP/a.out" 2>"$NM_TMP/a.err"
            rc=$?
            extra=$(grep -v '^rank [0-9] of 2 on stderr$\|^Abort(\|^mpi-run: ' "$NM_TMP/a.err")
            if [ $rc -eq $code ] && [ $drc -eq $code ] && [ -z "$extra" ] &&
                [ "$(grep -c '^Abort(' "$NM_TMP/a.err")" -le 1 ]; then
                echo "ok abort $code, $form form, ppn $ppn: status $rc as directly, MPICH's line only"
            else
                echo "FAIL abort $code, $form form, ppn $ppn: status $rc (directly $drc):"
                cat "$NM_TMP/a.err"
                nm_fail=1
            fi
        done
    done
done

# a group larger than PIP_NAMESPACES: private process images by default;
# with namespaces asked for (PIP_IMAGE=namespace) the process form at
# once, one line
ppn 0
nm_run nsdirect 2 direct "$t/nm_suite"
nm_run nspriv 4 a env PIP_NAMESPACES=1 "$t/nm_suite"
nm_same nsdirect nspriv '^delegated world'
if nm_pipform "$NM_TMP/nspriv.err" && ! grep -q 'the process form runs' "$NM_TMP/nspriv.err"; then
    echo "ok group beyond PIP_NAMESPACES: the PiP form (private images)"
else
    echo "FAIL group beyond PIP_NAMESPACES: not the PiP form:"; cat "$NM_TMP/nspriv.err"; nm_fail=1
fi
nm_run ns 4 a env PIP_IMAGE=namespace PIP_NAMESPACES=1 "$t/nm_suite"
nm_same nsdirect ns '^delegated world'
if [ "$(grep -c 'PIP_NAMESPACES allows 1' "$NM_TMP/ns.err")" -eq 1 ] &&
    ! nm_pipform "$NM_TMP/ns.err"; then
    echo "ok oversized group: $(grep -m1 'PIP_NAMESPACES allows' "$NM_TMP/ns.err")"
else
    echo "FAIL oversized group: not one line naming PIP_NAMESPACES:"; cat "$NM_TMP/ns.err"; nm_fail=1
fi
nm_run nsbad 4 a env MPIDELEG_FORM=pip PIP_NAMESPACES=abc "$t/nm_suite"
nm_same nsdirect nsbad '^delegated world'
if [ "$(grep -c "PIP_NAMESPACES='abc' is not a number from 1 to 15" "$NM_TMP/nsbad.err")" -eq 1 ]; then
    echo "ok bad PIP_NAMESPACES: one line naming it"
else
    echo "FAIL bad PIP_NAMESPACES:"; cat "$NM_TMP/nsbad.err"; nm_fail=1
fi

# libmpiio-earth with the shim: refused in either order and form
earth=$top/mpiio-earth/.libs/libmpiio-earth.so
if [ -f "$earth" ]; then
    for form in pip process; do
        for order in "$NM_LIB:$earth" "$earth:$NM_LIB"; do
            "$MPI_RUN" -n 4 -t 60 env LD_PRELOAD="$order" MPIDELEG_FORM=$form \
                MPIDELEG_BOARD_SIZE=1 "$t/nm_ranks" >"$NM_TMP/e.out" 2>"$NM_TMP/e.err"
            rc=$?
            if [ $rc -eq 2 ] && [ ! -s "$NM_TMP/e.out" ] &&
                [ "$(grep -c 'libmpiio-earth.so is loaded too' "$NM_TMP/e.err")" -eq 1 ]; then
                echo "ok EARTH pair refused ($form form, $(basename "${order%%:*}") first)"
            else
                echo "FAIL EARTH pair ($form, $order): status $rc"; cat "$NM_TMP/e.err"; nm_fail=1
            fi
        done
    done
else
    echo "note: libmpiio-earth not built, its pair not checked"
fi
exit $nm_fail
