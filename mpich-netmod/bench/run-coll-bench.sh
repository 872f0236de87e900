#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run-coll-bench.sh TOP_BUILDDIR OUTDIR: nm_coll_bench directly with MPICH
# (as many ranks as the layout has clients: the baseline), and preloaded
# with MPIDELEG_COLL=direct and =hier, in layout a (2 boards x 1 client, 2
# delegatees: 4 processes) and layout b (boards {0,1} and {2}, one
# delegatee: 4 processes), NM_COLL_ROUNDS rounds (default 2) interleaved
# so that load from elsewhere hits all alike.  Writes
# OUTDIR/results/nm_coll.csv (every value) and nm_coll_summary.csv (medians
# over rounds and ratios against MPICH), and prints the table.
# NM_COLL_ARGS: nm_coll_bench options (default "-r 5"; "-q -r 3" is quick).
median=$(dirname "$0")/median.awk
top=${1:?usage: run-coll-bench.sh TOP_BUILDDIR OUTDIR}
out=${2:?usage: run-coll-bench.sh TOP_BUILDDIR OUTDIR}/results
bench=$top/mpich-netmod/bench/nm_coll_bench
lib=$top/mpich-netmod/.libs/libmpideleg.so
run=$top/test/mpi-run
[ -x "$bench" ] && [ -f "$lib" ] || { echo "run-coll-bench: build first (make)" >&2; exit 1; }
mkdir -p "$out" || exit 1
LD_LIBRARY_PATH=$top/delegation/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
args=${NM_COLL_ARGS:--r 5}
rounds=${NM_COLL_ROUNDS:-2}
csv=$out/nm_coll.csv
if [ "${3:-}" != --summary ]; then
echo "layout,mode,round,collective,bytes,us" >"$csv"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
r=1
while [ $r -le "$rounds" ]; do
    for lay in a b; do
        for mode in mpich direct hier; do
            echo "round $r/$rounds: layout $lay, $mode" >&2
            if [ $lay = a ]; then np=2 env="MPIDELEG_BOARD_SIZE=1"; else np=3 env="MPIDELEG_BOARD_SIZE=2 MPIDELEG_BOARDS_PER_DELEGATEE=2"; fi
            if [ $mode = mpich ]; then
                # shellcheck disable=SC2086
                "$run" -n $np -t 900 "$bench" $args >"$out/.tmp" || { echo "run-coll-bench: $lay $mode failed" >&2; exit 1; }
            else
                # shellcheck disable=SC2086
                "$run" -n 4 -t 900 env LD_PRELOAD="$lib" $env MPIDELEG_COLL=$mode \
                    "$bench" $args >"$out/.tmp" || { echo "run-coll-bench: $lay $mode failed" >&2; exit 1; }
            fi
            sed "s/^/$lay,$mode,$r,/" "$out/.tmp" >>"$csv"
        done
    done
    r=$((r + 1))
done
rm -f "$out/.tmp"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
fi

# medians over rounds, ratios against MPICH
awk -F, "$(cat "$median")"'NR > 1 { k = $1 "," $4 "," $5; v[k "," $2] = v[k "," $2] " " $6; keys[k] = 1 }
END {
    print "layout,collective,bytes,mpich_us,direct_us,hier_us,direct/mpich,hier/mpich,hier/direct"
    for (k in keys) {
        m = med(v[k ",mpich"]); d = med(v[k ",direct"]); h = med(v[k ",hier"])
        printf "%s,%s,%s,%s,%.2f,%.2f,%.2f\n", k, m, d, h, m ? d / m : 0, m ? h / m : 0, d ? h / d : 0
    }
}' "$csv" | { read -r h; echo "$h"; sort -t, -k1,1 -k2,2 -k3,3n; } >"$out/nm_coll_summary.csv"

printf '\n%-6s %-10s %8s %10s %10s %10s %8s %8s %8s\n' layout collective bytes mpich_us direct_us hier_us dir/mpi hier/mpi hier/dir
tail -n +2 "$out/nm_coll_summary.csv" | tr ',' ' ' | while read -r l c b m d h rd rh rhd; do
    printf '%-6s %-10s %8s %10s %10s %10s %8s %8s %8s\n' "$l" "$c" "$b" "$m" "$d" "$h" "$rd" "$rh" "$rhd"
done
echo
# the default of MPIDELEG_COLL follows the geometric mean of hier/direct
awk -F, 'NR > 1 && $5 > 0 && $6 > 0 { n++; if ($6 < $5) h++; g += log($6 / $5); if ($1 == "a") { na++; ga += log($6 / $5) } else { nb++; gb += log($6 / $5) } }
    END { printf "hier faster than direct (shim) in %d of %d cases; geometric mean hier/direct: %.2f (layout a %.2f, b %.2f)\n", h, n, n ? exp(g / n) : 0, na ? exp(ga / na) : 0, nb ? exp(gb / nb) : 0 }' "$out/nm_coll_summary.csv"
echo "CSV: $csv, $out/nm_coll_summary.csv"
