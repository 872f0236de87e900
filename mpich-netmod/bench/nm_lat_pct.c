/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_lat_pct.c: latency percentiles of an 8 B ping-pong (a plain MPI
 * program).  Ranks pair up (0-1, 2-3, ...) and ping-pong at the same time;
 * rank 0 times every round trip of its pair and prints the median, the
 * 99th percentile and the maximum of the half round trips in us, as
 * "metric,bytes,value" lines:
 *   lat_p50_us,8,V  lat_p99_us,8,V  lat_max_us,8,V
 * Options: -n N round trips timed (default 2000, after 100 untimed).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nm_median.h"

int main(int argc, char **argv)
{
    int n = 2000, warm = 100, rank, size;
    int opt;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "n:")) != -1) {
        if (opt == 'n' && atoi(optarg) >= 10 && atoi(optarg) <= 1000000) {
            n = atoi(optarg);
        } else {
            fprintf(stderr, "usage: nm_lat_pct [-n 10..1000000]\n");
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
    memset(buf, rank, sizeof buf);
    double *t = malloc(sizeof(double) * (size_t)n);
    if (!t) {
        fprintf(stderr, "nm_lat_pct: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = -warm; i < n; i++) {
        double t0 = MPI_Wtime();
        if (rank % 2 == 0) {
            MPI_Send(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
        if (i >= 0)
            t[i] = (MPI_Wtime() - t0) * 1e6 / 2;
    }
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
    }
    free(t);
    MPI_Finalize();
    return 0;
}
