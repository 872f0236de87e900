#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Unmodified MPI-IO programs (ROMIO's own test programs, from
# the MPICH source package) give the same results with libmpiio-earth in
# LD_PRELOAD as without: same exit status, same "No Errors" verdict, and
# byte-identical output files.  The programs are compiled from the source
# at check time; nothing of them is in this tree.
#
#   EARTH_ROMIO_TEST_DIR=.../mpich-4.0.2/src/mpi/romio/test make check
#
# (apt-get source mpich gives that directory.)  Without it the test skips.
# EARTH_ROMIO_TESTS overrides the list of programs.
dir=${EARTH_ROMIO_TEST_DIR:-}
if [ -z "$dir" ] || [ ! -f "$dir/coll_test.c" ]; then
    echo "SKIP: set EARTH_ROMIO_TEST_DIR to ROMIO's test directory (apt-get source mpich)"
    exit 77
fi
[ -n "$MPI_RUN" ] || { echo "MPI_RUN not set" >&2; exit 99; }
lib=${abs_top_builddir:-.}/mpiio-earth/.libs/libmpiio-earth.so
[ -f "$lib" ] || { echo "missing $lib" >&2; exit 99; }
command -v mpicc >/dev/null 2>&1 || { echo "SKIP: mpicc not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/earth-romio.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
# EARTH itself, not its hand-over to ROMIO on one node (earth_enable=auto)
export EARTH_ENABLE=enable
progs=${EARTH_ROMIO_TESTS:-coll_test noncontig_coll noncontig_coll2 split_coll darray_read types_with_zeros hindexed}
status=0
for p in $progs; do
    if ! mpicc -O1 -w -o "$tmp/$p" "$dir/$p.c" 2>"$tmp/$p.cc"; then
        echo "FAIL $p: does not compile:"; cat "$tmp/$p.cc"; status=1; continue
    fi
    # the rank counts and argument styles the programs expect
    np=4
    fopt=-fname
    case $p in
    noncontig_coll) np=2 ;;
    types_with_zeros) np=2; fopt= ;;
    hindexed | darray_read) fopt= ;; # the file name is argv[1]
    esac
    for mode in romio earth; do
        mkdir -p "$tmp/$mode-$p"
        if [ $mode = earth ]; then
            set -- env LD_PRELOAD="$lib" PVAS_LOG=earth:debug
        else
            set -- env
        fi
        "$@" "$MPI_RUN" -n $np -t 120 "$tmp/$p" $fopt "$tmp/$mode-$p/file" \
            >"$tmp/$mode-$p.out" 2>"$tmp/$mode-$p.err"
        echo $? >"$tmp/$mode-$p.rc"
    done
    rc_r=$(cat "$tmp/romio-$p.rc"); rc_e=$(cat "$tmp/earth-$p.rc")
    ok_r=$(grep -c 'No Errors' "$tmp/romio-$p.out"); ok_e=$(grep -c 'No Errors' "$tmp/earth-$p.out")
    opens=$(grep -c '^earth\[[0-9]*[^]]*\]: open' "$tmp/earth-$p.err")
    handed=$(grep -c 'handed to ROMIO' "$tmp/earth-$p.err")
    done_by=$(grep -c 'by EARTH' "$tmp/earth-$p.err")
    files=identical
    nf=0
    for f in "$tmp/romio-$p"/*; do
        [ -e "$f" ] || continue
        nf=$((nf + 1))
        cmp -s "$f" "$tmp/earth-$p/$(basename "$f")" || files=DIFFER
    done
    [ "$(ls "$tmp/earth-$p" | wc -l)" -eq $nf ] || files=DIFFER
    verdict=$files
    files="$files ($nf left by the program)"
    if [ "$rc_r" = "$rc_e" ] && [ "$ok_r" = "$ok_e" ] && [ "$verdict" = identical ] && [ "$opens" -gt 0 ] && [ "$done_by" -gt 0 ]; then
        echo "ok   $p: status $rc_e, 'No Errors' x$ok_e, files $files, EARTH opens $opens, collective calls by EARTH $done_by, handed to ROMIO $handed"
    else
        echo "FAIL $p: status romio $rc_r / earth $rc_e, 'No Errors' $ok_r / $ok_e, files $files, EARTH opens $opens, calls by EARTH $done_by"
        tail -n 5 "$tmp/earth-$p.out" "$tmp/earth-$p.err"
        status=1
    fi
done
exit $status
