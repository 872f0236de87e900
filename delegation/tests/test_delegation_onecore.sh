#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Run the multi-client delegation test with every thread on one CPU: no wait
# may spin without yielding, or this run would crawl or hang (the test's own
# alarm then fails it).
here=$(dirname "$0")
prog="$here/test_delegation_multi"
[ -x "$prog" ] || prog="${abs_top_builddir:-.}/delegation/tests/test_delegation_multi"
[ -x "$prog" ] || { echo "test_delegation_multi not built" >&2; exit 99; }
command -v taskset >/dev/null 2>&1 || { echo "taskset not found: skip" >&2; exit 77; }
# The first CPU this process may use ("taskset -c 0" when CPU 0 is allowed).
cpu=$(taskset -cp $$ | sed 's/.*: //; s/[,-].*//')
[ -n "$cpu" ] || exit 99
echo "running $prog on CPU $cpu only"
DLG_TEST_ITERS=${DLG_TEST_ITERS:-2000} exec taskset -c "$cpu" "$prog"
