#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_check_load.sh: test/check-load.sh (make check-load) passes the
# command's status through, and its busy loops and the command end with it,
# also when it is terminated.
set -u
cl=${abs_top_srcdir:-.}/test/check-load.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-load.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; fails=$((fails + 1)); }
left() { # the busy loops named in FILE that still run
    for p in $(sed -n 's/.*(pids\(.*\)) at the default.*/\1/p' "$1"); do
        kill -0 "$p" 2>/dev/null && echo "$p"
    done
}
ncpu=$(nproc)
sh "$cl" sh -c 'exit 3' >"$tmp/a" 2>&1
st=$?
[ "$st" -eq 3 ] && pass "status 3 passed through" || fail "status $st, want 3"
[ "$(grep -c '^check-load: load average \(before\|after\)' "$tmp/a")" -eq 2 ] &&
    pass "load average printed before and after" || fail "no load averages: $(cat "$tmp/a")"
grep -q "^check-load: $ncpu busy loops" "$tmp/a" && pass "$ncpu busy loops" ||
    fail "not $ncpu busy loops: $(cat "$tmp/a")"
[ -z "$(left "$tmp/a")" ] && pass "busy loops gone after the command" || fail "busy loops left: $(left "$tmp/a")"
# Terminated while the command runs: the command's process group and the
# busy loops end too.
sh "$cl" sh -c "sleep 300 # $tmp" >"$tmp/b" 2>&1 &
job=$!
i=0
while ! grep -q '^check-load: running (pid' "$tmp/b" && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM "$job"
wait "$job"
st=$?
[ "$st" -eq 143 ] && pass "terminated: status 143" || fail "terminated: status $st, want 143"
[ -z "$(left "$tmp/b")" ] && pass "busy loops gone after SIGTERM" || fail "busy loops left: $(left "$tmp/b")"
# The command's process group (setsid: its pid) is gone too; the
# processes in it may take a moment to act on SIGTERM.
pg=$(sed -n 's/^check-load: running (pid \([0-9]*\)).*/\1/p' "$tmp/b")
if [ -z "$pg" ]; then
    fail "no command pid printed: $(cat "$tmp/b")"
elif command -v setsid >/dev/null 2>&1; then
    i=0
    while kill -0 -"$pg" 2>/dev/null && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    kill -0 -"$pg" 2>/dev/null && fail "process group $pg left after SIGTERM: $(ps -o pid=,args= -g "$pg")" ||
        pass "command's process group gone after SIGTERM"
fi
[ "$fails" -eq 0 ]
