#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# earth_bench.sh: ROMIO vs EARTH (earth_req = 1, 2, 4, unlimited) on the
# contention model, on /dev/shm and on disk, at 4 and 8 ranks (8 ranks
# oversubscribe a small machine).  Writes a table to stdout, all rows to
# earth_bench.csv and, with gnuplot, earth_bench.svg in OUTDIR.
#
#   earth_bench.sh BENCH_PROGRAM OUTDIR
#
# Environment: EARTH_BENCH_MIB (data per rank, MiB, default 4),
# EARTH_BENCH_REPS (repetitions, median reported, default 3),
# EARTH_BENCH_ENVS (default "fsemu shm disk"), EARTH_BENCH_NP ("4 8"),
# EARTH_BENCH_DISK (directory on disk, default OUTDIR).  The contention
# model's parameters are set below (see mpiio-earth/README.md).
prog=$1
out=$2
[ -x "$prog" ] && [ -d "$out" ] || {
    echo "usage: earth_bench.sh BENCH_PROGRAM OUTDIR" >&2
    exit 2
}
top=$(cd "$(dirname "$prog")/../.." && pwd)
run=$top/test/mpi-run
mib=${EARTH_BENCH_MIB:-4}
reps=${EARTH_BENCH_REPS:-3}
envs=${EARTH_BENCH_ENVS:-fsemu shm disk}
nps=${EARTH_BENCH_NP:-4 8}
disk=${EARTH_BENCH_DISK:-$out}
csv=$out/earth_bench.csv
shm=/earth-bench-$$
trap 'rm -f /dev/shm$shm' EXIT
trap 'exit 1' INT TERM

echo "env,nprocs,pattern,mode,earth_req,write_MiBps,read_MiBps,write_ratio,read_ratio,max_reqs_step,max_inflight,max_server_load,check" >"$csv"
echo "earth_bench: $mib MiB per rank, median of $reps, load average now: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
status=0
for e in $envs; do
    case $e in
    fsemu)
        # 4 servers, 1 MiB stripes, 50 MB/s each, 0.5 ms per request, full
        # speed up to 2 requests in flight, then 1/(1 + 0.5 (n - 2)).
        dir=/dev/shm
        fds=1
        set -- env EARTH_FSEMU=1 EARTH_FSEMU_SHM=$shm EARTH_FSEMU_SERVERS=4 \
            EARTH_FSEMU_STRIPE=1048576 EARTH_FSEMU_BW_MBPS=50 \
            EARTH_FSEMU_LATENCY_US=500 EARTH_FSEMU_K=2 EARTH_FSEMU_ALPHA=0.5 ;;
    shm) dir=/dev/shm; fds=auto; set -- env ;;
    disk) dir=$disk; fds=auto; set -- env ;;
    *) echo "earth_bench: unknown environment '$e'" >&2; exit 2 ;;
    esac
    for n in $nps; do
        "$@" MPI_RUN_NP_MAX=8 "$run" -n "$n" -t 1800 "$prog" -d "$dir" \
            -l "$e" -s "$mib" -r "$reps" -f "$fds" -c "$csv" || status=1
        rm -f /dev/shm$shm
    done
done

# Summary: 8 ranks, write bandwidth against ROMIO.
awk -F, 'NR > 1 && $2 == 8 && $4 != "romio" {
        k = $1 " " $3
        if ($4 != "earth-unlim" && (!(k in best) || $8 > best[k])) {
            best[k] = $8; bm[k] = $4 }
        if ($1 != "fsemu" && (!(k in worst) || $8 < worst[k])) worst[k] = $8
    }
    END {
        print "\nSummary, 8 ranks, EARTH write bandwidth / ROMIO (same run):"
        for (k in best) {
            split(k, p, " ")
            if (p[1] == "fsemu")
                printf "  %-6s %-5s best throttled %-11s %.2fx (target >= 1.3)\n", p[1], p[2], bm[k], best[k]
            else
                printf "  %-6s %-5s best %-11s %.2fx, worst mode %.2fx (target >= 0.95)\n", p[1], p[2], bm[k], best[k], worst[k]
        }
    }' "$csv"
echo "CSV: $csv"

if command -v gnuplot >/dev/null 2>&1; then
    for e in $envs; do
        awk -F, -v e="$e" 'NR > 1 && $1 == e && $2 == 8 { print $3 "-" $4, $6 }' "$csv" >"$out/earth_bench_$e.dat"
    done
    gnuplot <<GP 2>/dev/null && echo "plot: $out/earth_bench.svg"
set terminal svg size 1100,500
set output "$out/earth_bench.svg"
set title "Collective write bandwidth, 8 ranks (MiB/s): ROMIO vs EARTH earth_req=1,2,4,unlimited"
set style data histograms
set style fill solid 0.8
set xtics rotate by -60 font ",8"
set ylabel "MiB/s"
plot $(for e in $envs; do printf '"%s" using 2:xtic(1) title "%s", ' "$out/earth_bench_$e.dat" "$e"; done | sed 's/, $//')
GP
    rm -f "$out"/earth_bench_*.dat
else
    echo "plot: gnuplot not found (apt-get install -y gnuplot-nox), table and CSV only"
fi
exit $status
