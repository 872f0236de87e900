#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_bench_pvas.sh: one tiny, untimed run of the PVAS benchmark
# (pip_bench_pvas).  It checks that the program runs in both PiP modes, that
# every party's data arrived intact (the parties verify what they received
# and the program fails otherwise), and that the table and the CSV are well
# formed.  The numbers themselves are not judged: this is not a timed test.

b=${abs_top_builddir:-.}/libpip/bench
prog=$b/pip_bench_pvas
[ -x "$prog" ] && [ -x "$b/pvas_task" ] || {
    echo "SKIP: $prog or pvas_task not built"
    exit 77
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pvas_smoke.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() {
    echo "FAIL: $*"
    echo "--- stdout"; cat "$tmp/out.txt"
    echo "--- stderr"; cat "$tmp/err.txt"
    exit 1
}

# The MPICH baseline too when it is built and the launcher wrapper is there.
mpi=--no-mpi
withmpi=0
if [ -x "$b/pvas_mpi" ] && [ -n "$MPI_RUN" ] && [ -x "$MPI_RUN" ]; then
    mpi="--mpi-run=$MPI_RUN"
    withmpi=1
fi

timeout 200 "$prog" --sizes 8:1K --nc-sizes 256:1K --nc-block 16 \
    --a2a-n 2,3 --a2a-block 64 -r 3 --rounds 1 --max-iters 20 --timeout 60 \
    --pip-mode process $mpi --csv "$tmp/out.csv" >"$tmp/out.txt" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 0 ] || fail "pip_bench_pvas exited with status $rc"

# Table: every section, and a row for the smallest size with numbers for
# pip and shm-2copy.
for h in '== Ping-pong latency' '== Ping-pong bandwidth' \
    '== Strided (vector) messages' '== All-to-all footprint' \
    '== pip against shm-2copy at every size' '== Targets'; do
    grep -q -- "$h" "$tmp/out.txt" || fail "no '$h' section"
done
grep -Eq '^ +8 B +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ ' "$tmp/out.txt" ||
    fail "no numeric 8 B row"
# The per-size verdict: a row per size, and the summary line.
# One round: too few for a verdict, and it says so.
[ "$(grep -Ec '(pip faster|tie|pip SLOWER|not judged)$' "$tmp/out.txt")" -eq 8 ] ||
    fail "not 8 per-size verdict rows"
grep -Eq '^pip not slower than shm-2copy at any size: not judged \(1 round' \
    "$tmp/out.txt" || fail "no verdict line"
grep -Eq '^ +2 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ ' \
    "$tmp/out.txt" || fail "no numeric N=2 footprint row"

# CSV: header, 12 fields a row, the expected number of rows, numbers where
# the method must work everywhere (pip, shm; mpich when it ran).
head -n 1 "$tmp/out.csv" | grep -qx \
    'section,x,method,metric,unit,median,min,max,reps,iters,pip_advantage,note' ||
    fail "bad CSV header"
# 8 sizes x 4 methods x 5 metrics (latency, bandwidth, latency_mean,
# cswitch, quiet_reps) + 2 x 4 x 5 + 2 N x 2 sides x 4 metrics
rows=$(($(wc -l <"$tmp/out.csv") - 1))
[ "$rows" -eq 216 ] || fail "CSV has $rows rows, expected 216"
awk -F, -v mpi=$withmpi '
    NR == 1 { next }
    $12 == "" && NF != 12 { print "line " NR ": " NF " fields"; bad = 1 }
    ($3 ~ /^(pip|shm|pip-1copy|shm-pack|procs-shm)/ || (mpi && $3 ~ /^mpich/)) &&
        $6 !~ /^[0-9]+(\.[0-9]+)?$/ { print "line " NR ": no number"; bad = 1 }
    $6 != "" && $6 + 0 <= 0 && $4 !~ /^(pte|cswitch|quiet_reps)$/ {
        print "line " NR ": not positive"; bad = 1 }
    END { exit bad }' "$tmp/out.csv" >"$tmp/awk.txt" ||
    fail "bad CSV rows: $(cat "$tmp/awk.txt")"

# Thread mode: the ping-pong only, the smallest sweep.
timeout 100 "$prog" --only pp --sizes 8:64 -r 2 --rounds 1 --max-iters 10 --timeout 60 \
    --pip-mode thread --no-mpi >"$tmp/out.txt" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 0 ] || fail "thread mode: pip_bench_pvas exited with status $rc"
grep -Eq '^ +64 B +[0-9]+\.[0-9]+ ' "$tmp/out.txt" || fail "thread mode: no 64 B row"

# The floor (no data moved) and the prefetching receivers: they run.
# Five rounds: a verdict (its outcome is not judged here).
timeout 100 "$prog" --only pp --sizes 8:64 -r 2 --rounds 5 --max-iters 10 --timeout 60 \
    --flags-only --prefetch --no-mpi >"$tmp/out.txt" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 0 ] || fail "--flags-only: pip_bench_pvas exited with status $rc"
grep -q 'NO DATA MOVED' "$tmp/out.txt" || fail "--flags-only: not said in the table"
grep -Eq '^pip not slower than shm-2copy at any size: (YES|NO) \(of 4 sizes in 5 rounds' \
    "$tmp/out.txt" || fail "--flags-only: no verdict after 5 rounds"

# Bad arguments: a one-line error and a non-zero status.
"$prog" --sizes 8:x >"$tmp/out.txt" 2>"$tmp/err.txt" && fail "bad --sizes accepted"
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] || fail "bad --sizes: not a one-line error"
"$prog" --a2a-n 1 >"$tmp/out.txt" 2>"$tmp/err.txt" && fail "--a2a-n 1 accepted"
echo "PASS"
exit 0
