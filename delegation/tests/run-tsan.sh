#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run-tsan.sh DIR TEST...: run the ThreadSanitizer builds of the delegation
# tests (make check-tsan); any data race or other TSan report fails.
# test_delegation_multi also runs pinned to one CPU, as in make check.
dir=$1
shift
TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
DLG_TEST_ITERS=${DLG_TEST_ITERS:-500}
export TSAN_OPTIONS DLG_TEST_ITERS
status=0
run() {
    echo "tsan: $*"
    "$@"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "tsan: FAIL ($rc): $*"
        status=1
    fi
}
for t in "$@"; do
    run "$dir/test_delegation_$t"
done
if command -v taskset >/dev/null 2>&1 && [ -x "$dir/test_delegation_multi" ]; then
    cpu=$(taskset -cp $$ | sed 's/.*: //; s/[,-].*//')
    run taskset -c "$cpu" "$dir/test_delegation_multi"
fi
[ $status -eq 0 ] && echo "tsan: all passed, no reports"
exit $status
