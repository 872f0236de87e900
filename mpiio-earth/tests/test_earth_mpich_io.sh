#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_earth_mpich_io.sh: MPICH's own MPI-IO test programs (test/mpi/io of
# the MPICH source, and ROMIO's src/mpi/romio/test; nothing of them is in
# this tree), compiled at check time and run directly and with
# LD_PRELOAD=libmpiio-earth.so, each in a directory of its own: same exit
# status, same " No Errors" verdict, and every file left behind
# byte-identical where the program's output is deterministic.  EARTH's log
# must show it carried out collective calls in the programs that make them.
#
#   EARTH_MPICH_SRC=.../mpich-4.0.2 make check TESTS=mpiio-earth/tests/test_earth_mpich_io.sh
#
# EARTH_ROMIO_TEST_DIR (ROMIO's test directory) alone runs the ROMIO part.
# Skipped when neither is set.  EARTH_MPICH_IO_TESTS overrides the list
# (io/NAME or romio/NAME).  bigtype and i_bigtype (2 GiB per call, 6.5 GB of
# memory) run only with EARTH_TEST_BIG=1.
# EARTH itself, not the one-node hand-off to ROMIO (earth_enable=auto).
export EARTH_ENABLE=enable
set -u
src=${EARTH_MPICH_SRC:-}
t=$src/test/mpi
rdir=${EARTH_ROMIO_TEST_DIR:-}
[ -z "$rdir" ] && [ -n "$src" ] && rdir=$src/src/mpi/romio/test
have_io=0 have_romio=0
[ -n "$src" ] && [ -f "$t/util/mtest.c" ] && [ -f "$t/io/testlist.in" ] && have_io=1
[ -n "$rdir" ] && [ -f "$rdir/coll_test.c" ] && have_romio=1
if [ $have_io = 0 ] && [ $have_romio = 0 ]; then
    echo "SKIP: set EARTH_MPICH_SRC to an MPICH source tree or EARTH_ROMIO_TEST_DIR to ROMIO's test directory"
    exit 77
fi
command -v mpicc >/dev/null 2>&1 || { echo "SKIP: mpicc not found"; exit 77; }
run=${MPI_RUN:-${abs_top_builddir:-.}/test/mpi-run}
lib=${abs_top_builddir:-.}/mpiio-earth/.libs/libmpiio-earth.so
[ -f "$lib" ] || { echo "ERROR: missing $lib"; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/earth-mpichio.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

objs=
if [ $have_io = 1 ]; then
    cat >"$tmp/mpitestconf.h" <<'H'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
H
    for f in mtest mtest_common mtest_single; do
        mpicc -w -I"$tmp" -I"$t/include" -c -o "$tmp/$f.o" "$t/util/$f.c" \
            2>"$tmp/harness.cc" || { echo "FAIL: $f.c does not compile"; head -3 "$tmp/harness.cc"; exit 1; }
        objs="$objs $tmp/$f.o"
    done
fi

# ROMIO's programs, rank counts and arguments as its runtests gives them
# (FILE: the file name).  Not run: the performance programs (perf,
# coll_perf: bandwidth reports, no verdict), misc and large_file (.c.in,
# need ROMIO's configure), the Fortran ones, syshints (needs ROMIO_HINTS
# pointing at its own hint file).
romio_progs="simple async async-multiple atomicity coll_test excl file_info
i_noncontig noncontig noncontig_coll noncontig_coll2 aggregation1 aggregation2
hindexed shared_fp ordered_fp split_coll psimple error status types_with_zeros
darray_read big_extents creat_excl"
romio_entry() { # NAME -> "NP ARGS"
    case $1 in
    i_noncontig | noncontig | noncontig_coll) echo "2 -fname FILE" ;;
    error | status) echo "1 -fname FILE" ;;
    aggregation1) echo "4 -h -f FILE" ;;
    aggregation2 | hindexed | darray_read | big_extents) echo "4 FILE" ;;
    types_with_zeros) echo "2 FILE" ;;
    *) echo "4 -fname FILE" ;;
    esac
}

# Programs whose files may differ between two runs of the same MPI-IO
# implementation, with the reason; their files are not compared.
nondet_reason() {
    case $1 in
    # the program writes a malloc'ed buffer it never initialised
    romio/status) echo "writes an uninitialised buffer" ;;
    # the ranks' blocks land in the order the shared pointer is taken
    romio/shared_fp) echo "MPI_File_write_shared: the order of the blocks is the arbitration order" ;;
    *) return 1 ;;
    esac
}

# Programs that make collective data-access calls: EARTH must have carried
# some out (blocking ones log "by EARTH", nonblocking ones "done" unless
# they were handed to ROMIO).
coll_expected="io/rdwrord io/setviewcur io/hindexed_io io/zero_count
io/simple_collective io/i_hindexed_io io/i_rdwrord io/i_setviewcur
io/i_aggregation1 io/i_aggregation2 io/i_coll_test io/i_darray_read
io/i_hindexed io/i_noncontig_coll io/i_noncontig_coll2 io/i_types_with_zeros
io/bigtype io/i_bigtype romio/coll_test romio/noncontig_coll
romio/noncontig_coll2 romio/split_coll romio/darray_read
romio/types_with_zeros romio/hindexed romio/aggregation1 romio/aggregation2
romio/big_extents"

progs=${EARTH_MPICH_IO_TESTS:-}
if [ -z "$progs" ]; then
    if [ $have_io = 1 ]; then
        progs=$(awk '!/^#/ && NF { print "io/" $1 }' "$t/io/testlist.in")
    fi
    if [ $have_romio = 1 ]; then
        for e in $romio_progs; do progs="$progs romio/$e"; done
    fi
fi

fails=0 npass=0 nskip=0
for dp in $progs; do
    d=${dp%%/*} p=${dp#*/}
    args=
    case $d in
    io)
        [ $have_io = 1 ] || { echo "skip $dp: EARTH_MPICH_SRC not set"; nskip=$((nskip + 1)); continue; }
        line=$(awk -v p="$p" '$1 == p' "$t/io/testlist.in")
        np=$(echo "$line" | awk '{ print $2 }')
        [ -n "$np" ] || { echo "FAIL $dp: not in testlist.in"; fails=$((fails + 1)); continue; }
        case $line in *arg=*) args=$(echo "$line" | sed 's/.*arg=\([^ ]*\).*/\1/') ;; esac
        case $p in
        bigtype | i_bigtype)
            if [ "${EARTH_TEST_BIG:-0}" != 1 ]; then
                echo "skip $dp: 2 GiB per call and 6.5 GB of memory (EARTH_TEST_BIG=1 runs it)"
                nskip=$((nskip + 1)); continue
            fi
            ;;
        esac
        cc_src=$t/io/$p.c cc_flags="-I$tmp -I$t/include" cc_objs=$objs
        ;;
    romio)
        [ $have_romio = 1 ] || { echo "skip $dp: no ROMIO test directory"; nskip=$((nskip + 1)); continue; }
        ent=$(romio_entry "$p")
        np=${ent%% *} args=${ent#* }
        case " $(echo $romio_progs) " in *" $p "*) ;; *) np= ;; esac
        [ -n "$np" ] || { echo "FAIL $dp: not in the ROMIO list"; fails=$((fails + 1)); continue; }
        cc_src=$rdir/$p.c cc_flags= cc_objs=
        ;;
    *) echo "FAIL $dp: use io/NAME or romio/NAME"; fails=$((fails + 1)); continue ;;
    esac
    exe=$tmp/$d-$p
    # shellcheck disable=SC2086
    if ! mpicc -O1 -w $cc_flags -o "$exe" "$cc_src" $cc_objs 2>"$exe.cc"; then
        echo "FAIL $dp: does not compile"; head -3 "$exe.cc"; fails=$((fails + 1)); continue
    fi
    for mode in direct earth; do
        w=$tmp/$d-$p.$mode
        mkdir -p "$w"
        a=$(echo "$args" | sed "s|FILE|$w/testfile|g")
        if [ $mode = earth ]; then
            set -- env LD_PRELOAD="$lib" EARTH_LOG=3
        else
            set -- env
        fi
        # shellcheck disable=SC2086
        (cd "$w" && "$@" "$run" -n "$np" -t 300 "$exe" $a) >"$w.out" 2>"$w.err"
        echo $? >"$w.rc"
    done
    base=$tmp/$d-$p
    rc_d=$(cat "$base.direct.rc") rc_e=$(cat "$base.earth.rc")
    ok_d=$(grep -ci 'no errors' "$base.direct.out") ok_e=$(grep -ci 'no errors' "$base.earth.out")
    nb_done=$(grep -c 'nonblocking collective .* done' "$base.earth.err")
    nb_handed=$(grep -c 'nonblocking call handed to ROMIO' "$base.earth.err")
    by=$(($(grep -c 'by EARTH' "$base.earth.err") + nb_done - nb_handed))
    handed=$(grep -c 'handed to ROMIO' "$base.earth.err")
    nf=0 files=identical
    for f in "$base.direct"/*; do
        [ -e "$f" ] || continue
        nf=$((nf + 1))
        cmp -s "$f" "$base.earth/$(basename "$f")" || files=DIFFER
    done
    [ "$(ls "$base.earth" | wc -l)" -eq $nf ] || files=DIFFER
    if why=$(nondet_reason "$dp"); then
        [ $files = DIFFER ] && files="differ, not compared: $why" || files="identical (not required: $why)"
    fi
    need_by=0
    case " $(echo $coll_expected) " in *" $dp "*) need_by=1 ;; esac
    ok=1
    [ "$rc_d" = "$rc_e" ] || ok=0
    [ "$rc_e" = 124 ] && ok=0
    [ "$ok_d" = "$ok_e" ] || ok=0
    # a program without the verdict line (big_extents prints one line per
    # type) must print the same
    if [ "$ok_d" -eq 0 ]; then
        cmp -s "$base.direct.out" "$base.earth.out" && [ "$rc_d" = 0 ] || ok=0
    fi
    [ "$files" = DIFFER ] && ok=0
    [ $need_by = 1 ] && [ "$by" -eq 0 ] && ok=0
    msg="$np ranks, status $rc_d/$rc_e, 'No Errors' $ok_d/$ok_e, $nf file(s) $files, EARTH collective calls $by, handed to ROMIO $handed"
    if [ $ok = 1 ]; then
        echo "ok   $dp: $msg"; npass=$((npass + 1))
    else
        echo "FAIL $dp: $msg"
        tail -n 4 "$base.direct.out" "$base.earth.out" "$base.earth.err" 2>/dev/null | sed 's/^/    /'
        fails=$((fails + 1))
    fi
    rm -rf "$base.direct" "$base.earth"
done
echo "MPI-IO programs: $npass passed, $fails failed, $nskip not run"
[ $fails -eq 0 ] && [ $npass -gt 0 ]
