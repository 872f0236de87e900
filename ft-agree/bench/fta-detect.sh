#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# fta-detect.sh: detection time of 1, 2 and 3 simultaneous failures on 4
# ranks (make fta-bench-detect; part of make bench).  For each detector
# setting (FTA_DETECT_CONFIGS, default "proc:2000 hb:2000 hb:500": the
# local /proc check on or off (FTA_FD_PROC=1/0) and the timeout in ms;
# period 100 ms) the three cases run interleaved FTA_DETECT_REPS times
# (default 5); printed:
# the median time from the kill to the detection of the last victim (the
# slowest survivor's), of the first, and the ratio of the last to the
# one-failure median of the same run.  FTA_LOG=1 shows the detector's
# stalls.
set -u
top=${abs_top_builddir:-.}
src=${abs_top_srcdir:-.}
prog=$top/ft-agree/bench/fta_bench_detect
run=$top/test/mpi-run
reps=${FTA_DETECT_REPS:-5}
configs=${FTA_DETECT_CONFIGS:-proc:2000 hb:2000 hb:500}
[ -x "$prog" ] || { echo "fta-detect: $prog not built" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fta-detect.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
status=0
for cf in $configs; do
    to=${cf#*:}
    case $cf in proc:*) proc=1 ;; *) proc=0 ;; esac
    for r in $(seq 1 "$reps"); do
        for k in 1 2 3; do
            FTA_FD_PROC=$proc FTA_FD_PERIOD_MS=100 FTA_FD_TIMEOUT_MS=$to MPIEXEC=$src/ft-agree/tests/fta-mpiexec \
                "$run" -n 4 -t 120 "$prog" "$k" "$tmp/r.$cf.$k.$r" >"$tmp/log.$cf.$k.$r" 2>&1
            if grep -q '^OK' "$tmp/r.$cf.$k.$r" 2>/dev/null; then
                sed -n 's/.*first_ms=\([0-9.-]*\) last_ms=\([0-9.-]*\).*/\1 \2/p' "$tmp/r.$cf.$k.$r" >>"$tmp/v.$cf.$k"
            else
                echo "run failed: $cf, $k failures, repetition $r" >&2
                status=1
            fi
        done
    done
    echo "FTA_FD_PROC=$proc, timeout $to ms, period 100 ms, 4 ranks, median of $reps:"
    printf '  %-10s %12s %12s %10s %s\n' failures first_ms last_ms ratio "last_ms of each run"
    base=
    for k in 1 2 3; do
        [ -f "$tmp/v.$cf.$k" ] || continue
        f=$(cut -d' ' -f1 "$tmp/v.$cf.$k" | median)
        l=$(cut -d' ' -f2 "$tmp/v.$cf.$k" | median)
        [ -z "$base" ] && base=$l
        ratio=$(awk -v a="$l" -v b="$base" 'BEGIN { printf "%.2f", a / b }')
        printf '  %-10s %12.1f %12.1f %10s %s\n' "$k" "$f" "$l" "$ratio" "$(cut -d' ' -f2 "$tmp/v.$cf.$k" | tr '\n' ' ')"
    done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
