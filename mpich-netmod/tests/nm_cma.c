/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_cma.c: large messages between two ranks, in the orders that matter to
 * the PiP form's direct copies between processes (MPIDELEG_CMA): a receive
 * posted before the send (announced to the sender, which may push into
 * it), after it (pulled), several posted with one tag, a wildcard before
 * a specific receive, a short message that takes an announced receive, a
 * message longer than the receive, cancels before and racing the send,
 * synchronous and buffered sends, a loop of exchanges both ways, and a
 * blocking send whose receiver waits in a collective meanwhile.
 * Every payload is checked; rank 0 prints one line per case.  Run with 2
 * ranks (directly, or as clients of two delegatees).
 *   nm_cma [ITERATIONS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;
#include "nm_check.h"

#define BIG (256 * 1024)

static void fill(char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (char)(seed * 31 + i * 7 + (i >> 12));
}

static void expect(const char *b, size_t n, int seed, const char *what)
{
    for (size_t i = 0; i < n; i++)
        CHECK(b[i] == (char)(seed * 31 + i * 7 + (i >> 12)),
              "%s: byte %zu of %zu differs", what, i, n);
}

static void expect_count(MPI_Status *st, int n, int src, int tag,
                         const char *what)
{
    int cnt;
    MPI_Get_count(st, MPI_BYTE, &cnt);
    CHECK(cnt == n && st->MPI_SOURCE == src && st->MPI_TAG == tag,
          "%s: count %d source %d tag %d, not %d %d %d", what, cnt,
          st->MPI_SOURCE, st->MPI_TAG, n, src, tag);
}

/* Rank 1's half of a case: two BIG receives from rank 0 (tag1, tag2)
 * posted before the barrier, then their payloads checked (seed1, seed2). */
static void recv_two(char *a, char *b, int tag1, int seed1, int tag2, int seed2,
                     const char *what)
{
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Irecv(a, BIG, MPI_BYTE, 0, tag1, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(b, BIG, MPI_BYTE, 0, tag2, MPI_COMM_WORLD, &rq[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(2, rq, st);
    expect(a, BIG, seed1, what);
    expect(b, BIG, seed2, what);
}

/* Rank 0's half of a case: BIG bytes of seed with tag to rank 1 after the
 * barrier that says rank 1 has posted (or cancelled) its receive. */
static void send_one(char *s, int seed, int tag)
{
    fill(s, BIG, seed);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(s, BIG, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
}

/* Rank 0's half of a case: two messages to rank 1 (n1 bytes of seed1
 * with tag1, then BIG bytes of seed2 with tag2) after the barrier that
 * says rank 1 has posted its receives; how: 0 Isend both and Waitall,
 * 1 Send both, 2 Ssend then Bsend (the buffered copy is what travels: the
 * buffer is cleared at once). */
static void send_two(char *s, int n1, int seed1, int tag1, int seed2, int tag2,
                     int how)
{
    char *s2 = malloc(BIG);
    MPI_Request rq[2];
    MPI_Status st[2];
    CHECK(s2, "out of memory");
    fill(s, (size_t)n1, seed1);
    fill(s2, BIG, seed2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (how == 0) {
        MPI_Isend(s, n1, MPI_BYTE, 1, tag1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(s2, BIG, MPI_BYTE, 1, tag2, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, st);
    } else if (how == 1) {
        MPI_Send(s, n1, MPI_BYTE, 1, tag1, MPI_COMM_WORLD);
        MPI_Send(s2, BIG, MPI_BYTE, 1, tag2, MPI_COMM_WORLD);
    } else {
        MPI_Ssend(s, n1, MPI_BYTE, 1, tag1, MPI_COMM_WORLD);
        MPI_Bsend(s2, BIG, MPI_BYTE, 1, tag2, MPI_COMM_WORLD);
        memset(s2, 0, BIG);
    }
    free(s2);
}

int main(int argc, char **argv)
{
    int size, iters = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run with 2 ranks, not %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int peer = 1 - rank;
    char *a = malloc(BIG), *b = malloc(BIG), *s = malloc(BIG);
    MPI_Request rq[4];
    MPI_Status st[4];
    CHECK(a && b && s, "out of memory");

    /* 1. receive posted before the send */
    if (rank == 1) {
        MPI_Irecv(a, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&rq[0], &st[0]);
        expect_count(&st[0], BIG, 0, 1, "posted first");
        expect(a, BIG, 1, "posted first");
    } else {
        send_one(s, 1, 1);
    }
    say("receive posted before the send");

    /* 2. send first: the receive comes after the message */
    if (rank == 0) {
        fill(s, BIG, 2);
        MPI_Isend(s, BIG, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(a, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &st[0]);
        expect_count(&st[0], BIG, 0, 2, "sent first");
        expect(a, BIG, 2, "sent first");
    }
    say("receive posted after the send");

    /* 3. two receives posted with one tag take the messages in order */
    if (rank == 1) {
        recv_two(a, b, 3, 31, 3, 32, "two with one tag");
    } else {
        send_two(s, BIG, 31, 3, 32, 3, 0);
    }
    say("two receives with one tag, in order");

    /* 4. a wildcard receive posted first takes the first message */
    if (rank == 1) {
        MPI_Irecv(a, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                  &rq[0]);
        MPI_Irecv(b, BIG, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &rq[1]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(2, rq, st);
        expect_count(&st[0], BIG, 0, 4, "wildcard first");
        expect(a, BIG, 41, "wildcard first");
        expect(b, BIG, 42, "specific second");
    } else {
        send_two(s, BIG, 41, 4, 42, 4, 1);
    }
    say("wildcard receive before a specific one");

    /* 5. a short message takes the announced receive, the big one the next */
    if (rank == 1) {
        MPI_Irecv(a, BIG, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Irecv(b, BIG, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, st);
        expect_count(&st[0], 1000, 0, 5, "short first");
        expect(a, 1000, 51, "short first");
        expect_count(&st[1], BIG, 0, 5, "big second");
        expect(b, BIG, 52, "big second");
    } else {
        send_two(s, 1000, 51, 5, 52, 5, 1);
    }
    say("short message into an announced receive");

    /* 6. a message longer than the posted receive: truncated */
    if (rank == 1) {
        memset(b, 0, BIG);
        MPI_Irecv(b, BIG / 2, MPI_BYTE, 0, 6, MPI_COMM_WORLD, &rq[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        int rc = MPI_Wait(&rq[0], &st[0]);
        CHECK(class_of(rc) == MPI_ERR_TRUNCATE, "truncation gave class %d",
              class_of(rc));
        for (size_t i = BIG / 2; i < BIG; i++)
            CHECK(b[i] == 0, "truncated receive wrote past its buffer");
    } else {
        send_one(s, 6, 6);
    }
    say("message longer than the announced receive");

    /* 7. cancel of an announced receive before any send */
    if (rank == 1) {
        int cancelled = 0;
        MPI_Irecv(a, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq[0]);
        MPI_Cancel(&rq[0]);
        MPI_Wait(&rq[0], &st[0]);
        MPI_Test_cancelled(&st[0], &cancelled);
        CHECK(cancelled, "the receive was not cancelled");
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(b, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st[1]);
        expect_count(&st[1], BIG, 0, 7, "after a cancel");
        expect(b, BIG, 7, "after a cancel");
    } else {
        send_one(s, 7, 7);
    }
    say("cancel of an announced receive");

    /* 8. cancel racing the send: cancelled (the message goes to the next
     * receive) or completed with the whole message */
    for (int i = 0; i < iters; i++) {
        if (rank == 1) {
            int cancelled = 0;
            MPI_Irecv(a, BIG, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &rq[0]);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Cancel(&rq[0]);
            MPI_Wait(&rq[0], &st[0]);
            MPI_Test_cancelled(&st[0], &cancelled);
            if (cancelled) {
                MPI_Recv(a, BIG, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &st[0]);
            }
            expect_count(&st[0], BIG, 0, 8, "cancel race");
            expect(a, BIG, 80 + i % 7, "cancel race");
        } else {
            send_one(s, 80 + i % 7, 8);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    say("cancel racing the send");

    /* 9. synchronous and buffered sends into announced receives */
    {
        int bsz = BIG + MPI_BSEND_OVERHEAD;
        char *bb = malloc((size_t)bsz);
        CHECK(bb, "out of memory");
        MPI_Buffer_attach(bb, bsz);
        if (rank == 1) {
            recv_two(a, b, 9, 9, 10, 10, "synchronous and buffered");
        } else {
            send_two(s, BIG, 9, 9, 10, 10, 2);
        }
        void *p;
        int psz;
        MPI_Buffer_detach(&p, &psz);
        free(bb);
    }
    say("synchronous and buffered sends");

    /* 10. exchanges both ways, receives posted first or not */
    for (int i = 0; i < iters; i++) {
        fill(s, BIG, 100 + rank * 50 + i % 13);
        if (i % 2 == 0) {
            MPI_Irecv(a, BIG, MPI_BYTE, peer, 11, MPI_COMM_WORLD, &rq[0]);
            MPI_Isend(s, BIG, MPI_BYTE, peer, 11, MPI_COMM_WORLD, &rq[1]);
            MPI_Waitall(2, rq, st);
        } else {
            MPI_Sendrecv(s, BIG, MPI_BYTE, peer, 11, a, BIG, MPI_BYTE, peer, 11,
                         MPI_COMM_WORLD, &st[0]);
        }
        expect(a, BIG, 100 + peer * 50 + i % 13, "exchange");
    }
    say("exchanges both ways");

    /* 11. MPI's progress rule: the receive is posted, its rank then waits
     * in a collective (not for the receive) while the sender blocks in
     * MPI_Send: the send must complete without the receiver's Wait (the
     * process form's receiving client reads the payload only when it
     * finishes the receive: its delegatee takes the copy over) */
    if (rank == 1) {
        MPI_Irecv(a, BIG, MPI_BYTE, 0, 12, MPI_COMM_WORLD, &rq[0]);
        MPI_Barrier(MPI_COMM_WORLD); /* posted before the send */
        MPI_Barrier(MPI_COMM_WORLD); /* rank 0 gets here after its Send */
        MPI_Wait(&rq[0], &st[0]);
        expect_count(&st[0], BIG, 0, 12, "receiver in a collective");
        expect(a, BIG, 12, "receiver in a collective");
    } else {
        fill(s, BIG, 12);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(s, BIG, MPI_BYTE, 1, 12, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    say("receiver in a collective while the send blocks");

    free(a);
    free(b);
    free(s);
    MPI_Finalize();
    return 0;
}
