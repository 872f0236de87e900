#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_mpi_run.sh: the MPI launcher wrapper passes a good program's output and
# status through, fails a hung program within its timeout and leaves no
# process behind, and rejects bad usage with the hard-error code.
set -u
# Scripts live in the source tree, programs in the build tree.
if [ -n "${abs_top_builddir:-}" ]; then
    dir=$abs_top_builddir/test
else
    dir=$(cd "$(dirname "$0")" && pwd)
fi
run=${MPI_RUN:-$dir/mpi-run}
fails=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; fails=$((fails + 1)); }

command -v mpiexec >/dev/null 2>&1 || { echo "SKIP: no mpiexec"; exit 77; }
[ -x "$dir/mpi_sum" ] && [ -x "$dir/mpi_hang" ] || { echo "ERROR: helpers not built"; exit 99; }

out=$("$run" -n 3 -t 60 "$dir/mpi_sum" 2>/dev/null)
status=$?
n=$(printf '%s\n' "$out" | grep -c ' ok$')
[ "$status" -eq 0 ] && [ "$n" -eq 3 ] && pass "3 ranks ran and agreed" ||
    fail "mpi_sum: status $status, $n of 3 ranks ok"

"$run" -n 2 -t 60 "$dir/mpi_sum" 5 >/dev/null 2>&1
status=$?
[ "$status" -eq 5 ] && pass "exit status 5 passed through" || fail "exit status: got $status, want 5"

start=$(date +%s)
"$run" -n 2 -t 3 "$dir/mpi_hang" >/dev/null 2>"${TMPDIR:-/tmp}/mpi_run_test.$$"
status=$?
elapsed=$(($(date +%s) - start))
[ "$status" -eq 124 ] && pass "hung program failed with 124" || fail "hung program: status $status, want 124"
# a hang guard far from the 3-4 s a quiet machine takes (mpi_hang never ends)
[ "$elapsed" -lt 60 ] && pass "hung program stopped after ${elapsed}s" || fail "hung program took ${elapsed}s"
grep -q TIMEOUT "${TMPDIR:-/tmp}/mpi_run_test.$$" && pass "timeout reported on stderr" || fail "no TIMEOUT message"
rm -f "${TMPDIR:-/tmp}/mpi_run_test.$$"
# killed processes may take a moment to go: poll (up to 30 s), no fixed sleep
tries=0
while :; do
    left=0
    for exe in /proc/[0-9]*/exe; do
        case $(readlink "$exe" 2>/dev/null) in
        "$dir/mpi_hang" | "$dir/.libs/mpi_hang") left=$((left + 1)) ;;
        esac
    done
    [ "$left" -eq 0 ] || [ "$tries" -ge 300 ] && break
    sleep 0.1
    tries=$((tries + 1))
done
[ "$left" -eq 0 ] && pass "no mpi_hang process left" || fail "$left mpi_hang processes left"

"$run" -n 0 "$dir/mpi_sum" >/dev/null 2>&1
[ $? -eq 99 ] && pass "-n 0 rejected with 99" || fail "-n 0 not rejected"
"$run" -n 9 "$dir/mpi_sum" >/dev/null 2>&1
[ $? -eq 99 ] && pass "-n 9 above the limit rejected with 99" || fail "-n 9 not rejected"
"$run" -t abc "$dir/mpi_sum" >/dev/null 2>&1
[ $? -eq 99 ] && pass "bad timeout rejected with 99" || fail "bad timeout not rejected"
MPIEXEC=/nonexistent/mpiexec "$run" -n 2 "$dir/mpi_sum" >/dev/null 2>&1
[ $? -eq 77 ] && pass "missing launcher skips with 77" || fail "missing launcher not a skip"

[ "$fails" -eq 0 ]
