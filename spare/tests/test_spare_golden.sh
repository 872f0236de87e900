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
bad 2 -d 10x10 -a
bad 1 --scenario "$tmp/missing.scn"
printf 'dims 5x5\nalloc 2D(1,1)\nfail 9,9\n' >"$tmp/b1.scn"
bad 1 --scenario "$tmp/b1.scn"
printf 'dims 5x5\nalloc 2D(1,1)\ncolour red\n' >"$tmp/b2.scn"
bad 1 --scenario "$tmp/b2.scn"
printf 'dims 5x5\nalloc 2D(1,1)\nrouting yx\nfail 1,1\n' >"$tmp/b3.scn"
bad 1 --scenario "$tmp/b3.scn"
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
exit $fail
