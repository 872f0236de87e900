/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_collcount: a preload library that counts the collective calls a
 * process makes through MPI_ and PMPI_ names (ROMIO uses the first, the
 * EARTH library the second) and forwards them.  Rank 0 prints the counts
 * at MPI_Finalize on stderr, one line starting "collcount:".  A count is
 * independent of the machine's load, unlike a time: bench-earth uses it to
 * show what the EARTH library adds to a program's opens and calls.
 *
 *   LD_PRELOAD=earth_collcount.so:libmpiio-earth.so mpiexec ... PROGRAM
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

enum {
    C_ALLREDUCE,
    C_BARRIER,
    C_BCAST,
    C_ALLGATHER,
    C_ALLTOALL,
    C_REDUCE,
    C_COMM_DUP,
    C_COMM_SPLIT_TYPE,
    C_IALLREDUCE,
    C_COMM_IDUP,
    C_N
};
static const char *const names[C_N] = {
    "Allreduce", "Barrier",  "Bcast",           "Allgather",  "Alltoall",
    "Reduce",    "Comm_dup", "Comm_split_type", "Iallreduce", "Comm_idup"};
static long count[C_N];

/* MPI_NAME and PMPI_NAME both count and call MPICH's PMPI_NAME */
#define COUNTED(idx, name, params, args)                                       \
    int MPI_##name params;                                                     \
    int PMPI_##name params;                                                    \
    static int call_##name params                                              \
    {                                                                          \
        static int(*next) params;                                              \
        if (!next)                                                             \
            *(void **)&next = dlsym(RTLD_NEXT, "PMPI_" #name);                 \
        count[idx]++;                                                          \
        return next args;                                                      \
    }                                                                          \
    int MPI_##name params                                                      \
    {                                                                          \
        return call_##name args;                                               \
    }                                                                          \
    int PMPI_##name params                                                     \
    {                                                                          \
        return call_##name args;                                               \
    }

COUNTED(C_ALLREDUCE, Allreduce,
        (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
        (s, r, n, t, o, c))
COUNTED(C_BARRIER, Barrier, (MPI_Comm c), (c))
COUNTED(C_BCAST, Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c),
        (b, n, t, root, c))
COUNTED(C_ALLGATHER, Allgather,
        (const void *s, int sn, MPI_Datatype st, void *r, int rn,
         MPI_Datatype rt, MPI_Comm c),
        (s, sn, st, r, rn, rt, c))
COUNTED(C_ALLTOALL, Alltoall,
        (const void *s, int sn, MPI_Datatype st, void *r, int rn,
         MPI_Datatype rt, MPI_Comm c),
        (s, sn, st, r, rn, rt, c))
COUNTED(C_REDUCE, Reduce,
        (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root,
         MPI_Comm c),
        (s, r, n, t, o, root, c))
COUNTED(C_COMM_DUP, Comm_dup, (MPI_Comm c, MPI_Comm *d), (c, d))
COUNTED(C_COMM_SPLIT_TYPE, Comm_split_type,
        (MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm *d),
        (c, type, key, i, d))
COUNTED(C_IALLREDUCE, Iallreduce,
        (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c,
         MPI_Request *q),
        (s, r, n, t, o, c, q))
COUNTED(C_COMM_IDUP, Comm_idup, (MPI_Comm c, MPI_Comm *d, MPI_Request *q),
        (c, d, q))

int MPI_Finalize(void);
int MPI_Finalize(void)
{
    static int (*next)(void);
    int me = -1;
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "PMPI_Finalize");
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) {
        fprintf(stderr, "collcount:");
        for (int i = 0; i < C_N; i++)
            fprintf(stderr, " %s=%ld", names[i], count[i]);
        fprintf(stderr, "\n");
    }
    return next();
}
