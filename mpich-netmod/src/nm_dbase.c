/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_dbase.c: the delegatee's state and the helpers all its files use,
 * which call none of them: completion of a record, fatal errors, growing
 * arrays, the queue of MPI sends in flight, testing many MPI requests
 * in one call, and freeing a received message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nm_dstate.h"
#include "pvas_log.h"

nm_dstate_t nm_d;

void nmd_complete(nm_rec_t *r)
{
    nm_d.completions++;
    /* the record a client hands over in deleg_direct (that very thread
     * runs this), or one its client waits for spinning: nobody sleeps on
     * it (no wake) */
    dlg_flag_set_bell(&r->fl, nm_d.bell,
                      !(r == nm_d.own || (r->flags & NM_F_SPIN)));
}

void nmd_fatal(const char *what, int err)
{
    fprintf(stderr, "mpideleg: delegatee (world rank %d): %s: %s\n",
            nm_lay.world_rank, what, strerror(err));
    pvas_log_drain(); /* the launcher has the line before the abort */
    PMPI_Abort(MPI_COMM_WORLD, 3);
    _exit(3);
}

/* Array a of *cap elements of `size` bytes, n used: room for one more. */
void *nmd_grow(void *a, int *cap, int n, size_t size, const char *what)
{
    if (n < *cap)
        return a;
    *cap = *cap ? 2 * *cap : 64;
    a = realloc(a, size * (size_t)*cap);
    if (!a)
        nmd_fatal(what, ENOMEM);
    return a;
}

outq_t *nmd_out_slot(void)
{
    nm_d.out =
        nmd_grow(nm_d.out, &nm_d.capout, nm_d.nout, sizeof *nm_d.out, "queue");
    outq_t *o = &nm_d.out[nm_d.nout++];
    *o = (outq_t){.type = MPI_DATATYPE_NULL};
    return o;
}

/* Test n requests with one MPI call (one pass of MPI's progress instead
 * of one per request); returns the number completed, their indices in
 * nm_d.tidx in descending order (so that removing them by moving the last
 * entry into the hole stays right). */
int nmd_test_all(int n, MPI_Request (*get)(int i))
{
    if (n > nm_d.captest) {
        int cap = n < 64 ? 64 : 2 * n;
        MPI_Request *r = realloc(nm_d.treq, sizeof *r * (size_t)cap);
        if (r)
            nm_d.treq = r;
        int *x = realloc(nm_d.tidx, sizeof *x * (size_t)cap);
        if (x)
            nm_d.tidx = x;
        MPI_Status *st = realloc(nm_d.tst, sizeof *st * (size_t)cap);
        if (st)
            nm_d.tst = st;
        if (!r || !x || !st)
            nmd_fatal("request array", ENOMEM);
        nm_d.captest = cap;
    }
    for (int i = 0; i < n; i++)
        nm_d.treq[i] = get(i);
    int done = 0;
    PMPI_Testsome(n, nm_d.treq, &done, nm_d.tidx, nm_d.tst);
    if (done == MPI_UNDEFINED)
        return 0;
    /* Testsome gives them in ascending order */
    for (int i = 0, j = done - 1; i < j; i++, j--) {
        int t = nm_d.tidx[i];
        nm_d.tidx[i] = nm_d.tidx[j];
        nm_d.tidx[j] = t;
    }
    return done;
}

/* A received message and its payload block (not a message on a stack). */
void nmd_msg_free(nm_msg_t *m)
{
    free(m->blk);
    if (!m->on_stack)
        free(m);
}
