#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run-bench.sh TOP_BUILDDIR OUTDIR: nm_bench directly with MPICH (2 ranks,
# the baseline) and delegated in layout a (2 boards x 1 client + 2 hidden
# delegatees, 4 ranks): "default" is the user's plain LD_PRELOAD command
# (the PiP form on one node, libpip of this tree on the library path; the
# form that ran is printed), then the process form (MPIDELEG_FORM=process)
# with each client wait policy ("poll", "adaptive", "block") and with poll
# and the ranks bound by MPIDELEG_PLACE=hwloc (delegatees on the host core,
# clients on the board cores: "placed"), and the PiP form of a program
# linked with the shim (mpideleg-pip: "pip"; skipped when libpip is not
# built), NM_BENCH_ROUNDS rounds (default 2) interleaved so that load from
# elsewhere hits all alike.
# Writes OUTDIR/results/nm_bench.csv (every value), nm_summary.csv (medians
# and ratios against direct) and nm_bench.svg (gnuplot, when installed).
# NM_BENCH_ARGS: nm_bench options (default "-r 5"; "-q -r 3" is quick).
# MPIDELEG_FORM=pip in the environment makes the policy columns the PiP
# form under LD_PRELOAD too.
median=$(dirname "$0")/median.awk
top=${1:?usage: run-bench.sh TOP_BUILDDIR OUTDIR}
out=${2:?usage: run-bench.sh TOP_BUILDDIR OUTDIR}/results
bench=$top/mpich-netmod/bench/nm_bench
lib=$top/mpich-netmod/.libs/libmpideleg.so
run=$top/test/mpi-run
pip=$top/mpich-netmod/mpideleg-pip
benchpip=$top/mpich-netmod/bench/nm_bench_pip
modes="direct default poll adaptive block placed"
if [ -x "$pip" ] && [ -x "$benchpip" ]; then
    modes="$modes pip"
else
    echo "run-bench: no mpideleg-pip (libpip not built): its column stays 0" >&2
fi
[ -x "$bench" ] && [ -f "$lib" ] || { echo "run-bench: build first (make)" >&2; exit 1; }
mkdir -p "$out" || exit 1
LD_LIBRARY_PATH=$top/delegation/.libs:$top/libpip/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
pform=${MPIDELEG_FORM:-process}
echo "form of the policy columns: MPIDELEG_FORM=$pform" >&2
args=${NM_BENCH_ARGS:--r 5}
rounds=${NM_BENCH_ROUNDS:-2}
csv=$out/nm_bench.csv
# "--summary": only redo the table and plot from an existing CSV
if [ "${3:-}" != --summary ]; then
echo "mode,round,metric,bytes,value" >"$csv"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
r=1
while [ $r -le "$rounds" ]; do
    for mode in $modes; do
        echo "round $r/$rounds: $mode" >&2
        if [ $mode = direct ]; then
            # shellcheck disable=SC2086
            "$run" -n 2 -t 900 "$bench" $args >"$out/.tmp" || { echo "run-bench: $mode failed" >&2; exit 1; }
        elif [ $mode = default ]; then
            # shellcheck disable=SC2086
            "$run" -n 4 -t 900 env -u MPIDELEG_FORM LD_PRELOAD="$lib" MPIDELEG_BOARD_SIZE=1 \
                "$bench" $args >"$out/.tmp" 2>"$out/.err" || { cat "$out/.err" >&2; echo "run-bench: $mode failed" >&2; exit 1; }
            if grep -q '^mpideleg: .*PiP form' "$out/.err"; then
                echo "  default: the PiP form" >&2
            else
                echo "  default: the process form ($(grep -m1 'process form runs' "$out/.err"))" >&2
            fi
        elif [ $mode = pip ]; then
            # shellcheck disable=SC2086
            LD_LIBRARY_PATH=$top/libpip/.libs:$top/mpich-netmod/.libs:$LD_LIBRARY_PATH \
                "$run" -P -n 4 -t 900 env MPIDELEG_BOARD_SIZE=1 PIP_MODE=thread \
                "$pip" "$benchpip" $args >"$out/.tmp" || { echo "run-bench: $mode failed" >&2; exit 1; }
        else
            # shellcheck disable=SC2086
            pol=$mode place=none
            [ $mode = placed ] && pol=poll place=hwloc
            "$run" -n 4 -t 900 env LD_PRELOAD="$lib" MPIDELEG_BOARD_SIZE=1 MPIDELEG_FORM=$pform \
                MPIDELEG_POLICY_BLOCKING=$pol MPIDELEG_POLICY_NONBLOCKING=$pol \
                MPIDELEG_PLACE=$place \
                "$bench" $args >"$out/.tmp" || { echo "run-bench: $mode failed" >&2; exit 1; }
        fi
        sed "s/^/$mode,$r,/" "$out/.tmp" >>"$csv"
    done
    r=$((r + 1))
done
rm -f "$out/.tmp" "$out/.err"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
fi

# medians over rounds, ratios against direct
cols="direct default poll adaptive block placed pip"
awk -F, -v cols="$cols" "$(cat "$median")"'NR > 1 { k = $3 "," $4 "," $1; v[k] = v[k] " " $5; keys[$3 "," $4] = 1 }
END {
    n = split(cols, c, " ")
    h = "metric,bytes"
    for (i = 1; i <= n; i++) h = h "," c[i]
    for (i = 2; i <= n; i++) h = h "," c[i] "/direct"
    print h
    for (k in keys) {
        line = k
        for (i = 1; i <= n; i++) { m[i] = med(v[k "," c[i]]); line = line "," m[i] }
        for (i = 2; i <= n; i++) line = line "," sprintf("%.3f", m[1] ? m[i] / m[1] : 0)
        print line
    }
}' "$csv" | { read -r h; echo "$h"; sort -t, -k1,1 -k2,2n; } >"$out/nm_summary.csv"

# columns: 1 metric, 2 bytes, 3 direct, 4 default, 5 poll, 6 adaptive,
# 7 block, 8 placed, 9 pip, 10..15 the ratios of 4..9 to direct
printf '\n%-16s %8s %10s %10s %10s %10s %10s %10s %10s %6s %6s %6s %6s %6s %6s\n' metric bytes direct default poll adaptive block placed pip df/dir p/dir a/dir b/dir pl/dir pip/dir
tail -n +2 "$out/nm_summary.csv" | tr ',' ' ' | while read -r m b d f p a k q x rf rp ra rb rq rx; do
    printf '%-16s %8s %10s %10s %10s %10s %10s %10s %10s %6s %6s %6s %6s %6s %6s\n' "$m" "$b" "$d" "$f" "$p" "$a" "$k" "$q" "$x" "$rf" "$rp" "$ra" "$rb" "$rq" "$rx"
done
echo
echo "targets, the default LD_PRELOAD command (default) against direct MPICH (medians of the rounds):"
awk -F, '$1 == "latency_us" && $2 == 8 { printf "  8 B latency default/direct = %s (<= 2: %s); poll %s, placed %s, pip %s\n", $10, ($10 <= 2 ? "holds" : "does not hold"), $11, $14, $15 }
         $1 == "bandwidth_MBps" && $2 == 1048576 { printf "  1 MiB bandwidth default/direct = %s (>= 0.8: %s); poll %s, adaptive %s, placed %s, pip %s\n", $10, ($10 >= 0.8 ? "holds" : "does not hold"), $11, $12, $14, $15 }
         $1 ~ /^overlap_.*pct$/ { w = $1 == "overlap_pct" ? "both compute" : $1 == "overlap_send_pct" ? "sender computes" : "receiver computes"
             t = $1 == "overlap_pct" ? "" : sprintf(" (>= 80: %s)", $4 >= 80 ? "holds" : "does not hold")
             printf "  1 MiB overlap (%s): default %s %%%s; direct %s %%, poll %s %%, adaptive %s %%, block %s %%, placed %s %%, pip %s %%\n", w, $4, t, $3, $5, $6, $7, $8, $9 }' "$out/nm_summary.csv"
# The 8 B latency depends on where the host runs the two CPUs at that
# moment (on a KVM guest: direct MPICH about 0.13 us when they are close,
# 0.55 us when far), which may change between runs: each round's pair
# (direct and default run within seconds of each other) shows it.
awk -F, '$3 == "latency_us" && $4 == 8 && ($1 == "direct" || $1 == "default") { v[$2 "," $1] = $5; r[$2] = 1 }
    END {
        printf "  8 B latency per round (direct, default, ratio):"
        for (k in r) n++
        for (i = 1; i <= n; i++) {
            d = v[i ",direct"]; f = v[i ",default"]
            printf " %s: %s %s %.2f;", i, d, f, d ? f / d : 0
        }
        printf "\n"
    }' "$csv"
echo "CSV: $csv, $out/nm_summary.csv"

if command -v gnuplot >/dev/null 2>&1; then
    for m in latency_us bandwidth_MBps; do
        awk -F, -v m=$m '$1 == m { print $2, $3, $4, $5, $6, $7, $8, $9 }' "$out/nm_summary.csv" >"$out/.$m.dat"
    done
    gnuplot -e "datadir='$out'" "$(dirname "$0")/plot.gp" >"$out/nm_bench.svg" && echo "plot: $out/nm_bench.svg"
    rm -f "$out"/.*.dat
else
    echo "plot skipped: gnuplot not installed (apt-get install -y gnuplot-nox)"
fi
