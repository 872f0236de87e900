/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_patterns.c: what MPICH's calls cost a delegatee's short message,
 * directly with MPICH (2 ranks, no shim).  A 64 B ping-pong (a delegatee
 * message: a 56-byte header and 8 B of payload) with the receiving side
 * written three ways:
 *   recv     MPI_Recv (the baseline: what a plain program does);
 *   improbe  MPI_Improbe(ANY_SOURCE, ANY_TAG) until a message is there,
 *            then MPI_Mrecv (how a delegatee took its messages before);
 *   posted   one MPI_Irecv(ANY_SOURCE, ANY_TAG) kept posted, polled with
 *            MPI_Test and posted again after each message (how it takes
 *            them now).
 * The patterns alternate, -r rounds (default 5) of -n round trips each
 * (default 200000); rank 0 prints "pattern,round,half_rtt_us" lines, then
 * the median of each pattern and its ratio to recv.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nm_median.h"

enum { P_RECV, P_IMPROBE, P_POSTED, NP };
static const char *names[NP] = {"recv", "improbe", "posted"};

enum { LEN = 64, CAP = 4096 };
static char sbuf[LEN], rbuf[CAP];
static MPI_Request pre = MPI_REQUEST_NULL;

static void take(int p, int peer)
{
    if (p == P_RECV) {
        MPI_Recv(rbuf, CAP, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else if (p == P_IMPROBE) {
        int flag = 0, cnt = 0;
        MPI_Message m;
        MPI_Status st;
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m,
                        &st);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        MPI_Mrecv(rbuf, cnt, MPI_BYTE, &m, MPI_STATUS_IGNORE);
    } else {
        int flag = 0;
        if (pre == MPI_REQUEST_NULL)
            MPI_Irecv(rbuf, CAP, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                      MPI_COMM_WORLD, &pre);
        while (!flag)
            MPI_Test(&pre, &flag, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank, size, rounds = 5, n = 200000, opt;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "n:r:")) != -1) {
        if (opt == 'n' && atoi(optarg) >= 10 && atoi(optarg) <= 100000000) {
            n = atoi(optarg);
        } else if (opt == 'r' && atoi(optarg) >= 1 && atoi(optarg) <= 1000) {
            rounds = atoi(optarg);
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: nm_patterns [-r 1..1000] "
                                "[-n 10..100000000]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "nm_patterns: needs 2 ranks (mpiexec -n 2)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *t = calloc((size_t)rounds * NP, sizeof *t);
    if (!t) {
        fprintf(stderr, "nm_patterns: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(sbuf, 7, sizeof sbuf);
    int peer = 1 - rank;
    if (rank == 0)
        printf("pattern,round,half_rtt_us\n");
    for (int r = 0; r < rounds; r++) {
        for (int p = 0; p < NP; p++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < n; i++) {
                if (rank == 0) {
                    MPI_Send(sbuf, LEN, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                    take(p, peer);
                } else {
                    take(p, peer);
                    MPI_Send(sbuf, LEN, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                }
            }
            t[p * rounds + r] = (MPI_Wtime() - t0) * 1e6 / (2.0 * n);
            if (pre != MPI_REQUEST_NULL) {
                /* the next pattern must not find a receive posted */
                MPI_Cancel(&pre);
                MPI_Wait(&pre, MPI_STATUS_IGNORE);
            }
            if (rank == 0)
                printf("%s,%d,%.4f\n", names[p], r + 1, t[p * rounds + r]);
        }
    }
    if (rank == 0) {
        double base = median(t, rounds);
        printf("# medians of %d rounds of %d round trips, 64 B:\n", rounds, n);
        for (int p = 0; p < NP; p++) {
            double m = median(t + p * rounds, rounds);
            printf("#   %-8s %.4f us  %.3fx recv\n", names[p], m, m / base);
        }
    }
    free(t);
    MPI_Finalize();
    return 0;
}
