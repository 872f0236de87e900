/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_bench_mpi.c: agreement latency against MPI_Allreduce (one int) and
 * MPI_Barrier, measured in the same run, and (with -f F) the latency of
 * agreement and revoke after F ranks were killed.
 *
 *   fta_bench_mpi [-i ITERS] [-r ROUNDS] [-f FAILURES] [-o CSV]
 *
 * The baselines call PMPI_* directly (MPICH's own collectives, not the
 * interposed, failure-checking versions).  Each operation is timed in
 * ROUNDS alternating rounds of ITERS calls; the median round is reported
 * (the slowest rank's mean per call).  Output: a table on stdout (rank 0)
 * and one CSV line per operation.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "mpix_ft.h"

enum { OP_ALLREDUCE, OP_BARRIER, OP_AGREE, NOPS };
static const char *op_name[NOPS] = {"MPI_Allreduce(1 int)", "MPI_Barrier",
                                    "MPIX_Comm_agree"};
/* The agreement's label: the tree protocol alone when FTA_FAST_MAX is
 * below the rank count. */
static const char *agree_label(int size)
{
    const char *f = getenv("FTA_FAST_MAX");
    return f && atoi(f) < size ? "MPIX_Comm_agree(tree)" : "MPIX_Comm_agree";
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double run_op(int op, MPI_Comm c, int iters)
{
    int one = 1, out, flag;
    PMPI_Barrier(c);
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        switch (op) {
        case OP_ALLREDUCE:
            PMPI_Allreduce(&one, &out, 1, MPI_INT, MPI_SUM, c);
            break;
        case OP_BARRIER:
            PMPI_Barrier(c);
            break;
        default:
            flag = 1;
            MPIX_Comm_agree(c, &flag);
            break;
        }
    }
    double dt = (MPI_Wtime() - t) / iters, mx;
    PMPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, c);
    return mx;
}

int main(int argc, char **argv)
{
    int iters = 500, rounds = 7, nfail = 0, o;
    const char *csv = NULL;
    while ((o = getopt(argc, argv, "i:r:f:o:")) != -1) {
        switch (o) {
        case 'i':
            iters = atoi(optarg);
            break;
        case 'r':
            rounds = atoi(optarg);
            break;
        case 'f':
            nfail = atoi(optarg);
            break;
        case 'o':
            csv = optarg;
            break;
        default:
            fprintf(stderr,
                    "usage: %s [-i ITERS] [-r ROUNDS] [-f FAILURES] "
                    "[-o CSV]\n",
                    argv[0]);
            return 2;
        }
    }
    if (iters < 1 || rounds < 1 || rounds > 99 || nfail < 0) {
        fprintf(stderr, "fta_bench_mpi: bad arguments\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (nfail >= size) {
        if (!rank)
            fprintf(stderr, "fta_bench_mpi: -f must be below the size\n");
        MPI_Finalize();
        return 2;
    }
    FILE *out = NULL;
    if (rank == 0 && csv && !(out = fopen(csv, "a"))) {
        perror(csv);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (nfail == 0) {
        op_name[OP_AGREE] = agree_label(size);
        double t[NOPS][99];
        run_op(OP_AGREE, MPI_COMM_WORLD, iters / 5 + 1); /* warm up */
        run_op(OP_ALLREDUCE, MPI_COMM_WORLD, iters / 5 + 1);
        for (int r = 0; r < rounds; r++)
            for (int op = 0; op < NOPS; op++)
                t[op][r] = run_op(op, MPI_COMM_WORLD, iters);
        double med[NOPS];
        for (int op = 0; op < NOPS; op++) {
            qsort(t[op], (size_t)rounds, sizeof(double), cmp_d);
            med[op] = t[op][rounds / 2];
        }
        if (rank == 0) {
            printf("ranks=%d iterations=%d rounds=%d (median round)\n", size,
                   iters, rounds);
            printf("%-22s %12s %14s\n", "operation", "latency_us",
                   "vs_allreduce");
            for (int op = 0; op < NOPS; op++) {
                printf("%-22s %12.2f %14.2f\n", op_name[op], med[op] * 1e6,
                       med[op] / med[OP_ALLREDUCE]);
                if (out)
                    fprintf(out, "%d,0,%s,%.3f,%.3f\n", size, op_name[op],
                            med[op] * 1e6, med[op] / med[OP_ALLREDUCE]);
            }
        }
    } else {
        /* The last nfail ranks die; the survivors measure. */
        int victim = rank >= size - nfail, x, flag = 1;
        MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        if (victim)
            raise(SIGKILL);
        MPI_Recv(&x, 1, MPI_INT, size - 1, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        for (int i = 0; i < 1000; i++) {
            int n;
            MPIX_Comm_ack_failed(MPI_COMM_WORLD, size, &n);
            flag = 1;
            if (n == nfail &&
                MPIX_Comm_agree(MPI_COMM_WORLD, &flag) == MPI_SUCCESS)
                break;
        }
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            flag = 1;
            MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        }
        double agree = (MPI_Wtime() - t0) / iters;
        /* Revoke: rank 0 revokes at t_rev; each survivor notes when it
         * sees it. */
        double t_rev = 0, t_seen;
        if (rank == 0) {
            t_rev = now();
            MPIX_Comm_revoke(MPI_COMM_WORLD);
        }
        int rv = 0;
        while (!rv)
            MPIX_Comm_is_revoked(MPI_COMM_WORLD, &rv);
        t_seen = now();
        MPI_Comm sc;
        MPIX_Comm_shrink(MPI_COMM_WORLD, &sc);
        double mx_agree, mx_seen;
        PMPI_Allreduce(&agree, &mx_agree, 1, MPI_DOUBLE, MPI_MAX, sc);
        PMPI_Allreduce(&t_seen, &mx_seen, 1, MPI_DOUBLE, MPI_MAX, sc);
        PMPI_Bcast(&t_rev, 1, MPI_DOUBLE, 0, sc);
        if (rank == 0) {
            printf("ranks=%d failed=%d: agreement %.2f us, revoke seen by "
                   "all after %.2f us\n",
                   size, nfail, mx_agree * 1e6, (mx_seen - t_rev) * 1e6);
            if (out) {
                fprintf(out, "%d,%d,MPIX_Comm_agree,%.3f,\n", size, nfail,
                        mx_agree * 1e6);
                fprintf(out, "%d,%d,MPIX_Comm_revoke,%.3f,\n", size, nfail,
                        (mx_seen - t_rev) * 1e6);
            }
        }
        MPI_Comm_free(&sc);
    }
    if (out)
        fclose(out);
    MPI_Finalize();
    return 0;
}
