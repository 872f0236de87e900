#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run-twonode-bench.sh TOP_BUILDDIR OUTDIR: two nodes emulated on this
# machine with hydra's fork launcher (hosts nodeA and nodeB, which need not
# resolve), the shim preloaded as users run it:
#   direct   mpiexec -launcher fork -hosts nodeA,nodeB -ppn 1 -n 2 PROG
#   default  ... -ppn 2 -n 4 env LD_PRELOAD=libmpideleg.so MPIDELEG_BOARD_SIZE=1 PROG
#            (each node holds one client and its delegatee: the PiP form)
#   process  the same with MPIDELEG_FORM=process
#   direct1, process1  nm_bench only, one node (-n 2 direct, -n 4 process
#            form), for the process form's one-node targets
# PROG: bench/nm_bench -q (NM_BENCH_ARGS, default -r 5) and NetPIPE
# (NPmpich2, 8 B to 1 MiB; skipped when not installed), NM_2N_ROUNDS rounds
# (default 3), the forms interleaved in each round.  Writes
# OUTDIR/results/twonode.csv (tool,form,round,metric,bytes,value),
# twonode_summary.csv (medians over the rounds, ratios to direct) and
# twonode.svg (gnuplot: NetPIPE throughput of the three forms), and prints
# the table with the targets of issue 37, then where the process form's
# time goes (twonode_where.csv, twonode_floor.csv: nm_floor).
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
    # one node: the same ranks without hosts
    direct1) MPIEXEC=$mx "$run" -n 2 -t 900 "$@" ;;
    process1) MPIEXEC=$mx "$run" -n 4 -t 900 env LD_PRELOAD="$lib" \
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
    for f in direct1 process1; do
        echo "round $r/$rounds: nm_bench $f (one node)" >&2
        # shellcheck disable=SC2086
        one $f "$nmb" -q ${NM_BENCH_ARGS:--r 5} >"$tmp/b.out" 2>/dev/null
        grep -q '^latency_us,8,' "$tmp/b.out" || { echo "run-twonode-bench: nm_bench $f failed" >&2; exit 1; }
        grep -v '^#' "$tmp/b.out" | sed "s/^/nm_bench,$f,$r,/" >>"$csv"
    done
    r=$((r + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
sum=$out/twonode_summary.csv
awk -F, "$(cat "$median")"'NR > 1 { k = $1 "," $4 "," $5; v[k "," $2] = v[k "," $2] " " $6; keys[k] = 1 }
END {
    print "tool,metric,bytes,direct,default,process,default_ratio,process_ratio,direct_1node,process_1node,process_1node_ratio"
    for (k in keys) {
        d = med(v[k ",direct"]); p = med(v[k ",default"]); q = med(v[k ",process"])
        d1 = med(v[k ",direct1"]); q1 = med(v[k ",process1"])
        printf "%s,%s,%s,%s,%.3f,%.3f,%s,%s,%.3f\n", k, d, p, q, d ? p / d : 0, d ? q / d : 0, d1, q1, d1 ? q1 / d1 : 0
    }
}' "$csv" | { read -r h; echo "$h"; sort -t, -k1,1 -k2,2 -k3,3n; } >"$sum"
echo "two-node emulation, medians of $rounds rounds (ratio: form / direct):"
printf '  %-8s %-15s %8s %12s %12s %12s %8s %8s %12s %12s %8s\n' tool metric bytes direct default process def_x proc_x direct_1n proc_1n proc1n_x
awk -F, 'NR > 1 && ($3 == 8 || $3 == 1048576) && $2 !~ /overlap/ { printf "  %-8s %-15s %8s %12s %12s %12s %8s %8s %12s %12s %8s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$sum"
awk -F, '
    $1 == "nm_bench" && $2 == "latency_us" && $3 == 8 { dl = $7; pl = $8; ql = $11 }
    $1 == "nm_bench" && $2 == "bandwidth_MBps" && $3 == 1048576 { db = $7; pb = $8; qb = $11 }
    $1 == "nm_bench" && $2 == "msgrate_per_s" { dr = $7; pr = $8; qr = $11 }
    function v(ok) { return ok ? "holds" : "does not hold" }
    END {
        printf "  targets, default: 8 B latency %.3f (<= 3: %s), 1 MiB bandwidth %.3f (>= 0.8: %s), 8 B rate %.3f (>= 0.5: %s)\n", dl, v(dl <= 3), db, v(db >= 0.8), dr, v(dr >= 0.5)
        printf "  targets, process: 8 B latency %.3f (<= 10: %s), 1 MiB bandwidth %.3f (>= 0.8: %s), 8 B rate %.3f (>= 0.3: %s)\n", pl, v(pl <= 10), pb, v(pb >= 0.8), pr, v(pr >= 0.3)
        printf "  targets, process, one node (-n 4 against -n 2): 8 B latency %.3f (<= 10: %s), 1 MiB bandwidth %.3f (>= 0.8: %s), 8 B rate %.3f (>= 0.3: %s)\n", ql, v(ql <= 10), qb, v(qb >= 0.8), qr, v(qr >= 0.3)
    }' "$sum"
echo "  CSV: $csv, $sum"

# Where the process form's time goes (two nodes emulated): the ranks'
# context switches (voluntary: a sleep ended by a wake-up; involuntary: a
# time slice lost) and CPU time per message, from their end-of-run lines
# (PVAS_LOG=mpideleg:debug), a run of each metric less a run of none
# (nm_bench -q -r 3: 1,200 messages of the 8 B ping-pong, 9,750 of the
# message rate); then what such hand-overs cost on this machine without
# MPI (nm_floor) and what a CPU per process would leave of the latency:
# the wake-ups replaced by a poll across CPUs (an estimate).
where=$out/twonode_where.csv
echo "metric,messages,voluntary,involuntary,cpu_us" >"$where"
for m in none latency msgrate; do
    one process PVAS_LOG=mpideleg:debug "$nmb" -q -r 3 -s 8 -m $m >/dev/null 2>"$tmp/w.$m" ||
        { echo "run-twonode-bench: nm_bench process -m $m failed" >&2; exit 1; }
done
awk -f "$(dirname "$0")/where.awk" "$tmp/w.none" "$tmp/w.latency" "$tmp/w.msgrate" >>"$where"
floor=$out/twonode_floor.csv
fl=$top/mpich-netmod/bench/nm_floor
if [ -x "$fl" ] && "$fl" >"$floor.tmp" 2>/dev/null; then
    { echo "metric,value_us"; cat "$floor.tmp"; } >"$floor"
else
    echo "metric,value_us" >"$floor"
fi
rm -f "$floor.tmp"
echo "process form, where the time goes per message (all four ranks; two nodes emulated):"
awk -F, 'FNR == 1 { f++; next }
    f == 1 { w[$1] = $0; wv[$1] = $3; wi[$1] = $4; wc[$1] = $5 }
    f == 2 { fl[$1] = $2 }
    f == 3 && $1 == "nm_bench" && $2 == "latency_us" && $3 == 8 { lat = $6; dlat = $4 }
    END {
        printf "  %-22s %10s %12s %10s\n", "", "wake-ups", "lost slices", "CPU (us)"
        printf "  %-22s %10.2f %12.2f %10.1f\n", "8 B ping-pong", wv["latency"], wi["latency"], wc["latency"]
        printf "  %-22s %10.2f %12.2f %10.1f\n", "8 B rate (64 in flight)", wv["msgrate"], wi["msgrate"], wc["msgrate"]
        printf "  copies per 8 B message: 1 into the record (inline), 1 out of it; 1 MiB: 1 (the receiving client reads the sender'"'"'s buffer)\n"
        if (fl["wake_handoff_us"] == "") { print "  (nm_floor did not run)"; exit }
        printf "  this machine: a system call %.2f us, a hand-over by futex wake-up %.2f us, by sched_yield %.2f us (ranks in sessions of their own), a poll across two CPUs %.2f us\n", fl["syscall_us"], fl["wake_handoff_us"], fl["yield_handoff_us"], fl["spin_oneway_us"]
        if (lat != "") {
            wk = wv["latency"] * fl["wake_handoff_us"]
            est = lat - wv["latency"] * (fl["wake_handoff_us"] - fl["spin_oneway_us"])
            if (est < dlat) est = dlat
            printf "  8 B latency %.2f us: wake-ups %.2f x %.2f = %.2f us of it; a CPU per process (no wake-ups, polls instead): about %.2f us = %.1fx direct (estimate)\n", lat, wv["latency"], fl["wake_handoff_us"], wk, est, dlat ? est / dlat : 0
            printf "  the least two processes per CPU cost a one-way message here: 2 hand-overs (sending client -> its delegatee, receiving delegatee -> its client) = %.2f us = %.1fx direct\n", 2 * fl["wake_handoff_us"], dlat ? 2 * fl["wake_handoff_us"] / dlat : 0
        }
    }' "$where" "$floor" "$sum"
echo "  CSV: $where, $floor"
if [ -n "$np" ] && command -v gnuplot >/dev/null 2>&1; then
    grep '^NetPIPE,bandwidth_Mbps,' "$sum" | cut -d, -f3- >"$tmp/np.dat"
    gnuplot -e "datafile='$tmp/np.dat'" "$(dirname "$0")/twonode-plot.gp" >"$out/twonode.svg" &&
        echo "  plot: $out/twonode.svg"
fi
