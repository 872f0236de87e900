/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_ranks.c: every rank prints one line on stdout and one on stderr; rank
 * R (argv[1]) exits with status S (argv[2]) after MPI_Finalize.  Run under
 * `mpiexec -l`, it shows which rank the launcher takes each line and the
 * status for (test_netmod_form.sh: the PiP form's stand-ins).  With a
 * third argument "abort", rank R calls MPI_Abort(MPI_COMM_WORLD, S) instead,
 * while the others wait in a barrier (test_netmod_twonode.sh).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d of %d on stdout\n", rank, size);
    fprintf(stderr, "rank %d of %d on stderr\n", rank, size);
    if (argc > 3 && strcmp(argv[3], "abort") == 0) {
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == atoi(argv[1]))
            MPI_Abort(MPI_COMM_WORLD, atoi(argv[2]));
        MPI_Barrier(MPI_COMM_WORLD); /* never completes */
    }
    MPI_Finalize();
    return argc > 2 && rank == atoi(argv[1]) ? atoi(argv[2]) : 0;
}
