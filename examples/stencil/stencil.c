/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stencil.c: a 2-D/3-D Jacobi (heat) stencil on a Cartesian rank grid
 * that survives killed processes: spare nodes allocated qD(r,s) and
 * substituted by libspare's sliding methods, failures detected, agreed and
 * shrunk away by ft-agree, blocks restored from checkpoints in MPI storage
 * windows.  See examples/stencil/README.md.
 *
 *   mpiexec -n NODES stencil [options]      (stencil --help)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mpix_ft.h"
#include "stencil.h"
#include "pvas_env.h"

static int wrank, debug;

#define DBG(...)                                                               \
    do {                                                                       \
        if (debug) {                                                           \
            fprintf(stderr, "[node %d %.3f] ", wrank, stencil_now());          \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
        }                                                                      \
    } while (0)

#define ERR0(...)                                                              \
    do {                                                                       \
        if (wrank == 0)                                                        \
            fprintf(stderr, "stencil: " __VA_ARGS__);                          \
    } while (0)

/* ---- The solver: halo exchange and the iteration loop ---- */

typedef struct solver {
    stencil_block_t b;
    double *u, *v, *pack;
    MPI_Datatype send[3][2], recv[3][2];
    int have_types;
    long stride[3];
} solver_t;

static void face_type(const stencil_block_t *b, int d, int at, MPI_Datatype *t)
{
    int sizes[3], sub[3], start[3];
    for (int k = 0; k < 3; k++) { /* C order: z, y, x */
        int dd = 2 - k;
        sizes[k] = b->e[dd];
        sub[k] = dd == d ? 1 : b->n[dd];
        start[k] = dd == d ? at : b->g[dd];
    }
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, t);
    MPI_Type_commit(t);
}

static void solver_free(solver_t *s)
{
    free(s->u);
    free(s->v);
    free(s->pack);
    s->u = s->v = s->pack = NULL;
    if (s->have_types)
        for (int d = 0; d < s->b.ndims; d++)
            for (int h = 0; h < 2; h++) {
                MPI_Type_free(&s->send[d][h]);
                MPI_Type_free(&s->recv[d][h]);
            }
    s->have_types = 0;
}

/* Set up the block of logical rank lrank with its initial values. */
static int solver_setup(solver_t *s, int ndims, const int *n, const int *pgrid,
                        long lrank)
{
    solver_free(s);
    stencil_block_setup(&s->b, ndims, n, pgrid, lrank);
    s->u = malloc(s->b.cells * sizeof(double));
    s->v = malloc(s->b.cells * sizeof(double));
    s->pack = malloc(s->b.inner * sizeof(double));
    if (!s->u || !s->v || !s->pack)
        return -1;
    stencil_block_init(&s->b, s->u);
    stencil_block_init(&s->b, s->v);
    s->stride[0] = 1;
    s->stride[1] = pgrid[0];
    s->stride[2] = (long)pgrid[0] * (ndims > 1 ? pgrid[1] : 1);
    for (int d = 0; d < ndims; d++) {
        face_type(&s->b, d, s->b.g[d], &s->send[d][0]);
        face_type(&s->b, d, s->b.g[d] + s->b.n[d] - 1, &s->send[d][1]);
        face_type(&s->b, d, 0, &s->recv[d][0]);
        face_type(&s->b, d, s->b.g[d] + s->b.n[d], &s->recv[d][1]);
    }
    s->have_types = 1;
    return 0;
}

static int halo_exchange(solver_t *s, long lrank, MPI_Comm comm)
{
    for (int d = 0; d < s->b.ndims; d++) {
        int lo =
            s->b.coord[d] > 0 ? (int)(lrank - s->stride[d]) : MPI_PROC_NULL;
        int hi = s->b.coord[d] < s->b.pgrid[d] - 1 ? (int)(lrank + s->stride[d])
                                                   : MPI_PROC_NULL;
        int rc = MPI_Sendrecv(s->u, 1, s->send[d][1], hi, 10 + 2 * d, s->u, 1,
                              s->recv[d][0], lo, 10 + 2 * d, comm,
                              MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Sendrecv(s->u, 1, s->send[d][0], lo, 11 + 2 * d, s->u, 1,
                              s->recv[d][1], hi, 11 + 2 * d, comm,
                              MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The victim of an injected kill leaves a marker with its time of death
 * (for the survivors' report) and dies by SIGKILL, unannounced. */
static void die(const char *dir, int j, long iter)
{
    char path[4200], line[128];
    snprintf(path, sizeof path, "%s/kill.%d", dir, j);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        int len = snprintf(line, sizeof line, "%.6f %d %ld\n", stencil_now(),
                           wrank, iter);
        if (write(fd, line, (size_t)len) != len)
            perror("stencil: kill marker");
        close(fd);
    }
    raise(SIGKILL);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct run {
    const opts_t *o;
    kill_ev_t kills[STENCIL_MAX_EVENTS];
    int nkills;
    long iter;        /* next iteration to compute */
    long ckpt_done;   /* newest checkpoint taken or restored */
    long computed;    /* sweeps done here, including redone ones */
    double t_compute; /* time in sweeps + halo exchanges */
    double *it_times; /* per computed sweep (for the median) */
    long it_cap;
    double t_ckpt; /* time in checkpoints (write, sync, reduction) */
    long nckpt;
    long recompute_to; /* after a rollback: iteration reached before */
    double t_back;     /* when the rollback finished */
} run_t;

/* Iterate up to o->iters.  MPI_SUCCESS, or the error class of the call
 * that saw a failure. */
static int solve(run_t *r, solver_t *s, stencil_ft_t *ft, stencil_ckpt_t *ck)
{
    const opts_t *o = r->o;
    while (r->iter < o->iters) {
        for (int j = 0; j < r->nkills; j++)
            if (r->kills[j].iter == r->iter && r->kills[j].lrank == ft->lrank &&
                !(ft->fired & (1ull << j)))
                die(ft->dir, j, r->iter);
        if (r->iter % o->every == 0 && r->iter > r->ckpt_done) {
            DBG("checkpoint %ld", r->iter);
            double t0 = MPI_Wtime();
            stencil_pack(&s->b, s->u, s->pack);
            if (stencil_ckpt_write(ck, r->iter, o->every, s->pack) != 0)
                return MPI_ERR_IO;
            int one = 1, all = 0;
            /* Coordinated: nobody writes checkpoint c+k before everybody
             * wrote c, so two slots always hold a common iteration. */
            int rc = MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, ft->work);
            if (rc != MPI_SUCCESS)
                return rc;
            r->ckpt_done = r->iter;
            r->t_ckpt += MPI_Wtime() - t0;
            r->nckpt++;
        }
        double t0 = MPI_Wtime();
        int rc = halo_exchange(s, ft->lrank, ft->work);
        if (rc != MPI_SUCCESS)
            return rc;
        stencil_sweep(&s->b, s->u, s->v);
        double *t = s->u;
        s->u = s->v;
        s->v = t;
        r->iter++;
        r->computed++;
        double dt = MPI_Wtime() - t0;
        r->t_compute += dt;
        if (r->computed <= r->it_cap)
            r->it_times[r->computed - 1] = dt;
        if (r->recompute_to > 0 && r->iter >= r->recompute_to) {
            ft->ev[ft->nevents - 1].recompute = stencil_now() - r->t_back;
            DBG("recompute of event %d: %.3f s", ft->nevents,
                ft->ev[ft->nevents - 1].recompute);
            r->recompute_to = 0;
        }
    }
    return MPI_SUCCESS;
}

/* Logical rank 0 collects the blocks; every active process joins the
 * reduction of the recompute times (MAX) so that rank 0 has them all. */
static int gather(run_t *r, solver_t *s, stencil_ft_t *ft, double **field)
{
    int rc;
    double rt[STENCIL_MAX_EVENTS], rtall[STENCIL_MAX_EVENTS];
    for (int i = 0; i < ft->nevents; i++)
        rt[i] = ft->ev[i].recompute;
    if (ft->nevents) {
        rc = MPI_Allreduce(rt, rtall, ft->nevents, MPI_DOUBLE, MPI_MAX,
                           ft->work);
        if (rc != MPI_SUCCESS)
            return rc;
        for (int i = 0; i < ft->nevents; i++)
            ft->ev[i].recompute = rtall[i];
    }
    DBG("gather");
    stencil_pack(&s->b, s->u, s->pack);
    if (ft->lrank != 0)
        return MPI_Send(s->pack, (int)s->b.inner, MPI_DOUBLE, 0, 99, ft->work);
    int nw;
    MPI_Comm_size(ft->work, &nw);
    size_t tot = s->b.inner * (size_t)nw;
    double *f = malloc(tot * sizeof *f), *blk = malloc(s->b.inner * sizeof *f);
    if (!f || !blk) {
        free(f);
        free(blk);
        return MPI_ERR_NO_MEM;
    }
    long N[3];
    for (int d = 0; d < 3; d++)
        N[d] = (long)s->b.pgrid[d] * s->b.n[d];
    for (int q = 0; q < nw; q++) {
        if (q == 0) {
            memcpy(blk, s->pack, s->b.inner * sizeof *blk);
        } else {
            rc = MPI_Recv(blk, (int)s->b.inner, MPI_DOUBLE, q, 99, ft->work,
                          MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) {
                free(f);
                free(blk);
                return rc;
            }
        }
        stencil_block_t qb;
        stencil_block_setup(&qb, s->b.ndims, s->b.n, s->b.pgrid, q);
        size_t k = 0;
        for (int z = 0; z < qb.n[2]; z++)
            for (int y = 0; y < qb.n[1]; y++)
                for (int x = 0; x < qb.n[0]; x++) {
                    long gx = (long)qb.coord[0] * qb.n[0] + x,
                         gy = (long)qb.coord[1] * qb.n[1] + y,
                         gz = (long)qb.coord[2] * qb.n[2] + z;
                    f[(gz * N[1] + gy) * N[0] + gx] = blk[k++];
                }
    }
    free(blk);
    *field = f;
    return MPI_SUCCESS;
}

static const char *method_of(const stencil_event_t *e, int i, char *buf,
                             size_t len)
{
    static const char xyz[] = "XYZUVW";
    if (e->degree[i] < 0 && e->lrank[i] >= 0)
        snprintf(buf, len,
                 "nothing more (an earlier slide of this "
                 "recovery moved its rank)");
    else if (e->degree[i] < 0)
        snprintf(buf, len, "nothing (an idle spare)");
    else if (e->degree[i] == 0)
        snprintf(buf, len, "0D");
    else
        snprintf(buf, len, "%dD along %c%c", e->degree[i],
                 e->sdir[i] > 0 ? '+' : '-', xyz[e->sdim[i] % 6]);
    return buf;
}

static void print_event(const stencil_ft_t *ft, int k, double iter_time)
{
    const stencil_event_t *e = &ft->ev[k];
    char m[96];
    printf("failure %d:", k + 1);
    for (int i = 0; i < e->nfailed; i++)
        printf("%s node %ld (logical rank %ld), substituted by %s, %ld "
               "rank%s moved",
               i ? ";" : "", e->node[i], e->lrank[i],
               method_of(e, i, m, sizeof m), e->moved[i],
               e->moved[i] == 1 ? "" : "s");
    printf("\n  reached iteration %ld, rolled back to %ld\n", e->reached,
           e->restored);
    double det = e->t_kill > 0 ? e->t_enter - e->t_kill : 0;
    double agr = e->t_shrunk - e->t_enter, rem = e->t_remapped - e->t_shrunk,
           res = e->t_restored - e->t_remapped;
    printf("  time lost: detection %.1f ms", det * 1e3);
    if (e->t_kill > 0 && e->t_declared > 0)
        printf(" (declared dead after %.1f ms)",
               (e->t_declared - e->t_kill) * 1e3);
    printf(", revoke+agree+shrink %.1f ms, remap %.1f ms, restore %.1f ms, "
           "recompute %.1f ms (%ld iterations, ~%.1f ms failure-free); "
           "total %.1f ms\n",
           agr * 1e3, rem * 1e3, res * 1e3, e->recompute * 1e3,
           e->reached - e->restored,
           (double)(e->reached - e->restored) * iter_time * 1e3,
           (det + agr + rem + res + e->recompute) * 1e3);
}

static int write_field(const char *path, const stencil_block_t *b,
                       const double *f, size_t n, long iters)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        fprintf(stderr, "stencil: %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(fp, "stencil-field %d %ld %ld %ld %ld\n", b->ndims,
            (long)b->pgrid[0] * b->n[0], (long)b->pgrid[1] * b->n[1],
            (long)b->pgrid[2] * b->n[2], iters);
    size_t w = fwrite(f, sizeof *f, n, fp);
    if (fclose(fp) != 0 || w != n) {
        fprintf(stderr, "stencil: %s: write failed\n", path);
        return -1;
    }
    return 0;
}

static void remove_ckpt(const stencil_ft_t *ft, long nranks, int made_dir,
                        int nkills)
{
    char path[4200];
    for (long l = 0; l < nranks; l++) {
        snprintf(path, sizeof path, "%s/block.%ld", ft->dir, l);
        unlink(path);
    }
    for (int j = 0; j < nkills; j++) {
        snprintf(path, sizeof path, "%s/kill.%d", ft->dir, j);
        unlink(path);
    }
    if (made_dir)
        rmdir(ft->dir);
}

/* Everything that needs MPI; returns the exit status. */
static int run_main(int argc, char **argv)
{
    opts_t o;
    int st = stencil_opts_parse(argc, argv, wrank, &o);
    if (st)
        return st == 1 ? 0 : st;
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    /* Node space, spares and method. */
    int dsz[3];
    int ndims = stencil_parse_sizes(o.dims, dsz);
    if (ndims < 2) {
        ERR0("bad --dims '%s' (2 or 3 sizes, e.g. 2x2 or 2x2x2)\n", o.dims);
        return 2;
    }
    char defalloc[32];
    snprintf(defalloc, sizeof defalloc, "%dD(1,1)", ndims);
    if (!o.alloc)
        o.alloc = defalloc;
    static stencil_ft_t ft;
    memset(&ft, 0, sizeof ft);
    ft.world_rank = wrank;
    ft.world_size = wsize;
    int rc = spare_topo_parse(o.dims, o.alloc, &ft.topo);
    if (rc < 0) {
        ERR0("bad node space '%s' / allocation '%s': %s\n", o.dims, o.alloc,
             spare_strerror(rc));
        return 2;
    }
    if ((rc = spare_method_parse(o.method, ndims, &ft.method)) < 0) {
        ERR0("bad method '%s': %s\n", o.method, spare_strerror(rc));
        return 2;
    }
    long nodes = spare_topo_nodes(ft.topo), nranks = spare_topo_ranks(ft.topo),
         nspares = spare_topo_spares(ft.topo);
    if (nodes != wsize) {
        ERR0("the node space %s has %ld nodes: start %ld processes, not %d\n",
             o.dims, nodes, nodes, wsize);
        return 2;
    }
    int pgrid[3] = {1, 1, 1}, bs[3] = {32, 32, 32};
    if (ndims == 3)
        bs[0] = bs[1] = bs[2] = 16;
    for (int d = 0; d < ndims; d++)
        pgrid[d] = spare_topo_rank_size(ft.topo, d);
    if (o.block) {
        int nb = stencil_parse_sizes(o.block, bs);
        if (nb != ndims) {
            ERR0("bad --block '%s' (%d sizes for a %d-D space)\n", o.block,
                 ndims, ndims);
            return 2;
        }
    }

    /* Injected kills. */
    run_t r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    if (stencil_kills_make(&o, o.iters, nranks, nspares, wrank, r.kills,
                           &r.nkills) != 0)
        return 2;
    ft.nkills = r.nkills;
    ft.every = o.every;

    /* Checkpoint directory and the run's nonce, from world rank 0. */
    int made_dir = 0;
    struct {
        double nonce;
        int ok, made;
        char dir[4096];
    } setup;
    memset(&setup, 0, sizeof setup);
    if (wrank == 0) {
        setup.ok = 1;
        if (o.ckdir && *o.ckdir) {
            snprintf(setup.dir, sizeof setup.dir, "%s", o.ckdir);
            if (mkdir(setup.dir, 0755) == 0)
                setup.made = 1;
            else if (errno != EEXIST) {
                fprintf(stderr, "stencil: %s: %s\n", setup.dir,
                        strerror(errno));
                setup.ok = 0;
            }
        } else {
            const char *tmp = getenv("TMPDIR");
            snprintf(setup.dir, sizeof setup.dir, "%s/stencil-ckpt.XXXXXX",
                     tmp && *tmp ? tmp : "/tmp");
            if (mkdtemp(setup.dir))
                setup.made = 1;
            else {
                fprintf(stderr, "stencil: mkdtemp %s: %s\n", setup.dir,
                        strerror(errno));
                setup.ok = 0;
            }
        }
        setup.nonce = (double)(((unsigned long long)getpid() << 20) ^
                               (unsigned long long)(stencil_now() * 1e3));
    }
    MPI_Bcast(&setup, (int)sizeof setup, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (!setup.ok)
        return 1;
    made_dir = setup.made;
    memcpy(ft.dir, setup.dir, sizeof ft.dir);
    ft.dir[sizeof ft.dir - 1] = 0;
    ft.nonce = (uint64_t)setup.nonce;

    /* Initial mapping: rank i on the i-th non-spare node. */
    if ((rc = spare_map_create(ft.topo, &ft.method, NULL, &ft.map)) < 0) {
        ERR0("spare map: %s\n", spare_strerror(rc));
        return 1;
    }
    long l0 = spare_map_node_rank(ft.map, wrank);
    ft.lrank = l0 >= 0 ? l0 : -1;
    ft.universe = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, l0 >= 0 ? 0 : MPI_UNDEFINED,
                   (int)(l0 >= 0 ? l0 : 0), &ft.work);
    if (ft.work != MPI_COMM_NULL)
        MPI_Comm_set_errhandler(ft.work, MPI_ERRORS_RETURN);

    char mname[64];
    spare_method_format(&ft.method, mname, sizeof mname);
    if (wrank == 0 && !o.quiet) {
        printf("stencil: %d-D Jacobi, %ld", ndims, (long)pgrid[0] * bs[0]);
        for (int d = 1; d < ndims; d++)
            printf("x%ld", (long)pgrid[d] * bs[d]);
        printf(" cells on a %d", pgrid[0]);
        for (int d = 1; d < ndims; d++)
            printf("x%d", pgrid[d]);
        printf(" rank grid; node space %s, %s: %ld ranks + %ld spares; "
               "method %s; %ld iterations, checkpoint every %ld; %d kill%s "
               "planned\n",
               o.dims, o.alloc, nranks, nspares, mname, o.iters, o.every,
               r.nkills, r.nkills == 1 ? "" : "s");
        for (int j = 0; j < r.nkills; j++)
            printf("stencil: kill %d: logical rank %ld before iteration %ld\n",
                   j + 1, r.kills[j].lrank, r.kills[j].iter);
        fflush(stdout);
    }

    solver_t s;
    memset(&s, 0, sizeof s);
    stencil_ckpt_t ck;
    memset(&ck, 0, sizeof ck);
    ck.win = MPI_WIN_NULL;
    int status = 0;
    if (ft.lrank >= 0) {
        if (solver_setup(&s, ndims, bs, pgrid, ft.lrank) < 0 ||
            stencil_ckpt_open(&ck, ft.dir, ft.lrank, s.b.inner, ft.nonce) ||
            stencil_ckpt_clear(&ck))
            status = 1;
    }
    int all_ok = 0;
    MPI_Allreduce(&status, &all_ok, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all_ok) {
        ERR0("setup failed\n");
        return 1;
    }
    r.ckpt_done = -1;
    r.it_cap = 4 * o.iters;
    r.it_times = calloc((size_t)r.it_cap, sizeof *r.it_times);
    if (!r.it_times)
        return 1;
    double t_start = MPI_Wtime();
    double *field = NULL;

    for (;;) {
        if (ft.lrank >= 0) {
            rc = solve(&r, &s, &ft, &ck);
            if (rc == MPI_SUCCESS)
                rc = gather(&r, &s, &ft, &field);
            if (rc == MPI_SUCCESS) {
                stencil_ckpt_close(&ck);
                rc = MPI_Barrier(ft.universe);
            }
        } else {
            /* An idle spare waits; a failure or a revoke ends the wait. */
            rc = MPI_Barrier(ft.universe);
        }
        DBG("phase ended: rc=%d lrank=%ld iter=%ld", rc, ft.lrank, r.iter);
        if (rc == MPI_SUCCESS)
            break;
        double t_err = stencil_now();
        if (rc != MPIX_ERR_PROC_FAILED && rc != MPIX_ERR_REVOKED) {
            /* Not a failure the others will see: without the abort they
             * would wait for this process forever. */
            fprintf(stderr,
                    "stencil: node %d: unexpected MPI error class %d, "
                    "aborting\n",
                    wrank, rc);
            MPI_Abort(MPI_COMM_WORLD, 1);
            return 1;
        }
        free(field);
        field = NULL;
        stencil_ckpt_close(&ck);
        long reached = ft.lrank >= 0 ? r.iter : -1;
        if (stencil_ft_recover(&ft, t_err, reached) < 0)
            return 1;
        if (ft.lrank >= 0 && solver_setup(&s, ndims, bs, pgrid, ft.lrank) < 0)
            return 1;
        long it = -1;
        if (stencil_ft_restore(&ft, &ck, s.b.inner, s.pack, &it) < 0)
            return 1;
        stencil_event_t *e = &ft.ev[ft.nevents - 1];
        if (ft.lrank >= 0) {
            stencil_unpack(&s.b, s.pack, s.u);
            r.iter = it;
            r.ckpt_done = it;
            r.recompute_to = e->reached;
            r.t_back = stencil_now();
        }
        DBG("restored: lrank=%ld iter=%ld", ft.lrank, r.iter);
        int ur;
        MPI_Comm_rank(ft.universe, &ur);
        if (ur == 0 && !o.quiet) {
            printf("stencil: recovered from the failure of");
            for (int i = 0; i < e->nfailed; i++)
                printf("%s node %ld (logical rank %ld)", i ? " and" : "",
                       e->node[i], e->lrank[i]);
            printf(": back at iteration %ld, %.3f s after the first "
                   "survivor noticed\n",
                   e->restored, e->t_restored - e->t_enter);
            fflush(stdout);
        }
    }
    double t_total = MPI_Wtime() - t_start;

    if (ft.lrank == 0) {
        int nw;
        MPI_Comm_size(ft.work, &nw);
        size_t tot = s.b.inner * (size_t)nw;
        uint64_t h = stencil_hash(STENCIL_HASH_INIT, field, tot);
        double sum = 0;
        for (size_t i = 0; i < tot; i++)
            sum += field[i];
        /* The median: the sweeps that waited for a dead neighbour would
         * inflate a mean. */
        long nt = r.computed < r.it_cap ? r.computed : r.it_cap;
        qsort(r.it_times, (size_t)nt, sizeof *r.it_times, cmp_double);
        double iter_time = nt ? r.it_times[nt / 2] : 0;
        long nf = 0;
        for (int k = 0; k < ft.nevents; k++)
            nf += ft.ev[k].nfailed;
        printf("stencil: report\n");
        printf("iterations done: %ld (this process computed %ld sweeps, "
               "median %.3f ms each)\n",
               r.iter, r.computed, iter_time * 1e3);
        printf("checkpoints: %ld here, %.3f ms each on average (write + "
               "durable sync + reduction)\n",
               r.nckpt, r.nckpt ? r.t_ckpt / (double)r.nckpt * 1e3 : 0.0);
        printf("failures survived: %ld in %d recover%s (method %s)\n", nf,
               ft.nevents, ft.nevents == 1 ? "y" : "ies", mname);
        for (int k = 0; k < ft.nevents; k++)
            print_event(&ft, k, iter_time);
        printf("run time: %.3f s\n", t_total);
        printf("checksum: fnv1a=%016llx sum=%.17g\n", (unsigned long long)h,
               sum);
        if (o.outfile && *o.outfile) {
            if (write_field(o.outfile, &s.b, field, tot, r.iter) == 0)
                printf("field written to %s\n", o.outfile);
            else
                status = 1;
        }
        if (!o.keep)
            remove_ckpt(&ft, nranks, made_dir, r.nkills);
        else
            printf("checkpoints kept in %s\n", ft.dir);
        printf("stencil: %s\n", status ? "FAILED" : "OK");
        fflush(stdout);
    }
    free(field);
    free(r.it_times);
    solver_free(&s);
    spare_map_destroy(ft.map);
    spare_topo_destroy(ft.topo);
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* other values: refused by the options */
    debug = pvas_env_on("STENCIL_DEBUG", 0);
    int st = run_main(argc, argv);
    fflush(NULL);
    MPI_Finalize();
    return st;
}
