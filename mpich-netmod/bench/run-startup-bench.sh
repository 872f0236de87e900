#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run-startup-bench.sh TOP_BUILDDIR OUTDIR [BEFORE_DIR]: start-up and
# application time of the shim preloaded as users run it, against direct
# MPICH in the same invocation: the wall time of the whole mpiexec command.
# Forms (one node unless 2n-):
#   direct      mpiexec -n 2 PROG
#   direct4     mpiexec -n 4 PROG: MPICH alone with as many processes as the
#               preloaded forms (the floor of any form that runs 4 ranks;
#               start-up row only)
#   default     mpiexec -n 4 env LD_PRELOAD=libmpideleg.so MPIDELEG_BOARD_SIZE=1 PROG
#               (the PiP form on one node)
#   process     the same with MPIDELEG_FORM=process
#   2n-direct   mpiexec -launcher fork -hosts nodeA,nodeB -ppn 1 -n 2 PROG
#   2n-default  ... -ppn 2 -n 4 with the preload (a PiP group per node)
# With BEFORE_DIR (a directory holding another build's libmpideleg.so,
# libdeleg.so.0 and libpip.so.0, e.g. copied from a tree before a change):
# also before-default, before-process and before-2n-default.
# Rows: startup (bench/nm_startup: MPI_Init, one Allreduce, one Sendrecv,
# MPI_Finalize), kernel (nm_startup -k NM_SU_STEPS, default 1000: an
# NWChem-like mix of small collectives and point-to-point around compute;
# its checksum must match direct's, direct4's aside) and nwchem (H2O SCF, STO-3G, with
# Debian's nwchem.mpich from a directory NM_NWCHEM_ROOT holding the
# extracted packages nwchem-mpich, nwchem-data and libscalapack-mpich2.2:
# `apt-get download` and `dpkg -x` them there; skipped with a line when
# absent or when its direct run does not end with an SCF energy).
# NM_SU_ROWS: the rows to run (default: all three).
# NM_SU_ROUNDS rounds (default 5), every form of a row interleaved in each
# round.  Writes OUTDIR/results/startup.csv (row,form,round,seconds) and
# startup_summary.csv (medians, ratios to direct; 2n- forms to 2n-direct)
# and prints the table with the targets of issue 37: start-up of the
# default form within 2x of direct, application time within 1.5x.
median=$(dirname "$0")/median.awk
top=${1:?usage: run-startup-bench.sh TOP_BUILDDIR OUTDIR [BEFORE_DIR]}
out=${2:?usage: run-startup-bench.sh TOP_BUILDDIR OUTDIR [BEFORE_DIR]}/results
before=$3
lib=$top/mpich-netmod/.libs/libmpideleg.so
prog=$top/mpich-netmod/bench/nm_startup
[ -x "$prog" ] && [ -f "$lib" ] || { echo "run-startup-bench: build first (make)" >&2; exit 1; }
if [ -n "$before" ] && [ ! -f "$before/libmpideleg.so" ]; then
    echo "run-startup-bench: $before/libmpideleg.so: no such file" >&2
    exit 1
fi
mkdir -p "$out" || exit 1
after_path=$top/delegation/.libs:$top/libpip/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
before_path=$before${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset MPIDELEG_FORM
rounds=${NM_SU_ROUNDS:-5}
steps=${NM_SU_STEPS:-1000}
mx=${MPIEXEC:-mpiexec}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nm-su.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
csv=$out/startup.csv
echo "row,form,round,seconds" >"$csv"
forms="direct direct4 default process 2n-direct 2n-default"
[ -n "$before" ] && forms="direct direct4 default before-default process before-process 2n-direct 2n-default before-2n-default"
echo "start-up and application time: $(nproc) CPUs, $(uname -r), load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# cmd FORM: the command line (without the program) of FORM
cmd() {
    case $1 in
    *2n-direct) echo "$mx -launcher fork -hosts nodeA,nodeB -ppn 1 -n 2" ;;
    *2n-*) echo "$mx -launcher fork -hosts nodeA,nodeB -ppn 2 -n 4" ;;
    direct) echo "$mx -n 2" ;;
    *) echo "$mx -n 4" ;;
    esac
}
# one FORM PROG ARGS: run it, its stdout and stderr in $tmp/o, wall seconds
# on stdout (empty when it failed)
one() {
    f=$1
    shift
    l=$lib p=$after_path
    case $f in before-*) l=$before/libmpideleg.so p=$before_path ;; esac
    pre=
    case $f in
    direct | direct4 | 2n-direct) ;;
    *process) pre="env LD_PRELOAD=$l LD_LIBRARY_PATH=$p MPIDELEG_BOARD_SIZE=1 MPIDELEG_QUIET=1 MPIDELEG_FORM=process" ;;
    *) pre="env LD_PRELOAD=$l LD_LIBRARY_PATH=$p MPIDELEG_BOARD_SIZE=1 MPIDELEG_QUIET=1" ;;
    esac
    t0=$(date +%s%N)
    # shellcheck disable=SC2046,SC2086
    timeout 600 $(cmd "$f") $pre "$@" >"$tmp/o" 2>&1 </dev/null || return 0
    t1=$(date +%s%N)
    echo "$t0 $t1" | awk '{printf "%.4f\n", ($2 - $1) / 1e9}'
}

nw=
if [ -n "$NM_NWCHEM_ROOT" ] && [ -x "$NM_NWCHEM_ROOT/usr/bin/nwchem.mpich" ]; then
    nw=$NM_NWCHEM_ROOT
    cat >"$tmp/h2o.nw" <<'EOF'
start h2o
title "H2O SCF"
geometry units angstrom
  O  0.0000  0.0000  0.0000
  H  0.0000  0.7572  0.5865
  H  0.0000 -0.7572  0.5865
end
basis
  * library sto-3g
end
task scf energy
EOF
    mkdir -p "$tmp/nw"
    nwrun() {
        (cd "$tmp/nw" && rm -f h2o.* &&
            LD_LIBRARY_PATH=$nw/usr/lib/x86_64-linux-gnu NWCHEM_BASIS_LIBRARY=$nw/usr/share/nwchem/libraries/ \
                one "$1" "$nw/usr/bin/nwchem.mpich" "$tmp/h2o.nw")
    }
    s=$(nwrun direct)
    if [ -z "$s" ] || ! grep -q 'Total SCF energy' "$tmp/o"; then
        echo "nwchem: skipped (its direct run with 2 ranks failed: $(grep -m1 -i 'error' "$tmp/o"))"
        nw=
    fi
elif [ -n "$NM_NWCHEM_ROOT" ]; then
    echo "nwchem: skipped ($NM_NWCHEM_ROOT/usr/bin/nwchem.mpich not found)"
else
    echo "nwchem: skipped (NM_NWCHEM_ROOT unset: apt-get download nwchem-mpich nwchem-data libscalapack-mpich2.2; dpkg -x each into one directory)"
fi

ref=
r=1
while [ "$r" -le "$rounds" ]; do
    for row in ${NM_SU_ROWS:-startup kernel nwchem}; do
        [ "$row" = nwchem ] && [ -z "$nw" ] && continue
        for f in $forms; do
            # 4 ranks spinning in MPICH's waits on 2 CPUs take the kernel
            # 10-40x longer: direct4 is a start-up reference only
            [ "$f" = direct4 ] && [ "$row" != startup ] && continue
            echo "round $r/$rounds: $row $f" >&2
            case $row in
            startup) s=$(one "$f" "$prog") ;;
            kernel) s=$(one "$f" "$prog" -k "$steps") ;;
            nwchem) s=$(nwrun "$f") ;;
            esac
            ok=$s
            case $row in
            kernel)
                c=$(grep '^nm_startup: .*checksum' "$tmp/o" | sed 's/.*checksum //')
                [ -z "$c" ] && ok=
                # direct4 runs 4 application ranks: another checksum
                if [ "$f" != direct4 ]; then
                    [ -z "$ref" ] && ref=$c
                    [ "$c" = "$ref" ] || ok=
                fi ;;
            nwchem) grep -q 'Total SCF energy' "$tmp/o" || ok= ;;
            esac
            if [ -z "$ok" ]; then
                echo "run-startup-bench: $row $f failed or gave another result:" >&2
                tail -5 "$tmp/o" >&2
                exit 1
            fi
            echo "$row,$f,$r,$s" >>"$csv"
        done
    done
    r=$((r + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

sum=$out/startup_summary.csv
awk -F, -v forms="$forms" "$(cat "$median")"'
NR > 1 { v[$1 "," $2] = v[$1 "," $2] " " $4; seen[$1] = 1 }
END {
    print "row,form,median_s,min_s,max_s,ratio_to_direct,target"
    nf = split(forms, F, " ")
    split("startup kernel nwchem", R, " ")
    for (ri = 1; ri <= 3; ri++) {
        row = R[ri]
        if (!seen[row]) continue
        for (i = 1; i <= nf; i++) {
            f = F[i]; k = row "," f
            if (!(k in v)) continue
            m = med(v[k]); n = split(v[k], a, " "); lo = a[1]; hi = a[1]
            for (j = 2; j <= n; j++) { if (a[j] < lo) lo = a[j]; if (a[j] > hi) hi = a[j] }
            base = f ~ /2n-/ ? row ",2n-direct" : row ",direct"
            ratio = med(v[base]) > 0 ? m / med(v[base]) : 0
            t = ""
            if (f ~ /default$/) t = row == "startup" ? "<= 2" : "<= 1.5"
            printf "%s,%s,%.3f,%.3f,%.3f,%.2f,%s\n", row, f, m, lo, hi, ratio, t
        }
    }
}' "$csv" >"$sum"
echo "medians of $rounds rounds (wall seconds of mpiexec; ratio against direct, 2n- against 2n-direct):"
printf '%-8s %-18s %8s %8s %8s %7s %s\n' row form median min max ratio target
tail -n +2 "$sum" | awk -F, '{
    verdict = ""
    if ($7 != "") { lim = substr($7, 4) + 0; verdict = $7 ($6 <= lim ? " (met)" : " (not met)") }
    printf "%-8s %-18s %8s %8s %8s %7s %s\n", $1, $2, $3, $4, $5, $6, verdict }'
echo "CSV: $csv, $sum"
