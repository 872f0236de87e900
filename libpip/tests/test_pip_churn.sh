#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_churn.sh: a root spawns and reaps 3000 short process-mode tasks
# (/bin/true), 64 alive at a time (pip_bench_churn --drain: at each report
# no task is alive).  Every task must exit 0, and what ended tasks leave
# must be bounded: from the report after 1000 tasks to the one after 3000,
# the root's mapping count may grow by at most 8 and its PSS by at most
# 1 MiB (each task maps about 20 mappings and 100 KiB of its own).
: "${abs_top_builddir:?}"
b=$abs_top_builddir/libpip/bench/pip_bench_churn
[ -x "$b" ] || { echo "SETUP: $b not built"; exit 99; }
exec timeout -s KILL 900 "$b" --tasks 3000 --alive 64 --every 1000 --drain \
    --max-growth 8 --max-pss-growth 1024 /bin/true
