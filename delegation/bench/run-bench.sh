#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run-bench.sh BINDIR: the delegation benchmarks of `make bench`.
# Writes BINDIR/results/{dlg_bench,dlg_ranktab}.csv and, when gnuplot is
# installed, dlg_bench.svg.  Extra dlg_bench options: DLG_BENCH_ARGS.
set -e
bindir=${1:-.}
srcdir=$(cd "$(dirname "$0")" && pwd)
out="$bindir/results"
mkdir -p "$out"
echo "== delegation: round trips, throughput, idle CPU (dlg_bench) ==" >&2
echo "   note: medians of repeated runs; other load on the machine skews them" >&2
"$bindir/dlg_bench" -o "$out/dlg_bench.csv" $DLG_BENCH_ARGS
echo
echo "== delegation: rank tables (dlg_ranktab_report) ==" >&2
"$bindir/dlg_ranktab_report" -o "$out/dlg_ranktab.csv"
if command -v gnuplot >/dev/null 2>&1; then
    gnuplot -e "csv='$out/dlg_bench.csv'; svg='$out/dlg_bench.svg'" \
        "$srcdir/plot.gp"
    echo "plot: $out/dlg_bench.svg" >&2
else
    echo "plot skipped: gnuplot not found (apt-get install -y gnuplot-nox)" >&2
fi
echo "CSV: $out/dlg_bench.csv $out/dlg_ranktab.csv" >&2
