#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# spare-study24.sh OUTDIR: the random-sampling study of Hori et al. on the
# 24x24x24 mesh with 3D(2,1) spares (Figs. 12, 14, 15): hybrid(all) against
# 0D, 7-point stencil, every failure count from 1 to 1128 (all spares).
# One sample is one random sequence of 1128 failures; each prefix of it is
# one evaluated case, so SAMPLES sequences give SAMPLES * 1128 cases per
# method.  3269 samples (the default) give 3,687,432 cases per method, at
# least the paper's 3,686,400.  The selection-rate result is then checked
# against the paper (exit 1 if it does not hold).
# Environment: SPARE_SIM (the spare-sim binary), SPARE_SAMPLES, SPARE_SEED,
# SPARE_THREADS.
set -eu
out=${1:-spare-study24}
sim=${SPARE_SIM:-spare-sim}
samples=${SPARE_SAMPLES:-3269}
seed=${SPARE_SEED:-1}
threads=${SPARE_THREADS:-$(nproc 2>/dev/null || echo 1)}
mkdir -p "$out"
start=$(date +%s)
"$sim" -d 24x24x24 -a '3D(2,1)' -p 7p -M random -n "$samples" -s "$seed" \
    -j "$threads" -m 'hybrid(all)' -m 0D --logx \
    --title '24x24x24, 3D(2,1), 7P: hybrid(all) (thick) vs 0D' \
    -o "$out/fig12.csv" -r "$out/rates.csv" --svg "$out/fig12.svg" \
    --rates-svg "$out/fig14.svg" --acc-svg "$out/fig15.svg"
end=$(date +%s)
echo "spare-study24: $((end - start)) s wall clock, $samples samples per method, seed $seed, $threads threads"
awk -F, -v secs=$((end - start)) '
$1 ~ /^hybrid/ && $2 > 0 { cases += $3 }
$1 == "0D" && $2 > 0 { cases0 += $3 }
END { printf "spare-study24: evaluated cases: hybrid(all) %d, 0D %d, total %d (paper: 3,686,400)\n", cases, cases0, cases + cases0 }
' "$out/fig12.csv"
awk -F, '
NR == 1 { next }
$1 !~ /^hybrid/ { next }
{
    f = $2; r0 = $4; r1 = $5; r2 = $6; r3 = $7
    if (f <= 2 && r3 < 0.999) bad3 = 1
    if (f > 2 && !x21 && r1 > r2) x21 = f
    if (f > 2 && !x10 && r0 > r1) x10 = f
    a0 = $8; a1 = $9; a2 = $10; a3 = $11; last = f
}
END {
    printf "spare-study24: result          this run   paper\n"
    printf "spare-study24: 3D for failures  %s         1-2\n", bad3 ? "no" : "1-2"
    printf "spare-study24: 2D dominates to  %-9d  about 38\n", x21 - 1
    printf "spare-study24: 1D dominates to  %-9d  about 915\n", x10 - 1
    printf "spare-study24: final 0D share   %5.1f%%     25%%\n", 100 * a0
    printf "spare-study24: final 1D share   %5.1f%%     71%%\n", 100 * a1
    printf "spare-study24: final 2D share   %5.1f%%     5%%\n", 100 * a2
    printf "spare-study24: final 3D share   %5.2f%%\n", 100 * a3
    ok = !bad3 && x21 >= 20 && x21 <= 80 && x10 >= 600 && x10 <= 1100 &&
         a0 > 0.15 && a0 < 0.35 && a1 > 0.55 && a1 < 0.85 && a2 < 0.15
    print ok ? "spare-study24: PASS (shape of Figs. 14-15 reproduced)" : "spare-study24: FAIL"
    exit ok ? 0 : 1
}' "$out/rates.csv"
