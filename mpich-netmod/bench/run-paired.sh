#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run-paired.sh BEFORE_BUILDDIR AFTER_BUILDDIR OUTDIR [ROUNDS]: compare two
# builds of the tree (say, main before and after a change) with
# run-bench.sh, one round of each build in turn (before, after, before, ...)
# so that load from elsewhere hits both alike.  Each run-bench.sh round
# is one nm_bench run per column (NM_BENCH_ARGS, default "-r 5").
# Writes OUTDIR/before.csv and after.csv (every value, "round" = the
# round), OUTDIR/paired.csv (per column, metric and size: the median of
# each build over the rounds and after/before) and prints, per column,
# in how many rows the two builds' ranges over the rounds overlap.
# With --summary as a fifth argument only the summary is redone.
set -u
before=${1:?usage: run-paired.sh BEFORE_BUILDDIR AFTER_BUILDDIR OUTDIR [ROUNDS]}
after=${2:?usage: run-paired.sh BEFORE_BUILDDIR AFTER_BUILDDIR OUTDIR [ROUNDS]}
out=${3:?usage: run-paired.sh BEFORE_BUILDDIR AFTER_BUILDDIR OUTDIR [ROUNDS]}
rounds=${4:-3}
here=$(cd "$(dirname "$0")" && pwd)
median=$here/median.awk
case $rounds in
'' | *[!0-9]*) echo "run-paired: ROUNDS must be a number, not '$rounds'" >&2; exit 2 ;;
esac
for b in "$before" "$after"; do
    [ -x "$b/mpich-netmod/bench/nm_bench" ] ||
        { echo "run-paired: $b: no mpich-netmod/bench/nm_bench (build it first)" >&2; exit 1; }
done
mkdir -p "$out" || exit 1

if [ "${5:-}" != --summary ]; then
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; kernel $(uname -r)" >&2
    r=1
    while [ "$r" -le "$rounds" ]; do
        for which in before after; do
            [ $which = before ] && top=$before || top=$after
            echo "$(date -u +%T) round $r/$rounds: $which ($top), load $(cut -d' ' -f1 /proc/loadavg)" >&2
            NM_BENCH_ROUNDS=1 sh "$here/run-bench.sh" "$top" "$out/$which-r$r" \
                >"$out/$which-r$r.log" 2>&1 ||
                { echo "run-paired: round $r of $which failed: $out/$which-r$r.log" >&2; exit 1; }
        done
        r=$((r + 1))
    done
    for which in before after; do
        echo "mode,round,metric,bytes,value" >"$out/$which.csv"
        r=1
        while [ "$r" -le "$rounds" ]; do
            # run-bench.sh numbers its single round 1: renumber
            tail -n +2 "$out/$which-r$r/results/nm_bench.csv" |
                awk -F, -v OFS=, -v r="$r" '{ $2 = r; print }' >>"$out/$which.csv"
            r=$((r + 1))
        done
    done
fi

awk -F, -v OFS=, "$(cat "$median")"'
FNR == 1 { which = FILENAME ~ /before\.csv$/ ? "before" : "after"; next }
{
    k = $1 "," $3 "," $4; key = which "," k
    v[key] = v[key] " " $5
    if (!(key in mn) || $5 + 0 < mn[key]) mn[key] = $5 + 0
    if (!(key in mx) || $5 + 0 > mx[key]) mx[key] = $5 + 0
    keys[k] = 1
}
END {
    print "mode,metric,bytes,before,after,after/before,ranges_overlap" >"/dev/stdout"
    for (k in keys) {
        b = med(v["before," k]); a = med(v["after," k])
        ov = !(mx["after," k] < mn["before," k] || mx["before," k] < mn["after," k])
        split(k, p, ","); rows[p[1]]++; over[p[1]] += ov
        print k, b, a, (b ? sprintf("%.3f", a / b) : "0"), ov ? "yes" : "no"
    }
    for (m in rows) printf "%s: ranges overlap in %d of %d rows\n", m, over[m], rows[m] >"/dev/stderr"
}' "$out/before.csv" "$out/after.csv" | {
    read -r h
    echo "$h"
    sort -t, -k1,1 -k2,2 -k3,3n
} >"$out/paired.csv"
echo "paired medians: $out/paired.csv" >&2
