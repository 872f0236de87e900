#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Real MPI applications nobody here wrote, run unmodified directly with
# MPICH and with libmpideleg preloaded; the results must be the same.
#
# - NetPIPE (Debian's netpipe-mpich2, NPmpich2) in its integrity mode (-i:
#   every message of every size, up to 4 MiB, is checked on arrival) with
#   each option set below; the per-size verdict lines (NetPIPE prints them
#   on stderr) must be identical and all "passed".
# - ScaLAPACK's test programs (Debian's scalapack-mpi-test, MPICH build):
#   every driver x* with its shipped input file, and the PBLAS testers.
#   Compared per program: the exit status (zero or not), and the verdict
#   lines with their problem parameters (sizes, block sizes, grid) and
#   PASSED/FAILED, the summary counts, and the grid errors, without the
#   timings and residual values (floating-point columns).
#
# App ranks: direct 2 against layout a (MPIDELEG_BOARD_SIZE=1, 4
# processes: 2 app ranks, 2 delegatees); direct 3 against layout b (boards
# {0,1} and {2}, one delegatee, 4 processes) for ScaLAPACK.  The shipped
# inputs also list grids of 4 and more processes: the drivers skip those
# ("ILLEGAL GRID ... going on"), the eigen/SVD drivers abort on the first
# one, identically in both runs (their transcripts are compared up to it).
# Not run: the BLACS testers xCbtest/xFbtest (their input asks for a 2x2
# grid, 4 app ranks, which a preloaded run of at most 4 processes cannot
# have) and the PBLAS TIMING programs (they print timings only); in
# layout b not xdhseqr and xshseqr (over 10 minutes with 3 ranks on 2
# shared cores, directly too).
#
# Environment: NM_APPS_LAYOUTS (default "a b"), NM_APPS_ONLY (a grep -E
# pattern of program names to run), NM_NETPIPE (path of NPmpich2),
# NM_SCALAPACK_DIR (the mpich-tests directory), NM_TIMEOUT (per run, s).
# Skipped (77) when neither application is installed.  Run by
# `make check-long`.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
NM_TIMEOUT=${NM_TIMEOUT:-600}
layouts=${NM_APPS_LAYOUTS:-a b}
netpipe=${NM_NETPIPE:-$(command -v NPmpich2)}
march=$(${CC:-cc} -print-multiarch 2>/dev/null)
sl=${NM_SCALAPACK_DIR:-/usr/lib/${march:-x86_64-linux-gnu}/scalapack/mpich-tests}
sldat=/usr/share/scalapack
[ -x "$sl/xdlu" ] || sl=
[ -n "$sl" ] && [ ! -f "$sldat/LU.dat" ] && sldat=$sl
if [ -z "$netpipe" ] && [ -z "$sl" ]; then
    echo "SKIP: neither netpipe-mpich2 nor scalapack-mpi-test is installed" >&2
    exit 77
fi
only=${NM_APPS_ONLY:-.}
nruns=0

# run_in DIR NAME LAYOUT NP PROG ARGS...: one run in DIR; status in NAME.rc
run_in() {
    ri_dir=$1 ri_name=$2 ri_lay=$3 ri_np=$4
    shift 4
    case $ri_lay in
    a) set -- env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=1 "$@" ;;
    b) set -- env LD_PRELOAD="$NM_LIB" MPIDELEG_BOARD_SIZE=2 MPIDELEG_BOARDS_PER_DELEGATEE=2 "$@" ;;
    esac
    (cd "$ri_dir" && "$MPI_RUN" -n "$ri_np" -t "$NM_TIMEOUT" "$@") \
        >"$NM_TMP/$ri_name.out" 2>"$NM_TMP/$ri_name.err"
    echo $? >"$NM_TMP/$ri_name.rc"
    f=$(nm_form_of "$ri_lay" "$NM_TMP/$ri_name.err")
    [ -n "$f" ] && echo "$ri_name$f"
    nruns=$((nruns + 1))
}

# sl_verdicts NAME: the lines compared (see the top of this file): NAME.p
# the verdict lines, NAME.v those, the grid errors and the exit status
sl_verdicts() {
    awk '/PASSED|FAILED|tests completed|skipped|Finished/ {
             out = ""
             for (i = 1; i <= NF; i++)
                 if ($i !~ /[0-9]\.[0-9]|^-?\.|E[-+][0-9]/) out = out " " $i
             print out
         }' "$NM_TMP/$1.out" >"$NM_TMP/$1.p"
    {
        cat "$NM_TMP/$1.p"
        grep -h -o "BLACS ERROR '[^']*'\|ILLEGAL GRID.*" "$NM_TMP/$1.out" "$NM_TMP/$1.err" | sort -u
        rc=$(cat "$NM_TMP/$1.rc")
        [ "$rc" -eq 0 ] && echo "exit 0" || echo "exit non-zero"
    } >"$NM_TMP/$1.v"
}

# prefix A B: the verdict lines of A begin those of B
prefix() {
    n=$(wc -l <"$NM_TMP/$1.p")
    head -n "$n" "$NM_TMP/$2.p" | cmp -s - "$NM_TMP/$1.p"
}

# compare DIRECT PRELOADED WHAT: same verdicts, and not a timeout
compare() {
    for r in "$1" "$2"; do
        if [ "$(cat "$NM_TMP/$r.rc")" -eq 124 ]; then
            echo "FAIL $3: $r timed out"; tail -n 5 "$NM_TMP/$r.err"; nm_fail=1; return
        fi
    done
    if ! [ -s "$NM_TMP/$1.v" ] || ! grep -q -v '^exit' "$NM_TMP/$1.v"; then
        echo "FAIL $3: nothing to compare in the direct run:"; tail -n 5 "$NM_TMP/$1.out" "$NM_TMP/$1.err"
        nm_fail=1
    elif cmp -s "$NM_TMP/$1.v" "$NM_TMP/$2.v"; then
        echo "same $3: $(grep -c -v '^exit' "$NM_TMP/$1.v") verdict lines, $(tail -n 1 "$NM_TMP/$1.v")"
    elif [ -f "$NM_TMP/$1.p" ] && [ "$(tail -n 1 "$NM_TMP/$1.v")" = "exit non-zero" ] &&
        [ "$(tail -n 1 "$NM_TMP/$2.v")" = "exit non-zero" ] &&
        ! grep -q FAILED "$NM_TMP/$1.p" "$NM_TMP/$2.p" &&
        { prefix "$1" "$2" || prefix "$2" "$1"; }; then
        # both ended in an abort (a grid larger than the job): the last
        # lines before it may be lost on the way to the launcher, so the
        # shorter transcript must begin the longer one
        echo "same $3 up to the abort: $(wc -l <"$NM_TMP/$1.p") and $(wc -l <"$NM_TMP/$2.p") verdict lines, both ended by it"
    else
        echo "FAIL $3: preloaded differs from direct:"
        diff "$NM_TMP/$1.v" "$NM_TMP/$2.v" | head -10
        nm_fail=1
    fi
}

echo NPmpich2 | grep -Eq -- "$only" || netpipe=
if [ -n "$netpipe" ]; then
    mkdir -p "$NM_TMP/np"
    # option sets: plain, preposted receives, synchronous sends, odd buffer
    # offsets, cache invalidation, both directions at once (with -a:
    # with blocking receives both ranks' sends of 12 KiB and more wait for
    # each other, directly too, as NetPIPE warns).  Not -B (not
    # with -i) and not -z: NetPIPE passes -1 as MPI_ANY_SOURCE (Open MPI's
    # value); in MPICH -1 is MPI_PROC_NULL, so its receives take no data
    # and the repeat count it then reads is whatever the variable held: the
    # run's course is undefined with MPICH, directly as well.
    i=0
    for opts in "" "-a" "-S" "-O 1,3" "-I" "-a -2"; do
        i=$((i + 1))
        run_in "$NM_TMP/np" "np$i.d" direct 2 "$netpipe" -i -u 4194304 -n 2 $opts
        for lay in $layouts; do
            [ "$lay" = a ] || continue # NetPIPE takes exactly 2 ranks
            run_in "$NM_TMP/np" "np$i.$lay" "$lay" 4 "$netpipe" -i -u 4194304 -n 2 $opts
            for r in "np$i.d" "np$i.$lay"; do
                { grep -h -e '-->' "$NM_TMP/$r.out" "$NM_TMP/$r.err"
                  [ "$(cat "$NM_TMP/$r.rc")" -eq 0 ] && echo "exit 0" || echo "exit non-zero"; } >"$NM_TMP/$r.v"
            done
            compare "np$i.d" "np$i.$lay" "NetPIPE -i $opts ($lay)"
            if grep -h -e '-->' "$NM_TMP/np$i.$lay.out" "$NM_TMP/np$i.$lay.err" | grep -q -v 'Integrity check passed'; then
                echo "FAIL NetPIPE -i $opts ($lay): an integrity check failed"; nm_fail=1
            fi
        done
    done
else
    echo "not run: NetPIPE (not installed: netpipe-mpich2, or not in NM_APPS_ONLY)"
fi

if [ -n "$sl" ]; then
    mkdir -p "$NM_TMP/sl"
    cp -r "$sldat"/. "$NM_TMP/sl/" 2>/dev/null
    progs=$(cd "$sl" && ls -d x* PBLAS/*tst 2>/dev/null | grep -v -e '^xCbtest$' -e '^xFbtest$')
    for p in $progs; do
        echo "$p" | grep -Eq -- "$only" || continue
        n=$(basename "$p")
        dir=$NM_TMP/sl
        case $p in PBLAS/*) dir=$NM_TMP/sl/PBLAS ;; esac
        for lay in $layouts; do
            case $lay in a) np=2 ;; b) np=3 ;; *) continue ;; esac
            # 3 ranks on 2 shared cores: the Hessenberg QR drivers take over
            # 10 minutes directly as well; they run in layout a only
            case $lay.$n in b.xdhseqr | b.xshseqr) continue ;; esac
            [ -f "$NM_TMP/$n.d$np.v" ] || { run_in "$dir" "$n.d$np" direct $np "$sl/$p"; sl_verdicts "$n.d$np"; }
            run_in "$dir" "$n.$lay" "$lay" 4 "$sl/$p"
            sl_verdicts "$n.$lay"
            compare "$n.d$np" "$n.$lay" "ScaLAPACK $n, $np ranks ($lay)"
        done
    done
else
    echo "not run: ScaLAPACK (install scalapack-mpi-test)"
fi
echo "$nruns runs"
[ "$nruns" -gt 0 ] || { echo "FAIL: nothing ran (NM_APPS_ONLY='$only'?)"; nm_fail=1; }
exit $nm_fail
