#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run-user-bench.sh TOP_BUILDDIR OUTDIR: the shim as users run it,
# LD_PRELOAD into unmodified programs, layout a (MPIDELEG_BOARD_SIZE=1:
# 2 application ranks, 4 processes), against direct MPICH in the same
# invocation, NM_NP_ROUNDS rounds (default 2) interleaved:
# 1. NetPIPE (NPmpich2 of Debian's netpipe-mpich2, or NPmpi; skipped when
#    neither is installed): 8 B to 1 MiB, direct (2 ranks) and preloaded;
#    OUTDIR/results/np.csv (every point), np_summary.csv (medians over the
#    rounds, ratios) and np.svg (gnuplot), ratios at 8 B, 1 KiB, 64 KiB,
#    1 MiB.  NM_NP_ARGS: more NetPIPE options (e.g. "-n 20": fixed
#    repetitions, for a busy machine).
# 2. Oversubscribed: 4 processes on the node's CPUs plus one CPU hog per
#    2 CPUs (a shell loop at nice 0): nm_lat_pct (8 B ping-pong, every
#    round trip timed for NM_PCT_T seconds, default 2) directly with 4 ranks
#    (pairs 0-1 and 2-3 at once) and
#    preloaded in layout a; median and 99th percentile, in
#    OUTDIR/results/oversub.csv.
# Prints the machine facts the figures depend on (CPUs, load, whether
# process_vm_readv between processes is allowed, which form the preloaded
# runs took).  The preloaded runs are the user's plain command: the default
# form (the PiP form on one node, libpip of this tree on the library path);
# MPIDELEG_FORM in the environment chooses another.
median=$(dirname "$0")/median.awk
top=${1:?usage: run-user-bench.sh TOP_BUILDDIR OUTDIR}
out=${2:?usage: run-user-bench.sh TOP_BUILDDIR OUTDIR}/results
lib=$top/mpich-netmod/.libs/libmpideleg.so
run=$top/test/mpi-run
pct=$top/mpich-netmod/bench/nm_lat_pct
[ -x "$pct" ] && [ -f "$lib" ] || { echo "run-user-bench: build first (make)" >&2; exit 1; }
mkdir -p "$out" || exit 1
LD_LIBRARY_PATH=$top/delegation/.libs:$top/libpip/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
echo "form of the preloaded runs: MPIDELEG_FORM=${MPIDELEG_FORM:-(unset: the default)}"
rounds=${NM_NP_ROUNDS:-2}
npargs=${NM_NP_ARGS:-}
pre="env LD_PRELOAD=$lib MPIDELEG_BOARD_SIZE=1 MPIDELEG_QUIET=1"

echo "machine: $(nproc) CPUs online, $(grep -c ^processor /proc/cpuinfo) in /proc/cpuinfo, $(uname -r)"
if [ -r /proc/sys/kernel/yama/ptrace_scope ]; then
    echo "cross memory attach: kernel.yama.ptrace_scope=$(cat /proc/sys/kernel/yama/ptrace_scope) (0: process_vm_readv between the job's processes allowed)"
else
    echo "cross memory attach: no Yama LSM (process_vm_readv between processes of one user allowed)"
fi
# which payload path the preloaded runs take, from the shim's counters
echo "payload path of the process form: $($run -n 4 -t 120 env MPIDELEG_DEBUG=1 $pre "$pct" -n 10 2>&1 >/dev/null |
    sed -n 's/.*\(payloads between processes: .*\)/\1/p' | sort -u | head -1)"

if $run -n 4 -t 120 env LD_PRELOAD="$lib" MPIDELEG_BOARD_SIZE=1 "$pct" -n 10 2>&1 >/dev/null |
    grep -q '^mpideleg: .*PiP form'; then
    echo "form that ran: the PiP form (one process per delegatee group)"
else
    echo "form that ran: the process form (one process per rank)"
fi
np=
for c in NPmpich2 NPmpi; do
    command -v $c >/dev/null 2>&1 && { np=$(command -v $c); break; }
done
if [ -z "$np" ]; then
    echo "NetPIPE skipped: NPmpich2/NPmpi not installed (apt-get install netpipe-mpich2)"
else
    csv=$out/np.csv
    echo "form,round,bytes,Mbps,usec" >"$csv"
    echo "NetPIPE: $np, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    r=1
    while [ "$r" -le "$rounds" ]; do
        for form in direct preload; do
            echo "round $r/$rounds: NetPIPE $form" >&2
            rm -f "$out/.np.out"
            if [ $form = direct ]; then
                # shellcheck disable=SC2086
                "$run" -n 2 -t 900 "$np" -l 8 -u 1048576 -p 0 $npargs -o "$out/.np.out" >/dev/null 2>&1
            else
                # shellcheck disable=SC2086
                "$run" -n 4 -t 900 $pre "$np" -l 8 -u 1048576 -p 0 $npargs -o "$out/.np.out" >/dev/null 2>&1
            fi
            [ -s "$out/.np.out" ] || { echo "run-user-bench: NetPIPE $form failed" >&2; exit 1; }
            # NetPIPE: bytes, Mbps, one-way time in seconds
            awk -v f=$form -v r=$r '{ printf "%s,%s,%d,%s,%.3f\n", f, r, $1, $2, $3 * 1e6 }' "$out/.np.out" >>"$csv"
        done
        r=$((r + 1))
    done
    rm -f "$out/.np.out"
    echo "NetPIPE: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    awk -F, "$(cat "$median")"'NR > 1 { k = $3; b[k "," $1] = b[k "," $1] " " $4; u[k "," $1] = u[k "," $1] " " $5; keys[k] = 1 }
    END {
        print "bytes,direct_Mbps,preload_Mbps,direct_us,preload_us,latency_ratio,bandwidth_ratio"
        for (k in keys) {
            dm = med(b[k ",direct"]); pm = med(b[k ",preload"]); du = med(u[k ",direct"]); pu = med(u[k ",preload"])
            printf "%d,%s,%s,%s,%s,%.3f,%.3f\n", k, dm, pm, du, pu, du ? pu / du : 0, dm ? pm / dm : 0
        }
    }' "$csv" | { read -r h; echo "$h"; sort -t, -k1,1n; } >"$out/np_summary.csv"
    echo "NetPIPE, layout a preloaded vs direct (medians of $rounds rounds):"
    printf '  %8s %12s %12s %10s %10s %8s %8s\n' bytes direct_Mbps preload_Mbps direct_us preload_us lat_x bw_x
    awk -F, '$1 == 8 || $1 == 1024 || $1 == 65536 || $1 == 1048576 { printf "  %8s %12s %12s %10s %10s %8s %8s\n", $1, $2, $3, $4, $5, $6, $7 }' "$out/np_summary.csv"
    awk -F, '$1 == 8 { l = $6 } $1 == 1048576 { w = $7 } END { printf "  targets: 8 B latency preloaded/direct = %s (<= 3: %s), 1 MiB bandwidth = %s (>= 0.8: %s)\n", l, (l <= 3 ? "holds" : "does not hold"), w, (w >= 0.8 ? "holds" : "does not hold") }' "$out/np_summary.csv"
    echo "  CSV: $csv, $out/np_summary.csv"
    if command -v gnuplot >/dev/null 2>&1; then
        gnuplot -e "datafile='$out/np_summary.csv'" "$(dirname "$0")/np-plot.gp" >"$out/np.svg" && echo "  plot: $out/np.svg"
    else
        echo "  plot skipped: gnuplot not installed"
    fi
fi

# oversubscribed: 4 processes plus CPU hogs
ncpu=$(nproc)
nhog=$(( (ncpu + 1) / 2 ))
ocsv=$out/oversub.csv
echo "form,round,metric,bytes,value" >"$ocsv"
echo "oversubscribed: 4 processes on $ncpu CPUs plus $nhog CPU hog(s), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
hogs=
i=0
while [ $i -lt $nhog ]; do
    sh -c 'while :; do :; done' &
    hogs="$hogs $!"
    i=$((i + 1))
done
# shellcheck disable=SC2086
trap 'kill $hogs 2>/dev/null' EXIT INT TERM
r=1
while [ "$r" -le "$rounds" ]; do
    for form in direct preload; do
        echo "round $r/$rounds: oversubscribed $form" >&2
        if [ $form = direct ]; then
            "$run" -n 4 -t 900 "$pct" -t "${NM_PCT_T:-2}" >"$out/.o" 2>/dev/null
        else
            # shellcheck disable=SC2086
            "$run" -n 4 -t 900 $pre "$pct" -t "${NM_PCT_T:-2}" >"$out/.o" 2>/dev/null
        fi
        [ -s "$out/.o" ] || { echo "run-user-bench: oversubscribed $form failed" >&2; exit 1; }
        sed "s/^/$form,$r,/" "$out/.o" >>"$ocsv"
    done
    r=$((r + 1))
done
# shellcheck disable=SC2086
kill $hogs 2>/dev/null
trap - EXIT INT TERM
rm -f "$out/.o"
echo "oversubscribed: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F, "$(cat "$median")"'NR > 1 { v[$1 "," $3] = v[$1 "," $3] " " $5 }
END {
    d50 = med(v["direct,lat_p50_us"]); p50 = med(v["preload,lat_p50_us"])
    d99 = med(v["direct,lat_p99_us"]); p99 = med(v["preload,lat_p99_us"])
    dmx = med(v["direct,lat_max_us"]); pmx = med(v["preload,lat_max_us"])
    printf "  8 B half round trip (us, medians of the rounds): median direct %s, preloaded %s (%.2fx); p99 direct %s, preloaded %s (%.2fx); max direct %s, preloaded %s\n", d50, p50, d50 ? p50 / d50 : 0, d99, p99, d99 ? p99 / d99 : 0, dmx, pmx
    printf "  target: p99 preloaded/direct = %.2f (<= 20: %s)\n", (d99 ? p99 / d99 : 0), (d99 && p99 / d99 <= 20 ? "holds" : "does not hold")
}' "$ocsv"
echo "  CSV: $ocsv"
