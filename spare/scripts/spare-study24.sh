#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# spare-study24.sh OUTDIR: the random-sampling study of Hori et al. on the
# 24x24x24 mesh with 3D(2,1) spares (Figs. 12-15): hybrid(all), 0D and
# hybrid(-2D), 7-point stencil, every failure count from 1 to 1128 (all
# spares), the paper's counting rule and its limit of two 3D slidings.
# One sample is one random sequence of 1128 failures; each prefix of it is
# one evaluated case, so SAMPLES sequences give SAMPLES * 1128 cases per
# method.  3269 samples (the default) give 3,687,432 cases per method, at
# least the paper's 3,686,400.
#
# Writes OUTDIR/study.csv (worst/average/best per method and failure
# count), rates.csv (selection rates of hybrid(all)), worst.scn (the worst
# case of hybrid(all), a scenario file), fig12-13.svg, fig14.svg, fig15.svg,
# fig12.png and fig13.png (with gnuplot), summary.txt (the numbers compared
# with the paper), and checks the result against the paper (exit 1 if the
# shape does not hold).
# Environment: SPARE_SIM (the spare-sim binary), SPARE_SAMPLES, SPARE_SEED,
# SPARE_THREADS, SPARE_COUNT (paper, or both for the two-way count),
# SPARE_QD_LIMIT (default: the paper's 2; none: unlimited).
set -eu
out=${1:-spare-study24}
sim=${SPARE_SIM:-spare-sim}
samples=${SPARE_SAMPLES:-3269}
seed=${SPARE_SEED:-1}
threads=${SPARE_THREADS:-$(nproc 2>/dev/null || echo 1)}
count=${SPARE_COUNT:-paper}
qdl=${SPARE_QD_LIMIT:-}
mkdir -p "$out"
sum=$out/summary.txt
{
    echo "spare-study24: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm)"
    echo "spare-study24: cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(nproc 2>/dev/null) online"
    echo "spare-study24: load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    echo "spare-study24: samples $samples per method, seed $seed, $threads threads, count $count, qD limit ${qdl:-default}"
} | tee "$sum"
start=$(date +%s)
"$sim" -d 24x24x24 -a '3D(2,1)' -p 7p -M random -n "$samples" -s "$seed" \
    -j "$threads" -C "$count" ${qdl:+--qd-limit "$qdl"} \
    -m 'hybrid(all)' -m 0D -m 'hybrid(-2D)' --logx \
    --title "24x24x24, 3D(2,1), 7P, count $count: hybrid(all) (thick), 0D, hybrid(-2D)" \
    -o "$out/study.csv" -r "$out/rates.csv" --svg "$out/fig12-13.svg" \
    --rates-svg "$out/fig14.svg" --acc-svg "$out/fig15.svg" \
    --export-worst "$out/worst.scn"
end=$(date +%s)
times >"$out/times.txt" # no pipe: a subshell would not see the children
cpu=$(tail -1 "$out/times.txt" | awk '{
    split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
rm -f "$out/times.txt"
{
    echo "spare-study24: $((end - start)) s wall clock, $cpu s CPU (user + system)"
    echo "spare-study24: load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
} | tee -a "$sum"

# Figures 12 and 13 as separate plots, as in the paper (gnuplot, optional).
if command -v gnuplot >/dev/null 2>&1; then
    for fig in 12 13; do
        a='hybrid(3D+2D+1D+0D)' an='hybrid(all)'
        if [ $fig = 12 ]; then b='0D' bn='0D'; else b='hybrid(3D+1D+0D)' bn='hybrid(-2D)'; fi
        awk -F, -v a="$a" -v b="$b" '$1 == a && $2 > 0 && $3 > 0 { print $2, $5, $6, $7 > "'"$out"'/a.dat" }
            $1 == b && $2 > 0 && $3 > 0 { print $2, $5, $6, $7 > "'"$out"'/b.dat" }' "$out/study.csv"
        gnuplot <<EOF || echo "spare-study24: gnuplot failed for Fig. $fig"
set terminal pngcairo size 900,560 font ",11"
set output "$out/fig$fig.png"
set title "Fig. $fig: 24x24x24, 3D(2,1), 7P, count $count ($samples samples)"
set logscale x
set xrange [1:1200]
set xlabel "number of failed nodes"
set ylabel "max. message collisions"
set key top left
plot "$out/a.dat" u 1:2 w l lw 4 lc rgb "#888888" t "$an worst", \
     "$out/a.dat" u 1:3 w l lw 4 dt 2 lc rgb "#888888" t "$an average", \
     "$out/a.dat" u 1:4 w l lw 4 lc rgb "#bbbbbb" t "$an best", \
     "$out/b.dat" u 1:2 w l lw 1.5 lc rgb "black" t "$bn worst", \
     "$out/b.dat" u 1:3 w l lw 1.5 dt 2 lc rgb "black" t "$bn average", \
     "$out/b.dat" u 1:4 w l lw 1.5 lc rgb "#555555" t "$bn best"
EOF
        rm -f "$out/a.dat" "$out/b.dat"
    done
fi

# The numbers of the paper's text, from this run.
awk -F, -v secs=$((end - start)) '
$1 ~ /^(#|method)/ { next }
$2 > 0 { cases[$1] += $3 }
END {
    for (m in cases) { printf "spare-study24: evaluated cases %s: %d\n", m, cases[m]; t += cases[m] }
    printf "spare-study24: evaluated cases in all: %d (paper: 3,686,400 per figure)\n", t
}' "$out/study.csv" | tee -a "$sum"
# Ranges of failure counts where method B beats method A (column col: 5
# worst, 6 average): first and last such count and how many in between.
ranges() { # A B col label
    awk -F, -v A="$1" -v B="$2" -v c="$3" -v label="$4" '
    $1 == A && $2 > 0 && $3 > 0 { a[$2] = $c }
    $1 == B && $2 > 0 && $3 > 0 { b[$2] = $c; if ($2 > n) n = $2 }
    END {
        lo = 0; hi = 0; k = 0; run = 0; best = 0; blo = 0
        for (f = 1; f <= n; f++) {
            if ((f in a) && (f in b) && b[f] < a[f]) {
                if (!lo) lo = f
                hi = f; k++
                if (!run) rs = f
                run++
                if (run > best) { best = run; blo = rs }
            } else run = 0
        }
        if (!lo) printf "spare-study24: %s: never\n", label
        else printf "spare-study24: %s: %d-%d (%d counts; longest run %d-%d)\n", label, lo, hi, k, blo, blo + best - 1
    }' "$out/study.csv"
}
{
    ranges 'hybrid(3D+2D+1D+0D)' 0D 5 'Fig. 12 worst, 0D better than hybrid(all) (paper 10-155)'
    ranges 'hybrid(3D+2D+1D+0D)' 0D 6 'Fig. 12 average, 0D better than hybrid(all) (paper 248-740)'
    ranges 'hybrid(3D+1D+0D)' 'hybrid(3D+2D+1D+0D)' 6 'Fig. 13 average, hybrid(all) better than hybrid(-2D) (paper 1-18 and 993-1128)'
    ranges 'hybrid(3D+2D+1D+0D)' 'hybrid(3D+1D+0D)' 6 'Fig. 13 average, hybrid(-2D) better than hybrid(all) (paper 19-992)'
} | tee -a "$sum"
awk -F, -v limited="${qdl:-2}" '
NR == 1 { next }
$1 !~ /^hybrid\(3D\+2D/ { next }
{
    f = $2; r0 = $4; r1 = $5; r2 = $6; r3 = $7
    if (f <= 2 && r3 < 0.999) bad3 = 1
    if (f > 2 && r3 > 0) late3 = 1
    if (f > 2 && !x21 && r1 > r2) x21 = f
    if (f > 2 && !x10 && r0 > r1) x10 = f
    a0 = $8; a1 = $9; a2 = $10; a3 = $11; last = f
}
END {
    printf "spare-study24: result            this run   paper\n"
    printf "spare-study24: 3D for failures    %s         1-2\n", bad3 ? "no" : late3 ? "1-2+" : "1-2"
    printf "spare-study24: 2D dominates to    %-9d  about 38\n", x21 - 1
    printf "spare-study24: 1D dominates to    %-9d  about 915\n", x10 - 1
    printf "spare-study24: final 0D share     %5.1f%%     25%%\n", 100 * a0
    printf "spare-study24: final 1D share     %5.1f%%     71%%\n", 100 * a1
    printf "spare-study24: final 2D share     %5.1f%%     5%%\n", 100 * a2
    printf "spare-study24: final 3D share     %5.2f%%\n", 100 * a3
    ok = !bad3 && (limited == "none" || !late3) && x21 >= 20 && x21 <= 80 && x10 >= 600 && x10 <= 1100 &&
         a0 > 0.15 && a0 < 0.35 && a1 > 0.55 && a1 < 0.85 && a2 < 0.15
    print ok ? "spare-study24: PASS (shape of Figs. 14-15 reproduced)" : "spare-study24: FAIL"
    exit ok ? 0 : 1
}' "$out/rates.csv" | tee -a "$sum"
# tee hides the exit status of awk: check the verdict line
tail -1 "$sum" | grep -q PASS
