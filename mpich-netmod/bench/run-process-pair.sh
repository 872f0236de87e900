#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run-process-pair.sh BEFORE_BUILDDIR AFTER_BUILDDIR OUTDIR [ROUNDS]: the
# process form of two builds of the tree (a change's before and after)
# against direct MPICH, in the same invocation, two nodes emulated
# (hydra's fork launcher, hosts nodeA,nodeB: -ppn 1 -n 2 direct, -ppn 2
# -n 4 preloaded with MPIDELEG_FORM=process MPIDELEG_BOARD_SIZE=1; with
# NM_PP_ONE_NODE=1 one node: -n 2 / -n 4).  Per round, in turn: direct,
# before, after; nm_bench -q -r 3: 8 B latency and message rate, 1 MiB
# bandwidth.  Then, for each build, where the time goes: the ranks'
# context switches (voluntary: they slept; involuntary: their time slice
# was taken) and CPU time (PVAS_LOG=mpideleg:debug's end-of-run lines),
# for a run of each metric less a run of none, per message (8 B ping-pong:
# 1,200 messages; message rate: 9,750).  Writes OUTDIR/pair.csv
# (form,round,metric,bytes,value), OUTDIR/pair_summary.csv (medians,
# ratios to direct) and OUTDIR/pair_where.csv, and prints the tables with
# the load average before and after.
set -u
before=${1:?usage: run-process-pair.sh BEFORE_BUILDDIR AFTER_BUILDDIR OUTDIR [ROUNDS]}
after=${2:?usage: run-process-pair.sh BEFORE_BUILDDIR AFTER_BUILDDIR OUTDIR [ROUNDS]}
out=${3:?usage: run-process-pair.sh BEFORE_BUILDDIR AFTER_BUILDDIR OUTDIR [ROUNDS]}
rounds=${4:-3}
case $rounds in
'' | *[!0-9]*) echo "run-process-pair: ROUNDS must be a number, not '$rounds'" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
median=$here/median.awk
for b in "$before" "$after"; do
    if [ ! -f "$b/mpich-netmod/.libs/libmpideleg.so" ] || [ ! -f "$b/delegation/.libs/libdeleg.so" ]; then
        echo "run-process-pair: $b: no built libmpideleg.so and libdeleg.so (make first)" >&2
        exit 1
    fi
done
nmb=$after/mpich-netmod/bench/nm_bench
run=$after/test/mpi-run
[ -x "$nmb" ] || { echo "run-process-pair: $nmb missing (make first)" >&2; exit 1; }
mkdir -p "$out" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nm-pp.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mx=${MPIEXEC:-mpiexec}
if [ "${NM_PP_ONE_NODE:-0}" = 1 ]; then
    printf '#!/bin/sh\nexec %s "$@"\n' "$mx" >"$tmp/mx1"
    cp "$tmp/mx1" "$tmp/mx2"
    where="one node"
else
    for ppn in 1 2; do
        printf '#!/bin/sh\nexec %s -launcher fork -hosts nodeA,nodeB -ppn %s "$@"\n' "$mx" $ppn >"$tmp/mx$ppn"
    done
    where="two nodes emulated"
fi
chmod +x "$tmp/mx1" "$tmp/mx2"

# one FORM ARGS...: nm_bench -q -r 3 ARGS in FORM (stdout and stderr)
one() {
    f=$1
    shift
    case $f in
    direct) MPIEXEC=$tmp/mx1 "$run" -n 2 -t 600 "$nmb" -q -r 3 "$@" ;;
    *)
        [ "$f" = before ] && top=$before || top=$after
        MPIEXEC=$tmp/mx2 LD_LIBRARY_PATH=$top/delegation/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
            "$run" -n 4 -t 600 env LD_PRELOAD="$top/mpich-netmod/.libs/libmpideleg.so" \
            MPIDELEG_BOARD_SIZE=1 MPIDELEG_QUIET=1 MPIDELEG_FORM=process "$@" ;;
    esac
}

csv=$out/pair.csv
echo "form,round,metric,bytes,value" >"$csv"
echo "process form, $where: $(nproc) CPUs, $(uname -r), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ "$r" -le "$rounds" ]; do
    for f in direct before after; do
        echo "$(date -u +%T) round $r/$rounds: $f, load $(cut -d' ' -f1 /proc/loadavg)" >&2
        for m in "-m latency,msgrate -s 8" "-m bandwidth -s 1048576"; do
            # shellcheck disable=SC2086
            if [ $f = direct ]; then one $f $m; else one $f "$nmb" -q -r 3 $m; fi \
                >"$tmp/o" 2>/dev/null || { echo "run-process-pair: nm_bench $f failed" >&2; exit 1; }
            grep -v '^#' "$tmp/o" | grep , | sed "s/^/$f,$r,/" >>"$csv"
        done
    done
    r=$((r + 1))
done

# where the time goes: switches and CPU per message, each build
wcsv=$out/pair_where.csv
echo "form,metric,messages,voluntary,involuntary,cpu_us" >"$wcsv"
for f in before after; do
    for m in none latency msgrate; do
        one "$f" PVAS_LOG=mpideleg:debug "$nmb" -q -r 3 -s 8 -m "$m" >/dev/null 2>"$tmp/w.$m" ||
            { echo "run-process-pair: nm_bench $f -m $m failed" >&2; exit 1; }
    done
    awk -v form="$f" -f "$here/where.awk" "$tmp/w.none" "$tmp/w.latency" "$tmp/w.msgrate" >>"$wcsv"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

sum=$out/pair_summary.csv
awk -F, "$(cat "$median")"'NR > 1 { k = $3 "," $4; v[k "," $1] = v[k "," $1] " " $5; keys[k] = 1 }
END {
    print "metric,bytes,direct,before,after,before_ratio,after_ratio,after_over_before"
    for (k in keys) {
        d = med(v[k ",direct"]); b = med(v[k ",before"]); a = med(v[k ",after"])
        printf "%s,%s,%s,%s,%.4g,%.4g,%.3f\n", k, d, b, a, d ? b / d : 0, d ? a / d : 0, b ? a / b : 0
    }
}' "$csv" >"$sum"
echo "process form, $where, medians of $rounds rounds (ratios: form / direct):"
column -s, -t "$sum" | sed 's/^/  /'
echo "per message (a run of each metric less a run of none; all four ranks):"
column -s, -t "$wcsv" | sed 's/^/  /'
echo "  CSV: $csv, $sum, $wcsv"
