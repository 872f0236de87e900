#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_spare_golden.sh: spare-sim against the golden scenarios (input
# spare/scenarios/NAME.scn, expected output NAME.expected), and its
# handling of bad arguments (one line on stderr, non-zero exit).
set -u
top_src=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_build=${abs_top_builddir:-$top_src}
sim=$top_build/spare/spare-sim
dir=$top_src/spare/scenarios
[ -x "$sim" ] || { echo "spare-sim not built: $sim"; exit 99; }
fail=0
n=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
for scn in "$dir"/*.scn; do
    name=$(basename "$scn" .scn)
    n=$((n + 1))
    if ! "$sim" --scenario "$scn" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
        echo "FAIL $name: exit status $? ($(cat "$tmp/$name.err"))"
        fail=1
    elif ! diff -u "$dir/$name.expected" "$tmp/$name.out"; then
        echo "FAIL $name: output differs from $name.expected"
        fail=1
    else
        echo "ok $name"
    fi
done
[ "$n" -ge 8 ] || { echo "FAIL: only $n scenarios found in $dir"; fail=1; }

# Bad input: exit status 2 (1 for a bad scenario file) and exactly one line.
bad() {
    want=$1
    shift
    "$sim" "$@" >/dev/null 2>"$tmp/err"
    st=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$st" -ne "$want" ] || [ "$lines" -ne 1 ]; then
        echo "FAIL bad args '$*': status $st (want $want), $lines lines:"
        cat "$tmp/err"
        fail=1
    else
        echo "ok bad args '$*': $(cat "$tmp/err")"
    fi
}
bad 2 --bogus
bad 2 -d 10x10
bad 2 -d 10x10 -a '3D(1,1)' -f 2
bad 2 -d 10xx10 -a '2D(1,1)' -f 2
bad 2 -d 10x10 -a '2D(1,1)' -m 3D -f 2
bad 2 -d 10x10 -a '2D(1,1)' -m 'hybrid(1D+2D)' -f 2
bad 2 -d 10x10 -a '2D(1,1)' -p 7p -f 2
bad 2 -d 10x10 -a '2D(1,1)' -M sometimes -f 2
bad 2 -d 10x10 -a '2D(1,1)' -f 0
bad 2 -d 10x10 -a '2D(1,1)' -f x
bad 2 -d 10x10 -a '2D(1,1)'
bad 2 -d 10x10 -a '2D(1,1)' -M random
bad 2 -d 10x10 -a '2D(1,1)' -M random -n 5 -j 0
bad 2 -d 10x10 -a '2D(1,1)' -f 2 extra
bad 2 -d 10x10 -a '2D(1,1)' -R xy -f 2
bad 2 -d 10x10 -a '2D(1,1)' -C twice -f 2
bad 2 -d 10x10 -a '2D(1,1)' --qd-limit -3 -f 2
bad 2 -d 10x10 -a '2D(1,1)' -f 2 --export-failures 3 --export-worst x.scn
bad 2 -d 10x10 -a '2D(1,1)' -f 2 --export-failures 1
bad 2 -d 10x10 -a '2D(1,1)' -f 2 --load-svg x.svg
bad 2 -d 10x10 -a
bad 1 --scenario "$tmp/missing.scn"
printf 'dims 5x5\nalloc 2D(1,1)\nfail 9,9\n' >"$tmp/b1.scn"
bad 1 --scenario "$tmp/b1.scn"
printf 'dims 5x5\nalloc 2D(1,1)\ncolour red\n' >"$tmp/b2.scn"
bad 1 --scenario "$tmp/b2.scn"
printf 'dims 5x5\nalloc 2D(1,1)\nrouting yx\nfail 1,1\n' >"$tmp/b3.scn"
bad 1 --scenario "$tmp/b3.scn"
printf 'dims 5x5\nalloc 2D(1,1)\ncount some\nfail 1,1\n' >"$tmp/b4.scn"
bad 1 --scenario "$tmp/b4.scn"
printf 'dims 5x5\nalloc 2D(1,1)\nqd-limit 2x\nfail 1,1\n' >"$tmp/b5.scn"
bad 1 --scenario "$tmp/b5.scn"
bad 1 -d 6x6 -a '2D(1,1)' -f 1 -q -o /nonexistent/dir/x.csv

# A small exhaustive run writes the table header and one row per count.
if "$sim" -d 6x5 -a '2D(1,1)' -m 0D -m 1D -f 2 -q >"$tmp/t.csv" 2>"$tmp/t.err"; then
    rows=$(grep -c '^[01]D,' "$tmp/t.csv")
    if [ "$rows" -eq 6 ] && grep -q '^method,failures,cases,unrecoverable,worst,average,best$' "$tmp/t.csv"; then
        echo "ok csv table"
    else
        echo "FAIL csv table:"; cat "$tmp/t.csv"; fail=1
    fi
else
    echo "FAIL small run: $(cat "$tmp/t.err")"; fail=1
fi
# --export-worst round trip: the exported failure pattern, replayed as a
# scenario, gives the worst count of the study (exhaustive and random; the
# worst of all failure counts and one chosen count).
last_count() { grep -o 'collisions [0-9]*$' "$1" | tail -1 | cut -d' ' -f2; }
worst_of() { # CSV [F]: the largest worst of the table, or the one at F
    awk -F, -v f="${2:-}" '$1 !~ /^(#|method)/ && (f == "" || $2 == f) &&
        $5 > w { w = $5 } END { print w + 0 }' "$1"
}
roundtrip() { # NAME [F] -- spare-sim arguments
    name=$1 f=$2
    shift 3
    if [ -n "$f" ]; then set -- "$@" --export-failures "$f"; fi
    if ! "$sim" "$@" -q -o "$tmp/$name.csv" --export-worst "$tmp/$name.scn" \
        2>"$tmp/$name.err" ||
        ! "$sim" --scenario "$tmp/$name.scn" >"$tmp/$name.out" 2>>"$tmp/$name.err"; then
        echo "FAIL export $name: $(cat "$tmp/$name.err")"
        fail=1
        return
    fi
    want=$(worst_of "$tmp/$name.csv" "$f")
    got=$(last_count "$tmp/$name.out")
    nf=$(grep -c '^fail ' "$tmp/$name.scn")
    if [ "$want" -ge 1 ] && [ "$got" = "$want" ] &&
        { [ -z "$f" ] || [ "$nf" -eq "$f" ]; } &&
        grep -q '^busiest link ' "$tmp/$name.out"; then
        echo "ok export $name: $nf failures replay to $got collisions"
    else
        echo "FAIL export $name: study worst $want, replay $got ($nf failures)"
        cat "$tmp/$name.scn"
        fail=1
    fi
}
roundtrip sets0d "" -- -d 13x5 -a '2D(1,1)' -p 5p -m 0D -f 4 -C paper
roundtrip orders-hybrid 3 -- -d 7x7 -a '2D(2,1)' -m 'hybrid(all)' -M orders -f 3
roundtrip random3d "" -- -d 8x8x6 -a '3D(2,1)' -p 7p -m 'hybrid(all)' -M random \
    -n 30 -f 40 -C paper -j 2
roundtrip torus 5 -- -d 10tx6t -a '2D(1,1)' -m 0D --periodic -M random -n 200 \
    -f 6 -C paper --qd-limit none -R sym
# the exported worst case of the paper's rule on 13x5 is 2F+1 = 9 at F = 4
[ "$(worst_of "$tmp/sets0d.csv" 4)" = 9 ] || { echo "FAIL 13x5 F=4 is not 9"; fail=1; }

# The link-load map of a scenario is an SVG with one line per drawn link.
if "$sim" --scenario "$dir/0d-fig6-right-paper.scn" --load-svg "$tmp/map.svg" \
    >/dev/null 2>"$tmp/map.err" && grep -q '^<svg ' "$tmp/map.svg" &&
    [ "$(grep -c '<line ' "$tmp/map.svg")" -ge $((2 * (16 * 12 + 17 * 11))) ] &&
    grep -q '>24</text>' "$tmp/map.svg"; then
    echo "ok load map"
else
    echo "FAIL load map: $(cat "$tmp/map.err")"; fail=1
fi
exit $fail
