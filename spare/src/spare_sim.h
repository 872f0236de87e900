/* SPDX-License-Identifier: BSD-2-Clause */
/* spare_sim.h: pieces of the spare-sim tool. */
#ifndef SPARE_SIM_H
#define SPARE_SIM_H

#include <stdio.h>

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

/* Run a scenario file, printing to out; returns 0, or 1 with a one-line
 * message in err (size errlen). */
int sim_scenario_run(const char *path, FILE *out, char *err, size_t errlen);

#endif /* SPARE_SIM_H */
