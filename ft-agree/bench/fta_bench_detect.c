/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_bench_detect.c: detection time of simultaneous failures.
 *
 *   fta_bench_detect K OUTFILE [STALL_MS]
 *
 * Ranks 1..K (K < size) take the same instant (a CLOCK_REALTIME deadline
 * agreed after a barrier, the ranks sharing one clock on one node) and
 * SIGKILL themselves at it.  Each survivor waits (a receive from every
 * victim, which fails when the victim is declared) and computes, from the
 * layer's detection times (FTA_Failure_time), the time from the kill to
 * the detection of the first and of the last victim.  Rank 0 writes
 * "k=K first_ms=... last_ms=... survivors=..." (the slowest survivor's) to
 * OUTFILE, with the earliest detection of the last victim on any
 * survivor (its observer's), and the detector's traffic: before the kill
 * every rank counts what its detector sends during FTA_BENCH_QUIET_MS
 * (default 2000) without failures, per heartbeat period (msgs_pp_max over
 * ranks, msgs_pp_mean), and after it the notices and failed-set exchanges
 * it sent (notices_max, notices_sum).  With STALL_MS, rank 0 is stopped
 * (SIGSTOP, from a child it forked) for that long from the kill instant: the
 * stall the teardown of the dead can cause a survivor on a loaded machine, made
 * repeatable. bench/fta-detect.sh runs it.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "mpix_ft.h"

static double now_real(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int k = argc == 3 || argc == 4 ? atoi(argv[1]) : 0;
    int stall_ms = argc == 4 ? atoi(argv[3]) : 0;
    if (k < 1 || k >= size || stall_ms < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: fta_bench_detect K OUTFILE [STALL_MS] "
                            "(1 <= K < ranks)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* failure-free traffic of the detector */
    const char *q = getenv("FTA_BENCH_QUIET_MS");
    long quiet_ms = q ? atol(q) : 2000;
    unsigned long long c0[5], c1[5];
    char transport[64] = "?";
    MPI_Barrier(MPI_COMM_WORLD);
    FTA_Detector_stats(c0, transport, sizeof transport);
    struct timespec qt = {quiet_ms / 1000, (quiet_ms % 1000) * 1000000L};
    nanosleep(&qt, NULL); /* the measurement window, not a sync */
    FTA_Detector_stats(c1, NULL, 0);
    double per = (double)(c1[4] - c0[4]);
    double mpp = per > 0 ? (double)(c1[0] + c1[1] + c1[2] + c1[3] - c0[0] -
                                    c0[1] - c0[2] - c0[3]) /
                               per
                         : 0;
    double at = now_real() + 0.3;
    MPI_Bcast(&at, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank >= 1 && rank <= k) {
        double d = at - now_real();
        if (d > 0) {
            struct timespec ts = {(time_t)d, (long)((d - (time_t)d) * 1e9)};
            nanosleep(&ts, NULL); /* the kill instant, not a sync */
        }
        raise(SIGKILL);
    }
    pid_t stopper = -1;
    if (rank == 0 && stall_ms > 0) {
        pid_t parent = getpid();
        stopper = fork();
        if (stopper == 0) {
            /* only sleeping and signals here: no MPI in the child */
            double d = at - now_real();
            if (d > 0) {
                struct timespec ts = {(time_t)d, (long)((d - (time_t)d) * 1e9)};
                nanosleep(&ts, NULL);
            }
            kill(parent, SIGSTOP);
            struct timespec st = {stall_ms / 1000,
                                  (long)(stall_ms % 1000) * 1000000L};
            nanosleep(&st, NULL);
            kill(parent, SIGCONT);
            _exit(0);
        }
    }
    int dummy, bad = 0;
    for (int v = 1; v <= k; v++)
        if (MPI_Recv(&dummy, 1, MPI_INT, v, 9, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPIX_ERR_PROC_FAILED)
            bad = 1;
    double first = 1e30, last = 0;
    for (int v = 1; v <= k; v++) {
        double t = 0;
        FTA_Failure_time(v, &t);
        if (t <= 0)
            bad = 1;
        if (t < first)
            first = t;
        if (t > last)
            last = t;
    }
    if (stopper > 0)
        waitpid(stopper, NULL, 0);
    FTA_Detector_stats(c0, NULL, 0);
    double notices = (double)(c0[1] + c0[2] - c1[1] - c1[2]);
    double mine[6] = {(first - at) * 1000.0,
                      (last - at) * 1000.0,
                      bad,
                      -(last - at) * 1000.0,
                      mpp,
                      notices};
    double worst[6], sum[6];
    /* survivors only: the world holds the dead */
    MPI_Group wg, sg;
    MPI_Comm surv;
    int range[1][3] = {{1, k, 1}};
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_range_excl(wg, 1, range, &sg);
    MPIX_Comm_shrink(MPI_COMM_WORLD, &surv);
    MPI_Reduce(mine, worst, 6, MPI_DOUBLE, MPI_MAX, 0, surv);
    MPI_Reduce(mine, sum, 6, MPI_DOUBLE, MPI_SUM, 0, surv);
    if (rank == 0) {
        FILE *f = fopen(argv[2], "w");
        if (f) {
            fprintf(f,
                    "%s k=%d first_ms=%.1f last_ms=%.1f survivors=%d "
                    "stall_ms=%d earliest_ms=%.1f msgs_pp_max=%.2f "
                    "msgs_pp_mean=%.2f notices_max=%.0f notices_sum=%.0f "
                    "transport=%s\n",
                    worst[2] > 0 ? "FAIL" : "OK", k, worst[0], worst[1],
                    size - k, stall_ms, -worst[3], worst[4],
                    sum[4] / (size - k), worst[5], sum[5], transport);
            fclose(f);
        }
    }
    MPI_Group_free(&wg);
    MPI_Group_free(&sg);
    MPI_Comm_free(&surv);
    MPI_Finalize();
    return 0;
}
