#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The PiP form with private process images: a delegatee group's ranks run
# as process-mode PiP tasks of one address space, each with its own copy of
# the loader, libc, MPICH and every library (libpip's private images), so a
# group is not bounded by glibc's namespaces.
#
# nm_private (its own checks: one environ, program data and stdio per rank,
# distinct process ids, MPI state: allreduce, rings, split, bcast) must
# print what it prints directly, every line labelled by mpiexec -l with the
# rank that wrote it (a task's output reaches the launcher as its own
# rank's), nothing lost: PIP_IMAGE=private with one group of 3 clients and
# with the suite in two groups; the default with a group larger than
# PIP_NAMESPACES (private images chosen by themselves).  Groups that cannot
# run in the PiP form fall back to the process form with one line naming
# the cause and the variable (PIP_IMAGE=namespace, in thread or process
# mode, or PIP_MODE=thread with more ranks than PIP_NAMESPACES, a bad
# PIP_IMAGE, a program that is not a PIE), and give the same output;
# process-mode namespace tasks run where they fit.  A rank that dies of
# SIGSEGV ends the job with mpiexec's status 11, as directly; the job's
# standard input reaches rank 0 alone, as directly.
#
# NM_PRIVATE_RANKS=32 (make check-long): one group of 32 clients and its
# delegatee (mpiexec -n 33: hydra starts one process per rank; 32 of them
# only stand in for their tasks) against 32 ranks directly, and the same
# group with PIP_IMAGE=namespace (the process form, with its line).
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
[ -f "$top/libpip/.libs/libpip.so.0" ] || { echo "SKIP: libpip not built"; exit 77; }
if ldd "$NM_LIB" 2>/dev/null | grep -q 'lib[at]san'; then
    echo "SKIP: sanitizer build: instrumented code cannot run in PiP tasks"
    exit 77
fi
LD_LIBRARY_PATH=$top/libpip/.libs:$LD_LIBRARY_PATH
export LD_LIBRARY_PATH
unset PIP_MODE PIP_IMAGE PIP_NAMESPACES MPIDELEG_FORM MPIDELEG_QUIET MPIDELEG_DEBUG
t=$top/mpich-netmod/tests
prog=$t/nm_private
n=${NM_PRIVATE_RANKS:-3}
lines=200
case $n in '' | *[!0-9]*) echo "NM_PRIVATE_RANKS='$n' must be a number" >&2; exit 99 ;; esac
if [ "$n" -gt 3 ]; then
    MPI_RUN_NP_MAX=$((n + 1))
    export MPI_RUN_NP_MAX
    lines=2000
fi
tmo=$((60 + 10 * n))
# every run labelled by the launcher (mpiexec -l)
printf '#!/bin/sh\nexec %s -l "$@"\n' "${MPIEXEC:-mpiexec}" >"$NM_TMP/mpiexec-l"
chmod +x "$NM_TMP/mpiexec-l"
MPIEXEC=$NM_TMP/mpiexec-l
export MPIEXEC

# pr_run NAME NP ENV...: nm_private under mpi-run; NAME.out, NAME.err,
# NAME.rc; prints the time and the form rank 0's layout line names
pr_run() {
    name=$1 np=$2
    shift 2
    t0=$(date +%s)
    "$MPI_RUN" -n "$np" -t "$tmo" env "$@" "$prog" "$lines" \
        >"$NM_TMP/$name.out" 2>"$NM_TMP/$name.err"
    echo $? >"$NM_TMP/$name.rc"
    form=
    pr_pipform "$NM_TMP/$name.err" && form=", PiP form"
    echo "$name: $(($(date +%s) - t0)) s, status $(cat "$NM_TMP/$name.rc")$form"
}

# pr_check NAME: status 0, every stdout line labelled with its own rank,
# n x (lines + 2) lines on stdout and one stderr line per rank, sorted
# stdout the same as directly
pr_check() {
    f=$NM_TMP/$1
    bad=
    [ "$(cat "$f.rc")" = 0 ] || bad="status $(cat "$f.rc")"
    # "[L] rank R ...": L must be R (the launcher's rank of the writer)
    mis=$(awk '{ l = $1; gsub(/[^0-9]/, "", l); r = $3; sub(/:$/, "", r)
                 if ($2 != "rank" || l == "" || l + 0 != r + 0) c++ }
               END { print c + 0 }' "$f.out")
    [ "$mis" = 0 ] || bad="$bad; $mis stdout lines not labelled with their rank"
    [ "$(wc -l <"$f.out")" -eq $((n * (lines + 2))) ] ||
        bad="$bad; $(wc -l <"$f.out") stdout lines, not $((n * (lines + 2)))"
    [ "$(grep -c '^\[\([0-9]*\)\] rank \1: a line on stderr$' "$f.err")" -eq "$n" ] ||
        bad="$bad; not one labelled stderr line per rank"
    sort "$f.out" >"$f.sorted"
    cmp -s "$NM_TMP/direct.sorted" "$f.sorted" || bad="$bad; stdout differs from the direct run"
    if [ -n "$bad" ]; then
        echo "FAIL $1: ${bad#; }"
        diff "$NM_TMP/direct.sorted" "$f.sorted" | head -10
        grep -v ' line [0-9]* of ' "$f.err" | head -10
        nm_fail=1
    else
        echo "ok $1: $(wc -l <"$f.out") lines as directly, each from its own rank"
    fi
}

# pr_fallback NAME PATTERN: the process form ran, with PATTERN in exactly
# one line on stderr
pr_fallback() {
    if [ "$(grep -c "$2" "$NM_TMP/$1.err")" -eq 1 ] && ! pr_pipform "$NM_TMP/$1.err" &&
        grep -q ': the process form runs$' "$NM_TMP/$1.err"; then
        echo "ok $1: $(grep -m1 "$2" "$NM_TMP/$1.err")"
    else
        echo "FAIL $1: not one line with '$2' and the process form:"
        grep -v ' line [0-9]* of ' "$NM_TMP/$1.err" | head -5
        nm_fail=1
    fi
}

# pr_pipform ERRFILE: rank 0's layout line (labelled by mpiexec -l) says
# the PiP form ran
pr_pipform() {
    grep -q '^\(\[0\] \)\{0,1\}mpideleg: .*delegatees* .*PiP form' "$1" 2>/dev/null
}
pr_pip() { # NAME: the PiP form ran
    if pr_pipform "$NM_TMP/$1.err"; then
        echo "ok $1: the PiP form"
    else
        echo "FAIL $1: not the PiP form"; nm_fail=1
    fi
}

lay="MPIDELEG_BOARD_SIZE=$n LD_PRELOAD=$NM_LIB"
pr_run direct "$n"
sort "$NM_TMP/direct.out" >"$NM_TMP/direct.sorted"
if [ "$(cat "$NM_TMP/direct.rc")" != 0 ] ||
    [ "$(grep -c 'environ own, counter 1, .*ring .*ok.*pids distinct$' "$NM_TMP/direct.out")" -ne "$n" ]; then
    echo "FAIL: the direct run:"; tail -5 "$NM_TMP/direct.out" "$NM_TMP/direct.err"
    exit 1
fi
echo "direct: $(grep -m1 'of .*environ' "$NM_TMP/direct.out")"
np=$((n + 1))
if [ "$n" -gt 3 ]; then
    # the default: more ranks than namespaces run as private images
    pr_run private$n "$np" $lay
    pr_check private$n
    pr_pip private$n
    # namespaces asked for: the group does not fit, the process form runs
    pr_run ns$n "$np" $lay PIP_IMAGE=namespace
    pr_check ns$n
    pr_fallback ns$n "a group of $np ranks needs $np PiP namespaces (PIP_IMAGE=namespace), PIP_NAMESPACES allows 8: unset PIP_IMAGE"
    exit $nm_fail
fi
# private images asked for, one group of n clients and its delegatee
pr_run private "$np" $lay PIP_IMAGE=private
pr_check private
pr_pip private
# the default picks private images for a group beyond PIP_NAMESPACES
pr_run auto "$np" $lay PIP_NAMESPACES=2
pr_check auto
pr_pip auto
# where the PiP form cannot run: one line, the process form, same output
pr_run nsimg "$np" $lay PIP_IMAGE=namespace PIP_NAMESPACES=2
pr_check nsimg
pr_fallback nsimg "PIP_IMAGE=namespace), PIP_NAMESPACES allows 2: unset PIP_IMAGE"
pr_run nsthread "$np" $lay PIP_MODE=thread PIP_NAMESPACES=3
pr_check nsthread
pr_fallback nsthread "PIP_MODE=thread), PIP_NAMESPACES allows 3: unset PIP_MODE"
pr_run procnsbig "$np" $lay PIP_MODE=process PIP_IMAGE=namespace PIP_NAMESPACES=3
pr_check procnsbig
pr_fallback procnsbig "PIP_IMAGE=namespace), PIP_NAMESPACES allows 3: unset PIP_IMAGE"
# process-mode namespace tasks where they fit (each its own process)
pr_run procns "$np" $lay PIP_MODE=process PIP_IMAGE=namespace
pr_check procns
pr_pip procns
pr_run badimg "$np" $lay PIP_IMAGE=shared
pr_check badimg
pr_fallback badimg "PIP_IMAGE='shared' must be private or namespace"
# MPIDELEG_QUIET=1 silences these lines too
pr_run quiet "$np" $lay PIP_IMAGE=shared MPIDELEG_QUIET=1
if grep -q 'the process form runs' "$NM_TMP/quiet.err"; then
    echo "FAIL quiet: the fallback line was printed"; nm_fail=1
fi
# a rank killed by a signal (SIGSEGV) ends the job with that signal as
# mpiexec's status, as directly, without a line from another rank's code
# (a private image inherited the root's signal handlers once: UCX's
# handler chained to the root's copy, which killed the root)
"$MPI_RUN" -n "$n" -t 60 "$prog" 1 crash >"$NM_TMP/cdirect.out" 2>"$NM_TMP/cdirect.err"
crc=$?
"$MPI_RUN" -n "$np" -t 60 env $lay PIP_IMAGE=private "$prog" 1 crash >"$NM_TMP/crash.out" 2>"$NM_TMP/crash.err"
prc=$?
if [ $crc -eq 11 ] && [ $prc -eq $crc ] && ! grep -q 'Fatal glibc error' "$NM_TMP/crash.err" &&
    pr_pipform "$NM_TMP/crash.err"; then
    echo "ok crash: status $prc as directly"
else
    echo "FAIL crash: status $prc, directly $crc:"; grep -v '^ *[0-9]* ' "$NM_TMP/crash.err" | head -8; nm_fail=1
fi
# standard input: the job's goes to rank 0 alone, as directly (each
# private image has its stand-in's stdin; mpi-run gives /dev/null, so
# mpiexec runs under timeout(1) here)
for how in direct private; do
    np_=$n pre=
    [ $how = private ] && np_=$np pre="env $lay PIP_IMAGE=private"
    printf 'for rank 0 only\n' | timeout -k 5 60 "${MPIEXEC:-mpiexec}" -n "$np_" $pre \
        "$prog" 1 stdin >"$NM_TMP/in$how.out" 2>"$NM_TMP/in$how.err"
    echo "status $?" >>"$NM_TMP/in$how.out"
    grep '^status\|stdin' "$NM_TMP/in$how.out" >"$NM_TMP/in$how.lines"
    mv "$NM_TMP/in$how.lines" "$NM_TMP/in$how.out"
    sort "$NM_TMP/in$how.out" >"$NM_TMP/in$how.sorted"
done
if cmp -s "$NM_TMP/indirect.sorted" "$NM_TMP/inprivate.sorted" &&
    grep -q 'rank 0: stdin 16 bytes' "$NM_TMP/indirect.sorted" &&
    grep -q 'status 0' "$NM_TMP/indirect.sorted"; then
    echo "ok stdin: rank 0 read its 16 bytes, $(grep -c 'stdin quiet' "$NM_TMP/inprivate.sorted") ranks saw none, as directly"
else
    echo "FAIL stdin:"; diff "$NM_TMP/indirect.sorted" "$NM_TMP/inprivate.sorted"; nm_fail=1
fi
# the netmod's suite in two groups of private images (layout a), as directly
unset MPIEXEC
nm_run sdirect 2 direct "$t/nm_suite"
nm_run suitepriv 4 a env PIP_IMAGE=private "$t/nm_suite"
nm_same sdirect suitepriv '^delegated world'
pr_pip suitepriv
# a program that is not a PIE: one private image at a time, so the group
# falls back (MPIDELEG_FORM=pip says why)
nm_run nopie 4 a env PIP_IMAGE=private MPIDELEG_FORM=pip "$t/nm_suite_nopie"
nm_same sdirect nopie '^delegated world'
if grep -q 'MPIDELEG_FORM=pip: the program is not a PIE (ET_EXEC): one private image of it at a time: the process form runs' "$NM_TMP/nopie.err"; then
    echo "ok nopie: $(grep -m1 'not a PIE' "$NM_TMP/nopie.err")"
else
    echo "FAIL nopie: no fallback line:"; head -5 "$NM_TMP/nopie.err"; nm_fail=1
fi
exit $nm_fail
