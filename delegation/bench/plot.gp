# SPDX-License-Identifier: BSD-2-Clause
# plot.gp: round-trip latency per policy and buffer mode against payload
# size, from dlg_bench's CSV, with the baselines as horizontal lines.
# gnuplot -e "csv='results/dlg_bench.csv'; svg='out.svg'" plot.gp
set terminal svg size 900,560 dynamic font "sans,11"
set output svg
set datafile separator ","
set logscale xy
set xlabel "payload (bytes)"
set ylabel "round trip (ns, median)"
set key top left box opaque font ",9"
set grid
sel(p, m) = sprintf("< awk -F, '$1==\"latency\" && $3==\"%s\" && $4==\"%s\" {print $5\",\"$6}' %s", p, m, csv)
bl(n) = sprintf("< awk -F, '$1==\"baseline\" && $2==\"%s\" {print \"8,\"$6; print \"1048576,\"$6}' %s", n, csv)
plot \
  for [p in "poll block adaptive"] sel(p, "inline") using 1:2 with linespoints title p." inline", \
  for [p in "poll block adaptive"] sel(p, "zcopy") using 1:2 with linespoints title p." zero-copy", \
  for [p in "poll block adaptive"] sel(p, "copy") using 1:2 with linespoints pt 6 title p." copy (process_vm)", \
  bl("cline-pp") using 1:2 with lines lw 2 title "cache-line ping-pong", \
  bl("futex-pp") using 1:2 with lines lw 2 title "futex ping-pong"
