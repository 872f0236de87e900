# SPDX-License-Identifier: BSD-2-Clause
# plot.gp: round-trip latency per policy and buffer mode against payload
# size, from dlg_bench's CSV: the client as a thread, as a PiP task of the
# delegatee's process and as a separate process; the UNIX-socket RPC
# baseline per size, and the raw ping-pongs as horizontal lines.
# gnuplot -e "csv='results/dlg_bench.csv'; svg='out.svg'" plot.gp
set terminal svg size 1000,640 dynamic font "sans,11"
set output svg
set datafile separator ","
set logscale xy
set xlabel "payload (bytes)"
set ylabel "round trip (ns, median)"
set key top left box opaque font ",9"
set grid
sel(p, m) = sprintf("< awk -F, '$1==\"latency\" && $3==\"%s\" && $4==\"%s\" {print $5\",\"$6}' %s", p, m, csv)
ser(s, p) = sprintf("< awk -F, '$1==\"%s\" && $3==\"%s\" {print $5\",\"$6}' %s", s, p, csv)
sock = sprintf("< awk -F, '$1==\"socket\" {print $5\",\"$6}' %s", csv)
bl(n) = sprintf("< awk -F, '$1==\"baseline\" && $2==\"%s\" {print \"8,\"$6; print \"1048576,\"$6}' %s", n, csv)
plot \
  for [p in "poll block adaptive"] sel(p, "inline") using 1:2 with linespoints title p." thread inline", \
  for [p in "poll block adaptive"] sel(p, "zcopy") using 1:2 with linespoints title p." thread zero-copy", \
  for [p in "poll block adaptive"] sel(p, "copy") using 1:2 with linespoints pt 6 title p." thread copy (process_vm)", \
  for [p in "poll block adaptive"] ser("pip", p) using 1:2 with linespoints dt 2 title p." PiP task (inline / zero-copy)", \
  for [p in "poll block adaptive"] ser("process", p) using 1:2 with linespoints dt 3 pt 8 title p." separate process (inline / process_vm)", \
  sock using 1:2 with linespoints lw 3 lc rgb "black" title "UNIX-socket RPC", \
  bl("cline-pp") using 1:2 with lines lw 2 title "cache-line ping-pong", \
  bl("futex-pp") using 1:2 with lines lw 2 title "futex ping-pong"
