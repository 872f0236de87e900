#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_usererr.sh: what users see.
#  - A root linked without `pipcc --piproot` that spawns a task with
#    thread-local storage is told to link the root with pipcc --piproot
#    (not strerror(ELIBEXEC), "Cannot exec a shared library directly").
#  - pip.h compiles under strict ISO C (-std=c99, -std=c11).
#  - Process-mode tasks are not <defunct> in ps while they run, and their
#    process name (comm) is the program's.
: "${abs_top_srcdir:?}" "${abs_top_builddir:?}" "${PIP_EXEC:?}"
cc=${CC:-cc}
tests=$abs_top_builddir/libpip/tests
tmp=$(mktemp -d) || exit 99
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# 1. A root without a TLS reserve (thread mode refuses the task).
if ! "$tests/pipcc" -o "$tmp/root" "$abs_top_srcdir/libpip/tests/pipcc_root.c" ||
    ! "$tests/pipcc" -o "$tmp/task" "$abs_top_srcdir/libpip/tests/pipcc_task.c"; then
    echo "SETUP: pipcc cannot build the root and task" >&2
    exit 99
fi
# Process mode: the task's own loader sets up its TLS: no reserve needed.
PIP_MODE=process timeout -s KILL 60 "$tmp/root" 1 "$tmp/task" >"$tmp/out" 2>"$tmp/err"
if grep -q '^task pipid 0 tls 1002 global 1$' "$tmp/out"; then
    echo "PASS: process mode: a root without TLS room runs a task with __thread data"
else
    fail "process mode, root without TLS room: stdout '$(cat "$tmp/out")' stderr '$(cat "$tmp/err")'"
fi
# Thread mode: the task's TLS goes in the root's reserve.
PIP_MODE=thread timeout -s KILL 60 "$tmp/root" 1 "$tmp/task" >"$tmp/out" 2>"$tmp/err"
if grep -q 'pipcc --piproot' "$tmp/err" &&
    ! grep -q 'Cannot exec a shared library' "$tmp/out" "$tmp/err"; then
    echo "PASS: a root without TLS room is told to link with pipcc --piproot"
else
    fail "root without TLS room: stdout '$(cat "$tmp/out")' stderr '$(cat "$tmp/err")'"
fi

# 2. pip.h under strict ISO C.
printf '#include <pip/pip.h>\nint main(void) { return pip_is_initialized(); }\n' \
    >"$tmp/h.c"
for std in c99 c11; do
    if "$cc" -std=$std -pedantic -Wall -Werror -c -o "$tmp/h.o" \
        -I"$abs_top_srcdir/libpip/include" -I"$abs_top_builddir/libpip/include" \
        "$tmp/h.c" 2>"$tmp/cc.err"; then
        echo "PASS: pip.h compiles with -std=$std"
    else
        fail "pip.h with -std=$std: $(head -3 "$tmp/cc.err")"
    fi
done

# 3. ps: process-mode tasks, while they run.
gate=$tmp/gate
mkfifo "$gate" || exit 99
PIP_MODE=process "$PIP_EXEC" -n 2 "$tests/task_plain" waitfd 9 9<"$gate" \
    >/dev/null 2>&1 &
root=$!
pids=$root
exec 8>"$gate" # the tasks block until this end is written or closed
n=0
tasks=
while [ $n -lt 100 ]; do
    tasks=$(ps -o pid= --ppid "$root" 2>/dev/null)
    [ "$(echo "$tasks" | wc -w)" -eq 2 ] && break
    sleep 0.1
    n=$((n + 1))
done
sleep 0.3
if [ "$(echo "$tasks" | wc -w)" -ne 2 ]; then
    fail "ps: 2 task processes expected under pip-exec, found '$tasks'"
else
    for p in $tasks; do
        st=$(ps -o stat= -p "$p")
        comm=$(ps -o comm= -p "$p")
        case $st in
        Z*) fail "ps: task $p is defunct ($st)" ;;
        *) echo "PASS: task $p state $st" ;;
        esac
        if [ "$comm" = task_plain ]; then
            echo "PASS: task $p is named $comm"
        else
            fail "ps: task $p is named '$comm', not task_plain"
        fi
    done
fi
printf xx >&8 # one byte for each task
exec 8>&-
wait "$root"
rc=$?
pids=
[ $rc -eq 0 ] || fail "pip-exec exit status $rc"
[ $fails -eq 0 ]
