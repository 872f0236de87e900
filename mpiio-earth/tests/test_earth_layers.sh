#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The files of libmpiio-earth call each other in layers, with no circle:
# an edge A -> B for every symbol A's object uses and B's defines (nm),
# sorted by tsort(1), which reports any loop.  Expected order, bottom up:
# hints, fsemu, io, flatten; file (state); plan, pipe; coll; async;
# open and api (the MPI_File_* entry points).
top=${abs_top_builddir:-.}/mpiio-earth/src
command -v nm >/dev/null && command -v tsort >/dev/null ||
    { echo "SKIP: needs nm and tsort (binutils, coreutils)"; exit 77; }
objs=
for lo in "$top"/libmpiio_earth_la-*.lo; do
    [ -f "$lo" ] || { echo "no objects of the library in $top" >&2; exit 99; }
    o=$(sed -n "s/^pic_object='\(.*\)'$/\1/p" "$lo")
    [ -z "$o" ] || [ "$o" = none ] && o=$(sed -n "s/^non_pic_object='\(.*\)'$/\1/p" "$lo")
    objs="$objs $top/$o"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/earth-layers.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
for o in $objs; do
    n=$(basename "$o" .o)
    n=${n#libmpiio_earth_la-}
    nm --defined-only -g "$o" | awk -v n="$n" 'NF == 3 { print $3, n }' >>"$tmp/defs"
    nm -u "$o" | awk -v n="$n" '{ print $NF, n }' >>"$tmp/uses"
    echo "$n $n" >>"$tmp/edges"
done
# user file -> defining file
awk 'NR == FNR { def[$1] = $2; next } ($1 in def) && def[$1] != $2 { print $2, def[$1] }' \
    "$tmp/defs" "$tmp/uses" | sort -u >>"$tmp/edges"
if ! tsort "$tmp/edges" >"$tmp/order" 2>"$tmp/err"; then
    echo "FAIL: the files of libmpiio-earth call each other in a circle:"
    cat "$tmp/err"
    exit 1
fi
n=$(wc -l <"$tmp/order")
[ "$n" -ge 10 ] || { echo "FAIL: only $n files found"; exit 1; }
echo "ok: $n files, no circle; callers first: $(tr '\n' ' ' <"$tmp/order")"
