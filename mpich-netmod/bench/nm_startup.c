/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_startup: what run-startup-bench.sh times (the wall time of the whole
 * mpiexec command, start-up and teardown included).
 *
 *   nm_startup          the trivial program: MPI_Init, one MPI_Allreduce,
 *                       one MPI_Sendrecv around a ring, MPI_Finalize
 *   nm_startup -k N     an NWChem-like kernel: N steps of a little dense
 *                       arithmetic (a 96x96 matrix product) between many
 *                       small collectives (Allreduce of 8 and of 512
 *                       doubles, Bcast, a Barrier every 16 steps) and
 *                       point-to-point exchanges with both ring neighbours
 *                       (Sendrecv of 1 KiB, Isend/Irecv/Waitall of 64 B);
 *                       rank 0 prints a checksum, the same in every form
 *
 * Exit status 1 (and a line) when a result is wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NB 96

static double a[NB * NB], b[NB * NB], c[NB * NB];

static void compute(int step, int rank)
{
    for (int i = 0; i < NB * NB; i++) {
        a[i] = (double)((i + step) % 17) * 0.125 + rank;
        b[i] = (double)((i * 7 + step) % 13) * 0.25;
    }
    for (int i = 0; i < NB; i++)
        for (int j = 0; j < NB; j++) {
            double s = 0;
            for (int k = 0; k < NB; k++)
                s += a[i * NB + k] * b[k * NB + j];
            c[i * NB + j] = s;
        }
}

static int kernel(int steps, int rank, int size, double *sum)
{
    double small[8], small_r[8], big[512], big_r[512], buf[128], got[128];
    char m_out[2][64], m_in[2][64];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double check = 0;
    for (int s = 0; s < steps; s++) {
        compute(s, rank);
        for (int i = 0; i < 8; i++)
            small[i] = c[i * 7] + i;
        MPI_Allreduce(small, small_r, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        check += small_r[s % 8] * 1e-6;
        for (int i = 0; i < 128; i++)
            buf[i] = rank * 1000.0 + s + i;
        MPI_Sendrecv(buf, 128, MPI_DOUBLE, right, 1, got, 128, MPI_DOUBLE, left,
                     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (got[5] != left * 1000.0 + s + 5) {
            fprintf(stderr, "nm_startup: rank %d: wrong data from %d\n", rank,
                    left);
            return -1;
        }
        MPI_Request rq[4];
        MPI_Status st[4];
        snprintf(m_out[0], 64, "%d:%d", rank, s);
        snprintf(m_out[1], 64, "%d:%d", rank, s);
        MPI_Irecv(m_in[0], 64, MPI_CHAR, left, 2, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(m_in[1], 64, MPI_CHAR, right, 3, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(m_out[0], 64, MPI_CHAR, right, 2, MPI_COMM_WORLD, &rq[2]);
        MPI_Isend(m_out[1], 64, MPI_CHAR, left, 3, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, st);
        double root_v = rank == s % size ? c[NB + 3] : 0;
        MPI_Bcast(&root_v, 1, MPI_DOUBLE, s % size, MPI_COMM_WORLD);
        check += root_v * 1e-9;
        if (s % 4 == 0) {
            for (int i = 0; i < 512; i++)
                big[i] = c[i % (NB * NB)] * 1e-3;
            MPI_Allreduce(big, big_r, 512, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            check += big_r[s % 512] * 1e-6;
        }
        if (s % 16 == 15)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    *sum = check;
    return 0;
}

int main(int argc, char **argv)
{
    int steps = 0, opt;
    while ((opt = getopt(argc, argv, "k:")) != -1) {
        if (opt != 'k' || (steps = atoi(optarg)) <= 0) {
            fprintf(stderr, "usage: nm_startup [-k STEPS]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int rank, size, x, sum = -1, got = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    x = rank + 1;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int bad = sum != size * (size + 1) / 2 || got != (rank + size - 1) % size;
    double check = 0;
    if (!bad && steps > 0)
        bad = kernel(steps, rank, size, &check) != 0;
    if (bad)
        fprintf(stderr, "nm_startup: rank %d: wrong result\n", rank);
    else if (rank == 0 && steps > 0)
        printf("nm_startup: %d ranks, %d steps, checksum %.9e\n", size, steps,
               check);
    MPI_Finalize();
    return bad;
}
