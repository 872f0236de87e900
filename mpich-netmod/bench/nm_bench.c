/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_bench.c: point-to-point benchmark between ranks 0 and 1 of
 * MPI_COMM_WORLD, a plain MPI program: run it directly for the MPICH
 * baseline and with libmpideleg preloaded for the delegated path
 * (bench/run-bench.sh does both).  Rank 0 prints CSV lines
 *   metric,bytes,value
 * latency (us, half round trip), bandwidth (MB/s, 16 in flight), message
 * rate (messages/s, 8 B, 64 in flight) and overlap (1 MiB Isend/Irecv +
 * compute of the same length + Wait: percent of the transfer hidden, OSU
 * style (see overlap()); with both sides computing, and with only the
 * sender or only the receiver computing while the other waits at once).
 * Each value is the median of REPS repetitions; progress goes to stderr.
 *   nm_bench [-q] [-r REPS] [-m METRICS] [-s BYTES]
 * -m: only these metrics (comma-separated: latency, bandwidth, msgrate,
 * overlap); -s: latency and bandwidth at this one size only.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nm_median.h"

static int rank, reps = 5, quick;
static const char *only; /* -m */
static int one_size;     /* -s */

/* metric m selected by -m (all without it) */
static int want(const char *m)
{
    if (!only)
        return 1;
    size_t n = strlen(m);
    for (const char *p = only; (p = strstr(p, m)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || !p[n]))
            return 1;
    return 0;
}

static double latency(char *buf, int n)
{
    int iters = n <= 4096 ? (quick ? 200 : 1000) : (quick ? 20 : 100);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
}

/* window of w nonblocking sends, one ack per window; returns seconds per
 * window */
static double window(char *buf, int n, int w, int iters)
{
    MPI_Request rq[64];
    MPI_Status st[64];
    char ack;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            for (int k = 0; k < w; k++)
                MPI_Isend(buf, n, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &rq[k]);
            MPI_Waitall(w, rq, st);
            MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            for (int k = 0; k < w; k++)
                MPI_Irecv(buf + (size_t)k * (size_t)n * (n <= 4096), n,
                          MPI_CHAR, 0, 2, MPI_COMM_WORLD, &rq[k]);
            MPI_Waitall(w, rq, st);
            MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / iters;
}

static volatile double sink;

/* Busy computation for about `sec` seconds (calibrated loop count). */
static void compute(long loops)
{
    double x = 1.0;
    for (long i = 0; i < loops; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* Loop count for about `sec` seconds of computation: the fastest of three
 * timings (the least disturbed by other threads sharing the CPU). */
static long calibrate(double sec)
{
    long loops = 1000;
    double t;
    for (;;) {
        double t0 = MPI_Wtime();
        compute(loops);
        t = MPI_Wtime() - t0;
        if (t > 0.005)
            break;
        loops *= 4;
    }
    for (int i = 0; i < 2; i++) {
        double t0 = MPI_Wtime();
        compute(loops);
        double u = MPI_Wtime() - t0;
        if (u < t)
            t = u;
    }
    return (long)((double)loops * sec / t);
}

/* Overlap of a 1 MiB exchange (0 -> 1) with computation, OSU style.  who:
 * 3 both sides compute, 1 only the sender (rank 0), 2 only the receiver
 * (rank 1); the other side waits at once.  A computing rank measures
 *   busy = post + compute + Wait, pure = the same computation with
 * nothing in flight (same iteration otherwise), comm = the transfer alone;
 *   hidden % = 100 x (1 - (busy - pure) / comm):
 * communication that moved while the rank computed costs nothing; time
 * the transfer took from the computation (a thread moving it on the
 * computing rank's CPU) counts as not hidden.  With both computing, the
 * smaller of the two ranks' figures. */
static void overlap(char *buf, int who, double *pct, double *t_comm_us)
{
    int n = 1 << 20, iters = quick ? 5 : 20;
    MPI_Request rq;
    double tc[64], tb[64], tp[64];
    /* pure communication time */
    for (int i = 0; i < iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (rank == 0)
            MPI_Isend(buf, n, MPI_CHAR, 1, 4, MPI_COMM_WORLD, &rq);
        else if (rank == 1)
            MPI_Irecv(buf, n, MPI_CHAR, 0, 4, MPI_COMM_WORLD, &rq);
        if (rank < 2)
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        tc[i] = MPI_Wtime() - t0;
    }
    double comm = median(tc, iters);
    MPI_Bcast(&comm, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    long loops = calibrate(comm);
    int me_computes = rank < 2 && (who >> rank & 1);
    /* pure computation, nothing in flight */
    for (int i = 0; i < iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (me_computes)
            compute(loops);
        tp[i] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* computation with the transfer in flight */
    for (int i = 0; i < iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        /* the posting counts too: a transfer done inside MPI_Isend or
         * MPI_Irecv is not hidden */
        double t0 = MPI_Wtime();
        if (rank == 0)
            MPI_Isend(buf, n, MPI_CHAR, 1, 4, MPI_COMM_WORLD, &rq);
        else if (rank == 1)
            MPI_Irecv(buf, n, MPI_CHAR, 0, 4, MPI_COMM_WORLD, &rq);
        if (me_computes)
            compute(loops);
        if (rank < 2)
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        tb[i] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double p = 100.0;
    if (me_computes)
        p = 100.0 * (1.0 - (median(tb, iters) - median(tp, iters)) / comm);
    /* the computing ranks' smaller figure goes to rank 0, which prints */
    double all = p;
    MPI_Reduce(&p, &all, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    *pct = all < 0 ? 0 : all > 100 ? 100 : all;
    *t_comm_us = comm * 1e6;
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-q"))
            quick = 1;
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-m") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            one_size = atoi(argv[++i]);
    }
    if (one_size < 0 || one_size > (16 << 20)) {
        if (rank == 0)
            fprintf(stderr, "nm_bench: -s takes 0..16777216 bytes\n");
        MPI_Finalize();
        return 2;
    }
    if (size < 2 || reps < 1 || reps > 64) {
        if (rank == 0)
            fprintf(stderr, "nm_bench: needs 2 ranks and 1..64 repetitions\n");
        MPI_Finalize();
        return 2;
    }
    size_t max = (size_t)64 << 20;
    char *buf = malloc(max);
    memset(buf, 1, max);
    double v[64];
    static const int all_sizes[] = {8, 64, 1024, 16384, 262144, 1 << 20};
    const int *sizes = all_sizes;
    unsigned nsizes = sizeof all_sizes / sizeof all_sizes[0];
    if (one_size) {
        sizes = &one_size;
        nsizes = 1;
    }
    for (unsigned s = 0; s < nsizes && want("latency"); s++) {
        for (int r = 0; r < reps; r++)
            v[r] = latency(buf, sizes[s]);
        if (rank == 0)
            printf("latency_us,%d,%.3f\n", sizes[s], median(v, reps));
        if (rank == 0)
            fprintf(stderr, "  latency %d B done\n", sizes[s]);
    }
    for (unsigned s = 0; s < nsizes && want("bandwidth"); s++) {
        int n = sizes[s], w = 16, it = n <= 16384 ? 50 : (quick ? 4 : 10);
        for (int r = 0; r < reps; r++)
            v[r] = (double)n * w / window(buf, n, w, it) / 1e6;
        if (rank == 0)
            printf("bandwidth_MBps,%d,%.1f\n", n, median(v, reps));
        if (rank == 0)
            fprintf(stderr, "  bandwidth %d B done\n", n);
    }
    for (int r = 0; r < reps && want("msgrate"); r++)
        v[r] = 64.0 / window(buf, 8, 64, quick ? 50 : 200);
    if (rank == 0 && want("msgrate"))
        printf("msgrate_per_s,8,%.0f\n", median(v, reps));
    static const char *oname[] = {"", "overlap_send_pct", "overlap_recv_pct",
                                  "overlap_pct"};
    for (int who = 3; who >= 1 && want("overlap"); who--) {
        double pct[64], tcu[64];
        for (int r = 0; r < reps; r++)
            overlap(buf, who, &pct[r], &tcu[r]);
        if (rank == 0) {
            printf("%s,%d,%.1f\n", oname[who], 1 << 20, median(pct, reps));
            if (who == 3)
                printf("overlap_comm_us,%d,%.1f\n", 1 << 20, median(tcu, reps));
            fprintf(stderr, "  %s done\n", oname[who]);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
