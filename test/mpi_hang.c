/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mpi_hang: an MPI program that never finishes (rank 0 waits for a message
 * that is never sent), to prove that mpi-run kills and fails hung tests.
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        for (;;)
            pause();
    MPI_Finalize();
    return value;
}
