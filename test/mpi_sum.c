/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mpi_sum: every rank contributes its rank to an allreduce and checks the
 * result; exits with the status given as argv[1] (default 0) so that mpi-run
 * can be shown to pass the program's status through.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, sum = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int ok = sum == size * (size - 1) / 2;
    printf("mpi_sum: rank %d of %d: sum %d %s\n", rank, size, sum,
           ok ? "ok" : "WRONG");
    MPI_Finalize();
    if (!ok)
        return 1;
    return argc > 1 ? atoi(argv[1]) : 0;
}
