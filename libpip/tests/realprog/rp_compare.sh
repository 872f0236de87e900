#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# rp_compare.sh NAME PROGRAM [ARG...]: run PROGRAM alone, then as N PiP
# tasks (pip-exec -n N, N from RP_NTASKS, default "1 8 64") in each mode of
# RP_MODES (default "process thread").  Passes when every run exits with the
# status of the lone run and its standard output, sorted, is the lone run's
# output N times, sorted (tasks print in any order).  With more tasks than
# PIP_NAMESPACES (default 8), tasks share a libc copy and so its stdout
# buffer, as threads of one program do (libpip(7)): a program that writes a
# line in pieces (figlet: a putchar per character) may have its lines
# interleaved with another task's.  There the output must still hold the
# lone run's bytes N times (same bytes, same counts, in any order), and the
# pass line says that lines interleaved.  Standard input is /dev/null.
# Needs PIP_EXEC (the pip-exec to use).  Exit 0 if all pass.
name=$1
shift
: "${PIP_EXEC:?PIP_EXEC not set}"
: "${RP_NTASKS:=1 8 64}"
: "${RP_MODES:=process thread}"
ns=${PIP_NAMESPACES:-8}
# bytes FILE: FILE's bytes, one per line, sorted (a multiset of bytes).
bytes() {
    od -An -v -tx1 "$1" | tr -s ' ' '\n' | sed '/^$/d' | sort
}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
timeout -s KILL 60 "$@" </dev/null >"$tmp/alone" 2>"$tmp/alone.err"
want_rc=$?
fails=0
for mode in $RP_MODES; do
    for n in $RP_NTASKS; do
        i=0
        : >"$tmp/want"
        while [ $i -lt "$n" ]; do
            cat "$tmp/alone" >>"$tmp/want"
            i=$((i + 1))
        done
        sort "$tmp/want" >"$tmp/want.s"
        # Thread mode refuses to make tasks share a libc copy unless asked
        # to (more than 15 tasks): these runs ask.
        PIP_SHARE_NAMESPACES=1 PIP_MODE=$mode \
            timeout -s KILL 120 "$PIP_EXEC" -n "$n" "$@" \
            </dev/null >"$tmp/got" 2>"$tmp/got.err"
        rc=$?
        sort "$tmp/got" >"$tmp/got.s"
        what="$name, $mode mode, -n $n"
        if [ $rc -ne $want_rc ]; then
            echo "FAIL: $what: exit status $rc, alone $want_rc"
        elif ! cmp -s "$tmp/want.s" "$tmp/got.s" && [ "$n" -gt "$ns" ] &&
            bytes "$tmp/want" >"$tmp/want.b" && bytes "$tmp/got" >"$tmp/got.b" &&
            cmp -s "$tmp/want.b" "$tmp/got.b"; then
            echo "PASS: $what ($(wc -c <"$tmp/got") bytes, all there; lines" \
                "interleaved: $n tasks share $ns libc copies' stdout)"
            continue
        elif ! cmp -s "$tmp/want.s" "$tmp/got.s"; then
            echo "FAIL: $what: output differs from $n lone runs" \
                "($(wc -l <"$tmp/got.s") lines, want $(wc -l <"$tmp/want.s");" \
                "sorted, - want + got)"
            diff -u "$tmp/want.s" "$tmp/got.s" | sed -n '3,20p'
        else
            echo "PASS: $what ($(wc -l <"$tmp/got.s") lines)"
            continue
        fi
        fails=$((fails + 1))
        echo "--- stderr:"
        sed -n '1,20p' "$tmp/got.err"
    done
done
[ $fails -eq 0 ]
