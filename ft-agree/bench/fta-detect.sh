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
# Part 2 (scale): P = FTA_DETECT_SCALE_P (default "4 8 16 32") ranks,
# heartbeats only, one rank killed: the detector's messages per rank per
# heartbeat period without failures and the time from the kill to the
# detection by every survivor, for the ring (FTA_FD_OBSERVERS=1) against
# the all-to-all baseline (FTA_FD_OBSERVERS=P-1: every rank observes every
# other, the detector before the ring) in the same run, median of
# FTA_DETECT_SCALE_REPS (default 3); then the simulator's flood of one
# notice (fta-sim detect-bench) for P up to 4096 and the model
# everyone(P) = observer(P) + rounds(P) x hop, hop fitted on the measured
# points.  CSV: ft-agree-detect.csv, ft-agree-detect-model.csv.
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
scale_p=${FTA_DETECT_SCALE_P:-4 8 16 32}
sreps=${FTA_DETECT_SCALE_REPS:-3}
csv=$top/ft-agree-detect.csv
echo "P,detector,rep,msgs_pp_max,msgs_pp_mean,observer_ms,everyone_ms,notices_sum,transport" >"$csv"
echo "== scale: messages per rank per period, detection by everyone (heartbeats only, timeout 2000 ms, period 100 ms)"
for r in $(seq 1 "$sreps"); do
    for P in $scale_p; do
        for det in ring alltoall; do
            obs=1
            [ $det = alltoall ] && obs=$((P - 1))
            f=$tmp/s.$P.$det.$r
            FTA_FD_OBSERVERS=$obs FTA_FD_PROC=0 FTA_FD_PERIOD_MS=100 FTA_FD_TIMEOUT_MS=2000 \
                MPI_RUN_NP_MAX=$P MPIEXEC=$src/ft-agree/tests/fta-mpiexec \
                "$run" -n "$P" -t 300 "$prog" 1 "$f" >"$f.log" 2>&1
            if grep -q '^OK' "$f" 2>/dev/null; then
                sed -n 's/.*last_ms=\([0-9.-]*\).*earliest_ms=\([0-9.-]*\) msgs_pp_max=\([0-9.]*\) msgs_pp_mean=\([0-9.]*\) notices_max=[0-9]* notices_sum=\([0-9]*\) transport=\(.*\)/'"$P,$det,$r"',\3,\4,\2,\1,\5,\6/p' "$f" >>"$csv"
            else
                echo "run failed: P=$P $det repetition $r" >&2
                status=1
            fi
        done
    done
done
printf '  %5s %13s %13s %8s %13s %13s %11s %11s\n' P ring_msg/pp a2a_msg/pp ratio ring_obs_ms ring_all_ms a2a_all_ms notices
for P in $scale_p; do
    col() { awk -F, -v P="$P" -v d="$1" -v c="$2" '$1 == P && $2 == d { print $c }' "$csv" | median; }
    rm=$(col ring 4) am=$(col alltoall 4)
    printf '  %5s %13s %13s %8s %13s %13s %11s %11s\n' "$P" "$rm" "$am" \
        "$(awk -v a="$rm" -v b="$am" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }')" \
        "$(col ring 6)" "$(col ring 7)" "$(col alltoall 7)" "$(col ring 8)"
done
# model: hop = median over measured P of (everyone - observer) / rounds(P)
"$top/ft-agree/fta-sim" detect-bench -P "$(echo $scale_p 64 256 1024 4096 | tr ' ' ',')" -o "$tmp/model.csv" >/dev/null || status=1
hops=
for P in $scale_p; do
    rounds=$(awk -F, -v P="$P" 'NR > 1 && $1 == P { print $7 }' "$tmp/model.csv")
    for r in $(seq 1 "$sreps"); do
        awk -F, -v P="$P" -v r="$r" -v n="$rounds" '$1 == P && $2 == "ring" && $3 == r && n > 0 { print ($7 - $6) / n }' "$csv"
    done
done >"$tmp/hops"
hop=$(median <"$tmp/hops")
lastp=$(echo $scale_p | awk '{ print $NF }')
obs_ms=$(awk -F, -v P="$lastp" '$1 == P && $2 == "ring" { print $6 }' "$csv" | median)
echo "P,hb_per_rank,alltoall_per_rank,notice_msgs,notice_max_per_rank,rounds,model_everyone_ms" >"$top/ft-agree-detect-model.csv"
echo "  model (fta-sim detect-bench; hop ${hop} ms fitted, observer ${obs_ms} ms at P=$lastp):"
printf '  %6s %12s %14s %12s %14s %7s %18s\n' P msgs/rank/pp all-to-all/pp notices max_per_rank rounds everyone_ms_model
awk -F, -v h="$hop" -v o="$obs_ms" 'NR > 1 { printf "  %6s %12s %14s %12s %14s %7s %18.1f\n", $1, $3, $4, $5, $6, $7, o + $7 * h }' "$tmp/model.csv"
awk -F, -v h="$hop" -v o="$obs_ms" 'NR > 1 { printf "%s,%s,%s,%s,%s,%s,%.1f\n", $1, $3, $4, $5, $6, $7, o + $7 * h }' "$tmp/model.csv" >>"$top/ft-agree-detect-model.csv"
echo "  measured against the model (everyone_ms):"
for P in $scale_p; do
    rounds=$(awk -F, -v P="$P" 'NR > 1 && $1 == P { print $7 }' "$tmp/model.csv")
    meas=$(awk -F, -v P="$P" '$1 == P && $2 == "ring" { print $7 }' "$csv" | median)
    o=$(awk -F, -v P="$P" '$1 == P && $2 == "ring" { print $6 }' "$csv" | median)
    printf '  P=%-5s rounds %s: measured %s ms, observer %s + rounds x hop = %s ms\n' "$P" "$rounds" "$meas" "$o" \
        "$(awk -v o="$o" -v n="$rounds" -v h="$hop" 'BEGIN { printf "%.1f", o + n * h }')"
done
echo "CSV: $csv $top/ft-agree-detect-model.csv"
[ "${FTA_DETECT_SCALE_ONLY:-0}" = 1 ] && configs=
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
