#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# spare-exhaustive6.sh: the paper's 0D closed form on 2D(1,1), every set of
# up to 6 failed nodes on a 15x6 mesh (the smallest space holding the
# 2F+1 row construction at F = 6), the paper's counting rule, XY routing:
# the worst cases must be exactly 3, 5, 7, 9, 11, 13 (no set beats the
# construction).  About 0.5 G cases; minutes on 2 cores.
# Environment: SPARE_SIM (the spare-sim binary), SPARE_THREADS.
set -eu
sim=${SPARE_SIM:-spare-sim}
threads=${SPARE_THREADS:-$(nproc 2>/dev/null || echo 1)}
out=${1:-spare-exhaustive6.csv}
start=$(date +%s)
"$sim" -d 15x6 -a '2D(1,1)' -p 5p -m 0D -M sets -f 6 -C paper -q \
    -j "$threads" -o "$out"
end=$(date +%s)
got=$(awk -F, '$1 == "0D" && $2 > 0 { printf "%s%s", sep, $5; sep = " " }' "$out")
echo "spare-exhaustive6: 15x6, every set of 1..6 failures: worst $got" \
    "(closed form 3 5 7 9 11 13), $((end - start)) s"
[ "$got" = "3 5 7 9 11 13" ]
