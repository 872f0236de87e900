/* SPDX-License-Identifier: BSD-2-Clause */
/* spare_sim.h: pieces of the spare-sim tool. */
#ifndef SPARE_SIM_H
#define SPARE_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "spare.h"

/* One line of a chart. */
struct svg_series {
    const char *name;
    const double *x, *y;
    int n;
    double width; /* stroke width */
    int dashed;
    const char *color;
};

/* Write a line chart; returns 0 or -errno. */
int svg_chart_write(const char *path, const char *title, const char *xlabel,
                    const char *ylabel, int logx, const struct svg_series *s,
                    int ns);

/* Run a scenario file, printing to out, and with load_svg (may be NULL)
 * plot the final link loads; returns 0, or 1 with a one-line message in err
 * (size errlen). */
int sim_scenario_run(const char *path, FILE *out, const char *load_svg,
                     char *err, size_t errlen);

/* What a study was run with, for the scenario file of its worst case. */
struct sim_export {
    const char *dims, *alloc, *method, *pattern;
    int periodic;
    const char *routing, *count, *mode;
    uint64_t seed;
};

/* Write the worst case of res (with f failures, or the worst of all when
 * f <= 0) as a scenario file; prints its own one-line error and returns -1
 * on failure. */
int sim_export_worst(const char *path, const spare_topo_t *topo,
                     const spare_study_result_t *res, int f,
                     const struct sim_export *ex);

/* Plot the link loads of a map on the plane of dimensions 0 and 1 through
 * the busiest link; returns 0 or -errno. */
int svg_loadmap_write(const char *path, const char *title,
                      const spare_topo_t *t, const spare_map_t *m);

#endif /* SPARE_SIM_H */
