#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# swin_bench.sh: the storage-window benchmarks (make bench).
#
#   sh swin_bench.sh BENCH_BINARY OUTDIR
#
# Environment: MPI_RUN (launcher wrapper), SWIN_BENCH_DISK (directory on a
# disk file system, default OUTDIR), SWIN_BENCH_REPS (default 5).
# Writes OUTDIR/swin-bench-*.csv, prints the tables and a summary of the
# ratios against the memory-window baseline measured in the same run, and
# plots the sync sweep to OUTDIR/swin-bench-sync.svg when gnuplot is there.
set -eu
bench=$1
out=$2
run=${MPI_RUN:-mpiexec}
disk=${SWIN_BENCH_DISK:-$out}
reps=${SWIN_BENCH_REPS:-5}
mkdir -p "$out"
say() { echo "swin-bench: $*" >&2; }

say "1/5 put/get latency and bandwidth (2 ranks; memory vs storage on /dev/shm and on $disk)"
"$run" -n 2 -t 900 "$bench" rma --shm /dev/shm --disk "$disk" --reps "$reps" \
    --max 262144 --csv "$out/swin-bench-rma.csv"
say "2/5 mSTREAM analogue (2 ranks)"
"$run" -n 2 -t 900 "$bench" stream --shm /dev/shm --disk "$disk" --reps "$reps" \
    --n 2097152 --csv "$out/swin-bench-stream.csv"
say "3/5 durable sync vs dirty pages on $disk, userfaultfd tracking"
SWIN_TRACK=uffd "$run" -n 1 -t 900 "$bench" sync --disk "$disk" --reps "$reps" \
    --sizes 4,64,256 --dirty 0,1,16,256,1024 --csv "$out/swin-bench-sync-uffd.csv"
say "4/5 the same without tracking (msync of the whole window): baseline"
SWIN_TRACK=msync "$run" -n 1 -t 900 "$bench" sync --disk "$disk" --reps "$reps" \
    --sizes 4,64,256 --dirty 0,1,16,256,1024 --csv "$out/swin-bench-sync-msync.csv"
say "5/5 tracking cost alone: durable sync on /dev/shm (no device I/O)"
SWIN_TRACK=uffd "$run" -n 1 -t 900 "$bench" sync --disk /dev/shm --reps "$reps" \
    --sizes 4,64,256,1024 --dirty 0,1,16,256,1024,4096 --csv "$out/swin-bench-sync-shm.csv"

echo
echo "== summary (ratios against the memory window of the same run; the machine is shared and noisy) =="
awk -F, 'NR > 1 && $5 == "storage-shm" {
        n++; r[n] = $8; if ($8 <= 1.10) ok++
    }
    END {
        if (n == 0) exit
        # median by insertion sort
        for (i = 2; i <= n; i++) { v = r[i]; j = i - 1; while (j > 0 && r[j] > v) { r[j+1] = r[j]; j-- } r[j+1] = v }
        med = (n % 2) ? r[(n+1)/2] : (r[n/2] + r[n/2+1]) / 2
        printf "put/get storage-shm / memory time: median ratio %.3f, range %.3f .. %.3f, %d of %d cases within 10%%\n", med, r[1], r[n], ok, n
    }' "$out/swin-bench-rma.csv"
awk -F, 'NR > 1 && $5 == "storage-disk" { n++; s += $8 } END { if (n) printf "put/get storage-disk (no sync) / memory time: mean ratio %.3f over %d cases\n", s / n, n }' "$out/swin-bench-rma.csv"
awk -F, 'NR > 1 && $3 == "storage-shm" { printf "stream %-5s storage-shm / memory bandwidth %.3f\n", $2, $5 }' "$out/swin-bench-stream.csv"
for m in uffd msync shm; do
    awk -F, -v m="$m" 'NR > 1 && $4 == 0 { printf "sync with 0 dirty pages (%s), %4d MiB window: %.3f ms\n", m, $3, $5 }' \
        "$out/swin-bench-sync-$m.csv"
done
if command -v gnuplot >/dev/null 2>&1; then
    for m in uffd msync shm; do
        awk -F, 'NR > 1 { print $3, $4, $5 }' "$out/swin-bench-sync-$m.csv" >"$out/swin-bench-sync-$m.dat"
    done
    gnuplot <<EOG
set terminal svg size 800,500
set output "$out/swin-bench-sync.svg"
set title "durable MPI_Win_sync time vs dirty pages"
set xlabel "dirty pages"; set ylabel "ms"; set logscale y; set key left
plot for [w in "4 64 256"] "$out/swin-bench-sync-uffd.dat" using (\$1==w+0 ? \$2 : 1/0):3 with linespoints title "uffd, ".w." MiB", \
     for [w in "4 64 256"] "$out/swin-bench-sync-msync.dat" using (\$1==w+0 ? \$2 : 1/0):3 with linespoints dt 2 title "msync, ".w." MiB"
EOG
    say "plot: $out/swin-bench-sync.svg"
else
    say "gnuplot not found (apt-get install -y gnuplot-nox): no plot, the CSV files are in $out"
fi
say "CSV: $out/swin-bench-*.csv"
