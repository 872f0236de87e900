#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_demo.sh: the README's demo, `pip-exec -n 8 examples/pip_demo`, in
# both modes: 8 tasks, 8 distinct private counters 1..8, every neighbour read
# correct, distinct PIDs in process mode and one PID in thread mode; and
# -n 1 (a task that is its own neighbour) in both modes.
set -u
bdir=${abs_top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
pipexec=${PIP_EXEC:-$bdir/libpip/pip-exec}
demo=$bdir/examples/pip_demo
fails=0
check() {
    if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}

for mode in process thread; do
    out=$(PIP_MODE=$mode timeout 120 "$pipexec" -n 8 "$demo" 2>&1)
    status=$?
    printf '%s\n' "$out" | sed "s/^/[$mode] /"
    check "$mode: exit status 0" '[ "$status" -eq 0 ]'
    ok=$(printf '%s\n' "$out" | grep -c '^task [0-7]/8 pid [0-9]*: .* OK$')
    check "$mode: 8 tasks report OK" '[ "$ok" -eq 8 ]'
    counters=$(printf '%s\n' "$out" | sed -n 's/^task \([0-7]\)\/8 .*counter=\([0-9]*\) (private).*/\1 \2/p' | sort -n)
    want=$(printf '0 1\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n7 8')
    check "$mode: private counters are pipid+1" '[ "$counters" = "$want" ]'
    pids=$(printf '%s\n' "$out" | sed -n 's/^task [0-7]\/8 pid \([0-9]*\):.*/\1/p' | sort -u | wc -l)
    if [ "$mode" = process ]; then
        check "process: 8 distinct PIDs" '[ "$pids" -eq 8 ]'
    else
        check "thread: one PID" '[ "$pids" -eq 1 ]'
    fi
    # One task is its own neighbour and still passes every check.
    out=$(PIP_MODE=$mode timeout 60 "$pipexec" -n 1 "$demo" 2>&1)
    status=$?
    printf '%s\n' "$out" | sed "s/^/[$mode -n 1] /"
    check "$mode -n 1: exit status 0, OK" \
        '[ "$status" -eq 0 ] && printf "%s\n" "$out" | grep -q "^task 0/1 .* OK$"'
done
[ "$fails" -eq 0 ]
