/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_errh.c: communicator error handlers under libmpideleg: the
 * application's MPI_COMM_WORLD and the real one share a handler, and a
 * user's handler sees the communicator the application used.
 */
#include <pthread.h>
#include <stdlib.h>

#include "nm_base.h"
#include "nm_internal.h"

/* MPICH raises the errors of a completion call on a generalized request
 * (every delegated request) through the handler of the real
 * MPI_COMM_WORLD, which the application cannot reach: its MPI_COMM_WORLD
 * is the client communicator.  The two keep the same handler, as they are
 * one communicator without the shim. */
static int set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
    int rc = PMPI_Comm_set_errhandler(nm_xl(comm), eh);
    if (rc == MPI_SUCCESS && nm_active && comm == MPI_COMM_WORLD)
        rc = PMPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    return rc;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
    return set_errhandler(comm, eh);
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler eh)
{
    return set_errhandler(comm, eh);
}

/* The user's communicator error handlers run through eh_tramp: MPICH
 * calls them with the handle it raised the error on, which for the
 * application's MPI_COMM_WORLD is the clients' communicator; the handler
 * must see MPI_COMM_WORLD.  The handler to call is the one attached to that
 * communicator (MPICH invokes exactly that one); the table maps its handle
 * to the user's function.  Handles MPICH reuses after a free are entered
 * again by the create that reuses them. */
typedef struct {
    MPI_Errhandler eh;
    MPI_Comm_errhandler_function *fn;
} nm_ehfn_t;
static pthread_mutex_t eh_lock = PTHREAD_MUTEX_INITIALIZER;
static nm_ehfn_t *ehfns;
static int nehfns, capehfns;

static MPI_Comm_errhandler_function *eh_lookup(MPI_Errhandler eh)
{
    MPI_Comm_errhandler_function *fn = NULL;
    pthread_mutex_lock(&eh_lock);
    for (int i = 0; i < nehfns && !fn; i++)
        if (ehfns[i].eh == eh)
            fn = ehfns[i].fn;
    pthread_mutex_unlock(&eh_lock);
    return fn;
}

static int eh_enter(MPI_Errhandler eh, MPI_Comm_errhandler_function *fn)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&eh_lock);
    int i = 0;
    while (i < nehfns && ehfns[i].eh != eh)
        i++;
    if (i == nehfns && nehfns == capehfns) {
        int cap = capehfns ? 2 * capehfns : 16;
        nm_ehfn_t *n = realloc(ehfns, sizeof *n * (size_t)cap);
        if (n) {
            ehfns = n;
            capehfns = cap;
        } else {
            rc = MPI_ERR_NO_MEM;
        }
    }
    if (rc == MPI_SUCCESS) {
        ehfns[i] = (nm_ehfn_t){.eh = eh, .fn = fn};
        if (i == nehfns)
            nehfns++;
    }
    pthread_mutex_unlock(&eh_lock);
    return rc;
}

static void eh_tramp(MPI_Comm *comm, int *code, ...)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Comm_errhandler_function *fn = NULL;
    if (PMPI_Comm_get_errhandler(*comm, &eh) == MPI_SUCCESS) {
        fn = eh_lookup(eh);
        PMPI_Errhandler_free(&eh);
    }
    if (!fn) /* cannot happen: only our table's handlers lead here */
        return;
    MPI_Comm c = *comm;
    if (nm_active && c == nm_app_world)
        c = MPI_COMM_WORLD;
    fn(&c, code);
}

static int create_errhandler(MPI_Comm_errhandler_function *fn,
                             MPI_Errhandler *eh)
{
    if (!fn || nm_disabled())
        return PMPI_Comm_create_errhandler(fn, eh);
    int rc = PMPI_Comm_create_errhandler(eh_tramp, eh);
    if (rc == MPI_SUCCESS && (rc = eh_enter(*eh, fn)) != MPI_SUCCESS)
        PMPI_Errhandler_free(eh);
    return rc;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn,
                               MPI_Errhandler *eh)
{
    return create_errhandler(fn, eh);
}

int MPI_Errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh)
{
    return create_errhandler(fn, eh);
}
