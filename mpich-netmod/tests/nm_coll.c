/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_coll.c: collectives, checked by the program itself.  A plain MPI
 * program (it knows nothing of libmpideleg): make check runs it directly
 * and with the shim preloaded (MPIDELEG_COLL=hier and =direct) and
 * compares what rank 0 prints.  Any failed check prints "FAIL ..." and
 * aborts.
 *
 * Barrier, Bcast, Reduce, Allreduce, Allgather, Alltoall and their
 * nonblocking forms on the world, a duplicate and splits (reversed,
 * interleaved, pairs, even/odd ranks), counts 0, 1, 7 and 1 MiB, every
 * root, MPI_IN_PLACE, SUM/MAX/MIN/MINLOC/MAXLOC on int, double and pair
 * types, derived datatypes, a user-defined operation, several nonblocking
 * collectives in flight completed in different orders per rank, and
 * point-to-point messages across them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

#include "nm_check.h"

#define BIG (1 << 18) /* ints: 1 MiB */

static int ival(int r, int i, int it)
{
    return (r * 7919 + i * 31 + it * 5) % 1000 - 500;
}

static double dval(int r, int i, int it)
{
    return (double)((r * 13 + i * 7 + it) % 200) - 100.0 + 0.5;
}

typedef struct {
    double v;
    int r;
} dint_t;

static int *ibuf(size_t n)
{
    int *p = malloc(sizeof(int) * (n ? n : 1));
    CHECK(p, "out of memory");
    return p;
}

/* a user-defined operation: elementwise a*b+... is not needed; integer
 * "max of absolute values" is enough to take the fallback path */
static void absmax(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        int x = abs(a[i]), y = abs(b[i]);
        b[i] = x > y ? x : y;
    }
}

static void t_barrier(MPI_Comm c, int it)
{
    int cr, cs;
    MPI_Comm_rank(c, &cr);
    MPI_Comm_size(c, &cs);
    /* the last rank enters late; nobody may leave before it entered */
    double entered = 0;
    if (cr == cs - 1) {
        struct timespec d = {0, 20000000};
        nanosleep(&d, NULL);
        entered = MPI_Wtime();
    }
    MPI_Barrier(c);
    double left = MPI_Wtime();
    MPI_Bcast(&entered, 1, MPI_DOUBLE, cs - 1, c);
    CHECK(left >= entered, "barrier %d: left %.6f before %.6f", it, left,
          entered);
}

static void t_blocking(MPI_Comm c, const char *name)
{
    static const int counts[] = {0, 1, 7, BIG};
    int cr, cs;
    char what[160];
    MPI_Comm_rank(c, &cr);
    MPI_Comm_size(c, &cs);
    for (int it = 0; it < 2; it++)
        t_barrier(c, it);
    for (unsigned ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        int n = counts[ci], it = (int)ci;
        int *a = ibuf((size_t)n * (size_t)cs), *b = ibuf((size_t)n * cs);
        double *da = malloc(sizeof(double) * (n ? n : 1));
        double *db = malloc(sizeof(double) * (n ? n : 1));
        CHECK(da && db, "out of memory");
        /* a point-to-point receive pending across the collectives */
        int token = -1, want = 1000 + (cr + cs - 1) % cs;
        MPI_Request rq[2];
        MPI_Irecv(&token, 1, MPI_INT, (cr + cs - 1) % cs, 77, c, &rq[0]);

        /* Bcast from every root */
        for (int root = 0; root < cs; root++) {
            for (int i = 0; i < n; i++)
                a[i] = cr == root ? ival(root, i, it) : -1;
            MPI_Bcast(a, n, MPI_INT, root, c);
            for (int i = 0; i < n; i++)
                CHECK(a[i] == ival(root, i, it), "bcast root %d [%d] = %d",
                      root, i, a[i]);
        }
        /* Reduce SUM (int) and MAX (double) to every root, also in place */
        for (int root = 0; root < cs; root++) {
            for (int i = 0; i < n; i++) {
                a[i] = ival(cr, i, it);
                b[i] = -7;
                da[i] = dval(cr, i, it);
            }
            MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, c);
            /* in place (MPICH 4.0's own MPI_Reduce crashes in place
             * with 1 MiB: not there) */
            if (cr == root && n <= 4096)
                MPI_Reduce(MPI_IN_PLACE, da, n, MPI_DOUBLE, MPI_MAX, root, c);
            else
                MPI_Reduce(da, db, n, MPI_DOUBLE, MPI_MAX, root, c);
            if (cr == root && n > 4096)
                memcpy(da, db, sizeof(double) * (size_t)n);
            if (cr == root) {
                for (int i = 0; i < n; i++) {
                    int s = 0;
                    double m = -1e9;
                    for (int r = 0; r < cs; r++) {
                        s += ival(r, i, it);
                        if (dval(r, i, it) > m)
                            m = dval(r, i, it);
                    }
                    CHECK(b[i] == s, "reduce sum root %d [%d] %d != %d", root,
                          i, b[i], s);
                    CHECK(da[i] == m, "reduce max root %d [%d]", root, i);
                }
            }
        }
        /* Allreduce: SUM int, MIN int in place, MAX double */
        for (int i = 0; i < n; i++) {
            a[i] = ival(cr, i, it);
            b[i] = ival(cr, i, it + 1);
            da[i] = dval(cr, i, it);
        }
        int *s = ibuf((size_t)n);
        MPI_Allreduce(a, s, n, MPI_INT, MPI_SUM, c);
        MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_INT, MPI_MIN, c);
        MPI_Allreduce(MPI_IN_PLACE, da, n, MPI_DOUBLE, MPI_MAX, c);
        for (int i = 0; i < n; i++) {
            int sum = 0, mn = 1 << 30;
            double mx = -1e9;
            for (int r = 0; r < cs; r++) {
                sum += ival(r, i, it);
                if (ival(r, i, it + 1) < mn)
                    mn = ival(r, i, it + 1);
                if (dval(r, i, it) > mx)
                    mx = dval(r, i, it);
            }
            CHECK(s[i] == sum, "allreduce sum [%d] %d != %d", i, s[i], sum);
            CHECK(b[i] == mn, "allreduce min [%d]", i);
            CHECK(da[i] == mx, "allreduce max [%d]", i);
        }
        free(s);
        /* MINLOC on double-int, MAXLOC on 2int (ties: the lowest rank) */
        int m = n < 4096 ? n : 4096;
        dint_t *dl = malloc(sizeof(dint_t) * (m ? m : 1));
        int *il = ibuf(2 * (size_t)m);
        CHECK(dl, "out of memory");
        for (int i = 0; i < m; i++) {
            dl[i].v = dval(cr, i, it) / 8 > 0 ? 1.5 : dval(cr, i, it);
            dl[i].r = cr;
            il[2 * i] = ival(cr, i, it) % 5;
            il[2 * i + 1] = cr;
        }
        MPI_Allreduce(MPI_IN_PLACE, dl, m, MPI_DOUBLE_INT, MPI_MINLOC, c);
        MPI_Allreduce(MPI_IN_PLACE, il, m, MPI_2INT, MPI_MAXLOC, c);
        for (int i = 0; i < m; i++) {
            double bv = 1e9;
            int br = -1, iv = -1000, ir = -1;
            for (int r = 0; r < cs; r++) {
                double v = dval(r, i, it) / 8 > 0 ? 1.5 : dval(r, i, it);
                if (v < bv)
                    bv = v, br = r;
                if (ival(r, i, it) % 5 > iv)
                    iv = ival(r, i, it) % 5, ir = r;
            }
            CHECK(dl[i].v == bv && dl[i].r == br, "minloc [%d]: %g@%d", i,
                  dl[i].v, dl[i].r);
            CHECK(il[2 * i] == iv && il[2 * i + 1] == ir, "maxloc [%d]", i);
        }
        free(dl);
        free(il);
        /* a user-defined operation (MPICH's path under the shim) */
        for (int i = 0; i < n; i++)
            a[i] = ival(cr, i, it);
        MPI_Op uop;
        MPI_Op_create(absmax, 1, &uop);
        MPI_Allreduce(a, b, n, MPI_INT, uop, c);
        MPI_Op_free(&uop);
        for (int i = 0; i < n; i++) {
            int mx = 0; /* alone: the op is never applied */
            for (int r = 0; r < cs; r++)
                if (abs(ival(r, i, it)) > mx)
                    mx = abs(ival(r, i, it));
            if (cs == 1)
                mx = ival(0, i, it);
            CHECK(b[i] == mx, "user op [%d]", i);
        }
        /* Allgather: plain, in place, and into a contiguous type */
        int g = n < BIG ? n : BIG / cs;
        for (int i = 0; i < g; i++)
            a[i] = ival(cr, i, it);
        MPI_Allgather(a, g, MPI_INT, b, g, MPI_INT, c);
        for (int r = 0; r < cs; r++)
            for (int i = 0; i < g; i++)
                CHECK(b[r * g + i] == ival(r, i, it), "allgather %d.%d", r, i);
        for (int r = 0; r < cs; r++)
            for (int i = 0; i < g; i++)
                b[r * g + i] = r == cr ? ival(r, i, it + 3) : -1;
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, g, MPI_INT, c);
        for (int r = 0; r < cs; r++)
            for (int i = 0; i < g; i++)
                CHECK(b[r * g + i] == ival(r, i, it + 3), "allgather in place");
        if (g > 0) {
            MPI_Datatype ct;
            MPI_Type_contiguous(g, MPI_INT, &ct);
            MPI_Type_commit(&ct);
            memset(b, 0, sizeof(int) * (size_t)g * (size_t)cs);
            MPI_Allgather(a, g, MPI_INT, b, 1, ct, c);
            MPI_Type_free(&ct);
            for (int r = 0; r < cs; r++)
                for (int i = 0; i < g; i++)
                    CHECK(b[r * g + i] == ival(r, i, it), "allgather type");
        }
        /* Alltoall: plain and in place; block d goes to rank d */
        for (int d = 0; d < cs; d++)
            for (int i = 0; i < g; i++)
                a[d * g + i] = ival(cr * cs + d, i, it);
        MPI_Alltoall(a, g, MPI_INT, b, g, MPI_INT, c);
        for (int r = 0; r < cs; r++)
            for (int i = 0; i < g; i++)
                CHECK(b[r * g + i] == ival(r * cs + cr, i, it),
                      "alltoall from %d [%d]", r, i);
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, g, MPI_INT, c);
        for (int r = 0; r < cs; r++)
            for (int i = 0; i < g; i++)
                CHECK(a[r * g + i] == ival(r * cs + cr, i, it),
                      "alltoall in place from %d [%d]", r, i);
        /* Bcast of a vector type (every other double) */
        if (n > 0) {
            int k = n < 1024 ? n : 1024;
            double *v = malloc(sizeof(double) * 2 * (size_t)k);
            CHECK(v, "out of memory");
            MPI_Datatype vt;
            MPI_Type_vector(k, 1, 2, MPI_DOUBLE, &vt);
            MPI_Type_commit(&vt);
            for (int i = 0; i < 2 * k; i++)
                v[i] = cr == 0 ? (i % 2 ? -1.0 : dval(0, i, it)) : -2.0;
            MPI_Bcast(v, 1, vt, 0, c);
            MPI_Type_free(&vt);
            for (int i = 0; i < 2 * k; i++)
                CHECK(v[i] ==
                          (i % 2 ? (cr == 0 ? -1.0 : -2.0) : dval(0, i, it)),
                      "vector bcast [%d]", i);
            free(v);
        }
        int out = 1000 + cr;
        MPI_Isend(&out, 1, MPI_INT, (cr + 1) % cs, 77, c, &rq[1]);
        MPI_Status st2[2];
        MPI_Waitall(2, rq, st2);
        CHECK(token == want, "message across collectives: %d", token);
        free(a);
        free(b);
        free(da);
        free(db);
        snprintf(what, sizeof what, "blocking collectives, count %d, on %s", n,
                 name);
        say(what);
    }
}

/* Several nonblocking collectives (and point-to-point) in flight at once,
 * completed in an order that differs per rank. */
static void t_nonblocking(MPI_Comm c, MPI_Comm other, const char *name)
{
    static const int counts[] = {1, 1000, BIG / 4};
    int cr, cs, osz, ork;
    char what[160];
    MPI_Comm_rank(c, &cr);
    MPI_Comm_size(c, &cs);
    MPI_Comm_size(other, &osz);
    MPI_Comm_rank(other, &ork);
    for (unsigned ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        for (int how = 0; how < 3; how++) {
            int n = counts[ci], it = (int)ci * 3 + how;
            int g = n;
            int *bc = ibuf((size_t)n), *ar = ibuf((size_t)n);
            int *ar2 = ibuf((size_t)n), *rd = ibuf((size_t)n);
            int *rs = ibuf((size_t)n), *ag = ibuf((size_t)g * cs);
            int *sa = ibuf((size_t)g * cs), *ra = ibuf((size_t)g * cs);
            int *oa = ibuf((size_t)n), *ob = ibuf((size_t)n);
            double *dd = malloc(sizeof(double) * (size_t)n);
            CHECK(dd, "out of memory");
            int broot = (it + 1) % cs, rroot = cs - 1 - it % cs;
            for (int i = 0; i < n; i++) {
                bc[i] = cr == broot ? ival(broot, i, it) : 0;
                ar[i] = ival(cr, i, it);
                ar2[i] = ival(cr, i, it + 1);
                rs[i] = ival(cr, i, it + 2);
                dd[i] = dval(cr, i, it);
                oa[i] = ival(ork, i, it + 4);
            }
            for (int d = 0; d < cs; d++)
                for (int i = 0; i < g; i++)
                    sa[d * g + i] = ival(cr * cs + d, i, it);
            MPI_Datatype ct; /* freed while the operation runs */
            MPI_Type_contiguous(g, MPI_INT, &ct);
            MPI_Type_commit(&ct);
            int tok_in = -1, tok_out = 2000 + cr;
            MPI_Request r[11];
            MPI_Irecv(&tok_in, 1, MPI_INT, (cr + 1) % cs, 5, c, &r[0]);
            MPI_Ibcast(bc, n, MPI_INT, broot, c, &r[1]);
            MPI_Iallreduce(ar, ag, n, MPI_INT, MPI_SUM, c, &r[2]);
            MPI_Ibarrier(c, &r[3]);
            MPI_Iallreduce(MPI_IN_PLACE, ar2, n, MPI_INT, MPI_MAX, c, &r[4]);
            MPI_Ireduce(rs, rd, n, MPI_INT, MPI_SUM, rroot, c, &r[5]);
            MPI_Ialltoall(sa, g, MPI_INT, ra, g, MPI_INT, c, &r[6]);
            MPI_Isend(&tok_out, 1, MPI_INT, (cr + cs - 1) % cs, 5, c, &r[7]);
            MPI_Iallreduce(oa, ob, n, MPI_INT, MPI_SUM, other, &r[8]);
            MPI_Iallreduce(MPI_IN_PLACE, dd, n, MPI_DOUBLE, MPI_MIN, c, &r[9]);
            /* the allreduce result above went to ag: gather next into sa's
             * twin after it; here: a gather of our rank into ct blocks */
            int *gg = ibuf((size_t)g * cs), *mine = ibuf((size_t)g);
            for (int i = 0; i < g; i++)
                mine[i] = ival(cr, i, it + 5);
            MPI_Iallgather(mine, g, MPI_INT, gg, 1, ct, c, &r[10]);
            MPI_Type_free(&ct);
            /* completion in an order of this rank's own */
            int order[11];
            for (int k = 0; k < 11; k++)
                order[k] = cr % 2 ? 10 - k : (k + 3 * cr) % 11;
            if (how == 0) {
                MPI_Request p[11];
                for (int k = 0; k < 11; k++)
                    p[k] = r[order[k]];
                MPI_Status st[11];
                MPI_Waitall(11, p, st);
            } else if (how == 1) {
                for (int k = 0; k < 11; k++)
                    MPI_Wait(&r[order[k]], MPI_STATUS_IGNORE);
            } else {
                int flag = 0;
                MPI_Status st[11];
                while (!flag)
                    MPI_Testall(11, r, &flag, st);
            }
            CHECK(tok_in == 2000 + (cr + 1) % cs, "token %d", tok_in);
            for (int i = 0; i < n; i++) {
                int sum = 0, mx = -(1 << 30), rsum = 0, osum = 0;
                double mn = 1e9;
                for (int q = 0; q < cs; q++) {
                    sum += ival(q, i, it);
                    if (ival(q, i, it + 1) > mx)
                        mx = ival(q, i, it + 1);
                    rsum += ival(q, i, it + 2);
                    if (dval(q, i, it) < mn)
                        mn = dval(q, i, it);
                }
                for (int q = 0; q < osz; q++)
                    osum += ival(q, i, it + 4);
                CHECK(bc[i] == ival(broot, i, it), "ibcast [%d]", i);
                CHECK(ag[i] == sum, "iallreduce sum [%d]", i);
                CHECK(ar2[i] == mx, "iallreduce max in place [%d]", i);
                CHECK(dd[i] == mn, "iallreduce min double [%d]", i);
                CHECK(cr != rroot || rd[i] == rsum, "ireduce [%d]", i);
                CHECK(ob[i] == osum, "iallreduce on the other comm [%d]", i);
            }
            for (int q = 0; q < cs; q++)
                for (int i = 0; i < g; i++) {
                    CHECK(ra[q * g + i] == ival(q * cs + cr, i, it),
                          "ialltoall from %d [%d]", q, i);
                    CHECK(gg[q * g + i] == ival(q, i, it + 5),
                          "iallgather from %d [%d]", q, i);
                }
            free(bc);
            free(ar);
            free(ar2);
            free(rd);
            free(rs);
            free(ag);
            free(sa);
            free(ra);
            free(oa);
            free(ob);
            free(dd);
            free(gg);
            free(mine);
            snprintf(what, sizeof what,
                     "11 nonblocking operations in flight, count %d, "
                     "completed by %s, on %s",
                     n,
                     how == 0   ? "Waitall"
                     : how == 1 ? "Wait one by one"
                                : "Testall",
                     name);
            say(what);
        }
    }
}

/* A nonblocking collective moves while a member waits in a blocking or
 * nonblocking receive for a rank that waits for the collective. */
static void t_progress(void)
{
    for (int how = 0; how < 2 && size > 1; how++) {
        int v = 0, x = rank + 1, sum = 0;
        MPI_Request rq, rr;
        if (how == 0)
            MPI_Ibarrier(MPI_COMM_WORLD, &rq);
        else
            MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
        if (rank == 0) {
            if (how == 0) {
                MPI_Recv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else {
                MPI_Irecv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &rr);
                MPI_Wait(&rr, MPI_STATUS_IGNORE);
            }
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            CHECK(v == 5, "message after the collective: %d", v);
        } else {
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            if (rank == 1) {
                v = 5;
                MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
            }
        }
        CHECK(how == 0 || sum == size * (size + 1) / 2, "iallreduce %d", sum);
    }
    say("nonblocking collectives move while a member waits for a message");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("nm_coll: %d ranks\n", size);
    MPI_Comm dup, rev, inter, pair, evod;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev);
    /* ranks 0, 2, 1 for 3 ranks: the boards of layout b interleave */
    MPI_Comm_split(MPI_COMM_WORLD, 0, (size - rank) % size, &inter);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &evod);

    t_progress();
    t_blocking(MPI_COMM_WORLD, "world");
    t_blocking(rev, "reversed split");
    t_blocking(inter, "interleaved split");
    t_blocking(pair, "pairs split");
    t_blocking(evod, "even/odd split");
    t_nonblocking(MPI_COMM_WORLD, dup, "world (other: dup)");
    t_nonblocking(inter, pair, "interleaved split (other: pairs)");
    t_nonblocking(evod, rev, "even/odd split (other: reversed)");

    MPI_Comm_free(&dup);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&pair);
    MPI_Comm_free(&evod);
    say("communicators freed");
    MPI_Finalize();
    return 0;
}
