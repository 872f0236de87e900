/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_check.h: what the self-checking MPI test programs of mpich-netmod
 * share.  The including file defines `static int rank;` before including.
 * CHECK(cond, fmt, ...) prints "FAIL rank R line L: ..." and aborts the
 * job; say(what) prints "ok WHAT" on rank 0 once every rank got there;
 * class_of(rc) is the error class of a return code.
 */
#ifndef NM_CHECK_H
#define NM_CHECK_H

#include <mpi.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "FAIL rank %d line %d: ", rank, __LINE__);         \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

static inline void say(const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ok %s\n", what);
    fflush(stdout);
}

static inline int class_of(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

#endif /* NM_CHECK_H */
