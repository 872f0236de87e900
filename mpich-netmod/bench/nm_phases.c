/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_phases.c: where the time of nm_bench's 8 B message-rate window goes
 * (a plain MPI program, 2 ranks).  Rank 0 posts 64 MPI_Isend of 8 B to
 * rank 1, MPI_Waitall, then receives a 1-byte ack; rank 1 posts 64
 * MPI_Irecv, MPI_Waitall, sends the ack.  Each rank times its three
 * phases; per round (-i windows, after as many untimed) the nanoseconds
 * per message of each phase, and rank 0 prints the medians over the
 * rounds (-r) as "metric,bytes,value" lines:
 *   window_rate_per_s,8,V  send_post_ns,8,V  send_wait_ns,8,V
 *   send_ack_ns,8,V  recv_post_ns,8,V  recv_wait_ns,8,V  recv_ack_ns,8,V
 * (post: the 64 calls; wait: MPI_Waitall; ack: the ack's receive or send).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "nm_median.h"

enum { W = 64, NPH = 3, MAXR = 64 };

/* one round of `iters` windows; ph[3]: ns per message of each phase */
static double round_of(int rank, int iters, double ph[NPH])
{
    static char buf[W * 8];
    char ack = 0;
    MPI_Request rq[W];
    MPI_Status st[W]; /* (gcc warns of MPI_STATUSES_IGNORE here) */
    double t[NPH] = {0, 0, 0};
    MPI_Barrier(MPI_COMM_WORLD);
    double t00 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        double t0 = MPI_Wtime(), t1, t2, t3;
        if (rank == 0) {
            for (int k = 0; k < W; k++)
                MPI_Isend(buf, 8, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &rq[k]);
            t1 = MPI_Wtime();
            MPI_Waitall(W, rq, st);
            t2 = MPI_Wtime();
            MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < W; k++)
                MPI_Irecv(buf + 8 * k, 8, MPI_CHAR, 0, 2, MPI_COMM_WORLD,
                          &rq[k]);
            t1 = MPI_Wtime();
            MPI_Waitall(W, rq, st);
            t2 = MPI_Wtime();
            MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
        }
        t3 = MPI_Wtime();
        t[0] += t1 - t0;
        t[1] += t2 - t1;
        t[2] += t3 - t2;
    }
    double all = MPI_Wtime() - t00;
    for (int p = 0; p < NPH; p++)
        ph[p] = t[p] * 1e9 / ((double)iters * W);
    return (double)iters * W / all;
}

int main(int argc, char **argv)
{
    int rank, size, iters = 500, reps = 5;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] == 'i' && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (argv[i][0] == '-' && argv[i][1] == 'r' && i + 1 < argc)
            reps = atoi(argv[++i]);
    }
    if (size != 2 || iters < 1 || reps < 1 || reps > MAXR) {
        if (rank == 0)
            fprintf(stderr, "nm_phases: 2 ranks, -i N >= 1, -r 1..%d\n", MAXR);
        MPI_Finalize();
        return 1;
    }
    double rate[MAXR], mine[NPH][MAXR], other[NPH][MAXR], ph[NPH];
    round_of(rank, iters, ph); /* warm-up */
    for (int r = 0; r < reps; r++) {
        rate[r] = round_of(rank, iters, ph);
        double in[NPH] = {0, 0, 0};
        if (rank == 1)
            MPI_Send(ph, NPH, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
        else
            MPI_Recv(in, NPH, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int p = 0; p < NPH; p++) {
            mine[p][r] = ph[p];
            other[p][r] = rank == 0 ? in[p] : 0;
        }
    }
    if (rank == 0) {
        static const char *nm[NPH] = {"post", "wait", "ack"};
        printf("window_rate_per_s,8,%.0f\n", median(rate, reps));
        for (int p = 0; p < NPH; p++)
            printf("send_%s_ns,8,%.0f\n", nm[p], median(mine[p], reps));
        for (int p = 0; p < NPH; p++)
            printf("recv_%s_ns,8,%.0f\n", nm[p], median(other[p], reps));
    }
    MPI_Finalize();
    return 0;
}
