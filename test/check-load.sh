#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# check-load.sh COMMAND [ARG...]: run COMMAND (make check, for `make
# check-load`) while one plain busy loop per CPU of the affinity mask runs
# at the default priority, so that the command gets about half the
# machine, as on a shared build host.  Prints the load average before and
# after and the time taken; the busy loops end with the script (normal
# end, failure, SIGINT, SIGTERM, SIGHUP).  Exit status: COMMAND's (130,
# 143, 129 when interrupted).
set -u
[ $# -ge 1 ] || { echo "usage: check-load.sh COMMAND [ARG...]" >&2; exit 2; }
ncpu=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
hogs=
cmd=
launching=
stop_cmd() { # the command and what it started (its process group)
    # A signal between the fork and "cmd=$!" finds cmd empty: $! then
    # names the command already.
    [ -n "$cmd" ] || { [ -n "$launching" ] && cmd=$!; } || return 0
    # The group may not exist yet (setsid not run yet): the command itself
    # then; after it ended, what a late setsid left in its group.
    kill -TERM -"$cmd" 2>/dev/null
    kill -TERM "$cmd" 2>/dev/null
    wait "$cmd" 2>/dev/null
    kill -TERM -"$cmd" 2>/dev/null
    cmd=
}
stop_hogs() {
    [ -n "$hogs" ] || return 0
    # shellcheck disable=SC2086
    # SIGKILL: a loop that got SIGTERM before its "trap -" ran would take
    # it as the inherited trap's and go on.
    kill -KILL $hogs 2>/dev/null
    for p in $hogs; do wait "$p" 2>/dev/null; done
    hogs=
}
trap 'stop_hogs' EXIT
trap 'stop_cmd; stop_hogs; exit 130' INT
trap 'stop_cmd; stop_hogs; exit 143' TERM
trap 'stop_cmd; stop_hogs; exit 129' HUP
echo "check-load: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ "$i" -lt "$ncpu" ]; do
    # Each loop also ends when this script has gone (a signal between
    # the fork and the pid's record leaves it out of $hogs).
    (trap - EXIT INT TERM HUP; while kill -0 $$ 2>/dev/null; do :; done) &
    hogs="$hogs $!"
    i=$((i + 1))
done
echo "check-load: $ncpu busy loops (pids$hogs) at the default priority"
t0=$(date +%s)
# In a session (and process group) of its own, which stop_cmd ends as a
# whole; without setsid(1), SIGTERM to make still reaches the tests (make
# passes it on).
launching=1
if command -v setsid >/dev/null 2>&1; then
    setsid "$@" &
else
    "$@" &
fi
cmd=$!
echo "check-load: running (pid $cmd): $*"
# wait returns early when a trapped signal arrives; the trap then exits
wait "$cmd"
st=$?
cmd=
t1=$(date +%s)
echo "check-load: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
stop_hogs
echo "check-load: '$*' exited with status $st after $((t1 - t0)) s"
exit "$st"
