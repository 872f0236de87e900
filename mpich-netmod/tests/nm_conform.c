/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_conform.c: MPI behaviour outside plain point-to-point that a program
 * must see the same with and without libmpideleg, checked by the program
 * itself: predefined and user communicator names, the communicator a user
 * error handler receives, pairing of several partitioned requests in
 * flight on one tag, MPI_DATATYPE_NULL with count 0, a message ending
 * inside a derived datatype's element (MPI_Get_elements), many
 * communicators created and freed (blocking and MPI_Comm_idup) and MPI
 * Sessions (run directly by MPICH; refused at MPI_Session_init by the
 * shim).  make check runs it directly and preloaded and compares what
 * rank 0 prints.  A failed check prints "FAIL ..." and aborts.
 *
 *   nm_conform [PART...]   the checks above (2 ranks at least), or only
 *                          those named: names errhandler partitioned
 *                          partial churn
 *   nm_conform --session   MPI_Session_init before anything else: exits 0
 *                          when sessions work, 3 when they are refused
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, next, prev;
static int deleg; /* MPI_COMM_WORLD is delegated by libmpideleg */

#include "nm_check.h"

static void t_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14,
          "world is named '%s' (%d)", name, len);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self is named '%s'", name);
    MPI_Comm d, s;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_set_name(d, "dup of world");
    MPI_Comm_split(d, 0, size - rank, &s);
    MPI_Comm_set_name(s, "reversed");
    MPI_Comm_get_name(d, name, &len);
    CHECK(strcmp(name, "dup of world") == 0, "dup is named '%s'", name);
    MPI_Comm_get_name(s, name, &len);
    CHECK(strcmp(name, "reversed") == 0, "split is named '%s'", name);
    /* renaming the world is allowed and seen */
    MPI_Comm_set_name(MPI_COMM_WORLD, "renamed world");
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "renamed world") == 0, "world renamed '%s'", name);
    MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    MPI_Comm_free(&s);
    MPI_Comm_free(&d);
    say("communicator names");
}

static MPI_Comm eh_seen;
static int eh_code, eh_calls;

static void eh_fn(MPI_Comm *comm, int *code, ...)
{
    eh_seen = *comm;
    eh_code = *code;
    eh_calls++;
}

static void expect_eh(MPI_Comm want, int code, const char *what)
{
    CHECK(eh_calls == 1, "%s: handler called %d times", what, eh_calls);
    CHECK(eh_seen == want, "%s: handler got communicator %#x, not %#x", what,
          (unsigned)eh_seen, (unsigned)want);
    CHECK(class_of(eh_code) == code, "%s: handler got class %d, not %d", what,
          class_of(eh_code), code);
    eh_calls = 0;
}

static void t_errhandler(void)
{
    MPI_Errhandler eh, got;
    MPI_Comm_create_errhandler(eh_fn, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    expect_eh(MPI_COMM_WORLD, MPI_ERR_OTHER, "call_errhandler(world)");
    /* an error MPI raises itself: a rank that does not exist */
    int v = 0;
    MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    expect_eh(MPI_COMM_WORLD, MPI_ERR_RANK, "send to rank size (world)");
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    CHECK(got == eh, "world's handler is not the one set");
    MPI_Errhandler_free(&got);
    for (int i = 0; i < 50; i++) {
        MPI_Comm d, d2;
        MPI_Errhandler e2;
        MPI_Comm_dup(MPI_COMM_WORLD, &d); /* inherits eh */
        MPI_Comm_call_errhandler(d, MPI_ERR_ARG);
        expect_eh(d, MPI_ERR_ARG, "call_errhandler(dup)");
        MPI_Comm_create_errhandler(eh_fn, &e2);
        MPI_Comm_set_errhandler(d, e2);
        MPI_Errhandler_free(&e2); /* still attached */
        MPI_Comm_dup(d, &d2);
        MPI_Recv(&v, 1, MPI_INT, next, -5, d2, MPI_STATUS_IGNORE);
        expect_eh(d2, MPI_ERR_TAG, "recv with a bad tag (dup of dup)");
        MPI_Comm_free(&d2);
        MPI_Comm_free(&d);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    say("error handlers see the user's communicator");
}

/* Partitioned requests pair in the order of their init calls: NP pairs on
 * one tag, started in different orders on the two sides and made ready in
 * reverse order, each round with new contents; then only some started. */
enum { NP = 5, PARTS = 4, PCOUNT = 16 };

static void t_partitioned(void)
{
    static int out[NP][PARTS * PCOUNT], in[NP][PARTS * PCOUNT];
    MPI_Request s[NP], r[NP];
    for (int k = 0; k < NP; k++) {
        MPI_Psend_init(out[k], PARTS, PCOUNT, MPI_INT, next, 7, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &s[k]);
        MPI_Precv_init(in[k], PARTS, PCOUNT, MPI_INT, prev, 7, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &r[k]);
    }
    for (int round = 0; round < 4; round++) {
        /* round 3 runs requests 1 and 3 only */
        int on[NP];
        for (int k = 0; k < NP; k++)
            on[k] = round < 3 || k % 2 == 1;
        for (int k = 0; k < NP; k++)
            for (int i = 0; i < PARTS * PCOUNT; i++) {
                out[k][i] = rank * 1000000 + round * 10000 + k * 100 + i;
                in[k][i] = -1;
            }
        for (int j = 0; j < NP; j++) { /* receives: 2, 0, 4, 1, 3, ... */
            int k = (2 + 3 * j + round) % NP;
            if (on[k])
                MPI_Start(&r[k]);
        }
        for (int k = 0; k < NP; k++)
            if (on[k])
                MPI_Start(&s[k]);
        for (int k = NP - 1; k >= 0; k--)
            if (on[k])
                for (int p = PARTS - 1; p >= 0; p--)
                    MPI_Pready(p, s[k]);
        for (int k = 0; k < NP; k++) {
            MPI_Status st;
            if (!on[k])
                continue;
            MPI_Wait(&r[k], &st);
            CHECK(st.MPI_TAG == 7 || st.MPI_TAG == MPI_ANY_TAG,
                  "partitioned receive %d: status tag %d", k, st.MPI_TAG);
            for (int i = 0; i < PARTS * PCOUNT; i++)
                CHECK(in[k][i] == prev * 1000000 + round * 10000 + k * 100 + i,
                      "round %d: partitioned receive %d got %d at %d "
                      "(expected %d): another request's data",
                      round, k, in[k][i], i,
                      prev * 1000000 + round * 10000 + k * 100 + i);
            MPI_Wait(&s[k], MPI_STATUS_IGNORE);
        }
    }
    for (int k = 0; k < NP; k++) {
        MPI_Request_free(&s[k]);
        MPI_Request_free(&r[k]);
    }
    /* MPICH's test of a Pready that must not block: a partition made ready
     * before a message the receiver takes before it starts */
    int a = 42 + rank, b = -1;
    MPI_Request q;
    if (rank == 0) {
        MPI_Psend_init(&a, 1, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &q);
        MPI_Start(&q);
        MPI_Pready(0, q);
        MPI_Send(NULL, 0, MPI_DATATYPE_NULL, 1, 0, MPI_COMM_WORLD);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Request_free(&q);
    } else if (rank == 1) {
        MPI_Precv_init(&b, 1, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &q);
        MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Start(&q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        CHECK(b == 42, "Pready before a send: got %d", b);
        MPI_Request_free(&q);
    }
    say("partitioned requests pair in init order");
}

/* A message of 5 ints into a receive of pairs of ints, and of 7 ints into
 * a vector type with holes: the last element is partly filled. */
static void t_partial(void)
{
    MPI_Datatype pair, vec;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_vector(2, 2, 3, MPI_INT, &vec); /* xx.xx per element */
    MPI_Type_commit(&vec);
    int out[16], in[16], n;
    for (int i = 0; i < 16; i++)
        out[i] = 100 * rank + i;
    for (int round = 0; round < 2; round++) {
        MPI_Datatype dt = round ? vec : pair;
        int send = round ? 7 : 5;
        MPI_Status st;
        for (int i = 0; i < 16; i++)
            in[i] = -1;
        MPI_Sendrecv(out, send, MPI_INT, next, 3, in, 4, dt, prev, 3,
                     MPI_COMM_WORLD, &st);
        MPI_Get_elements(&st, dt, &n);
        CHECK(n == send, "Get_elements %d, not %d", n, send);
        MPI_Get_count(&st, dt, &n);
        CHECK(n == MPI_UNDEFINED, "Get_count %d, not MPI_UNDEFINED", n);
        MPI_Get_elements(&st, MPI_INT, &n);
        CHECK(n == send, "Get_elements (int) %d", n);
        /* where the elements land: pair: 0..4; vec (extent 5 ints, blocks
         * at 0,1 and 3,4): 0 1 3 4 | 5 6 8 9 */
        static const int at_pair[] = {0, 1, 2, 3, 4};
        static const int at_vec[] = {0, 1, 3, 4, 5, 6, 8};
        const int *at = round ? at_vec : at_pair;
        int filled[16] = {0};
        for (int i = 0; i < send; i++) {
            CHECK(in[at[i]] == 100 * prev + i, "element %d at %d: %d", i, at[i],
                  in[at[i]]);
            filled[at[i]] = 1;
        }
        for (int i = 0; i < 16; i++)
            CHECK(filled[i] || in[i] == -1, "int %d written (%d)", i, in[i]);
    }
    /* a zero-count message with the null datatype */
    MPI_Status st;
    MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, next, 4, NULL, 0,
                 MPI_DATATYPE_NULL, prev, 4, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 0 && st.MPI_SOURCE == prev, "null-type message: %d from %d", n,
          st.MPI_SOURCE);
    MPI_Type_free(&pair);
    MPI_Type_free(&vec);
    say("partly filled derived datatype, null type with count 0");
}

/* Many communicators created and freed, more than MPICH has context ids
 * (2048): nothing may run out. */
static void t_churn(void)
{
    for (int i = 0; i < 2500; i++) {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        if (i % 500 == 0) {
            int v = rank, sum = 0;
            MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, d);
            CHECK(sum == size * (size - 1) / 2, "allreduce on dup %d", i);
        }
        MPI_Comm_free(&d);
    }
    for (int i = 0; i < 600; i++) {
        MPI_Comm d[4];
        MPI_Request q[4];
        for (int j = 0; j < 4; j++)
            MPI_Comm_idup(MPI_COMM_WORLD, &d[j], &q[j]);
        MPI_Status qs[4];
        MPI_Waitall(4, q, qs);
        int v = rank, got = -1;
        MPI_Sendrecv(&v, 1, MPI_INT, next, 0, &got, 1, MPI_INT, prev, 0,
                     d[i % 4], MPI_STATUS_IGNORE);
        CHECK(got == prev, "idup %d: got %d", i, got);
        for (int j = 0; j < 4; j++)
            MPI_Comm_free(&d[j]);
    }
    say("2500 dups and 2400 idups created and freed");
}

/* Directly, sessions work; under the shim MPI_Session_init refuses. */
static int session_only(void)
{
    MPI_Session s = MPI_SESSION_NULL;
    int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    if (rc != MPI_SUCCESS) {
        int c;
        MPI_Error_class(rc, &c);
        printf("MPI_Session_init refused: class %d%s\n", c,
               c == MPI_ERR_UNSUPPORTED_OPERATION
                   ? " (MPI_ERR_UNSUPPORTED_OPERATION)"
                   : "");
        return 3;
    }
    MPI_Group g;
    MPI_Comm c;
    int n, me, sum = 0;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, "nm_conform", MPI_INFO_NULL,
                               MPI_ERRORS_RETURN, &c);
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c);
    if (sum != n * (n - 1) / 2) {
        fprintf(stderr, "FAIL: session communicator sum %d\n", sum);
        return 1;
    }
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    MPI_Session_finalize(&s);
    if (me == 0)
        printf("ok session of %d ranks\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--session") == 0)
        return session_only();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    int (*q)(MPI_Comm, int *) = (int (*)(MPI_Comm, int *))dlsym(
        RTLD_DEFAULT, "mpideleg_comm_delegated");
    if (q)
        q(MPI_COMM_WORLD, &deleg);
    if (rank == 0)
        printf("delegated world: %s\n", deleg ? "yes" : "no");
    CHECK(size >= 2, "needs 2 ranks at least");
    static const struct {
        const char *name;
        void (*fn)(void);
    } parts[] = {{"names", t_names},
                 {"errhandler", t_errhandler},
                 {"partitioned", t_partitioned},
                 {"partial", t_partial},
                 {"churn", t_churn}};
    for (unsigned i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        int run = argc < 2;
        for (int a = 1; a < argc; a++)
            run |= strcmp(argv[a], parts[i].name) == 0;
        if (run)
            parts[i].fn();
    }
    MPI_Finalize();
    return 0;
}
