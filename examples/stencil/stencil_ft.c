/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stencil_ft.c: the recovery layer of the Jacobi demo.
 *
 * Protocol, run by every live process (computing or idle spare) once any of
 * them got MPIX_ERR_PROC_FAILED or MPIX_ERR_REVOKED:
 *  1. revoke the work communicator and the universe (so that everybody
 *     still blocked in a halo exchange, a checkpoint reduction or the idle
 *     spares' barrier leaves it);
 *  2. agree on the failed set: acknowledge the known failures and run
 *     MPIX_Comm_agree until it succeeds (it does once every survivor
 *     acknowledged the same set);
 *  3. shrink the universe; the failed nodes are the members missing from
 *     the shrunk communicator (the same list everywhere, sorted);
 *  4. remap: feed the failed nodes to the libspare map (the same calls on
 *     every survivor give the same mapping), split the new work
 *     communicator with the new logical rank as key;
 *  5. restore (stencil_ft_restore): each computing process maps the
 *     checkpoint file of the block it now hosts; all roll back to the newest
 *     iteration every block holds; the recovery's timings are reduced so that
 *     every survivor keeps the whole history.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpix_ft.h"
#include "stencil.h"

double stencil_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static int mpi_err(const char *what, int rc)
{
    fprintf(stderr, "stencil: recovery: %s failed (MPI error class %d)\n", what,
            rc);
    return -1;
}

/* The failed members of old, missing from new, as world ranks (sorted). */
static int failed_nodes(MPI_Comm old, MPI_Comm nu, long *out, int max)
{
    MPI_Group og, ng, fg, wg;
    MPI_Comm_group(old, &og);
    MPI_Comm_group(nu, &ng);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_difference(og, ng, &fg);
    int n = 0;
    MPI_Group_size(fg, &n);
    if (n > max)
        n = max;
    int idx[8], wr[8];
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(fg, n, idx, wg, wr);
    for (int i = 0; i < n; i++)
        out[i] = wr[i];
    qsort(out, (size_t)n, sizeof *out, cmp_long);
    MPI_Group_free(&og);
    MPI_Group_free(&ng);
    MPI_Group_free(&fg);
    MPI_Group_free(&wg);
    return n;
}

/* Which injected kills happened: their victims left kill.<j> files with
 * the time of death.  Read by the new universe's rank 0 and broadcast, so
 * that every survivor has the same view. */
static int read_markers(stencil_ft_t *ft, stencil_event_t *e)
{
    int r = 0;
    MPI_Comm_rank(ft->universe, &r);
    /* mask (exact in a double up to 2^53), earliest death, latest
     * iteration of a victim */
    double msg[3] = {0, 0, -1};
    if (r == 0) {
        unsigned long long mask = ft->fired;
        double tk = 0, ti = -1;
        for (int j = 0; j < ft->nkills && j < 52; j++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/kill.%d", ft->dir, j);
            FILE *f = fopen(path, "r");
            if (!f)
                continue;
            double t = 0;
            int w = 0;
            long it = -1;
            if (fscanf(f, "%lf %d %ld", &t, &w, &it) == 3 &&
                !(mask & (1ull << j))) {
                if (tk == 0 || t < tk)
                    tk = t;
                if ((double)it > ti)
                    ti = (double)it;
            }
            fclose(f);
            mask |= 1ull << j;
        }
        msg[0] = (double)mask;
        msg[1] = tk;
        msg[2] = ti;
    }
    int rc = MPI_Bcast(msg, 3, MPI_DOUBLE, 0, ft->universe);
    if (rc != MPI_SUCCESS)
        return mpi_err("broadcast of the kill markers", rc);
    ft->fired = (unsigned long long)msg[0];
    e->t_kill = msg[1];
    /* A victim got as far as the iteration it died before (the only
     * record when every computing process died). */
    if ((long)msg[2] > e->reached)
        e->reached = (long)msg[2];
    return 0;
}

int stencil_ft_recover(stencil_ft_t *ft, double t_err, long reached)
{
    if (ft->nevents >= STENCIL_MAX_EVENTS) {
        fprintf(stderr, "stencil: more than %d recoveries\n",
                STENCIL_MAX_EVENTS);
        return -1;
    }
    stencil_event_t *e = &ft->ev[ft->nevents];
    memset(e, 0, sizeof *e);
    e->t_enter = t_err;
    e->reached = reached;

    /* 1. Revoke: the others leave whatever they are blocked in. */
    if (ft->work != MPI_COMM_NULL)
        MPIX_Comm_revoke(ft->work);
    MPIX_Comm_revoke(ft->universe);

    /* 2. Agree on the failed set. */
    int rc = MPIX_ERR_PROC_FAILED;
    for (int tries = 0; tries < 100 && rc != MPI_SUCCESS; tries++) {
        MPIX_Comm_failure_ack(ft->universe);
        int flag = 1;
        rc = MPIX_Comm_agree(ft->universe, &flag);
        if (rc != MPI_SUCCESS && rc != MPIX_ERR_PROC_FAILED)
            return mpi_err("MPIX_Comm_agree", rc);
    }
    if (rc != MPI_SUCCESS)
        return mpi_err("MPIX_Comm_agree (no stable failed set)", rc);

    /* 3. Shrink. */
    MPI_Comm nu;
    rc = MPIX_Comm_shrink(ft->universe, &nu);
    if (rc != MPI_SUCCESS)
        return mpi_err("MPIX_Comm_shrink", rc);
    MPI_Comm_set_errhandler(nu, MPI_ERRORS_RETURN);
    e->nfailed = failed_nodes(ft->universe, nu, e->node, 8);
    e->t_shrunk = stencil_now();

    /* 4. New mapping.  Nodes are world ranks, so the failed members are
     * the failed nodes. */
    double decl = 0;
    /* What each hosted before this recovery (a slide for the first may
     * move the rank of the second). */
    for (int i = 0; i < e->nfailed; i++) {
        long lr = spare_map_node_rank(ft->map, e->node[i]);
        e->lrank[i] = lr >= 0 ? lr : -1;
    }
    for (int i = 0; i < e->nfailed; i++) {
        double t = 0;
        FTA_Failure_time((int)e->node[i], &t);
        if (t > 0 && (decl == 0 || t < decl))
            decl = t;
        spare_subst_t s;
        int err = spare_map_fail_node(ft->map, e->node[i], &s);
        if (err < 0) {
            int r = 0;
            MPI_Comm_rank(nu, &r);
            if (r == 0)
                fprintf(stderr,
                        "stencil: node %ld failed and the method cannot "
                        "substitute it: %s\n",
                        e->node[i], spare_strerror(err));
            return -1;
        }
        e->degree[i] = s.degree;
        e->sdim[i] = s.dim;
        e->sdir[i] = s.dir;
        e->moved[i] = s.moved;
    }
    e->t_declared = decl;
    long nl = spare_map_node_rank(ft->map, ft->world_rank);
    /* The old communicators are not freed: operations on them that can
     * never complete (receives from the dead, freed by ft-agree when it
     * returned the error) stay posted inside MPICH, and a freed context id
     * reused by a new communicator would let them match its messages. */
    ft->universe = nu;
    ft->lrank = nl >= 0 ? nl : -1;
    rc = MPI_Comm_split(nu, nl >= 0 ? 0 : MPI_UNDEFINED,
                        (int)(nl >= 0 ? nl : 0), &ft->work);
    if (rc != MPI_SUCCESS)
        return mpi_err("MPI_Comm_split", rc);
    if (ft->work != MPI_COMM_NULL)
        MPI_Comm_set_errhandler(ft->work, MPI_ERRORS_RETURN);
    if (read_markers(ft, e) < 0)
        return -1;
    e->t_remapped = stencil_now();
    return 0;
}

int stencil_ft_restore(stencil_ft_t *ft, stencil_ckpt_t *ck, size_t count,
                       double *data, long *iter)
{
    stencil_event_t *e = &ft->ev[ft->nevents];
    long c = -1;
    int rc;
    if (ft->lrank >= 0) {
        if (stencil_ckpt_open(ck, ft->dir, ft->lrank, count, ft->nonce) != 0)
            return -1;
        long v[2], mine;
        stencil_ckpt_valid(ck, v);
        mine = v[0] > v[1] ? v[0] : v[1];
        /* Checkpoints are coordinated (a reduction follows each one), so
         * the blocks are at most one checkpoint apart and the oldest
         * newest one is held by everybody. */
        rc = MPI_Allreduce(&mine, &c, 1, MPI_LONG, MPI_MIN, ft->work);
        if (rc != MPI_SUCCESS)
            return mpi_err("reduction of the checkpoint iterations", rc);
        int has = c >= 0 && (v[0] == c || v[1] == c), all = 0;
        rc = MPI_Allreduce(&has, &all, 1, MPI_INT, MPI_MIN, ft->work);
        if (rc != MPI_SUCCESS)
            return mpi_err("reduction of the checkpoint check", rc);
        if (!all) {
            if (ft->lrank == 0)
                fprintf(stderr, "stencil: no checkpoint common to all "
                                "blocks\n");
            return -1;
        }
        if (stencil_ckpt_read(ck, c, data) != 0)
            return -1;
        *iter = c;
    }
    e->t_restored = stencil_now();

    /* Everybody keeps the whole history (a spare that takes over logical
     * rank 0 later prints the report).  One MAX reduction; minima as
     * negated maxima. */
    int n = 7 + ft->nevents;
    double *v = calloc((size_t)n, sizeof *v), *w = calloc((size_t)n, sizeof *w);
    if (!v || !w) {
        free(v);
        free(w);
        return -1;
    }
    v[0] = -e->t_enter;
    v[1] = e->t_declared > 0 ? -e->t_declared : -1e300;
    v[2] = e->t_shrunk;
    v[3] = e->t_remapped;
    v[4] = e->t_restored;
    v[5] = (double)e->reached;
    v[6] = (double)c;
    for (int i = 0; i < ft->nevents; i++)
        v[7 + i] = ft->ev[i].recompute;
    rc = MPI_Allreduce(v, w, n, MPI_DOUBLE, MPI_MAX, ft->universe);
    if (rc == MPI_SUCCESS) {
        e->t_enter = -w[0];
        e->t_declared = w[1] > -1e300 ? -w[1] : 0;
        e->t_shrunk = w[2];
        e->t_remapped = w[3];
        e->t_restored = w[4];
        e->reached = (long)w[5];
        e->restored = (long)w[6];
        for (int i = 0; i < ft->nevents; i++)
            ft->ev[i].recompute = w[7 + i];
    }
    free(v);
    free(w);
    if (rc != MPI_SUCCESS)
        return mpi_err("reduction of the recovery times", rc);
    ft->nevents++;
    return 0;
}
