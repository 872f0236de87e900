/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_progress.c: MPI's progress rule across the two paths of libmpideleg.
 * A process blocked in a point-to-point wait must keep MPICH's own
 * operations moving (here a nonblocking collective), because the process
 * it waits for needs them to complete before it sends.  A plain MPI
 * program that checks itself: make check runs it directly and with the
 * shim preloaded and compares what rank 0 prints.  A failed check prints
 * "FAIL ..." and aborts; a lost progress shows as a hang (the script's
 * timeout).
 *
 * Every case: rank 1 (B) starts a large MPI_Iallreduce and then blocks in
 * the call under test, which needs a message from rank 0 (A).  A first
 * lets B get there (a short sleep), then starts its Iallreduce and waits
 * for it, and only then sends to B (or receives from it).  MPICH's
 * allreduce of this size takes several dependent steps, so A's part only
 * completes if B's MPICH makes progress while B is blocked.  Other ranks
 * only take part in the collectives.  Two ranks at least.
 *
 *   nm_progress [K]   (only case K, 0-based; default all)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

#include "nm_check.h"

enum { N = 1 << 16, TAG = 42 }; /* 256 KiB of ints */

static int *cin, *cout;
static int msg[64];

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void coll_start(MPI_Request *c, int round)
{
    for (int i = 0; i < N; i++) {
        cin[i] = (rank + 1) * (i + round);
        cout[i] = -1;
    }
    MPI_Iallreduce(cin, cout, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, c);
}

static void coll_check(int round, const char *what)
{
    int f = size * (size + 1) / 2;
    for (int i = 0; i < N; i++)
        CHECK(cout[i] == f * (i + round), "%s: allreduce[%d] = %d, not %d",
              what, i, cout[i], f * (i + round));
}

static void msg_fill(int round)
{
    for (int i = 0; i < 64; i++)
        msg[i] = round * 1000 + i;
}

static void msg_check(int round, const char *what)
{
    for (int i = 0; i < 64; i++)
        CHECK(msg[i] == round * 1000 + i, "%s: message[%d] = %d", what, i,
              msg[i]);
}

/* How B blocks on the message from A (or, for the sends, to A). */
enum {
    K_WAIT,     /* Irecv + MPI_Wait */
    K_WAITALL,  /* Irecv first in an MPI_Waitall with the collective */
    K_WAITANY,  /* Irecv + MPI_Waitany over it and a null request */
    K_RECV,     /* blocking MPI_Recv */
    K_PROBE,    /* MPI_Probe, then MPI_Recv */
    K_MPROBE,   /* MPI_Mprobe, then MPI_Mrecv */
    K_PERSIST,  /* MPI_Recv_init + MPI_Start + MPI_Wait */
    K_SENDRECV, /* MPI_Sendrecv: B sends to A and receives from A */
    K_SSEND,    /* blocking MPI_Ssend to A (A receives after its wait) */
    K_ISSEND,   /* MPI_Issend to A + MPI_Wait */
    K_COUNT
};

static const char *names[K_COUNT] = {"Wait on Irecv",
                                     "Waitall (Irecv, collective)",
                                     "Waitany on Irecv",
                                     "Recv",
                                     "Probe",
                                     "Mprobe",
                                     "Wait on Recv_init",
                                     "Sendrecv",
                                     "Ssend",
                                     "Wait on Issend"};

static void b_side(int k, int round)
{
    MPI_Request c, r = MPI_REQUEST_NULL;
    MPI_Status st;
    coll_start(&c, round);
    memset(msg, 0, sizeof msg);
    switch (k) {
    case K_WAIT:
        MPI_Irecv(msg, 64, MPI_INT, 0, TAG, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, &st);
        break;
    case K_WAITALL: {
        MPI_Request two[2] = {MPI_REQUEST_NULL, c};
        MPI_Status sts[2];
        MPI_Irecv(msg, 64, MPI_INT, 0, TAG, MPI_COMM_WORLD, &two[0]);
        MPI_Waitall(2, two, sts);
        st = sts[0];
        c = two[1];
        break;
    }
    case K_WAITANY: {
        MPI_Request two[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        int idx;
        MPI_Irecv(msg, 64, MPI_INT, 0, TAG, MPI_COMM_WORLD, &two[1]);
        MPI_Waitany(2, two, &idx, &st);
        CHECK(idx == 1, "Waitany: index %d", idx);
        break;
    }
    case K_RECV:
        MPI_Recv(msg, 64, MPI_INT, 0, TAG, MPI_COMM_WORLD, &st);
        break;
    case K_PROBE:
        MPI_Probe(0, TAG, MPI_COMM_WORLD, &st);
        MPI_Recv(msg, 64, MPI_INT, 0, TAG, MPI_COMM_WORLD, &st);
        break;
    case K_MPROBE: {
        MPI_Message m;
        MPI_Mprobe(0, TAG, MPI_COMM_WORLD, &m, &st);
        MPI_Mrecv(msg, 64, MPI_INT, &m, &st);
        break;
    }
    case K_PERSIST:
        MPI_Recv_init(msg, 64, MPI_INT, 0, TAG, MPI_COMM_WORLD, &r);
        MPI_Start(&r);
        MPI_Wait(&r, &st);
        MPI_Request_free(&r);
        break;
    case K_SENDRECV: {
        int out[64];
        for (int i = 0; i < 64; i++)
            out[i] = -round * 1000 - i;
        MPI_Sendrecv(out, 64, MPI_INT, 0, TAG, msg, 64, MPI_INT, 0, TAG,
                     MPI_COMM_WORLD, &st);
        break;
    }
    case K_SSEND:
    case K_ISSEND:
        msg_fill(round);
        if (k == K_SSEND) {
            MPI_Ssend(msg, 64, MPI_INT, 0, TAG, MPI_COMM_WORLD);
        } else {
            MPI_Issend(msg, 64, MPI_INT, 0, TAG, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        break;
    }
    if (k != K_SSEND && k != K_ISSEND) {
        int n;
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == TAG && n == 64,
              "%s: status source %d tag %d count %d", names[k], st.MPI_SOURCE,
              st.MPI_TAG, n);
        msg_check(round, names[k]);
    }
    MPI_Wait(&c, MPI_STATUS_IGNORE);
    coll_check(round, names[k]);
}

static void a_side(int k, int round)
{
    MPI_Request c;
    nap_ms(100); /* B is blocked by now */
    coll_start(&c, round);
    MPI_Wait(&c, MPI_STATUS_IGNORE);
    coll_check(round, names[k]);
    if (k == K_SSEND || k == K_ISSEND) {
        MPI_Status st;
        memset(msg, 0, sizeof msg);
        MPI_Recv(msg, 64, MPI_INT, 1, TAG, MPI_COMM_WORLD, &st);
        msg_check(round, names[k]);
        return;
    }
    msg_fill(round);
    if (k == K_SENDRECV) {
        int in[64];
        MPI_Sendrecv(msg, 64, MPI_INT, 1, TAG, in, 64, MPI_INT, 1, TAG,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 64; i++)
            CHECK(in[i] == -round * 1000 - i, "Sendrecv: A got [%d] = %d", i,
                  in[i]);
    } else {
        MPI_Send(msg, 64, MPI_INT, 1, TAG, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs two ranks at least");
    cin = malloc(sizeof(int) * N);
    cout = malloc(sizeof(int) * N);
    CHECK(cin && cout, "out of memory");
    int only = argc > 1 ? atoi(argv[1]) : -1;
    for (int k = 0; k < K_COUNT; k++) {
        if (only >= 0 && k != only)
            continue;
        int round = k + 1;
        if (rank == 0) {
            a_side(k, round);
        } else if (rank == 1) {
            b_side(k, round);
        } else {
            MPI_Request c;
            coll_start(&c, round);
            MPI_Wait(&c, MPI_STATUS_IGNORE);
            coll_check(round, names[k]);
        }
        char what[80];
        snprintf(what, sizeof what, "B blocked in %s lets A's collective end",
                 names[k]);
        say(what);
    }
    free(cin);
    free(cout);
    MPI_Finalize();
    return 0;
}
