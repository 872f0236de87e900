/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_window.c: windows of short nonblocking sends from rank 0 to rank 1,
 * the traffic that the process form's delegatees pack into one MPI message
 * (MPIDELEG_PACK): sizes 0 to 128 bytes and five tags, with a synchronous
 * send, a 1 KiB and a 64 KiB message in the middle of each window (they do
 * not pack: the packed messages before them must still come first).  The
 * receiver takes each window
 *   - unexpected (it waits in a barrier while they arrive): a probe must
 *     find the first of a tag, receives of one tag must get that tag's
 *     messages in their order, then ANY_TAG receives the rest in order;
 *   - posted first: one receive per message, every 3rd with ANY_TAG, and
 *     one more receive that no message matches, which must cancel.
 * Every payload, count, source and tag is checked; rank 0 prints one line
 * per case.  Run with 2 ranks (directly, or as clients of two delegatees).
 *   nm_window [WINDOWS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;
#include "nm_check.h"

#define N       200 /* messages per window */
#define NTAGS   5
#define SYNC_AT 77
#define KIB_AT  50
#define BIG_AT  150

static int size_of(int i)
{
    if (i == KIB_AT)
        return 1024;
    if (i == BIG_AT)
        return 65536;
    return (i * 13) % 129; /* 0 to 128 bytes */
}

static void fill(char *b, int n, int w, int i)
{
    for (int k = 0; k < n; k++)
        b[k] = (char)(w * 7 + i * 31 + k);
}

static void expect(const char *b, int n, int w, int i, const char *what)
{
    for (int k = 0; k < n; k++)
        CHECK(b[k] == (char)(w * 7 + i * 31 + k),
              "%s: window %d message %d: byte %d of %d differs", what, w, i, k,
              n);
}

static char *sbuf[N + 1], *rbuf[N + 1];

/* the window's sends; before their wait, a barrier when `first` */
static void send_window(int w, int first)
{
    MPI_Request rq[N];
    static MPI_Status st[N];
    for (int i = 0; i < N; i++) {
        fill(sbuf[i], size_of(i), w, i);
        if (i == SYNC_AT)
            MPI_Issend(sbuf[i], size_of(i), MPI_CHAR, 1, i % NTAGS,
                       MPI_COMM_WORLD, &rq[i]);
        else
            MPI_Isend(sbuf[i], size_of(i), MPI_CHAR, 1, i % NTAGS,
                      MPI_COMM_WORLD, &rq[i]);
    }
    if (first) /* the receiver waits there while they arrive */
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(N, rq, st);
}

/* message i received into rbuf[i] with status st */
static void check_msg(int w, int i, MPI_Status *st, const char *what)
{
    int n;
    MPI_Get_count(st, MPI_CHAR, &n);
    CHECK(st->MPI_SOURCE == 0 && st->MPI_TAG == i % NTAGS && n == size_of(i),
          "%s: window %d message %d: source %d tag %d count %d", what, w, i,
          st->MPI_SOURCE, st->MPI_TAG, n);
    expect(rbuf[i], n, w, i, what);
}

/* the window arrived before any receive: probe, one tag, then the rest */
static void recv_unexpected(int w)
{
    MPI_Status st;
    int flag = 0;
    while (!flag)
        MPI_Iprobe(0, 3, MPI_COMM_WORLD, &flag, &st);
    int n;
    MPI_Get_count(&st, MPI_CHAR, &n);
    CHECK(st.MPI_TAG == 3 && n == size_of(3), "probe: tag %d count %d",
          st.MPI_TAG, n);
    char got[N] = {0};
    for (int i = 3; i < N; i += NTAGS) { /* tag 3 first, in order */
        MPI_Recv(rbuf[i], 65536, MPI_CHAR, 0, 3, MPI_COMM_WORLD, &st);
        check_msg(w, i, &st, "tag 3");
        got[i] = 1;
    }
    for (int i = 0; i < N; i++) { /* the others, in order */
        if (got[i])
            continue;
        MPI_Recv(rbuf[i], 65536, MPI_CHAR, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        check_msg(w, i, &st, "any tag");
    }
}

/* receives posted before the window, one that nothing matches */
static void recv_posted(int w)
{
    MPI_Request rq[N + 1];
    MPI_Status st[N + 1];
    for (int i = 0; i < N; i++)
        MPI_Irecv(rbuf[i], 65536, MPI_CHAR, 0, i % 3 ? i % NTAGS : MPI_ANY_TAG,
                  MPI_COMM_WORLD, &rq[i]);
    MPI_Irecv(rbuf[N], 16, MPI_CHAR, 0, NTAGS, MPI_COMM_WORLD, &rq[N]);
    MPI_Barrier(MPI_COMM_WORLD); /* posted: now the sender starts */
    MPI_Waitall(N, rq, st);
    for (int i = 0; i < N; i++)
        check_msg(w, i, &st[i], "posted");
    MPI_Cancel(&rq[N]);
    MPI_Wait(&rq[N], &st[N]);
    int c;
    MPI_Test_cancelled(&st[N], &c);
    CHECK(c, "the receive nothing matched was not cancelled");
}

int main(int argc, char **argv)
{
    int size, windows = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run with 2 ranks, not %d", size);
    CHECK(windows > 0, "WINDOWS must be positive");
    for (int i = 0; i <= N; i++) {
        rbuf[i] = malloc(65536);
        sbuf[i] = i < N ? malloc(65536) : NULL;
        CHECK(rbuf[i] && (i == N || sbuf[i]), "out of memory");
    }
    for (int w = 0; w < windows; w++) {
        if (rank == 0) {
            send_window(w, 1);
        } else {
            MPI_Barrier(MPI_COMM_WORLD); /* while the window arrives */
            recv_unexpected(w);
        }
    }
    say("windows received unexpected: probe, one tag, then in order");
    for (int w = 0; w < windows; w++) {
        if (rank == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            send_window(w, 0);
        } else {
            recv_posted(w);
        }
    }
    say("windows into posted receives, one cancelled");
    for (int i = 0; i <= N; i++) {
        free(rbuf[i]);
        free(sbuf[i]);
    }
    MPI_Finalize();
    return 0;
}
