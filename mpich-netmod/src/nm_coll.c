/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_coll.c: collectives.  MPIDELEG_COLL=direct (the default, chosen by
 * measurement: README section 5) hands every collective to MPICH on the
 * client communicator.  MPIDELEG_COLL=hier runs
 * Barrier, Bcast, Reduce, Allreduce, Allgather, Alltoall and their
 * nonblocking forms on a delegated communicator (members on more than one
 * board) hierarchically: inside a board straight with MPICH on a
 * board-local communicator, between boards as delegated messages on a
 * private context of the communicator (bit 30), which the delegatees
 * carry and progress by themselves.  Every other case goes to MPICH:
 * communicators inside one board, reductions with user-defined operations
 * or derived datatypes, and all other collectives.
 *
 * One operation is at most three phases:
 *   1. a nonblocking MPICH collective on the board (posted at the call),
 *   2. messages between boards (receives posted at the call, sends when
 *      phase 1 has ended) and the combination of what arrived,
 *   3. a nonblocking MPICH collective on the board.
 * MPICH matches nonblocking collectives on a communicator in the order
 * they are posted, which must be the same on every member.  Phase 1 runs
 * on one board communicator, phase 3 on another, and phase-3 operations
 * are posted in the order the collectives were called (a later one waits
 * for the earlier ones), so every member posts in the same order whatever
 * the timing.  Nonblocking forms are generalized requests whose phases
 * move when any Wait/Test call (or a blocking collective) runs; a wait on
 * one of them moves all, so any completion order works.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nm_coll.h"
#include "nm_internal.h"

int nm_coll_hier;

/* Running operations, the phase-3 counters and reference counts: any
 * thread; progress is taken with trylock, so a thread that finds it busy
 * just looks again. */
static pthread_mutex_t co_lock = PTHREAD_MUTEX_INITIALIZER;
static coll_t *running;
static atomic_int nrunning;
static atomic_ulong n_hier;

int nm_coll_env(void)
{
    const char *s = getenv("MPIDELEG_COLL");
    nm_coll_hier = 0;
    if (!s || !*s || strcmp(s, "direct") == 0)
        return 0;
    if (strcmp(s, "hier") == 0) {
        nm_coll_hier = 1;
        return 0;
    }
    nm_env_bad(
        "mpideleg: MPIDELEG_COLL='%s' must be direct or hier" NM_ENV_CLASS "\n",
        s);
    return -1;
}

/* ------------------------------------------------------------------ */
/* Communicators                                                       */
/* ------------------------------------------------------------------ */

static void ccomm_free(ccomm_t *cc)
{
    if (cc->b1 != MPI_COMM_NULL)
        PMPI_Comm_free(&cc->b1);
    if (cc->b3 != MPI_COMM_NULL)
        PMPI_Comm_free(&cc->b3);
    if (cc->alias != MPI_COMM_NULL) {
        nm_comm_forget(cc->alias);
        PMPI_Comm_free(&cc->alias);
    }
    if (cc->mem)
        for (int b = 0; b < cc->nb; b++)
            free(cc->mem[b]);
    free(cc->mem);
    free(cc->nmem);
    free(cc->board);
    free(cc);
}

/* co_lock held */
static void ccomm_unref(ccomm_t *cc)
{
    if (--cc->refs == 0)
        ccomm_free(cc);
}

/* Boards, leaders and the board communicators of a new delegated
 * communicator (every member calls it: the split is collective). */
int nm_coll_register(nm_comm_t *c)
{
    if (!nm_coll_hier)
        return MPI_SUCCESS;
    ccomm_t *cc = calloc(1, sizeof *cc);
    if (!cc)
        return MPI_ERR_NO_MEM;
    cc->b1 = cc->b3 = cc->alias = MPI_COMM_NULL;
    cc->size = c->size;
    PMPI_Comm_rank(c->handle, &cc->rank);
    cc->board = malloc(sizeof(int) * (size_t)c->size);
    cc->nmem = calloc((size_t)c->size, sizeof(int));
    int *gb = malloc(sizeof(int) * (size_t)c->size); /* global board ids */
    int rc = MPI_ERR_NO_MEM;
    if (!cc->board || !cc->nmem || !gb)
        goto fail;
    for (int i = 0; i < c->size; i++) {
        int g = nm_board_of(c->world[i]), b;
        for (b = 0; b < cc->nb && gb[b] != g; b++)
            ;
        if (b == cc->nb)
            gb[cc->nb++] = g;
        cc->board[i] = b;
        cc->nmem[b]++;
    }
    cc->mem = calloc((size_t)cc->nb, sizeof *cc->mem);
    if (!cc->mem)
        goto fail;
    for (int b = 0; b < cc->nb; b++) {
        cc->mem[b] = malloc(sizeof(int) * (size_t)cc->nmem[b]);
        if (!cc->mem[b])
            goto fail;
        cc->nmem[b] = 0;
    }
    for (int i = 0; i < c->size; i++) {
        int b = cc->board[i];
        cc->mem[b][cc->nmem[b]++] = i;
    }
    cc->myb = cc->board[cc->rank];
    for (int i = 0; i < cc->nmem[cc->myb]; i++)
        if (cc->mem[cc->myb][i] == cc->rank)
            cc->brank = i;
    rc = PMPI_Comm_split(c->handle, cc->myb, cc->rank, &cc->b1);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_dup(cc->b1, &cc->b3);
    if (rc != MPI_SUCCESS)
        goto fail;
    PMPI_Comm_set_errhandler(cc->b1, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(cc->b3, MPI_ERRORS_RETURN);
    cc->alias = nm_comm_alias(c, 0x40000000u);
    if (cc->alias == MPI_COMM_NULL) {
        rc = MPI_ERR_NO_MEM;
        goto fail;
    }
    PMPI_Comm_set_errhandler(cc->alias, MPI_ERRORS_RETURN);
    free(gb);
    cc->refs = 1;
    c->coll = cc;
    nm_log("communicator %#x: %d boards, board %d of %d members, rank %d "
           "there",
           (unsigned)c->handle, cc->nb, cc->myb, cc->nmem[cc->myb], cc->brank);
    return MPI_SUCCESS;
fail:
    free(gb);
    ccomm_free(cc);
    return rc;
}

void nm_coll_forget(nm_comm_t *c)
{
    ccomm_t *cc = c->coll;
    if (!cc)
        return;
    c->coll = NULL;
    pthread_mutex_lock(&co_lock);
    ccomm_unref(cc);
    pthread_mutex_unlock(&co_lock);
}

void nm_coll_finalize(void)
{
    nm_log("collectives: %lu hierarchical", (unsigned long)n_hier);
}

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

static MPI_Aint extent_of(MPI_Datatype dt)
{
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(dt, &lb, &ext);
    return ext;
}

/* A nonblocking operation keeps the datatypes past the call (the
 * application may free its own). */
static int keep_type(MPI_Datatype *dt)
{
    int ni, na, nd, comb;
    PMPI_Type_get_envelope(*dt, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED)
        return 0;
    return PMPI_Type_dup(*dt, dt) == MPI_SUCCESS;
}

coll_t *nm_coll_new(ccomm_t *cc, MPI_Comm comm, int kind)
{
    coll_t *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->kind = kind;
    x->cc = cc;
    x->nb = cc->nb;
    x->comm = comm;
    x->r1 = x->r3 = MPI_REQUEST_NULL;
    x->p3 = -1;
    x->stype = x->rtype = MPI_DATATYPE_NULL;
    x->greq = MPI_REQUEST_NULL;
    return x;
}

static void coll_free(coll_t *x)
{
    if (x->leak)
        return; /* after an error: requests may still use it */
    if (x->btype) {
        for (int b = 0; b < x->nb; b++)
            if (x->btype[b] != MPI_DATATYPE_NULL)
                PMPI_Type_free(&x->btype[b]);
        free(x->btype);
    }
    if (x->own_stype)
        PMPI_Type_free(&x->stype);
    if (x->own_rtype)
        PMPI_Type_free(&x->rtype);
    free(x->tmp);
    free(x->cnt);
    free(x->dsp);
    free(x->ir);
    free(x);
}

/* co_lock held: a phase-2 request slot */
static MPI_Request *ir_slot(coll_t *x)
{
    return &x->ir[x->nir++];
}

static int leader(const ccomm_t *cc, int b)
{
    return cc->mem[b][0];
}

static char *at(const void *buf, int i, int count, MPI_Datatype dt)
{
    return (char *)(uintptr_t)buf + (MPI_Aint)i * count * extent_of(dt);
}

/* Phase 3 of each kind, or none (p3 stays -1). */
static int has_phase3(const coll_t *x)
{
    if (x->cc->nmem[x->cc->myb] < 2)
        return 0;
    return x->kind == K_BARRIER || x->kind == K_BCAST ||
           x->kind == K_ALLREDUCE || x->kind == K_ALLGATHER;
}

/* The board's root of a rooted collective: the root on its board, the
 * leader (board rank 0) elsewhere. */
static int broot(const coll_t *x)
{
    const ccomm_t *cc = x->cc;
    if (cc->board[x->root] != cc->myb)
        return 0;
    for (int i = 0; i < cc->nmem[cc->myb]; i++)
        if (cc->mem[cc->myb][i] == x->root)
            return i;
    return 0;
}

/* co_lock held: post phase 1 and the early parts of phase 2. */
static int start(coll_t *x)
{
    ccomm_t *cc = x->cc;
    int me = cc->rank, lead = cc->brank == 0, rc = MPI_SUCCESS;
    int nbm = cc->nmem[cc->myb];
    x->tag = (int)(cc->seq++ % 30000u) + 1;
    if (has_phase3(x))
        x->p3 = (int)cc->p3_issued++;
    /* at most one message to and one from every other rank */
    x->ir = malloc(sizeof(MPI_Request) * 2 * (size_t)cc->size);
    if (!x->ir)
        return MPI_ERR_NO_MEM;
    switch (x->kind) {
    case K_BARRIER:
        if (nbm > 1)
            rc = PMPI_Ibarrier(cc->b1, &x->r1);
        for (int b = 0; lead && b < cc->nb && rc == MPI_SUCCESS; b++)
            if (b != cc->myb)
                rc = MPI_Irecv(NULL, 0, MPI_BYTE, leader(cc, b), x->tag,
                               cc->alias, ir_slot(x));
        break;
    case K_BCAST:
        if (me == x->root) {
            for (int b = 0; b < cc->nb && rc == MPI_SUCCESS; b++)
                if (b != cc->myb)
                    rc = MPI_Isend(x->rbuf, x->rcount, x->rtype, leader(cc, b),
                                   x->tag, cc->alias, ir_slot(x));
        } else if (lead && cc->board[x->root] != cc->myb) {
            rc = MPI_Irecv(x->rbuf, x->rcount, x->rtype, x->root, x->tag,
                           cc->alias, ir_slot(x));
        }
        break;
    case K_REDUCE:
    case K_ALLREDUCE: {
        int rb = x->kind == K_REDUCE ? cc->board[x->root] : -1;
        int gets = x->kind == K_REDUCE ? me == x->root : lead;
        int part = x->kind == K_REDUCE ? broot(x) : 0;
        x->bytes = (size_t)x->rcount * (size_t)extent_of(x->rtype);
        x->tmp = malloc(x->bytes * (size_t)cc->nb + 1);
        if (!x->tmp)
            return MPI_ERR_NO_MEM;
        /* the board's partial: into rbuf at the root of a reduce and at
         * the leaders of an allreduce, into our slot of tmp at the other
         * leaders of a reduce */
        void *into = NULL;
        if (cc->brank == part)
            into = gets ? x->rbuf : x->tmp + x->bytes * (size_t)cc->myb;
        const void *from = x->sbuf;
        if (from == MPI_IN_PLACE && cc->brank != part)
            from = x->rbuf; /* allreduce in place, not at the root */
        rc = PMPI_Ireduce(from, into, x->rcount, x->rtype, x->op, part, cc->b1,
                          &x->r1);
        for (int b = 0; gets && b < cc->nb && rc == MPI_SUCCESS; b++)
            if (b != cc->myb && b != rb)
                rc = MPI_Irecv(x->tmp + x->bytes * (size_t)b, x->rcount,
                               x->rtype, leader(cc, b), x->tag, cc->alias,
                               ir_slot(x));
        break;
    }
    case K_ALLGATHER: {
        x->cnt = malloc(sizeof(int) * (size_t)nbm);
        x->dsp = malloc(sizeof(int) * (size_t)nbm);
        if (!x->cnt || !x->dsp)
            return MPI_ERR_NO_MEM;
        for (int i = 0; i < nbm; i++) {
            x->cnt[i] = x->rcount;
            x->dsp[i] = cc->mem[cc->myb][i] * x->rcount;
        }
        const void *from = x->sbuf;
        int scount = x->scount;
        MPI_Datatype stype = x->stype;
        if (from == MPI_IN_PLACE && !lead) {
            from = at(x->rbuf, me, x->rcount, x->rtype);
            scount = x->rcount;
            stype = x->rtype;
        }
        rc = PMPI_Igatherv(from, scount, stype, x->rbuf, x->cnt, x->dsp,
                           x->rtype, 0, cc->b1, &x->r1);
        if (!lead || rc != MPI_SUCCESS)
            break;
        /* each board's blocks, where they go in rbuf */
        x->btype = malloc(sizeof(MPI_Datatype) * (size_t)cc->nb);
        int *d = malloc(sizeof(int) * (size_t)cc->size);
        if (!x->btype || !d) {
            free(d);
            return MPI_ERR_NO_MEM;
        }
        for (int b = 0; b < cc->nb; b++)
            x->btype[b] = MPI_DATATYPE_NULL;
        for (int b = 0; b < cc->nb && rc == MPI_SUCCESS; b++) {
            for (int i = 0; i < cc->nmem[b]; i++)
                d[i] = cc->mem[b][i] * x->rcount;
            rc = PMPI_Type_create_indexed_block(cc->nmem[b], x->rcount, d,
                                                x->rtype, &x->btype[b]);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Type_commit(&x->btype[b]);
        }
        free(d);
        for (int b = 0; b < cc->nb && rc == MPI_SUCCESS; b++)
            if (b != cc->myb)
                rc = MPI_Irecv(x->rbuf, 1, x->btype[b], leader(cc, b), x->tag,
                               cc->alias, ir_slot(x));
        break;
    }
    case K_ALLTOALL: {
        const void *from = x->sbuf;
        int scount = x->scount;
        MPI_Datatype stype = x->stype;
        if (from == MPI_IN_PLACE) {
            /* send from a copy of rbuf (any datatype) */
            MPI_Aint tlb, text, ext = extent_of(x->rtype);
            int n = cc->size * x->rcount;
            PMPI_Type_get_true_extent(x->rtype, &tlb, &text);
            x->bytes = n ? (size_t)((MPI_Aint)(n - 1) * ext + text) : 0;
            x->tmp = malloc(x->bytes + 1);
            if (!x->tmp)
                return MPI_ERR_NO_MEM;
            char *base = x->tmp - tlb;
            rc = PMPI_Sendrecv(x->rbuf, n, x->rtype, 0, 0, base, n, x->rtype, 0,
                               0, nm_self_comm(), MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return rc;
            from = base;
            scount = x->rcount;
            stype = x->rtype;
            x->sbuf = from;
            x->scount = scount;
            x->stype = stype;
            x->own_stype = 0;
        }
        int *sd = malloc(sizeof(int) * 4 * (size_t)nbm);
        if (!sd)
            return MPI_ERR_NO_MEM;
        x->cnt = sd; /* scounts, sdispls, rcounts, rdispls */
        for (int i = 0; i < nbm; i++) {
            int r = cc->mem[cc->myb][i];
            sd[i] = scount;
            sd[nbm + i] = r * scount;
            sd[2 * nbm + i] = x->rcount;
            sd[3 * nbm + i] = r * x->rcount;
        }
        rc = PMPI_Ialltoallv(from, sd, sd + nbm, stype, x->rbuf, sd + 2 * nbm,
                             sd + 3 * nbm, x->rtype, cc->b1, &x->r1);
        for (int j = 0; j < cc->size && rc == MPI_SUCCESS; j++) {
            if (cc->board[j] == cc->myb)
                continue;
            rc = MPI_Irecv(at(x->rbuf, j, x->rcount, x->rtype), x->rcount,
                           x->rtype, j, x->tag, cc->alias, ir_slot(x));
            if (rc == MPI_SUCCESS)
                rc = MPI_Isend(at(from, j, scount, stype), scount, stype, j,
                               x->tag, cc->alias, ir_slot(x));
        }
        break;
    }
    }
    return rc;
}

/* co_lock held: phase 1 has ended: the sends between boards. */
static int after1(coll_t *x)
{
    ccomm_t *cc = x->cc;
    int lead = cc->brank == 0, rc = MPI_SUCCESS;
    switch (x->kind) {
    case K_BARRIER:
        for (int b = 0; lead && b < cc->nb && rc == MPI_SUCCESS; b++)
            if (b != cc->myb)
                rc = MPI_Isend(NULL, 0, MPI_BYTE, leader(cc, b), x->tag,
                               cc->alias, ir_slot(x));
        break;
    case K_REDUCE:
        if (lead && cc->board[x->root] != cc->myb)
            rc = MPI_Isend(x->tmp + x->bytes * (size_t)cc->myb, x->rcount,
                           x->rtype, x->root, x->tag, cc->alias, ir_slot(x));
        break;
    case K_ALLREDUCE:
        if (!lead)
            break;
        /* send a copy: rbuf takes the result while the sends may run */
        memcpy(x->tmp + x->bytes * (size_t)cc->myb, x->rbuf, x->bytes);
        for (int b = 0; b < cc->nb && rc == MPI_SUCCESS; b++)
            if (b != cc->myb)
                rc = MPI_Isend(x->tmp + x->bytes * (size_t)cc->myb, x->rcount,
                               x->rtype, leader(cc, b), x->tag, cc->alias,
                               ir_slot(x));
        break;
    case K_ALLGATHER:
        for (int b = 0; lead && b < cc->nb && rc == MPI_SUCCESS; b++)
            if (b != cc->myb)
                rc = MPI_Isend(x->rbuf, 1, x->btype[cc->myb], leader(cc, b),
                               x->tag, cc->alias, ir_slot(x));
        break;
    }
    return rc;
}

/* co_lock held: phase 2 has ended: combine.  Every leader combines the
 * partials in board order, so all get the same bits. */
static int after2(coll_t *x)
{
    ccomm_t *cc = x->cc;
    int rc = MPI_SUCCESS;
    if (x->kind == K_REDUCE && cc->rank == x->root) {
        int rb = cc->myb;
        for (int b = cc->nb - 1; b >= 0 && rc == MPI_SUCCESS; b--)
            if (b != rb)
                rc = PMPI_Reduce_local(x->tmp + x->bytes * (size_t)b, x->rbuf,
                                       x->rcount, x->rtype, x->op);
    } else if (x->kind == K_ALLREDUCE && cc->brank == 0 && x->bytes) {
        int last = cc->nb - 1;
        memcpy(x->rbuf, x->tmp + x->bytes * (size_t)last, x->bytes);
        for (int b = last - 1; b >= 0 && rc == MPI_SUCCESS; b--)
            rc = PMPI_Reduce_local(x->tmp + x->bytes * (size_t)b, x->rbuf,
                                   x->rcount, x->rtype, x->op);
    }
    return rc;
}

static int post3(coll_t *x)
{
    ccomm_t *cc = x->cc;
    switch (x->kind) {
    case K_BARRIER:
        return PMPI_Ibarrier(cc->b3, &x->r3);
    case K_BCAST:
        return PMPI_Ibcast(x->rbuf, x->rcount, x->rtype, broot(x), cc->b3,
                           &x->r3);
    case K_ALLREDUCE:
        return PMPI_Ibcast(x->rbuf, x->rcount, x->rtype, 0, cc->b3, &x->r3);
    case K_ALLGATHER:
        return PMPI_Ibcast(x->rbuf, cc->size * x->rcount, x->rtype, 0, cc->b3,
                           &x->r3);
    }
    return MPI_SUCCESS;
}

enum { PH1, PH2, PH3, PH3RUN, PHDONE };

static int test1(MPI_Request *r, int *rc)
{
    int flag = 1;
    if (*r != MPI_REQUEST_NULL)
        *rc = PMPI_Test(r, &flag, MPI_STATUS_IGNORE);
    return flag;
}

/* co_lock held: move x as far as it goes; 1 when it has ended.  After an
 * error the operation still takes its phase-3 turn (without posting), so
 * the collectives behind it keep their order. */
static int step(coll_t *x)
{
    int rc = MPI_SUCCESS, flag;
    while (x->phase != PHDONE) {
        switch (x->phase) {
        case PH1:
            if (!test1(&x->r1, &rc))
                return 0;
            if (rc == MPI_SUCCESS)
                rc = after1(x);
            x->phase = PH2;
            break;
        case PH2:
            flag = 1;
            if (x->nir) {
                /* (through a variable: GCC takes the constant for an
                 * array of size 0) */
                MPI_Status *volatile none = MPI_STATUSES_IGNORE;
                rc = PMPI_Testall(x->nir, x->ir, &flag, none);
                if (rc == MPI_ERR_IN_STATUS)
                    rc = MPI_ERR_OTHER;
            }
            if (rc == MPI_SUCCESS && !flag)
                return 0;
            if (rc == MPI_SUCCESS)
                rc = after2(x);
            x->phase = PH3;
            break;
        case PH3:
            if (x->p3 < 0) {
                x->phase = PHDONE;
                break;
            }
            if ((int)x->cc->p3_done != x->p3)
                return 0; /* an earlier collective posts first */
            if (x->err == MPI_SUCCESS)
                rc = post3(x);
            x->cc->p3_done++;
            x->phase = x->err == MPI_SUCCESS ? PH3RUN : PHDONE;
            break;
        case PH3RUN:
            if (!test1(&x->r3, &rc))
                return 0;
            x->phase = PHDONE;
            break;
        }
        if (rc != MPI_SUCCESS) {
            if (x->err == MPI_SUCCESS)
                x->err = rc;
            rc = MPI_SUCCESS;
            x->leak = 1; /* requests may still use the work space */
            if (x->phase != PHDONE && x->phase != PH3RUN)
                x->phase = PH3;
            else
                x->phase = PHDONE;
        }
    }
    return 1;
}

/* co_lock held: x has ended: off the list. */
static void finish(coll_t *x)
{
    for (coll_t **pp = &running; *pp; pp = &(*pp)->next)
        if (*pp == x) {
            *pp = x->next;
            break;
        }
    nrunning--;
    ccomm_unref(x->cc);
    x->cc = NULL;
    atomic_store_explicit(&x->done, 1, memory_order_release);
    if (x->is_greq)
        PMPI_Grequest_complete(x->greq);
}

/* Move every running collective (any thread; a busy lock means another
 * thread is at it). */
void nm_coll_run(void)
{
    if (!atomic_load_explicit(&nrunning, memory_order_relaxed))
        return;
    if (pthread_mutex_trylock(&co_lock) != 0)
        return;
    for (coll_t *x = running, *nx; x; x = nx) {
        nx = x->next;
        if (step(x))
            finish(x);
    }
    pthread_mutex_unlock(&co_lock);
}

static int is_done(coll_t *x)
{
    return atomic_load_explicit(&x->done, memory_order_acquire);
}

static void wait_done(coll_t *x)
{
    unsigned k = 0;
    int counted = 0; /* PiP form: a spinning waiter runs the turns */
    while (!is_done(x)) {
        nm_coll_run();
        if (!is_done(x)) {
            if (!counted) {
                nm_wait_enter();
                counted = 1;
            }
            nm_spin_round(++k, 63);
        }
    }
    if (counted)
        nm_wait_leave();
}

/* ---------------- generalized requests ---------------- */

static int c_query(void *extra, MPI_Status *st)
{
    coll_t *x = extra;
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
        PMPI_Status_set_elements_x(st, MPI_BYTE, 0);
        PMPI_Status_set_cancelled(st, 0);
    }
    return x->err;
}

static int c_free(void *extra)
{
    coll_free(extra);
    return MPI_SUCCESS;
}

static int c_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS; /* erroneous for collectives; nothing to do */
}

/* MPICH's Wait on a generalized request calls this in a loop: give the
 * processes we wait for the CPU (as delegated requests do). */
static int c_poll(void *extra, MPI_Status *st)
{
    (void)st;
    nm_coll_run();
    if (!is_done(extra))
        nm_poll_round(0, 0);
    return MPI_SUCCESS;
}

static int c_wait(int count, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    (void)st;
    for (int i = 0; i < count; i++)
        wait_done(states[i]);
    return MPI_SUCCESS;
}

/* Start x (blocking when req is NULL); the error goes through comm's
 * handler. */
int nm_coll_start(coll_t *x, MPI_Request *req)
{
    int rc = MPI_SUCCESS;
    if (req) {
        /* the datatypes outlive the call */
        if (x->stype != MPI_DATATYPE_NULL)
            x->own_stype = keep_type(&x->stype);
        if (x->rtype != MPI_DATATYPE_NULL)
            x->own_rtype = keep_type(&x->rtype);
        rc = MPIX_Grequest_start(c_query, c_free, c_cancel, c_poll, c_wait, x,
                                 &x->greq);
        if (rc != MPI_SUCCESS) {
            MPI_Comm comm = x->comm;
            coll_free(x);
            return nm_error(comm, rc);
        }
        x->is_greq = 1;
    }
    MPI_Comm comm = x->comm;
    atomic_fetch_add_explicit(&n_hier, 1, memory_order_relaxed);
    pthread_mutex_lock(&co_lock);
    x->cc->refs++;
    rc = start(x);
    if (rc != MPI_SUCCESS && x->err == MPI_SUCCESS)
        x->err = rc;
    x->next = running;
    running = x;
    nrunning++;
    if (x->err != MPI_SUCCESS) {
        x->leak = 1;
        x->phase = PH3; /* gives its phase-3 turn up when it comes */
    }
    if (step(x))
        finish(x);
    pthread_mutex_unlock(&co_lock);
    if (req) {
        *req = x->greq;
        return MPI_SUCCESS;
    }
    wait_done(x);
    rc = x->err;
    coll_free(x);
    return nm_error(comm, rc);
}
