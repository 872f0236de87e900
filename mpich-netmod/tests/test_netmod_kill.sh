#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A delegatee killed while its clients communicate ends the job with a
# non-zero status and a message naming the dead process, never a hang.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
j=$top/mpich-netmod/tests/nm_jacobi
"$MPI_RUN" -n 4 -t 120 env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=1 \
    MPIDELEG_DEBUG=1 "$j" 64 1000000 >"$NM_TMP/kill.out" 2>"$NM_TMP/kill.err" &
job=$!
pid=
i=0
while [ $i -lt 600 ] && [ -z "$pid" ]; do
    # the delegatee of ranks 0..0 announces its region "memfd:PID:FD|..."
    pid=$(sed -n 's/.*delegatee of ranks 0\.\.0, region memfd:\([0-9]*\):.*/\1/p' "$NM_TMP/kill.err" | head -n 1)
    [ -n "$pid" ] || { sleep 0.1; i=$((i + 1)); }
done
if [ -z "$pid" ]; then
    echo "FAIL: no delegatee announced itself"; kill "$job" 2>/dev/null; wait "$job"; exit 1
fi
# let the clients exchange a little, then kill the delegatee of rank 0
i=0
while ! grep -q iter "$NM_TMP/kill.out" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$pid"
wait "$job"
rc=$?
echo "job status $rc after SIGKILL of delegatee pid $pid"
if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
    echo "FAIL: status $rc"; tail -5 "$NM_TMP/kill.err"; exit 1
fi
if grep -q "delegatee .*died\|is gone\|KILLED BY SIGNAL: 9\|Killed" "$NM_TMP/kill.err" "$NM_TMP/kill.out"; then
    grep -m 2 "delegatee .*died\|is gone\|KILLED BY SIGNAL: 9\|Killed" "$NM_TMP/kill.err" "$NM_TMP/kill.out"
    exit 0
fi
echo "FAIL: no message about the dead delegatee"; tail -5 "$NM_TMP/kill.err"; exit 1
