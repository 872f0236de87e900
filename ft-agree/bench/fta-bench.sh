#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# fta-bench.sh: ft-agree's benchmarks (make bench).
#  1. failure-free MPIX_Comm_agree (fast path, and tree only) against
#     MPI_Allreduce(1 int) and MPI_Barrier at 2, 4 and 8 ranks (same run,
#     ratios);
#  2. agreement and revoke latency after 1 and 2 killed ranks (4 ranks);
#  3. simulator: messages and rounds for P up to 1,000,000 and 0..3
#     failures against sum_{j=0..f} log2(P-j).
# Tables on stdout; CSV in ft-agree-bench.csv and ft-agree-sim.csv.
#   FTA_BENCH_SIM_P: process counts for part 3 (default 16,1024,65536,1000000)
set -u
top=${abs_top_builddir:-.}
src=${abs_top_srcdir:-.}
b=$top/ft-agree/bench
run=$top/test/mpi-run
csv=$top/ft-agree-bench.csv
echo "ranks,failed,operation,latency_us,ratio_vs_allreduce" >"$csv"
MPI_RUN_NP_MAX=8
export MPI_RUN_NP_MAX
status=0
echo "== failure-free latency (oversubscribed on $(nproc) cores)"
echo "   (MPIX_Comm_agree: fast path; MPIX_Comm_agree(tree): FTA_FAST_MAX=0)"
for n in 2 4 8; do
    "$run" -n "$n" -t 300 "$b/fta_bench_mpi" -i 300 -r 5 -o "$csv" 2>/dev/null || status=1
    FTA_FAST_MAX=0 "$run" -n "$n" -t 300 "$b/fta_bench_mpi" -i 300 -r 5 -o "$csv" 2>/dev/null || status=1
done
echo "== after failures (4 ranks, last ranks killed)"
for f in 1 2; do
    MPIEXEC=$src/ft-agree/tests/fta-mpiexec "$run" -n 4 -t 300 \
        "$b/fta_bench_mpi" -i 200 -f "$f" -o "$csv" 2>/dev/null
done
echo "== simulator: messages and rounds"
"$top/ft-agree/fta-sim" bench -P "${FTA_BENCH_SIM_P:-16,1024,65536,1000000}" \
    -F 3 -o "$top/ft-agree-sim.csv" || status=1
echo "CSV: $csv $top/ft-agree-sim.csv"
exit $status
