/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_median.h: the median of repeated measurements, for the benchmark
 * programs of mpich-netmod (sorts the array in place).
 */
#ifndef NM_MEDIAN_H
#define NM_MEDIAN_H

#include <stdlib.h>

static inline int nm_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, nm_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif /* NM_MEDIAN_H */
