/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_jacobi.c: a textbook 1-D-decomposed Jacobi solver for the Laplace
 * equation on a square grid, in plain MPI (halo exchange with
 * MPI_Sendrecv and nonblocking Isend/Irecv, residual with MPI_Allreduce,
 * result gathered on rank 0).  It knows nothing about libmpideleg: the
 * preload test runs it with and without the shim and compares the output.
 *   nm_jacobi [N [ITERS]]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 64;
    int iters = argc > 2 ? atoi(argv[2]) : 200;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (n < size || n % size) {
        if (rank == 0)
            fprintf(stderr, "N=%d must be a multiple of %d ranks\n", n, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rows = n / size;
    /* rows + 2 ghost rows, n columns; fixed boundary: top edge = 1 */
    double *u = calloc((size_t)(rows + 2) * (size_t)n, sizeof(double));
    double *v = calloc((size_t)(rows + 2) * (size_t)n, sizeof(double));
    if (rank == 0)
        for (int j = 0; j < n; j++)
            u[n + j] = v[n + j] = 1.0;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double res = 0;
    for (int it = 0; it < iters; it++) {
        if (it % 2) {
            MPI_Sendrecv(&u[1 * n], n, MPI_DOUBLE, up, 1, &u[(rows + 1) * n], n,
                         MPI_DOUBLE, down, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            MPI_Sendrecv(&u[rows * n], n, MPI_DOUBLE, down, 2, &u[0], n,
                         MPI_DOUBLE, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Request rq[4];
            MPI_Status st[4];
            MPI_Irecv(&u[0], n, MPI_DOUBLE, up, 3, MPI_COMM_WORLD, &rq[0]);
            MPI_Irecv(&u[(rows + 1) * n], n, MPI_DOUBLE, down, 4,
                      MPI_COMM_WORLD, &rq[1]);
            MPI_Isend(&u[rows * n], n, MPI_DOUBLE, down, 3, MPI_COMM_WORLD,
                      &rq[2]);
            MPI_Isend(&u[1 * n], n, MPI_DOUBLE, up, 4, MPI_COMM_WORLD, &rq[3]);
            MPI_Waitall(4, rq, st);
        }
        double local = 0;
        for (int i = 1; i <= rows; i++) {
            int gi = rank * rows + i - 1;
            for (int j = 0; j < n; j++) {
                if (gi == 0 || gi == n - 1 || j == 0 || j == n - 1) {
                    v[i * n + j] = u[i * n + j];
                    continue;
                }
                v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                       u[i * n + j - 1] + u[i * n + j + 1]);
                double d = v[i * n + j] - u[i * n + j];
                local += d * d;
            }
        }
        double *t = u;
        u = v;
        v = t;
        MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0 && it % 50 == 0)
            printf("iter %4d residual %.10e\n", it, sqrt(res));
    }
    double *all =
        rank == 0 ? malloc(sizeof(double) * (size_t)n * (size_t)n) : NULL;
    MPI_Gather(&u[n], rows * n, MPI_DOUBLE, all, rows * n, MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        double sum = 0;
        for (int i = 0; i < n * n; i++)
            sum += all[i] * (double)(i % 7 + 1);
        printf("ranks %d final residual %.10e checksum %.10e\n", size,
               sqrt(res), sum);
        free(all);
    }
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
