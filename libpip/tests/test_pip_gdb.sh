#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_gdb.sh: pip-gdb attaches to a running PiP program and sees its
# task: a breakpoint in the task's function is hit and the backtrace shows
# the task's frames (task_work, then the task's main), in both modes; and
# a thread-mode pip-exec started under pip-gdb stops in the task.  In
# thread mode gdb attaches to the root (the task is one of its threads); in
# process mode to the task's thread (pips -l gives its TID).  Batch gdb,
# everything under a timeout.  Skips (77) without gdb or when ptrace is
# not permitted.
top=${abs_top_builddir:-.}
t=$top/libpip/tests
gdbw=$t/pip-gdb
task=$t/task_gdb
pe=${PIP_EXEC:-$top/libpip/pip-exec}
pips=$top/libpip/pips
command -v gdb >/dev/null 2>&1 || { echo "SKIP: gdb is not installed"; exit 77; }
for f in "$gdbw" "$task" "$pe" "$pips"; do
    [ -x "$f" ] || { echo "SETUP: $f not built"; exit 99; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pip_gdb.XXXXXX") || exit 99
root=
cleanup() {
    [ -n "$root" ] && kill -9 "$root" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# ptrace allowed here?  Attach batch gdb to a sleeping child.
sleep 30 &
s=$!
timeout -s KILL 30 gdb -batch -nx -p "$s" -ex 'detach' >"$tmp/probe" 2>&1
kill "$s" 2>/dev/null
if grep -q -i "ptrace: Operation not permitted\|Could not attach" "$tmp/probe"; then
    echo "SKIP: ptrace is not permitted here"
    exit 77
fi

fail() {
    echo "FAIL: $*"
    echo "--- gdb output"; cat "$tmp/gdb.out"
    echo "--- pip-exec output"; cat "$tmp/exec.out"
    exit 1
}

"$gdbw" -h >"$tmp/gdb.out" 2>&1 && grep -q "pip-gdb -p PID" "$tmp/gdb.out" ||
    fail "pip-gdb -h: no usage"
for mode in thread process; do
    : >"$tmp/exec.out"
    PIP_MODE=$mode "$pe" -n 1 "$task" >"$tmp/exec.out" 2>&1 &
    root=$!
    i=0
    while ! grep -q '^ready ' "$tmp/exec.out"; do
        i=$((i + 1))
        [ $i -gt 300 ] && fail "$mode: the task did not start"
        sleep 0.1
    done
    target=$root
    if [ $mode = process ]; then
        target=$("$pips" -l -H -t -p "$root" | awk '{print $4; exit}')
        [ -n "$target" ] || fail "$mode: pips does not list the task"
    fi
    timeout -s KILL 120 "$gdbw" -batch -nx -p "$target" \
        -ex 'break task_work' \
        -ex 'set var *(volatile int *)&pip_gdb_go = 1' \
        -ex 'continue' -ex 'bt' -ex 'info threads' -ex 'pip-tasks' \
        -ex 'pip-symbols' \
        -ex 'kill' >"$tmp/gdb.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "$mode: pip-gdb exited with $rc"
    # process mode: a private image (its own loader's link map)
    what="namespace 1"
    [ $mode = process ] && what="private image"
    grep -q "pip-gdb: $what: .*task_gdb at 0x" "$tmp/gdb.out" ||
        fail "$mode: the task's symbols were not loaded"
    grep -q "^#0  .*task_work (.*) at .*task_gdb.c" "$tmp/gdb.out" ||
        fail "$mode: the breakpoint in task_work was not hit"
    grep -q "^#1  .* in main () at .*task_gdb.c" "$tmp/gdb.out" ||
        fail "$mode: bt does not show the task's main"
    grep -q "^$what: 0x[0-9a-f]* .*task_gdb$" "$tmp/gdb.out" ||
        fail "$mode: pip-tasks does not list the task's program"
    grep -q "^pip-gdb: 0 object(s) added$" "$tmp/gdb.out" ||
        fail "$mode: pip-symbols did not run (or added again)"
    kill -9 "$root" 2>/dev/null
    wait "$root" 2>/dev/null
    root=
    echo "$mode: breakpoint hit in the task, bt shows task_work and main"
done
# Thread mode from the start: a pending breakpoint in the task resolves
# when pip-gdb.py loads the task's namespace (glibc's link-map hook).
real=$top/libpip/.libs/pip-exec
[ -x "$real" ] || real=$pe
: >"$tmp/exec.out"
PIP_GDB_GO=1 PIP_MODE=thread LD_LIBRARY_PATH=$top/libpip/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    timeout -s KILL 120 "$gdbw" -batch -nx -ex 'set breakpoint pending on' \
    -ex 'break task_work' -ex 'run' -ex 'bt' -ex 'kill' \
    --args "$real" -n 1 "$task" >"$tmp/gdb.out" 2>&1 </dev/null
grep -q "^#0  .*task_work (.*) at .*task_gdb.c" "$tmp/gdb.out" ||
    fail "thread mode from the start: the breakpoint in task_work was not hit"
echo "thread mode from the start: breakpoint hit in the task"
exit 0
