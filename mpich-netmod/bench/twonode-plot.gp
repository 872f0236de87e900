# SPDX-License-Identifier: BSD-2-Clause
# twonode-plot.gp: NetPIPE on two emulated nodes, direct MPICH and the
# shim's two forms (run-twonode-bench.sh; datafile: bytes,direct,default,
# process,default_ratio,process_ratio of the throughput in Mbps).
set terminal svg size 1000,420 dynamic noenhanced
set datafile separator ","
set multiplot layout 1,2
set logscale x 2
set format x "%.0s%cB"
set xlabel "message size"
set key bottom right
set logscale y
set ylabel "throughput (Mbps)"
set title "NetPIPE, two emulated nodes"
plot datafile u 1:2 w lp t "direct MPICH (-ppn 1 -n 2)", "" u 1:3 w lp t "default form (PiP per node)", "" u 1:4 w lp t "process form"
set ylabel "form / direct (throughput)"
set key center left
set title "ratios"
plot datafile u 1:5 w lp t "default", "" u 1:6 w lp t "process"
unset multiplot
