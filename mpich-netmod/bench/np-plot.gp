# SPDX-License-Identifier: BSD-2-Clause
# np-plot.gp: NetPIPE, layout a preloaded vs direct MPICH
# (run-user-bench.sh; datafile: np_summary.csv).
set terminal svg size 1000,420 dynamic noenhanced
set datafile separator ","
set multiplot layout 1,2
set logscale x 2
set format x "%.0s%cB"
set xlabel "message size"
set key bottom right
set logscale y
set ylabel "throughput (Mbps)"
set title "NetPIPE (NPmpich2, unmodified)"
plot datafile skip 1 u 1:2 w lp t "direct MPICH", "" skip 1 u 1:3 w lp t "LD_PRELOAD libmpideleg, layout a"
set ylabel "preloaded / direct"
set key center left
set title "ratios (latency: lower is better)"
plot datafile skip 1 u 1:7 w lp t "bandwidth", "" skip 1 u 1:6 w lp t "latency"
unset multiplot
