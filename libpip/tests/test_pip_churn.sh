#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_churn.sh: a root spawns and reaps 1500 short process-mode tasks
# (/bin/true), 64 alive at a time (pip_bench_churn).  Every task must exit
# 0, and the root's mapping count may grow by less than one mapping per
# task: each task maps about 20 (its loader copy, libc, program, stack),
# which reaping returns.
: "${abs_top_builddir:?}"
b=$abs_top_builddir/libpip/bench/pip_bench_churn
[ -x "$b" ] || { echo "SETUP: $b not built"; exit 99; }
exec timeout -s KILL 600 "$b" --tasks 1500 --alive 64 --every 500 \
    --max-growth 1500 /bin/true
