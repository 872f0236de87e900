# SPDX-License-Identifier: BSD-2-Clause
# plot.gp: latency and bandwidth, direct MPICH vs delegated (run-bench.sh).
set terminal svg size 1000,420 dynamic
set multiplot layout 1,2
set logscale xy
set xlabel "message size (bytes)"
set key top left
set ylabel "latency (us)"
set title "half round trip"
plot datadir."/.latency_us.dat" u 1:2 w lp t "direct MPICH", \
     "" u 1:3 w lp lw 2 t "delegated, plain LD_PRELOAD (default form)", \
     "" u 1:4 w lp t "process form, poll", "" u 1:5 w lp t "process form, adaptive", \
     "" u 1:6 w lp t "process form, block", "" u 1:7 w lp t "process form, poll, placed", "" u 1:8 w lp t "mpideleg-pip"
set ylabel "bandwidth (MB/s)"
set title "16 messages in flight"
plot datadir."/.bandwidth_MBps.dat" u 1:2 w lp t "direct MPICH", \
     "" u 1:3 w lp lw 2 t "delegated, plain LD_PRELOAD (default form)", \
     "" u 1:4 w lp t "process form, poll", "" u 1:5 w lp t "process form, adaptive", \
     "" u 1:6 w lp t "process form, block", "" u 1:7 w lp t "process form, poll, placed", "" u 1:8 w lp t "mpideleg-pip"
unset multiplot
