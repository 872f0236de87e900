/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_lat_pct.c: latency percentiles of an 8 B ping-pong (a plain MPI
 * program).  Ranks pair up (0-1, 2-3, ...) and ping-pong at the same time;
 * each even rank times every round trip of its pair for a given time
 * (much longer than a scheduler's time slice, so that the percentiles see
 * the slices) and rank 0 prints the median, the 99th percentile and the
 * maximum of its pair's half round trips in us, and the count, as
 * "metric,bytes,value" lines:
 *   lat_p50_us,8,V  lat_p99_us,8,V  lat_max_us,8,V  round_trips,8,N
 * Options: -t S seconds of timed round trips (default 2, after 100
 * untimed), -n N at most N round trips timed (default 2000000).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nm_median.h"

int main(int argc, char **argv)
{
    int n = 2000000, warm = 100, rank, size;
    double secs = 2;
    int opt;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "n:t:")) != -1) {
        if (opt == 'n' && atoi(optarg) >= 10 && atoi(optarg) <= 100000000) {
            n = atoi(optarg);
        } else if (opt == 't' && atof(optarg) > 0 && atof(optarg) <= 3600) {
            secs = atof(optarg);
        } else {
            fprintf(stderr,
                    "usage: nm_lat_pct [-t 0..3600 s] [-n 10..100000000]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size % 2) {
        if (rank == 0)
            fprintf(stderr, "nm_lat_pct: needs an even number of ranks\n");
        MPI_Finalize();
        return 2;
    }
    int peer = rank ^ 1;
    char buf[8];
    memset(buf, 0, sizeof buf);
    double *t = malloc(sizeof(double) * (size_t)n);
    if (!t) {
        fprintf(stderr, "nm_lat_pct: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* the even rank of a pair decides when to stop and says so in the
     * first byte of its message */
    double end = 0;
    int count = 0;
    for (int i = -warm;; i++) {
        double t0 = MPI_Wtime();
        if (i == 0)
            end = t0 + secs;
        if (rank % 2 == 0) {
            buf[0] = i >= 0 && (i + 1 >= n || t0 >= end);
            MPI_Send(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
        if (i >= 0)
            t[count++] = (MPI_Wtime() - t0) * 1e6 / 2;
        if (buf[0])
            break;
    }
    n = count;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        median(t, n); /* sorts */
        int k99 = (int)((double)n * 0.99);
        if (k99 >= n)
            k99 = n - 1;
        printf("lat_p50_us,8,%.3f\n",
               n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]));
        printf("lat_p99_us,8,%.3f\n", t[k99]);
        printf("lat_max_us,8,%.3f\n", t[n - 1]);
        printf("round_trips,8,%d\n", n);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
