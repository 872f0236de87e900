#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# earth_defaults.sh: EARTH with its defaults against ROMIO, as a user who
# preloads the library into an unmodified program sees it (make
# bench-earth).  Rows:
#   defaults, IOR-like pattern: earth_ior (4 ranks, a 32 MiB file of 1 MiB
#     blocks interleaved between the ranks, one MPI_File_write_all and one
#     MPI_File_read_all through a strided view; no hints) on /tmp and
#     /dev/shm, without the library (ROMIO) and with it (EARTH defaults);
#   defaults, one call per block: the same with one write_at_all /
#     read_at_all per 1 MiB block;
#   contention model: earth_bench's IOR pattern (4 ranks, 8 MiB each) on
#     the contention model, ROMIO and EARTH at its default earth_req (2),
#     both with earth_bench's hints.
# Each round runs every row once, ROMIO and EARTH back to back in an order
# that alternates between rounds (ROMIO first in odd rounds), so that a
# slow phase of a shared machine hits both alike; the table shows the
# medians over the rounds, the median of the per-round ratios ("pair")
# and their quartiles.  Machine facts and the load average of every run
# are printed; CSV and every run in OUTDIR.
#
#   earth_defaults.sh TOP_BUILDDIR OUTDIR
#
# Environment: EARTH_DEF_ROUNDS (default 11), EARTH_DEF_DIRS ("/tmp
# /dev/shm"), EARTH_DEF_NP (4).
top=$1
out=$2
ior=$top/mpiio-earth/bench/earth_ior
bench=$top/mpiio-earth/bench/earth_bench
lib=$top/mpiio-earth/.libs/libmpiio-earth.so
run=$top/test/mpi-run
[ -x "$ior" ] && [ -x "$bench" ] && [ -f "$lib" ] && [ -d "$out" ] || {
    echo "usage: earth_defaults.sh TOP_BUILDDIR OUTDIR (built tree)" >&2
    exit 2
}
case ${EARTH_DEF_ROUNDS:-11} in
'' | *[!0-9]* | 0) echo "earth_defaults: EARTH_DEF_ROUNDS must be a positive integer" >&2; exit 2 ;;
esac
rounds=${EARTH_DEF_ROUNDS:-11}
dirs=${EARTH_DEF_DIRS:-/tmp /dev/shm}
np=${EARTH_DEF_NP:-4}
csv=$out/earth_defaults.csv
raw=$out/earth_defaults.raw
shm=/earth-def-$$
trap 'rm -f /dev/shm$shm "$raw.tmp"; for d in $dirs; do rm -f "$d/earth-def-$$.dat"; done' EXIT
trap 'exit 1' INT TERM
for v in $(env | sed -n 's/^\(EARTH_[A-Z_]*\)=.*/\1/p'); do
    case $v in EARTH_DEF_*) ;; *) unset "$v" ;; esac
done

echo "earth_defaults: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), $(uname -sr), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
for d in $dirs; do
    echo "file system of $d: $(stat -f -c %T "$d"), $(df -h --output=avail "$d" | tail -1 | tr -d ' ') free"
done
echo "MPI: $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*/MPICH /p;s/^MPICH Device:[[:space:]]*/device /p' | paste -sd, - | sed 's/,/, /'); $np ranks on $(nproc) CPUs$([ "$np" -gt "$(nproc)" ] && echo ' (oversubscribed)')"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds"
: >"$raw"

# one ROW FS MODE run; appends "row fs mode write read" to $raw
one() {
    row=$1 fs=$2 mode=$3
    shift 3
    r=$("$run" -n "$np" -t 600 "$@" 2>"$raw.tmp" | tail -1)
    set -- $r
    if [ $# -ne 2 ]; then
        echo "earth_defaults: $row $fs $mode failed:" >&2
        tail -3 "$raw.tmp" >&2
        return 1
    fi
    echo "$row $fs $mode $1 $2 $i $(cut -d' ' -f1 /proc/loadavg)" >>"$raw"
}

model() { # the contention model's variables (as earth_bench.sh's fsemu)
    echo EARTH_FSEMU=1 EARTH_FSEMU_SHM=$shm EARTH_FSEMU_SERVERS=4 \
        EARTH_FSEMU_STRIPE=1048576 EARTH_FSEMU_BW_MBPS=50 \
        EARTH_FSEMU_LATENCY_US=500 EARTH_FSEMU_K=2 EARTH_FSEMU_ALPHA=0.5
}

status=0
i=1
while [ "$i" -le "$rounds" ]; do
    echo "round $i/$rounds (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    for d in $dirs; do
        f=$d/earth-def-$$.dat
        for form in view call; do
            [ $form = call ] && c=-c || c=
            if [ $((i % 2)) -eq 1 ]; then order="romio earth"; else order="earth romio"; fi
            for m in $order; do
                if [ $m = romio ]; then
                    one "$form" "$d" romio "$ior" "$f" $c || status=1
                else
                    one "$form" "$d" earth env LD_PRELOAD="$lib" "$ior" "$f" $c || status=1
                fi
            done
        done
    done
    # contention model: earth_bench runs ROMIO and every earth_req in one
    # job; the rows of ROMIO and of earth_req=2 (the default) are kept
    rm -f "$out/earth_defaults_model.csv" /dev/shm$shm
    env $(model) "$run" -n "$np" -t 900 "$bench" -d /dev/shm -l fsemu -s 8 \
        -r 3 -f 1 -p ior -m earth-req2 -c "$out/earth_defaults_model.csv" >/dev/null 2>"$raw.tmp" ||
        { echo "earth_defaults: earth_bench failed:" >&2; tail -3 "$raw.tmp" >&2; status=1; }
    awk -F, '$4 == "romio" || $4 == "earth-req2" {
        print "model fsemu", ($4 == "romio" ? "romio" : "earth"), $6, $7, i, l }' i="$i" \
        l="$(cut -d' ' -f1 /proc/loadavg)" \
        "$out/earth_defaults_model.csv" >>"$raw"
    i=$((i + 1))
done

echo "row,fs,romio_write,earth_write,write_ratio,romio_read,earth_read,read_ratio,paired_write_ratio,paired_read_ratio,paired_write_q1,paired_write_q3,paired_read_q1,paired_read_q3,rounds" >"$csv"
awk -v csv="$csv" '
    function sorted(s, a,    n, i, j, t) {
        n = split(s, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
            if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n
    }
    # quantile f (0..1) of the numbers in s, linear between ranks
    function quant(s, f,    a, n, x, lo) {
        n = sorted(s, a)
        if (n == 0) return 0
        x = 1 + f * (n - 1); lo = int(x)
        return lo >= n ? a[n] : a[lo] + (x - lo) * (a[lo + 1] - a[lo])
    }
    function median(s) { return quant(s, 0.5) }
    { k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
      w[k, $3] = w[k, $3] " " $4; r[k, $3] = r[k, $3] " " $5; cnt[k, $3]++
      W[k, $3, $6] = $4; R[k, $3, $6] = $5; rounds[k] = rounds[k] " " $6
      if ($7 != "") { if (lmin == "" || $7 < lmin) lmin = $7; if ($7 > lmax) lmax = $7 } }
    END {
        name["view"] = "defaults, IOR-like pattern"
        name["call"] = "defaults, one call per block"
        name["model"] = "contention model (earth_req 2)"
        printf "\n%-32s %-9s %8s %8s %6s %8s %8s %6s %6s %6s %11s %11s\n", "row", "fs", "ROMIO w", "EARTH w", "w/w", "ROMIO r", "EARTH r", "r/r", "pair w", "pair r", "pair w q1-3", "pair r q1-3"
        for (x = 1; x <= nk; x++) {
            k = order[x]; split(k, p, " ")
            rw = median(w[k, "romio"]); ew = median(w[k, "earth"])
            rr = median(r[k, "romio"]); er = median(r[k, "earth"])
            wr = rw > 0 ? ew / rw : 0; rq = rr > 0 ? er / rr : 0
            # ratios of the two runs of one round (back to back)
            pw = ""; pr = ""; each = ""; delete done
            n = split(rounds[k], rs, " ")
            for (j = 1; j <= n; j++) {
                i = rs[j]; if (i in done) continue; done[i] = 1
                if (W[k, "romio", i] > 0 && W[k, "earth", i] > 0) {
                    pw = pw " " W[k, "earth", i] / W[k, "romio", i]
                    pr = pr " " R[k, "earth", i] / R[k, "romio", i]
                    each = each sprintf(" %.2f/%.2f", W[k, "earth", i] / W[k, "romio", i], R[k, "earth", i] / R[k, "romio", i]) }
            }
            mpw = median(pw); mpr = median(pr)
            w1 = quant(pw, 0.25); w3 = quant(pw, 0.75); r1 = quant(pr, 0.25); r3 = quant(pr, 0.75)
            printf "%-32s %-9s %8.1f %8.1f %6.2f %8.1f %8.1f %6.2f %6.2f %6.2f   %.2f-%.2f   %.2f-%.2f\n", name[p[1]], p[2], rw, ew, wr, rr, er, rq, mpw, mpr, w1, w3, r1, r3
            printf "%s,%s,%.2f,%.2f,%.3f,%.2f,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d\n", name[p[1]], p[2], rw, ew, wr, rr, er, rq, mpw, mpr, w1, w3, r1, r3, cnt[k, "earth"] >> csv
            if (p[1] == "view") {
                ok = mpw >= 0.95 && mpr >= 0.95
                acc = acc sprintf("  %s on %s: write %.2fx, read %.2fx (median of the rounds, target >= 0.95): %s\n", name[p[1]], p[2], mpw, mpr, ok ? "holds" : "does not hold")
                per = per sprintf("  %s on %s (write/read):%s\n", name[p[1]], p[2], each)
            } else if (p[1] == "model") {
                acc = acc sprintf("  contention model: write %.2fx, read %.2fx (median of the rounds, target >= 1.3): %s\n", mpw, mpr, mpw >= 1.3 && mpr >= 1.3 ? "holds" : "does not hold")
            }
        }
        printf "\nMiB/s, medians over the rounds; w/w, r/r: ratio of the medians; pair w, pair r:\nmedian over the rounds of EARTH / ROMIO within a round (the two runs back\nto back, which cancels slow phases of a shared machine); q1-3: quartiles\nof those per-round ratios.  Load average during the runs: %s-%s.\nPer-round ratios:\n%s\n%s", lmin, lmax, per, acc
    }' "$raw"
# What the library adds, counted rather than timed (independent of the
# load): collective calls per repetition of earth_ior's IOR-like pattern
# (open, set_view, write_all, close, then the same with read_all), from
# runs of 1 and 3 repetitions, through the counting preload library
# earth_collcount.c (compiled here with mpicc).
cc=$out/earth_collcount.so
if command -v mpicc >/dev/null 2>&1 &&
    mpicc -shared -fPIC -O2 -o "$cc" "$(dirname "$0")/earth_collcount.c" -ldl 2>/dev/null; then
    f=$(echo $dirs | cut -d' ' -f1)/earth-def-$$.dat
    for m in romio earth; do
        pre=$cc
        [ $m = earth ] && pre=$cc:$lib
        for r in 1 3; do
            env LD_PRELOAD="$pre" "$run" -n "$np" -t 300 "$ior" "$f" -m 4 -r $r \
                2>&1 >/dev/null | sed -n "s/^collcount: /$m $r /p"
        done
    done >"$out/earth_collcount.txt"
    echo
    echo "Collective calls per repetition (rank 0; open, set_view, write_all, close, and again with read_all):"
    printf "  %-16s %6s %6s %6s\n" call ROMIO EARTH added
    awk '{ for (i = 3; i <= NF; i++) { split($i, kv, "="); v[$1, $2, kv[1]] = kv[2]; keys[kv[1]] = 1 } }
        END { for (k in keys) { a = (v["romio", 3, k] - v["romio", 1, k]) / 2; b = (v["earth", 3, k] - v["earth", 1, k]) / 2
                  if (a || b) printf "  %-16s %6g %6g %+6g\n", k, a, b, b - a } }' "$out/earth_collcount.txt" | sort
else
    echo "(no mpicc: collective calls not counted)"
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); CSV: $csv, every run: $raw"
exit $status
