#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run-twonode-bench.sh TOP_BUILDDIR OUTDIR: two nodes emulated on this
# machine with hydra's fork launcher (hosts nodeA and nodeB, which need not
# resolve), the shim preloaded as users run it:
#   direct   mpiexec -launcher fork -hosts nodeA,nodeB -ppn 1 -n 2 PROG
#   default  ... -ppn 2 -n 4 env LD_PRELOAD=libmpideleg.so MPIDELEG_BOARD_SIZE=1 PROG
#            (each node holds one client and its delegatee: the PiP form)
#   process  the same with MPIDELEG_FORM=process
# PROG: bench/nm_bench -q (NM_BENCH_ARGS, default -r 5) and NetPIPE
# (NPmpich2, 8 B to 1 MiB; skipped when not installed), NM_2N_ROUNDS rounds
# (default 3), the forms interleaved in each round.  Writes
# OUTDIR/results/twonode.csv (tool,form,round,metric,bytes,value),
# twonode_summary.csv (medians over the rounds, ratios to direct) and
# twonode.svg (gnuplot: NetPIPE throughput of the three forms), and prints
# the table with the targets of issue 37.
median=$(dirname "$0")/median.awk
top=${1:?usage: run-twonode-bench.sh TOP_BUILDDIR OUTDIR}
out=${2:?usage: run-twonode-bench.sh TOP_BUILDDIR OUTDIR}/results
lib=$top/mpich-netmod/.libs/libmpideleg.so
run=$top/test/mpi-run
nmb=$top/mpich-netmod/bench/nm_bench
[ -x "$nmb" ] && [ -f "$lib" ] || { echo "run-twonode-bench: build first (make)" >&2; exit 1; }
mkdir -p "$out" || exit 1
LD_LIBRARY_PATH=$top/delegation/.libs:$top/libpip/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
unset MPIDELEG_FORM
rounds=${NM_2N_ROUNDS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nm-2n.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mx=${MPIEXEC:-mpiexec}
for ppn in 1 2; do
    printf '#!/bin/sh\nexec %s -launcher fork -hosts nodeA,nodeB -ppn %s "$@"\n' "$mx" $ppn >"$tmp/mpiexec-ppn$ppn"
    chmod +x "$tmp/mpiexec-ppn$ppn"
done
np=
for c in NPmpich2 NPmpi; do
    command -v $c >/dev/null 2>&1 && { np=$(command -v $c); break; }
done
csv=$out/twonode.csv
echo "tool,form,round,metric,bytes,value" >"$csv"
echo "two-node emulation: $(nproc) CPUs, $(uname -r), load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# one FORM PROG ARGS: run PROG in FORM's command (stdout only)
one() {
    f=$1
    shift
    case $f in
    direct) MPIEXEC=$tmp/mpiexec-ppn1 "$run" -n 2 -t 900 "$@" ;;
    default) MPIEXEC=$tmp/mpiexec-ppn2 "$run" -n 4 -t 900 env LD_PRELOAD="$lib" \
        MPIDELEG_BOARD_SIZE=1 MPIDELEG_QUIET=1 "$@" ;;
    process) MPIEXEC=$tmp/mpiexec-ppn2 "$run" -n 4 -t 900 env LD_PRELOAD="$lib" \
        MPIDELEG_BOARD_SIZE=1 MPIDELEG_QUIET=1 MPIDELEG_FORM=process "$@" ;;
    esac
}
# which form the default command runs on these two nodes
if MPIEXEC=$tmp/mpiexec-ppn2 "$run" -n 4 -t 120 env LD_PRELOAD="$lib" MPIDELEG_BOARD_SIZE=1 \
    "$nmb" -h 2>&1 | grep -q '^mpideleg: .*PiP form'; then
    echo "default form on the two nodes: the PiP form (one process per node-local group)"
else
    echo "default form on the two nodes: the process form"
fi
r=1
while [ "$r" -le "$rounds" ]; do
    for f in direct default process; do
        echo "round $r/$rounds: nm_bench $f" >&2
        # shellcheck disable=SC2086
        one $f "$nmb" -q ${NM_BENCH_ARGS:--r 5} >"$tmp/b.out" 2>/dev/null
        grep -q '^latency_us,8,' "$tmp/b.out" || { echo "run-twonode-bench: nm_bench $f failed" >&2; exit 1; }
        grep -v '^#' "$tmp/b.out" | sed "s/^/nm_bench,$f,$r,/" >>"$csv"
        if [ -n "$np" ]; then
            echo "round $r/$rounds: NetPIPE $f" >&2
            rm -f "$tmp/np.out"
            # shellcheck disable=SC2086
            one $f "$np" -l 8 -u 1048576 -p 0 ${NM_NP_ARGS:-} -o "$tmp/np.out" >/dev/null 2>&1
            [ -s "$tmp/np.out" ] || { echo "run-twonode-bench: NetPIPE $f failed" >&2; exit 1; }
            awk -v f=$f -v r=$r '{ printf "NetPIPE,%s,%s,latency_us,%d,%.3f\nNetPIPE,%s,%s,bandwidth_Mbps,%d,%s\n", f, r, $1, $3 * 1e6, f, r, $1, $2 }' \
                "$tmp/np.out" >>"$csv"
        fi
    done
    r=$((r + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
sum=$out/twonode_summary.csv
awk -F, "$(cat "$median")"'NR > 1 { k = $1 "," $4 "," $5; v[k "," $2] = v[k "," $2] " " $6; keys[k] = 1 }
END {
    print "tool,metric,bytes,direct,default,process,default_ratio,process_ratio"
    for (k in keys) {
        d = med(v[k ",direct"]); p = med(v[k ",default"]); q = med(v[k ",process"])
        printf "%s,%s,%s,%s,%.3f,%.3f\n", k, d, p, q, d ? p / d : 0, d ? q / d : 0
    }
}' "$csv" | { read -r h; echo "$h"; sort -t, -k1,1 -k2,2 -k3,3n; } >"$sum"
echo "two-node emulation, medians of $rounds rounds (ratio: form / direct):"
printf '  %-8s %-15s %8s %12s %12s %12s %8s %8s\n' tool metric bytes direct default process def_x proc_x
awk -F, 'NR > 1 && ($3 == 8 || $3 == 1048576) && $2 !~ /overlap/ { printf "  %-8s %-15s %8s %12s %12s %12s %8s %8s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$sum"
awk -F, '
    $1 == "nm_bench" && $2 == "latency_us" && $3 == 8 { dl = $7; pl = $8 }
    $1 == "nm_bench" && $2 == "bandwidth_MBps" && $3 == 1048576 { db = $7; pb = $8 }
    $1 == "nm_bench" && $2 == "msgrate_per_s" { dr = $7; pr = $8 }
    function v(ok) { return ok ? "holds" : "does not hold" }
    END {
        printf "  targets, default: 8 B latency %.3f (<= 3: %s), 1 MiB bandwidth %.3f (>= 0.8: %s), 8 B rate %.3f (>= 0.5: %s)\n", dl, v(dl <= 3), db, v(db >= 0.8), dr, v(dr >= 0.5)
        printf "  targets, process: 8 B latency %.3f (<= 10: %s), 1 MiB bandwidth %.3f (>= 0.8: %s), 8 B rate %.3f (>= 0.3: %s)\n", pl, v(pl <= 10), pb, v(pb >= 0.8), pr, v(pr >= 0.3)
    }' "$sum"
echo "  CSV: $csv, $sum"
if [ -n "$np" ] && command -v gnuplot >/dev/null 2>&1; then
    grep '^NetPIPE,bandwidth_Mbps,' "$sum" | cut -d, -f3- >"$tmp/np.dat"
    gnuplot -e "datafile='$tmp/np.dat'" "$(dirname "$0")/twonode-plot.gp" >"$out/twonode.svg" &&
        echo "  plot: $out/twonode.svg"
fi
