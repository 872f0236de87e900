/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_mpi.c: the MPICH baseline of the PVAS benchmark (pip_bench_pvas runs
 * it under `mpiexec -n 2`).
 *
 *   pvas_mpi PPMIN PPMAX NCBLOCK NCMIN NCMAX REPS MAXITERS FRESH
 *
 * Ping-pong with MPI_Send/MPI_Recv of the same sizes as the other methods
 * (PPMIN..PPMAX, doubling; PPMAX 0 skips it), and of the strided case
 * (NCMIN..NCMAX bytes, x4) where both sides describe their layouts with
 * MPI_Type_vector: the sender's blocks of NCBLOCK bytes 2 blocks apart, the
 * receiver's 3 apart, so MPICH packs, copies and unpacks.  Same repetitions
 * and round trips per repetition as the other methods; each rank pins
 * itself to its own core when there are two.  FRESH 1: the sender stores to
 * every cache line of its message before each send (--fresh).
 *
 * Rank 0 prints one line per size on stdout (one-way times over the
 * repetitions' typical round trips, as pvas_task measures them; MEAN_US
 * the median of the repetitions' means; CSW both ranks' context switches
 * per repetition, median; QUIET the repetitions with none):
 *   pp SIZE ITERS MEDIAN_US MIN_US MAX_US MEAN_US CSW QUIET
 *   nc TOTAL ITERS MEDIAN_US MIN_US MAX_US MEAN_US CSW QUIET
 * and "ok" at the end; any error aborts the job with a message.
 */
#include <mpi.h>

#include "pvas_bench.h"

static int rank;

static void fail(const char *what)
{
    fprintf(stderr, "pvas_mpi: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static size_t arg_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        fail("bad size argument");
    return (size_t)v;
}

static int fresh; /* store to the message before each send */

/* What one run of round trips measured (as in pvas_task). */
typedef struct {
    double secs; /* all of them */
    double typ;  /* typical round trip: median over the timed blocks */
    long csw;    /* this rank's context switches meanwhile */
} rep_t;

static void trip(const pvas_vec_t *s, const pvas_vec_t *d,
                 const pvas_vec_t *msg, int count, MPI_Datatype st,
                 MPI_Datatype dt)
{
    int peer = 1 - rank;
    if (fresh)
        pvas_vec_touch(msg, rank);
    if (rank == 0) {
        MPI_Send(s->base, count, st, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(d->base, count, dt, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(d->base, count, dt, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Send(s->base, count, st, peer, 1, MPI_COMM_WORLD);
    }
}

/* `iters` round trips of one message each way, timed in blocks, after one
 * untimed (as pvas_task does: the barrier's exit skew is not timed). */
static rep_t rounds(const pvas_vec_t *s, const pvas_vec_t *d,
                    const pvas_vec_t *msg, int count, MPI_Datatype st,
                    MPI_Datatype dt, long iters)
{
    double blk[PVAS_BLOCKS];
    int nb = 0;
    long k = pvas_block_len(iters);
    rep_t out;
    MPI_Barrier(MPI_COMM_WORLD);
    trip(s, d, msg, count, st, dt);
    long c0 = pvas_csw();
    double t0 = pvas_now(), tb = t0;
    for (long left = iters; left > 0;) {
        long m = left < k ? left : k;
        for (long it = 0; it < m; it++)
            trip(s, d, msg, count, st, dt);
        double t = pvas_now();
        blk[nb++] = (t - tb) / (double)m;
        tb = t;
        left -= m;
    }
    out.csw = pvas_csw() - c0;
    out.secs = tb - t0;
    out.typ = pvas_median(blk, nb);
    return out;
}

/* One sweep; nc != 0: strided (vector types), else contiguous bytes. */
static void sweep(int nc, size_t lo, size_t hi, size_t block, int reps,
                  int max_iters)
{
    size_t sizes[PVAS_MAXSIZES];
    int ns = pvas_sizes(lo, hi, nc ? 4 : 2, sizes, PVAS_MAXSIZES);
    if (ns == 0)
        return;
    size_t maxs = sizes[ns - 1];
    int peer = 1 - rank;
    pvas_vec_t s = pvas_vec_src(NULL, maxs, nc ? block : 1);
    pvas_vec_t d = pvas_vec_dst(NULL, maxs, nc ? block : 1);
    size_t slen = nc ? pvas_vec_span(&s) : maxs;
    size_t dlen = nc ? pvas_vec_span(&d) : maxs;
    s.base = malloc(slen);
    d.base = calloc(1, dlen);
    double *t = calloc((size_t)reps * 3, sizeof(double));
    double *mean = t + reps, *csw = t + 2 * reps;
    if (s.base == NULL || d.base == NULL || t == NULL)
        fail("out of memory");
    if (nc)
        pvas_vec_fill(&s, rank);
    else
        for (size_t k = 0; k < maxs; k++)
            s.base[k] = pvas_pat(k, rank);

    for (int si = 0; si < ns; si++) {
        size_t size = sizes[si];
        long iters = pvas_iters(size, max_iters);
        MPI_Datatype st = MPI_BYTE, dt = MPI_BYTE;
        int count = (int)size;
        pvas_vec_t msg = {s.base, 1, size, size}; /* what --fresh stores to */
        if (nc) {
            msg = s;
            msg.count = size / block;
        }
        if (nc) {
            if (size / block > INT_MAX)
                fail("too many blocks");
            MPI_Type_vector((int)(size / block), (int)block, (int)(2 * block),
                            MPI_BYTE, &st);
            MPI_Type_vector((int)(size / block), (int)block, (int)(3 * block),
                            MPI_BYTE, &dt);
            MPI_Type_commit(&st);
            MPI_Type_commit(&dt);
            count = 1;
        } else if (size > INT_MAX) {
            fail("message too large");
        }
        memset(d.base, 0, dlen);
        /* Warm-up and round trips per repetition as pvas_task does them
         * (rank 0 decides, everyone follows). */
        double wmin = 0, spent = 0;
        int more, quiet = 0;
        rep_t w;
        do {
            w = rounds(&s, &d, &msg, count, st, dt, iters);
            spent += w.secs;
            if (wmin == 0 || w.typ < wmin)
                wmin = w.typ;
            more = si == 0 && spent < PVAS_WARM_S;
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        } while (more);
        double want = PVAS_REP_S / (wmin > 0 ? wmin : 1e-9);
        long least = iters < 4 ? iters : 4;
        iters = want >= (double)iters  ? iters
                : want < (double)least ? least
                                       : (long)want;
        MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        for (int r = 0; r < reps; r++) {
            long both = 0;
            w = rounds(&s, &d, &msg, count, st, dt, iters);
            MPI_Reduce(&w.csw, &both, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
            t[r] = w.typ * 1e6 / 2;
            mean[r] = w.secs * 1e6 / (double)iters / 2;
            csw[r] = (double)both;
            quiet += both == 0;
        }
        if (nc) {
            pvas_vec_t dv = d;
            dv.count = size / block;
            if (pvas_vec_check(&dv, peer) != 0)
                fail("wrong strided data");
            MPI_Type_free(&st);
            MPI_Type_free(&dt);
        } else {
            for (size_t k = 0; k < size; k++)
                if (d.base[k] != pvas_pat(k, peer))
                    fail("wrong data");
        }
        if (rank == 0) {
            pvas_stat_t x = pvas_stat(t, reps, iters);
            printf("%s %zu %ld %.4f %.4f %.4f %.4f %.1f %d\n", nc ? "nc" : "pp",
                   size, x.iters, x.med, x.min, x.max, pvas_median(mean, reps),
                   pvas_median(csw, reps), quiet);
            fflush(stdout);
        }
    }
    free(s.base);
    free(d.base);
    free(t);
}

int main(int argc, char **argv)
{
    int np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2)
        fail("run me with exactly 2 ranks");
    if (argc != 9)
        fail("usage: pvas_mpi PPMIN PPMAX NCBLOCK NCMIN NCMAX REPS MAXITERS "
             "FRESH");
    size_t pplo = arg_size(argv[1]), pphi = arg_size(argv[2]);
    size_t ncb = arg_size(argv[3]), nclo = arg_size(argv[4]),
           nchi = arg_size(argv[5]);
    size_t reps = arg_size(argv[6]), maxit = arg_size(argv[7]);
    fresh = arg_size(argv[8]) != 0;
    if (pplo == 0 || ncb == 0 || nclo == 0 || reps == 0 || reps > 10000 ||
        maxit == 0 || maxit > 10000000)
        fail("bad arguments");
    pvas_pin(rank);
    if (pphi > 0)
        sweep(0, pplo, pphi, 1, (int)reps, (int)maxit);
    if (nchi > 0)
        sweep(1, nclo, nchi, ncb, (int)reps, (int)maxit);
    if (rank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}
