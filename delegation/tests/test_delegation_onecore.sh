#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Run the multi-client delegation test (threads), the separate-process
# test and the PiP test (when built) with every thread on one CPU: no wait may spin without yielding, or
# these runs would crawl or hang (the programs' own alarms then fail them).
here=$(dirname "$0")
dir="$here"
[ -x "$dir/test_delegation_multi" ] || dir="${abs_top_builddir:-.}/delegation/tests"
for p in test_delegation_multi test_delegation_proc; do
    [ -x "$dir/$p" ] || { echo "$p not built" >&2; exit 99; }
done
command -v taskset >/dev/null 2>&1 || { echo "taskset not found: skip" >&2; exit 77; }
# The first CPU this process may use ("taskset -c 0" when CPU 0 is allowed).
cpu=$(taskset -cp $$ | sed 's/.*: //; s/[,-].*//')
[ -n "$cpu" ] || exit 99
progs="test_delegation_multi test_delegation_proc"
# PiP mode (root = delegatee, tasks = clients), when libpip is built
[ -x "$dir/test_delegation_pip" ] && progs="$progs test_delegation_pip"
for p in $progs; do
    echo "running $p on CPU $cpu only"
    DLG_TEST_ITERS=${DLG_TEST_ITERS:-2000} taskset -c "$cpu" "$dir/$p" || exit $?
done
# The cross-memory-attach case too, unless this machine refuses it (77).
echo "running test_delegation_proc (cma) on CPU $cpu only"
DLG_PROC_GROUP=cma DLG_TEST_ITERS=${DLG_TEST_ITERS:-2000} taskset -c "$cpu" "$dir/test_delegation_proc"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 77 ] || exit $rc
