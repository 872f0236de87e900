#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pipcompat.sh MODE BINDIR: run every PiP-style program of this directory
# (one per .exp file) in PiP mode MODE (process or thread) from BINDIR.
# A program passes when it exits 0 within 60 s and its stdout, sorted (tasks
# print in any order), equals its .exp file, sorted.  Exit 0 if all pass.
mode=$1
bindir=$2
srcdir=$(cd "$(dirname "$0")" && pwd)
if [ -z "$mode" ] || [ -z "$bindir" ]; then
    echo "usage: $0 process|thread BINDIR" >&2
    exit 99
fi
PIP_MODE=$mode
export PIP_MODE
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0
for exp in "$srcdir"/*.exp; do
    name=$(basename "$exp" .exp)
    prog=$bindir/$name
    n=$((n + 1))
    if [ ! -x "$prog" ]; then
        echo "SETUP: $prog not built" >&2
        exit 99
    fi
    timeout -s KILL 60 "$prog" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    sort "$tmp/$name.out" >"$tmp/$name.sorted"
    sort "$exp" >"$tmp/$name.want"
    if [ $rc -ne 0 ]; then
        echo "FAIL: $name ($mode mode): exit status $rc"
        fails=$((fails + 1))
    elif ! cmp -s "$tmp/$name.sorted" "$tmp/$name.want"; then
        echo "FAIL: $name ($mode mode): output differs (sorted; - expected, + got)"
        diff -u "$tmp/$name.want" "$tmp/$name.sorted" | sed -n '3,$p'
        fails=$((fails + 1))
    else
        echo "PASS: $name ($mode mode)"
        continue
    fi
    echo "--- stderr of $name:"
    cat "$tmp/$name.err"
done
echo "$((n - fails)) of $n PiP-style programs passed in $mode mode"
[ $fails -eq 0 ]
