/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stencil_kernel.c: the compute code of the Jacobi demo.  Plain C, no MPI
 * and nothing about failures: a block knows its place in the global grid
 * and how to sweep; the solver around it moves halos and the recovery
 * layer moves whole blocks.
 */
#include <math.h>
#include <string.h>
#include "stencil.h"

void stencil_block_setup(stencil_block_t *b, int ndims, const int *n,
                         const int *pgrid, long lrank)
{
    memset(b, 0, sizeof *b);
    b->ndims = ndims;
    long r = lrank;
    for (int d = 0; d < 3; d++) {
        int used = d < ndims;
        b->n[d] = used ? n[d] : 1;
        b->g[d] = used ? 1 : 0;
        b->e[d] = b->n[d] + 2 * b->g[d];
        b->pgrid[d] = used ? pgrid[d] : 1;
        b->coord[d] = (int)(r % b->pgrid[d]);
        r /= b->pgrid[d];
    }
    b->cells = (size_t)b->e[0] * (size_t)b->e[1] * (size_t)b->e[2];
    b->inner = (size_t)b->n[0] * (size_t)b->n[1] * (size_t)b->n[2];
}

static size_t idx(const stencil_block_t *b, int x, int y, int z)
{
    return ((size_t)z * (size_t)b->e[1] + (size_t)y) * (size_t)b->e[0] +
           (size_t)x;
}

/* Initial value at a global interior cell: a fixed pseudo-random pattern,
 * so that a block restored in the wrong place or at the wrong iteration
 * changes the result. */
static double initial_value(long gx, long gy, long gz)
{
    uint64_t h = (uint64_t)gx * 73856093u ^ (uint64_t)gy * 19349663u ^
                 (uint64_t)gz * 83492791u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (double)(h % 1000) / 1000.0;
}

/* Fixed (Dirichlet) value just outside the global domain. */
static double boundary_value(long gx, long gy, long gz)
{
    return 0.5 +
           0.5 * cos(0.3 * (double)gx + 0.7 * (double)gy + 1.1 * (double)gz);
}

void stencil_block_init(const stencil_block_t *b, double *u)
{
    long off[3], tot[3];
    for (int d = 0; d < 3; d++) {
        off[d] = (long)b->coord[d] * b->n[d];
        tot[d] = (long)b->pgrid[d] * b->n[d];
    }
    for (int z = 0; z < b->e[2]; z++)
        for (int y = 0; y < b->e[1]; y++)
            for (int x = 0; x < b->e[0]; x++) {
                long gc[3] = {off[0] + x - b->g[0], off[1] + y - b->g[1],
                              off[2] + z - b->g[2]};
                int outside = 0, ghost = 0;
                int lc[3] = {x, y, z};
                for (int d = 0; d < 3; d++) {
                    if (gc[d] < 0 || gc[d] >= tot[d])
                        outside = 1;
                    if (lc[d] < b->g[d] || lc[d] >= b->g[d] + b->n[d])
                        ghost = 1;
                }
                double v = 0.0;
                if (outside)
                    v = boundary_value(gc[0], gc[1], gc[2]);
                else if (!ghost)
                    v = initial_value(gc[0], gc[1], gc[2]);
                u[idx(b, x, y, z)] = v;
            }
}

void stencil_sweep(const stencil_block_t *b, const double *in, double *out)
{
    const size_t sx = 1, sy = (size_t)b->e[0],
                 sz = (size_t)b->e[0] * (size_t)b->e[1];
    const double w = 1.0 / (2.0 * b->ndims);
    for (int z = b->g[2]; z < b->g[2] + b->n[2]; z++)
        for (int y = b->g[1]; y < b->g[1] + b->n[1]; y++)
            for (int x = b->g[0]; x < b->g[0] + b->n[0]; x++) {
                size_t i = idx(b, x, y, z);
                double s = in[i - sx] + in[i + sx] + in[i - sy] + in[i + sy];
                if (b->ndims == 3)
                    s += in[i - sz] + in[i + sz];
                out[i] = s * w;
            }
}

void stencil_pack(const stencil_block_t *b, const double *u, double *dst)
{
    size_t k = 0;
    for (int z = b->g[2]; z < b->g[2] + b->n[2]; z++)
        for (int y = b->g[1]; y < b->g[1] + b->n[1]; y++) {
            memcpy(dst + k, u + idx(b, b->g[0], y, z),
                   (size_t)b->n[0] * sizeof *u);
            k += (size_t)b->n[0];
        }
}

void stencil_unpack(const stencil_block_t *b, const double *src, double *u)
{
    size_t k = 0;
    for (int z = b->g[2]; z < b->g[2] + b->n[2]; z++)
        for (int y = b->g[1]; y < b->g[1] + b->n[1]; y++) {
            memcpy(u + idx(b, b->g[0], y, z), src + k,
                   (size_t)b->n[0] * sizeof *u);
            k += (size_t)b->n[0];
        }
}

uint64_t stencil_hash(uint64_t h, const double *v, size_t n)
{
    const unsigned char *p = (const unsigned char *)v;
    for (size_t i = 0; i < n * sizeof *v; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
