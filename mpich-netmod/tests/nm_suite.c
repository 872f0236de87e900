/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_suite.c: point-to-point semantics, checked by the program itself.  A
 * plain MPI program (it knows nothing of libmpideleg): make check runs it
 * directly and with the shim preloaded or linked, and compares what rank 0
 * prints.  Any failed check prints "FAIL ..." and aborts.
 *
 *   nm_suite [--unsupported]   (the option adds the shim's refusal test)
 */
#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#include "nm_check.h"

/* Blocking send modes, every ordered pair. */
static void t_modes(void)
{
    char *bbuf = malloc(1 << 16);
    MPI_Buffer_attach(bbuf, 1 << 16);
    for (int mode = 0; mode < 4; mode++) {
        for (int s = 0; s < size; s++) {
            for (int d = 0; d < size; d++) {
                if (s == d)
                    continue;
                int v = 1000 * mode + 10 * s + d, got = -1;
                if (rank == d) {
                    MPI_Request rq;
                    MPI_Irecv(&got, 1, MPI_INT, s, mode, MPI_COMM_WORLD, &rq);
                    MPI_Send(NULL, 0, MPI_INT, s, 99, MPI_COMM_WORLD);
                    MPI_Wait(&rq, MPI_STATUS_IGNORE);
                    CHECK(got == v, "mode %d %d->%d got %d", mode, s, d, got);
                } else if (rank == s) {
                    /* The receive is posted: a ready send is legal. */
                    MPI_Recv(NULL, 0, MPI_INT, d, 99, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    if (mode == 0)
                        MPI_Send(&v, 1, MPI_INT, d, mode, MPI_COMM_WORLD);
                    else if (mode == 1)
                        MPI_Ssend(&v, 1, MPI_INT, d, mode, MPI_COMM_WORLD);
                    else if (mode == 2)
                        MPI_Rsend(&v, 1, MPI_INT, d, mode, MPI_COMM_WORLD);
                    else
                        MPI_Bsend(&v, 1, MPI_INT, d, mode, MPI_COMM_WORLD);
                }
            }
        }
    }
    int sz;
    MPI_Buffer_detach(&bbuf, &sz);
    free(bbuf);
    say("blocking send modes (standard, synchronous, ready, buffered)");
}

/* Ssend does not complete before the receive is posted: the receiver posts
 * it only after it has seen a later message from a third rank, which that
 * rank sends after the sender told it "Ssend still pending". Needs 3 ranks;
 * with 2 it checks with Issend + Test instead. */
static void t_ssend_sync(void)
{
    int v = 7, got = 0, flag = 1;
    if (rank == 0) {
        MPI_Request rq;
        MPI_Issend(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq);
        for (int i = 0; i < 50; i++)
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "Issend completed before the receive was posted");
        MPI_Send(&v, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(&got, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got == 7, "issend data");
    }
    say("synchronous send waits for the matching receive");
}

/* Nonblocking sends of every mode; completion by each Wait/Test call. */
static void t_nonblocking(void)
{
    enum { N = 8 };
    int peer = rank ^ 1;
    if (peer >= size) {
        say("nonblocking modes and Wait/Test families");
        return;
    }
    char *bbuf = malloc(1 << 16);
    MPI_Buffer_attach(bbuf, 1 << 16);
    for (int fam = 0; fam < 8; fam++) {
        int out[N], in[N];
        MPI_Request rq[2 * N];
        for (int i = 0; i < N; i++) {
            out[i] = rank * 100 + fam * 10 + i;
            in[i] = -1;
            MPI_Irecv(&in[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &rq[i]);
        }
        /* both receives posted: Irsend is legal */
        MPI_Sendrecv(NULL, 0, MPI_INT, peer, 98, NULL, 0, MPI_INT, peer, 98,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++) {
            MPI_Request *r = &rq[N + i];
            switch (i % 4) {
            case 0:
                MPI_Isend(&out[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, r);
                break;
            case 1:
                MPI_Issend(&out[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, r);
                break;
            case 2:
                MPI_Irsend(&out[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, r);
                break;
            default:
                MPI_Ibsend(&out[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, r);
            }
        }
        MPI_Status st[2 * N];
        int done = 0, idx[2 * N], flag, n;
        switch (fam) {
        case 0:
            MPI_Waitall(2 * N, rq, st);
            break;
        case 1:
            for (int i = 0; i < 2 * N; i++)
                MPI_Wait(&rq[i], &st[i]);
            break;
        case 2:
            while (done < 2 * N) {
                MPI_Waitany(2 * N, rq, &idx[0], st);
                CHECK(idx[0] != MPI_UNDEFINED, "waitany undefined");
                done++;
            }
            break;
        case 3:
            while (done < 2 * N) {
                MPI_Waitsome(2 * N, rq, &n, idx, st);
                done += n;
            }
            break;
        case 4:
            do
                MPI_Testall(2 * N, rq, &flag, st);
            while (!flag);
            break;
        case 5:
            while (done < 2 * N) {
                MPI_Testany(2 * N, rq, &idx[0], &flag, st);
                if (flag && idx[0] != MPI_UNDEFINED)
                    done++;
            }
            break;
        case 6:
            while (done < 2 * N) {
                MPI_Testsome(2 * N, rq, &n, idx, st);
                done += n;
            }
            break;
        default:
            for (int i = 0; i < 2 * N; i++) {
                do
                    MPI_Test(&rq[i], &flag, &st[i]);
                while (!flag);
                CHECK(rq[i] == MPI_REQUEST_NULL, "test left request");
            }
        }
        for (int i = 0; i < 2 * N; i++)
            CHECK(rq[i] == MPI_REQUEST_NULL, "family %d request %d active", fam,
                  i);
        for (int i = 0; i < N; i++)
            CHECK(in[i] == peer * 100 + fam * 10 + i, "family %d got %d", fam,
                  in[i]);
    }
    int sz;
    MPI_Buffer_detach(&bbuf, &sz);
    free(bbuf);
    say("nonblocking modes and Wait/Test families");
}

/* ANY_SOURCE / ANY_TAG from every other rank; per-source order kept. */
static void t_anysource(void)
{
    enum { K = 200 };
    if (rank == 0) {
        int *next = calloc((size_t)size, sizeof(int)), total = 0;
        char buf[4096];
        while (total < (size - 1) * K) {
            MPI_Status st;
            int n;
            if (total % 3 == 0) {
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_CHAR, &n);
                MPI_Recv(buf, (int)sizeof buf, MPI_CHAR, st.MPI_SOURCE,
                         st.MPI_TAG, MPI_COMM_WORLD, &st);
            } else {
                MPI_Recv(buf, (int)sizeof buf, MPI_CHAR, MPI_ANY_SOURCE,
                         MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            }
            MPI_Get_count(&st, MPI_CHAR, &n);
            int s = st.MPI_SOURCE, seq;
            CHECK(s > 0 && s < size, "source %d", s);
            memcpy(&seq, buf, sizeof seq);
            CHECK(seq == next[s], "from %d seq %d expected %d", s, seq,
                  next[s]);
            CHECK(st.MPI_TAG == seq % 7, "tag %d for seq %d", st.MPI_TAG, seq);
            CHECK(n == (int)sizeof(int) + (seq * 37) % 3000, "count %d", n);
            for (int i = (int)sizeof(int); i < n; i++)
                CHECK(buf[i] == (char)(s + seq + i), "payload byte %d", i);
            next[s]++;
            total++;
        }
        free(next);
    } else {
        char buf[4096];
        for (int seq = 0; seq < K; seq++) {
            int n = (int)sizeof(int) + (seq * 37) % 3000;
            memcpy(buf, &seq, sizeof seq);
            for (int i = (int)sizeof(int); i < n; i++)
                buf[i] = (char)(rank + seq + i);
            MPI_Send(buf, n, MPI_CHAR, 0, seq % 7, MPI_COMM_WORLD);
        }
    }
    say("ANY_SOURCE/ANY_TAG over all senders, non-overtaking per source");
}

/* Same source, tag and communicator: small and large messages in order. */
static void t_order(void)
{
    enum { K = 12 };
    size_t big = 1 << 20;
    if (rank == 1) {
        char *b = malloc(big);
        MPI_Request rq[K];
        for (int i = 0; i < K; i++) {
            size_t n = i % 2 ? big : 8;
            memset(b, i, n);
            /* blocking send: the buffer may be reused */
            MPI_Send(b, (int)n, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
        }
        for (int i = 0; i < K; i++)
            MPI_Isend(b, 1 + i, MPI_CHAR, 0, 4, MPI_COMM_WORLD, &rq[i]);
        MPI_Status sts[K];
        MPI_Waitall(K, rq, sts);
        free(b);
    } else if (rank == 0) {
        char *b = malloc(big);
        for (int i = 0; i < K; i++) {
            MPI_Status st;
            int n;
            MPI_Recv(b, (int)big, MPI_CHAR, 1, 3, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_CHAR, &n);
            CHECK(n == (i % 2 ? (int)big : 8), "message %d has %d bytes", i, n);
            CHECK(b[0] == (char)i && b[n - 1] == (char)i, "message %d data", i);
        }
        for (int i = 0; i < K; i++) {
            MPI_Status st;
            int n;
            MPI_Recv(b, K, MPI_CHAR, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_CHAR, &n);
            CHECK(n == 1 + i, "isend %d arrived as %d", i, n);
        }
        free(b);
    }
    say("non-overtaking order of small and 1 MiB messages");
}

static void t_status_trunc(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 1) {
        double d[5] = {1, 2, 3, 4, 5};
        MPI_Send(d, 5, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD);
        MPI_Send(d, 5, MPI_DOUBLE, 0, 12, MPI_COMM_WORLD);
        MPI_Send(d, 3, MPI_DOUBLE, 0, 13, MPI_COMM_WORLD);
        /* a large message into a smaller buffer (payload path) */
        int *big = malloc(sizeof(int) * 16384);
        for (int i = 0; i < 16384; i++)
            big[i] = i * 7 + 1;
        MPI_Send(big, 16384, MPI_INT, 0, 14, MPI_COMM_WORLD);
        MPI_Send(big, 16384, MPI_INT, 0, 15, MPI_COMM_WORLD);
        free(big);
    } else if (rank == 0) {
        double d[5];
        MPI_Status st;
        int n, e;
        int rc = MPI_Recv(d, 5, MPI_DOUBLE, 1, 11, MPI_COMM_WORLD, &st);
        CHECK(rc == MPI_SUCCESS, "recv rc %d", rc);
        MPI_Get_count(&st, MPI_DOUBLE, &n);
        MPI_Get_elements(&st, MPI_DOUBLE, &e);
        CHECK(n == 5 && e == 5 && st.MPI_SOURCE == 1 && st.MPI_TAG == 11,
              "status n=%d e=%d src=%d tag=%d", n, e, st.MPI_SOURCE,
              st.MPI_TAG);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == 10, "count as int %d", n);
        MPI_Get_count(&st, MPI_LONG_DOUBLE, &n);
        CHECK(n == MPI_UNDEFINED, "count as long double %d", n);
        rc = MPI_Recv(d, 2, MPI_DOUBLE, 1, 12, MPI_COMM_WORLD, &st);
        CHECK(class_of(rc) == MPI_ERR_TRUNCATE, "truncation gave class %d",
              class_of(rc));
        CHECK(d[0] == 1 && d[1] == 2, "truncated data");
        MPI_Request rq;
        MPI_Irecv(d, 5, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                  &rq);
        MPI_Wait(&rq, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &n);
        CHECK(n == 3 && st.MPI_TAG == 13 && st.MPI_SOURCE == 1, "wait status");
        /* (what a truncated receive leaves in the buffer is not defined) */
        int *big = calloc(16384, sizeof(int));
        rc = MPI_Recv(big, 8192, MPI_INT, 1, 14, MPI_COMM_WORLD, &st);
        CHECK(class_of(rc) == MPI_ERR_TRUNCATE,
              "large truncation gave class %d", class_of(rc));
        CHECK(big[8192] == 0, "truncated receive wrote past its buffer");
        rc = MPI_Recv(big, 16384, MPI_INT, 1, 15, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(rc == MPI_SUCCESS && n == 16384 && big[16383] == 16383 * 7 + 1,
              "large message after a truncation");
        free(big);
    }
    /* errors of bad arguments */
    int x = 0;
    if (rank == 0) {
        int rc = MPI_Send(&x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
        CHECK(class_of(rc) == MPI_ERR_RANK, "bad rank class %d", class_of(rc));
        rc = MPI_Send(&x, 1, MPI_INT, 1, -5, MPI_COMM_WORLD);
        CHECK(class_of(rc) == MPI_ERR_TAG, "bad tag class %d", class_of(rc));
        rc = MPI_Send(&x, -1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        CHECK(class_of(rc) == MPI_ERR_COUNT, "bad count class %d",
              class_of(rc));
        MPI_Status st;
        rc = MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
        CHECK(rc == MPI_SUCCESS && st.MPI_SOURCE == MPI_PROC_NULL, "proc null");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    say("status fields, MPI_Get_count, truncation and argument errors");
}

static void t_probe(void)
{
    if (rank == 1) {
        int v[3] = {1, 2, 3};
        MPI_Send(v, 3, MPI_INT, 0, 21, MPI_COMM_WORLD);
        MPI_Send(v, 2, MPI_INT, 0, 22, MPI_COMM_WORLD);
        MPI_Send(v, 1, MPI_INT, 0, 23, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int flag = 0, n, v[3] = {0};
        MPI_Status st;
        MPI_Message m;
        MPI_Probe(1, 22, MPI_COMM_WORLD, &st); /* skips tag 21 */
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == 2 && st.MPI_TAG == 22, "probe n=%d", n);
        MPI_Improbe(1, 21, MPI_COMM_WORLD, &flag, &m, &st);
        CHECK(flag, "improbe found nothing");
        /* a message taken by Mprobe is not seen by probes any more */
        MPI_Iprobe(1, 21, MPI_COMM_WORLD, &flag, &st);
        CHECK(!flag, "iprobe saw a matched message");
        MPI_Mrecv(v, 3, MPI_INT, &m, &st);
        CHECK(m == MPI_MESSAGE_NULL && v[2] == 3, "mrecv");
        MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
        CHECK(st.MPI_TAG == 22, "mprobe order tag %d", st.MPI_TAG);
        MPI_Request rq;
        MPI_Imrecv(v, 3, MPI_INT, &m, &rq);
        MPI_Wait(&rq, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == 2, "imrecv count %d", n);
        MPI_Recv(v, 3, MPI_INT, 1, 23, MPI_COMM_WORLD, &st);
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        CHECK(!flag, "stray message");
    }
    say("Probe/Iprobe/Mprobe/Improbe/Mrecv/Imrecv");
}

static void t_cancel(void)
{
    int v = 0, flag = 0;
    MPI_Request rq;
    MPI_Status st;
    MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "unmatched receive not cancelled");
    /* a receive that has matched cannot be cancelled */
    if (rank == 0) {
        MPI_Irecv(&v, 1, MPI_INT, 1, 32, MPI_COMM_WORLD, &rq);
        MPI_Send(&v, 0, MPI_INT, 1, 33, MPI_COMM_WORLD);
        MPI_Recv(&v, 0, MPI_INT, 1, 34, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Cancel(&rq);
        MPI_Wait(&rq, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(!flag && v == 77, "matched receive cancelled (v=%d)", v);
    } else if (rank == 1) {
        int w = 77;
        MPI_Recv(&v, 0, MPI_INT, 0, 33, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ssend(&w, 1, MPI_INT, 0, 32, MPI_COMM_WORLD);
        MPI_Send(&w, 0, MPI_INT, 0, 34, MPI_COMM_WORLD);
    }
    /* the cancelled receive did not eat a later message */
    if (rank == 1)
        MPI_Send(&rank, 1, MPI_INT, 0, 31, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &st);
        CHECK(v == 1, "message after cancel");
    }
    say("MPI_Cancel of receives");
}

static void t_datatypes(void)
{
    MPI_Datatype vec, st2;
    MPI_Type_vector(100, 2, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    struct rec {
        char c;
        double d;
        int i[3];
    };
    int bl[3] = {1, 1, 3};
    MPI_Aint disp[3] = {offsetof(struct rec, c), offsetof(struct rec, d),
                        offsetof(struct rec, i)};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, bl, disp, ty, &st2);
    MPI_Type_commit(&st2);
    if (rank == 1) {
        int a[500];
        for (int i = 0; i < 500; i++)
            a[i] = i;
        MPI_Send(a, 1, vec, 0, 41, MPI_COMM_WORLD);
        MPI_Send(a, 200, MPI_INT, 0, 42, MPI_COMM_WORLD);
        struct rec r[4];
        memset(r, 0, sizeof r);
        for (int i = 0; i < 4; i++) {
            r[i].c = (char)('a' + i);
            r[i].d = i * 1.5;
            r[i].i[0] = i;
            r[i].i[2] = -i;
        }
        MPI_Send(r, 4, st2, 0, 43, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int a[500], n;
        MPI_Status st;
        MPI_Recv(a, 200, MPI_INT, 1, 41, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == 200, "vector as ints %d", n);
        for (int i = 0; i < 200; i++)
            CHECK(a[i] == (i / 2) * 5 + i % 2, "vector elem %d = %d", i, a[i]);
        for (int i = 0; i < 500; i++)
            a[i] = -1;
        MPI_Recv(a, 1, vec, 1, 42, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, vec, &n);
        CHECK(n == 1, "count in vectors %d", n);
        for (int i = 0; i < 500; i++) {
            int want = i % 5 < 2 ? (i / 5) * 2 + i % 5 : -1;
            CHECK(a[i] == want, "unpacked %d = %d", i, a[i]);
        }
        struct rec r[4];
        MPI_Recv(r, 4, st2, 1, 43, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, st2, &n);
        CHECK(n == 4, "struct count");
        for (int i = 0; i < 4; i++)
            CHECK(r[i].c == 'a' + i && r[i].d == i * 1.5 && r[i].i[2] == -i,
                  "struct %d", i);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&st2);
    say("derived datatypes (vector, struct with holes)");
}

static void t_comms(void)
{
    MPI_Comm dup, half, evens = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Group wg, eg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int ne = (size + 1) / 2, er[8];
    for (int i = 0; i < ne; i++)
        er[i] = 2 * i;
    MPI_Group_incl(wg, ne, er, &eg);
    MPI_Comm_create(MPI_COMM_WORLD, eg, &evens);
    int sz, rk;
    MPI_Comm_size(dup, &sz);
    CHECK(sz == size, "dup size");
    /* same tag on world and dup: each stays on its communicator */
    if (rank == 1) {
        int a = 1, b = 2;
        MPI_Send(&a, 1, MPI_INT, 0, 50, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 0, 50, dup);
    } else if (rank == 0) {
        int a = 0, b = 0;
        MPI_Recv(&b, 1, MPI_INT, 1, 50, dup, MPI_STATUS_IGNORE);
        MPI_Recv(&a, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(a == 1 && b == 2, "communicator isolation a=%d b=%d", a, b);
    }
    /* ring on the split halves (rank order reversed by the key) */
    MPI_Comm_size(half, &sz);
    MPI_Comm_rank(half, &rk);
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rk + 1) % sz, 51, &got, 1, MPI_INT,
                 (rk + sz - 1) % sz, 51, half, MPI_STATUS_IGNORE);
    int expect_world;
    {
        MPI_Group hg;
        int prev = (rk + sz - 1) % sz;
        MPI_Comm_group(half, &hg);
        MPI_Group_translate_ranks(hg, 1, &prev, wg, &expect_world);
        MPI_Group_free(&hg);
    }
    CHECK(got == expect_world, "split ring got %d expected %d", got,
          expect_world);
    if (evens != MPI_COMM_NULL) {
        MPI_Comm_size(evens, &sz);
        MPI_Comm_rank(evens, &rk);
        int v = rk;
        MPI_Sendrecv_replace(&v, 1, MPI_INT, (rk + 1) % sz, 52,
                             (rk + sz - 1) % sz, 52, evens, MPI_STATUS_IGNORE);
        CHECK(v == (rk + sz - 1) % sz, "replace on created comm");
        MPI_Comm_free(&evens);
    }
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);
    MPI_Group_free(&eg);
    MPI_Group_free(&wg);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    say("communicators from dup/split/create, Sendrecv(_replace), Allreduce");
}

/* Messages around the size where the delegatees split a message into a
 * header and a payload of its own (a 56-byte header and 4040 bytes fill
 * the 4 KiB a delegatee keeps posted), in every blocking mode, received
 * with MPI_ANY_TAG after all were sent: the order and the bytes. */
static void t_split_sizes(void)
{
    static const int len[] = {4039, 4040, 4041, 8, 65536, 4096, 0, 200000};
    enum { NL = sizeof len / sizeof len[0], NM = 3 };
    int cap = NL * (200000 + MPI_BSEND_OVERHEAD);
    char *bbuf = malloc((size_t)cap), *b = malloc(200000);
    CHECK(bbuf && b, "malloc");
    MPI_Buffer_attach(bbuf, cap);
    if (rank == 1) {
        for (int m = 0; m < NM; m++)
            for (int i = 0; i < NL; i++) {
                for (int k = 0; k < len[i]; k++)
                    b[k] = (char)(k * 13 + i + 7 * m);
                if (m == 0)
                    MPI_Send(b, len[i], MPI_CHAR, 0, 10 * m + i,
                             MPI_COMM_WORLD);
                else if (m == 1)
                    MPI_Bsend(b, len[i], MPI_CHAR, 0, 10 * m + i,
                              MPI_COMM_WORLD);
                else if (i % 2)
                    MPI_Ssend(b, len[i], MPI_CHAR, 0, 10 * m + i,
                              MPI_COMM_WORLD);
                else /* the synchronous ones of even i come next */
                    MPI_Send(b, len[i], MPI_CHAR, 0, 10 * m + i,
                             MPI_COMM_WORLD);
            }
    } else if (rank == 0) {
        for (int m = 0; m < NM; m++)
            for (int i = 0; i < NL; i++) {
                MPI_Status st;
                int n = -1, bad = 0;
                MPI_Recv(b, 200000, MPI_CHAR, 1, MPI_ANY_TAG, MPI_COMM_WORLD,
                         &st);
                MPI_Get_count(&st, MPI_CHAR, &n);
                CHECK(st.MPI_TAG == 10 * m + i && n == len[i],
                      "mode %d message %d: tag %d, %d bytes", m, i, st.MPI_TAG,
                      n);
                for (int k = 0; k < n; k++)
                    bad += b[k] != (char)(k * 13 + i + 7 * m);
                CHECK(bad == 0, "mode %d message %d: %d bytes wrong", m, i,
                      bad);
            }
    }
    int sz;
    MPI_Buffer_detach(&bbuf, &sz);
    free(bbuf);
    free(b);
    say("standard, buffered and synchronous sends around 4 KiB, in order");
}

static void t_self_and_large(void)
{
    size_t n = 4u << 20;
    unsigned char *a = malloc(n), *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        a[i] = (unsigned char)(i * 7 + (size_t)rank);
    MPI_Request rq[2];
    MPI_Irecv(b, (int)n, MPI_BYTE, rank, 60, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(a, (int)n, MPI_BYTE, rank, 60, MPI_COMM_WORLD, &rq[1]);
    MPI_Status sts[2];
    MPI_Waitall(2, rq, sts);
    CHECK(memcmp(a, b, n) == 0, "self 4 MiB");
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Sendrecv(a, (int)n, MPI_BYTE, peer, 61, b, (int)n, MPI_BYTE, from, 61,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (size_t i = 0; i < n; i += 4099)
        CHECK(b[i] == (unsigned char)(i * 7 + (size_t)from), "4 MiB byte %zu",
              i);
    free(a);
    free(b);
    say("self messages and 4 MiB ring");
}

/* Requests of a communicator inside one board (MPICH direct) and of the
 * world (delegated) completed by one Waitall / Waitany. */
static void t_mixed(void)
{
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2, rank, &pair);
    if (rank < 2) {
        int a[4] = {0}, o[4] = {rank, rank + 10, rank + 20, rank + 30};
        MPI_Request rq[8];
        MPI_Status st[8];
        int p = 1 - rank, idx;
        MPI_Irecv(&a[0], 1, MPI_INT, p, 70, pair, &rq[0]);
        MPI_Irecv(&a[1], 1, MPI_INT, p, 70, MPI_COMM_WORLD, &rq[1]);
        MPI_Irecv(&a[2], 1, MPI_INT, MPI_ANY_SOURCE, 71, pair, &rq[2]);
        MPI_Irecv(&a[3], 1, MPI_INT, MPI_ANY_SOURCE, 71, MPI_COMM_WORLD,
                  &rq[3]);
        MPI_Isend(&o[1], 1, MPI_INT, p, 70, MPI_COMM_WORLD, &rq[4]);
        MPI_Isend(&o[0], 1, MPI_INT, p, 70, pair, &rq[5]);
        MPI_Isend(&o[3], 1, MPI_INT, p, 71, MPI_COMM_WORLD, &rq[6]);
        MPI_Isend(&o[2], 1, MPI_INT, p, 71, pair, &rq[7]);
        MPI_Waitany(8, rq, &idx, st);
        MPI_Waitall(8, rq, st);
        CHECK(a[0] == p && a[1] == p + 10 && a[2] == p + 20 && a[3] == p + 30,
              "mixed %d %d %d %d", a[0], a[1], a[2], a[3]);
    }
    MPI_Comm_free(&pair);
    say("direct and delegated requests in one Waitany/Waitall");
}

/* Buffered sends follow the attached buffer: none attached or too small
 * gives MPI_ERR_BUFFER; one that fits succeeds before the receive is
 * posted; detach gives back the buffer and its size. */
static void t_bsend_buffer(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n = 200, peer = rank == 0 ? 1 : 0;
    int *v = calloc((size_t)n * 4, sizeof(int));
    CHECK(v != NULL, "calloc");
    if (rank == 0) {
        int rc = MPI_Bsend(v, n, MPI_INT, peer, 40, MPI_COMM_WORLD);
        CHECK(class_of(rc) == MPI_ERR_BUFFER,
              "Bsend without a buffer gave class %d", class_of(rc));
    }
    int cap = n * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *bbuf = malloc((size_t)cap);
    CHECK(bbuf != NULL, "malloc");
    MPI_Buffer_attach(bbuf, cap);
    if (rank == 0) {
        int rc = MPI_Bsend(v, 4 * n, MPI_INT, peer, 40, MPI_COMM_WORLD);
        CHECK(class_of(rc) == MPI_ERR_BUFFER,
              "Bsend larger than the buffer gave class %d", class_of(rc));
        for (int i = 0; i < n; i++)
            v[i] = 3 * i + 1;
        rc = MPI_Bsend(v, n, MPI_INT, peer, 41, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "Bsend that fits failed (class %d)",
              class_of(rc));
        for (int i = 0; i < n; i++)
            v[i] = -1; /* the message was taken at the call */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Recv(v, n, MPI_INT, 0, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            CHECK(v[i] == 3 * i + 1, "buffered payload [%d] = %d", i, v[i]);
    }
    char *back = NULL;
    int backsz = 0;
    MPI_Buffer_detach(&back, &backsz);
    CHECK(back == bbuf && backsz == cap, "detach gave %p/%d, attached %p/%d",
          (void *)back, backsz, (void *)bbuf, cap);
    free(bbuf);
    free(v);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    say("buffered sends use the attached buffer (MPI_ERR_BUFFER when short)");
}

/* A large buffered send completes before the receive is posted (the
 * receiver is in a barrier that waits for the sender). */
static void t_bsend_large(void)
{
    int n = 1 << 16;
    int *v = malloc(sizeof(int) * (size_t)n);
    CHECK(v != NULL, "malloc");
    int cap = n * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *bbuf = malloc((size_t)cap);
    CHECK(bbuf != NULL, "malloc");
    MPI_Buffer_attach(bbuf, cap);
    if (rank == 0) {
        for (int i = 0; i < n; i++)
            v[i] = 5 * i - 3;
        MPI_Bsend(v, n, MPI_INT, 1, 42, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            v[i] = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Recv(v, n, MPI_INT, 0, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += v[i] != 5 * i - 3;
        CHECK(bad == 0, "large buffered payload: %d wrong", bad);
    }
    char *back = NULL;
    int backsz = 0;
    MPI_Buffer_detach(&back, &backsz);
    free(bbuf);
    free(v);
    say("a 256 KiB buffered send completes before its receive is posted");
}

static void t_unsupported(void)
{
    int (*q)(MPI_Comm, int *) = (int (*)(MPI_Comm, int *))dlsym(
        RTLD_DEFAULT, "mpideleg_comm_delegated");
    int deleg = 0;
    if (q)
        q(MPI_COMM_WORLD, &deleg);
    if (deleg) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Request rq;
        /* large counts beyond INT_MAX are not delegated (refused before
         * the buffer is touched) */
        int rc = MPI_Irecv_c(&deleg, (MPI_Count)INT_MAX + 1, MPI_BYTE, 0, 0,
                             MPI_COMM_WORLD, &rq);
        CHECK(class_of(rc) == MPI_ERR_UNSUPPORTED_OPERATION,
              "large-count receive gave class %d", class_of(rc));
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        if (rank == 0)
            fprintf(stderr, "expected refusal: %s\n", msg);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    if (rank == 0)
        printf("delegated world: %s\n", deleg ? "yes" : "no");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "nm_suite needs at least 2 ranks\n");
        MPI_Finalize();
        return 77;
    }
    if (rank == 0)
        printf("ranks %d\n", size);
    t_modes();
    t_ssend_sync();
    t_nonblocking();
    t_anysource();
    t_order();
    t_split_sizes();
    t_status_trunc();
    t_probe();
    t_cancel();
    t_datatypes();
    t_comms();
    t_self_and_large();
    t_mixed();
    t_bsend_buffer();
    t_bsend_large();
    if (argc > 1 && strcmp(argv[1], "--unsupported") == 0)
        t_unsupported();
    MPI_Finalize();
    return 0;
}
