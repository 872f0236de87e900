/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_coll_bench.c: time of the collectives on MPI_COMM_WORLD, a plain MPI
 * program: run it directly for the MPICH baseline and with libmpideleg
 * preloaded (MPIDELEG_COLL=direct or hier); bench/run-coll-bench.sh does
 * all three.  Rank 0 prints CSV lines
 *   collective,bytes,us
 * us = time of one call (the slowest rank's average over a loop), median
 * of REPS repetitions.  bytes: per rank (Bcast, Reduce, Allreduce: the
 * buffer; Allgather: each rank's contribution; Alltoall: each block).
 * Reductions are MPI_SUM on doubles.  Progress goes to stderr.
 *   nm_coll_bench [-q] [-r REPS] [-c COLLECTIVE]   (-c: only that one)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nm_median.h"

static int rank, size, reps = 5, quick;
static const char *only;

enum { BARRIER, BCAST, REDUCE, ALLREDUCE, ALLGATHER, ALLTOALL, IALLREDUCE };
static const char *names[] = {"barrier",   "bcast",    "reduce",    "allreduce",
                              "allgather", "alltoall", "iallreduce"};

static void one(int which, int bytes, char *s, char *r, int it)
{
    int nd = bytes / (int)sizeof(double);
    MPI_Request rq;
    switch (which) {
    case BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case BCAST:
        MPI_Bcast(s, bytes, MPI_BYTE, it % size, MPI_COMM_WORLD);
        break;
    case REDUCE:
        MPI_Reduce(s, r, nd, MPI_DOUBLE, MPI_SUM, it % size, MPI_COMM_WORLD);
        break;
    case ALLREDUCE:
        MPI_Allreduce(s, r, nd, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case ALLGATHER:
        MPI_Allgather(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case ALLTOALL:
        MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case IALLREDUCE:
        MPI_Iallreduce(s, r, nd, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-q") == 0)
            quick = 1;
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            only = argv[++i];
    }
    if (reps < 1)
        reps = 1;
    static const int sizes[] = {8, 4096, 1 << 20};
    size_t cap = (size_t)size * (1 << 20);
    char *s = malloc(cap), *r = malloc(cap);
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (!s || !r || !t)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(s, 1, cap);
    memset(r, 0, cap);
    for (int w = BARRIER; w <= IALLREDUCE; w++) {
        if (only && strcmp(only, names[w]) != 0)
            continue;
        for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            int bytes = w == BARRIER ? 0 : sizes[k];
            if (w == BARRIER && k > 0)
                break;
            int iters = bytes <= 4096 ? (quick ? 50 : 200) : (quick ? 4 : 10);
            one(w, bytes, s, r, 0); /* warm up */
            for (int rep = 0; rep < reps; rep++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int it = 0; it < iters; it++)
                    one(w, bytes, s, r, it);
                double mine = (MPI_Wtime() - t0) * 1e6 / iters;
                MPI_Allreduce(&mine, &t[rep], 1, MPI_DOUBLE, MPI_MAX,
                              MPI_COMM_WORLD);
            }
            if (rank == 0) {
                printf("%s,%d,%.2f\n", names[w], bytes, median(t, reps));
                fflush(stdout);
                fprintf(stderr, "  %s %d B done\n", names[w], bytes);
            }
        }
    }
    free(s);
    free(r);
    free(t);
    MPI_Finalize();
    return 0;
}
