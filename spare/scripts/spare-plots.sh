#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# spare-plots.sh OUTDIR: CSV tables and SVG plots equivalent to Figures 8
# and 10-15 of Hori et al., "Overhead of Using Spare Nodes", with the
# paper's counting rule (-C paper) and its limit of qD slidings.
# Environment: SPARE_SIM (the spare-sim binary); SPARE_PLOT_SCALE, the
# fraction of the paper's random sample counts (default 0.1; 1 reproduces
# the paper's counts); SPARE_SEED.
set -eu
out=${1:-spare-plots}
sim=${SPARE_SIM:-spare-sim}
scale=${SPARE_PLOT_SCALE:-0.1}
seed=${SPARE_SEED:-1}
mkdir -p "$out"
n() { awk -v a="$1" -v s="$scale" 'BEGIN { v = int(a * s + 0.5); print v < 1 ? 1 : v }'; }
run() { echo "spare-plots: $*" >&2; "$sim" -C paper "$@"; }

# Figure 8: exhaustive worst cases on small 2-D spaces, 5P stencil.
run -d 6x6 -a '2D(1,1)' -p 5p -M sets -f 6 -m 0D \
    --title 'Fig. 8: 0D, 2D(1,1), 6x6 mesh (exhaustive)' \
    -o "$out/fig8-0d-2d11-mesh.csv" --svg "$out/fig8-0d-2d11-mesh.svg"
run -d 6tx6t -a '2D(1,1)' -p 5p -M sets -f 6 -m 0D \
    --title 'Fig. 8: 0D, 2D(1,1), 6x6 torus (exhaustive)' \
    -o "$out/fig8-0d-2d11-torus.csv" --svg "$out/fig8-0d-2d11-torus.svg"
# The closed form 2F+1 needs 2F+3 columns: 13x5 up to F = 5; the paper's
# count gives 3, 5, 7, 9, 11; the two-way count (last option wins) gives 5
# at F = 1 with XY routing (Fig. 4) and 3 with symmetric routing.
run -d 13x5 -a '2D(1,1)' -p 5p -M sets -f 5 -m 0D \
    --title "Fig. 8: 0D, 2D(1,1), 13x5 mesh (exhaustive, paper's count)" \
    -o "$out/fig8-0d-2d11-13x5.csv" --svg "$out/fig8-0d-2d11-13x5.svg"
for rt in dor sym; do
    run -d 13x5 -a '2D(1,1)' -p 5p -M sets -f 5 -m 0D -R "$rt" -C both \
        --title "0D, 2D(1,1), 13x5 mesh (exhaustive, two-way count, routing $rt)" \
        -o "$out/fig8-0d-2d11-13x5-both-$rt.csv" \
        --svg "$out/fig8-0d-2d11-13x5-both-$rt.svg"
done
run -d 6x6 -a '2D(2,1)' -p 5p -M orders -f 4 -m 0D -m 1D -m 2D \
    --title 'Fig. 8: 0D, 1D, 2D sliding, 2D(2,1), 6x6 mesh (exhaustive)' \
    -o "$out/fig8-2d21.csv" --svg "$out/fig8-2d21.svg"

# Figures 10-13: random sampling, hybrid(all) (thick) against 0D.
run -d 100x100 -a '2D(2,1)' -p 5p -M random -n "$(n 16784)" -s "$seed" \
    -m 'hybrid(all)' -m 0D --logx \
    --title 'Fig. 10: 100x100, 2D(2,1), 5P: hybrid(all) vs 0D' \
    -o "$out/fig10.csv" --svg "$out/fig10.svg"
run -d 12x12x12 -a '3D(2,1)' -p 7p -M random -n "$(n 13357)" -s "$seed" \
    -m 'hybrid(all)' -m 0D --logx \
    --title 'Fig. 11: 12x12x12, 3D(2,1), 7P: hybrid(all) vs 0D' \
    -o "$out/fig11.csv" --svg "$out/fig11.svg"
run -d 24x24x24 -a '3D(2,1)' -p 7p -M random -n "$(n 3269)" -s "$seed" \
    -m 'hybrid(all)' -m 0D --logx \
    --title 'Fig. 12: 24x24x24, 3D(2,1), 7P: hybrid(all) vs 0D' \
    -o "$out/fig12.csv" -r "$out/fig14-15.csv" --svg "$out/fig12.svg" \
    --rates-svg "$out/fig14.svg" --acc-svg "$out/fig15.svg"
run -d 24x24x24 -a '3D(2,1)' -p 7p -M random -n "$(n 3269)" -s "$seed" \
    -m 'hybrid(-2D)' -m 'hybrid(all)' --logx \
    --title 'Fig. 13: 24x24x24, 3D(2,1), 7P: hybrid(-2D) (thick) vs hybrid(all)' \
    -o "$out/fig13.csv" --svg "$out/fig13.svg"

echo "spare-plots: results in $out/" >&2
ls "$out"
