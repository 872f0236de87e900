#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# MPIDELEG_FORM=pip and the default: the PiP form under a plain LD_PRELOAD,
# with programs that are not linked with the shim (plain PIEs, one of them
# stripped).
# The netmod's self-checking programs must print the same transcripts as
# directly with MPICH, and rank 0's layout line must say "PiP form".  A bad
# value and each fallback to the process form (non-PIE program, -pmi-port,
# no libpip, main not found) end or go on with their one-line reason.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
[ -f "$top/libpip/.libs/libpip.so.0" ] || { echo "SKIP: libpip not built"; exit 77; }
if ldd "$NM_LIB" 2>/dev/null | grep -q 'lib[at]san'; then
    echo "SKIP: sanitizer build: instrumented code cannot run in PiP namespaces"
    exit 77
fi
nolibpip=$LD_LIBRARY_PATH
LD_LIBRARY_PATH=$top/libpip/.libs:$LD_LIBRARY_PATH
export LD_LIBRARY_PATH
unset PIP_MODE PIP_IMAGE PIP_NAMESPACES MPIDELEG_FORM MPIDELEG_QUIET
t=$top/mpich-netmod/tests
# nm_form NAME LAYOUT(a|b) PROG ARGS: preloaded with MPIDELEG_FORM=pip, 4
# ranks; the PiP form must have run
nm_form() {
    name=$1 lay=$2
    shift 2
    nm_run "$name" 4 "$lay" env MPIDELEG_FORM=pip "$@"
    if ! nm_pipform "$NM_TMP/$name.err"; then
        echo "FAIL $name: not the PiP form:"; head -5 "$NM_TMP/$name.err"; nm_fail=1
    fi
}
nm_run direct2 2 direct "$t/nm_suite"
nm_run direct3 3 direct "$t/nm_suite"
nm_form forma a "$t/nm_suite"
nm_same direct2 forma '^delegated world'
nm_form formb b "$t/nm_suite"
nm_same direct3 formb
# a stripped PIE: main is found from its entry point
strip -o "$NM_TMP/nm_suite_stripped" "$t/nm_suite"
nm_form strippeda a "$NM_TMP/nm_suite_stripped"
nm_same direct2 strippeda '^delegated world'
nm_run mdirect2 2 direct "$t/nm_cma" 30
nm_form cmaa a "$t/nm_cma" 30
nm_same mdirect2 cmaa
nm_run tdirect3 3 direct "$t/nm_threads" 30
nm_form threadsb b "$t/nm_threads" 30
nm_same tdirect3 threadsb
nm_run gdirect2 2 direct "$t/nm_progress"
nm_form progressa a "$t/nm_progress"
nm_same gdirect2 progressa
nm_run cdirect3 3 direct "$t/nm_coll"
nm_form collb b env MPIDELEG_COLL=hier "$t/nm_coll"
nm_same cdirect3 collb
nm_run jdirect2 2 direct "$t/nm_jacobi" 64 100
nm_form jacobia a "$t/nm_jacobi" 64 100
nm_same jdirect2 jacobia
# each rank's output and exit status reach the launcher as that rank's
# (mpiexec -l labels the lines): the stand-ins' ranks too
printf '#!/bin/sh\nexec mpiexec -l "$@"\n' >"$NM_TMP/mpiexec-l"
chmod +x "$NM_TMP/mpiexec-l"
for how in direct form; do
    np=3 pre=
    [ $how = form ] && np=4 pre="env LD_PRELOAD=$NM_LIB MPIDELEG_BOARD_SIZE=2 MPIDELEG_BOARDS_PER_DELEGATEE=2 MPIDELEG_FORM=pip MPIDELEG_QUIET=1"
    MPIEXEC=$NM_TMP/mpiexec-l "$MPI_RUN" -n $np -t 60 $pre "$t/nm_ranks" 1 3 >"$NM_TMP/r$how.out" 2>"$NM_TMP/r$how.err"
    echo "$how: status $?" >>"$NM_TMP/r$how.st"
    sort "$NM_TMP/r$how.out" >"$NM_TMP/r$how.sorted"
    grep '^\[[0-9]\] rank' "$NM_TMP/r$how.err" | sort >"$NM_TMP/r$how.esorted"
done
if cmp -s "$NM_TMP/rdirect.sorted" "$NM_TMP/rform.sorted" &&
    cmp -s "$NM_TMP/rdirect.esorted" "$NM_TMP/rform.esorted" &&
    [ "$(wc -l <"$NM_TMP/rform.sorted")" -eq 3 ] &&
    grep -q 'status 3' "$NM_TMP/rdirect.st" && grep -q 'status 3' "$NM_TMP/rform.st"; then
    echo "ok labels: $(tr '\n' ';' <"$NM_TMP/rform.sorted") status 3 both"
else
    echo "FAIL: ranks' output or status differ:"; cat "$NM_TMP/rdirect.st" "$NM_TMP/rform.st"
    diff "$NM_TMP/rdirect.sorted" "$NM_TMP/rform.sorted"; diff "$NM_TMP/rdirect.esorted" "$NM_TMP/rform.esorted"
    nm_fail=1
fi
# MPI-IO with three ranks in one process (layout b): shared file pointers
# and data sieving lock with fcntl, which the shim turns into locks of each
# rank's own open file (nm_flock.c); transcripts and files as directly
mkdir "$NM_TMP/iodirect3" "$NM_TMP/iob" || exit 99
nm_run iodirect3 3 direct "$t/nm_mpiio" "$NM_TMP/iodirect3"
nm_form iob b "$t/nm_mpiio" "$NM_TMP/iob"
nm_same iodirect3 iob
for f in $(cd "$NM_TMP/iodirect3" && ls); do
    cmp "$NM_TMP/iodirect3/$f" "$NM_TMP/iob/$f" || { echo "FAIL: iob/$f differs"; nm_fail=1; }
done
# the default (MPIDELEG_FORM unset) is the PiP form when every rank is on
# this node; MPIDELEG_FORM=process, a job across nodes (MPI_LOCALNRANKS
# below PMI_SIZE, as hydra sets it there) and a missing libpip give the
# process form, silently (the reason only under MPIDELEG_DEBUG)
# nm_which NAME pip|process [PATTERN]: the form rank 0's layout line names,
# and PATTERN on stderr (none: no fallback line at all)
nm_which() {
    pipform=0
    nm_pipform "$NM_TMP/$1.err" && pipform=1
    want=0
    [ "$2" = pip ] && want=1
    if [ $pipform != $want ]; then
        echo "FAIL $1: not the $2 form:"; head -5 "$NM_TMP/$1.err"; nm_fail=1
    elif [ -n "${3:-}" ] && ! grep -q "$3" "$NM_TMP/$1.err"; then
        echo "FAIL $1: no '$3' in:"; head -5 "$NM_TMP/$1.err"; nm_fail=1
    elif [ -z "${3:-}" ] && grep -q ': the process form runs' "$NM_TMP/$1.err"; then
        echo "FAIL $1: a fallback line:"; grep -m1 'the process form runs' "$NM_TMP/$1.err"; nm_fail=1
    else
        echo "ok $1: the $2 form"
    fi
}
nm_run dflt 4 a "$t/nm_suite"
nm_same direct2 dflt '^delegated world'
nm_which dflt pip
nm_run dproc 4 a env MPIDELEG_FORM=process "$t/nm_suite"
nm_same direct2 dproc '^delegated world'
nm_which dproc process
# groups split across two nodes (hydra's fork launcher, -ppn 1: ranks
# 0 and 2 on nodeA, 1 and 3 on nodeB); test_netmod_twonode.sh has the
# node-local groups
printf '#!/bin/sh\nexec %s -launcher fork -hosts nodeA,nodeB -ppn 1 "$@"\n' \
    "${MPIEXEC:-mpiexec}" >"$NM_TMP/mpiexec-split"
chmod +x "$NM_TMP/mpiexec-split"
omx=${MPIEXEC:-}
MPIEXEC=$NM_TMP/mpiexec-split
export MPIEXEC
nm_run dnodes 4 a "$t/nm_suite"
nm_same direct2 dnodes '^delegated world'
nm_which dnodes process
nm_run dnodesdbg 4 a env MPIDELEG_DEBUG=1 "$t/nm_suite"
nm_which dnodesdbg process 'the PiP form: the ranks 0-1 of its group are not all on this node'
if [ -n "$omx" ]; then MPIEXEC=$omx; else unset MPIEXEC; fi
# hydra's variables inconsistent (a local rank id beyond the node's count)
nm_run dbadloc 4 a env MPI_LOCALNRANKS=1 "$t/nm_suite"
nm_which dbadloc process
nm_run dnopie 4 a "$t/nm_suite_nopie"
nm_same direct2 dnopie '^delegated world'
nm_which dnopie process
if ! ldconfig -p 2>/dev/null | grep -q 'libpip\.so\.0 '; then
    LD_LIBRARY_PATH=$nolibpip nm_run dnolib 4 a "$t/nm_suite"
    nm_which dnolib process
fi
# a program that reaches MPICH only through a library it is linked with
# (as ScaLAPACK's testers do through libscalapack-mpich) is an MPI program:
# the PiP form runs it (a wrapper such as env, which reaches no MPI
# library, is left alone)
cat >"$NM_TMP/via.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int via_run(int *argc, char ***argv)
{
    int rank, size;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(MPI_IN_PLACE, &rank, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("via: %d ranks, sum of ranks %d\n", size, rank);
    return MPI_Finalize();
}
C
printf 'int via_run(int *, char ***);\nint main(int c, char **v) { return via_run(&c, &v); }\n' >"$NM_TMP/viamain.c"
if mpicc -shared -fPIC -o "$NM_TMP/libnmvia.so" "$NM_TMP/via.c" &&
    ${CC:-cc} -fPIE -pie -o "$NM_TMP/viaprog" "$NM_TMP/viamain.c" -L"$NM_TMP" -lnmvia -Wl,-rpath,"$NM_TMP"; then
    if readelf -d "$NM_TMP/viaprog" | grep -q 'NEEDED.*libmpi'; then
        echo "FAIL: viaprog needs libmpi itself"; nm_fail=1
    fi
    nm_run viadirect 2 direct "$NM_TMP/viaprog"
    nm_run via 4 a "$NM_TMP/viaprog"
    nm_same viadirect via
    nm_which via pip
else
    echo "FAIL: cannot build the program linked through a library"; nm_fail=1
fi
# a bad value: one line, non-zero status
nm_expect_fail bad "MPIDELEG_FORM='threads' must be process or pip" 4 \
    env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=1 MPIDELEG_FORM=threads "$t/nm_suite"
# fallbacks: the process form runs, with the reason on one line
# nm_fallback NAME PATTERN PROG ARGS: preloaded in layout a
nm_fallback() {
    name=$1 pat=$2
    shift 2
    nm_run "$name" 4 a env MPIDELEG_FORM=pip "$@"
    if ! grep -q "MPIDELEG_FORM=pip: $pat.*: the process form runs" "$NM_TMP/$name.err" ||
        nm_pipform "$NM_TMP/$name.err"; then
        echo "FAIL $name: no fallback with '$pat':"; head -5 "$NM_TMP/$name.err"; nm_fail=1
    else
        echo "ok $name: $(grep -m1 'MPIDELEG_FORM=pip: ' "$NM_TMP/$name.err")"
    fi
}
nm_fallback nopie 'the program is not a PIE' "$t/nm_suite_nopie"
nm_same direct2 nopie '^delegated world'
NM_RUN_OPTS=-P
nm_fallback port 'PMI_FD is not set' "$t/nm_suite"
NM_RUN_OPTS=
nm_same direct2 port '^delegated world'
if ldconfig -p 2>/dev/null | grep -q 'libpip\.so\.0 '; then
    echo "no libpip-less case: libpip.so.0 is installed"
else
    LD_LIBRARY_PATH=$nolibpip nm_fallback nolibpip 'libpip.so.0 cannot be loaded' "$t/nm_suite"
    nm_same direct2 nolibpip '^delegated world'
    # the same with 400 KB of environment: the root falls back and hangs up
    # while the stand-ins still send it theirs (a SIGPIPE ended them once)
    big=$(head -c 100000 /dev/zero | tr '\0' x)
    LD_LIBRARY_PATH=$nolibpip NM_BIG1=$big NM_BIG2=$big NM_BIG3=$big \
        NM_BIG4=$big nm_fallback nolibpipbig 'libpip.so.0 cannot be loaded' \
        "$t/nm_suite"
    unset NM_BIG1 NM_BIG2 NM_BIG3 NM_BIG4 big
    nm_same direct2 nolibpipbig '^delegated world'
fi
# MPIDELEG_QUIET=1 silences the fallback line
nm_run quiet 4 a env MPIDELEG_FORM=pip MPIDELEG_QUIET=1 "$t/nm_suite_nopie"
if grep -q 'MPIDELEG_FORM=pip: ' "$NM_TMP/quiet.err"; then
    echo "FAIL quiet: the fallback line was printed"; nm_fail=1
fi
# a stripped PIE whose _start loads main through the GOT: main cannot be
# found; the group falls back, and the program then crashes on its own
# (its _start is broken), without a hang
if nm_gotmain "$t/nm_suite" "$NM_TMP/nm_suite_gotmain"; then
    nm_expect_fail nomain 'MPIDELEG_FORM=pip: main not found' 4 \
        env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=1 MPIDELEG_FORM=pip "$NM_TMP/nm_suite_gotmain"
else
    echo "FAIL: no lea of main at the entry of the suite"; nm_fail=1
fi
exit $nm_fail
