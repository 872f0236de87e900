/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_threads.c: a plain MPI_THREAD_MULTIPLE program that checks itself:
 * NT threads per rank call MPI at the same time.
 *   1. each thread duplicates its own communicator concurrently with the
 *      others (communicator creation on different parents at once);
 *   2. ring exchange (Sendrecv, 8 B and 64 KiB) on the thread's own
 *      communicator, payloads naming sender, thread and round;
 *   3. all threads on MPI_COMM_WORLD at once, told apart by tag: Isend and
 *      Irecv with every other rank, Waitall;
 *   4. MPI_ANY_SOURCE receives (one tag per round) on the thread's
 *      communicator, every other rank seen once per round;
 *   5. Mprobe + Mrecv on the thread's communicator.
 * Rank 0 prints one line per phase (the same directly with MPICH and with
 * the delegation shim) and "threads: all checks passed"; a failed check
 * prints the reason and exits 1.
 *   nm_threads [rounds]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT  4
#define BIG (64 * 1024 / (int)sizeof(int))

static int rank, size, rounds = 20;
static MPI_Comm parent[NT], mine[NT];
static long sums[NT][6];

static void fail(int t, const char *what, long got, long want)
{
    fprintf(stderr, "rank %d thread %d: %s: got %ld, expected %ld\n", rank, t,
            what, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check(int t, const char *what, long got, long want)
{
    if (got != want)
        fail(t, what, got, want);
}

static int word(int from, int t, int r, int i)
{
    return ((from * NT + t) * 1000 + r) * 7 + i;
}

static void ring(int t)
{
    MPI_Comm c = mine[t];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *out = malloc(sizeof(int) * BIG), *in = malloc(sizeof(int) * BIG);
    if (!out || !in)
        fail(t, "malloc", 0, 1);
    for (int r = 0; r < rounds; r++) {
        int n = r % 2 ? BIG : 2;
        for (int i = 0; i < n; i++)
            out[i] = word(rank, t, r, i);
        MPI_Status st;
        MPI_Sendrecv(out, n, MPI_INT, right, r, in, BIG, MPI_INT, left, r, c,
                     &st);
        int cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        check(t, "ring count", cnt, n);
        check(t, "ring source", st.MPI_SOURCE, left);
        for (int i = 0; i < n; i++)
            if (in[i] != word(left, t, r, i))
                fail(t, "ring payload", in[i], word(left, t, r, i));
        sums[t][2] += in[n - 1];
    }
    free(out);
    free(in);
}

static void world(int t)
{
    int *out = malloc(sizeof(int) * (size_t)size);
    int *in = malloc(sizeof(int) * (size_t)size);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
    MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * (size_t)size);
    if (!out || !in || !rq || !st)
        fail(t, "malloc", 0, 1);
    for (int r = 0; r < rounds; r++) {
        int k = 0;
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            out[p] = word(rank, t, r, p);
            MPI_Irecv(&in[p], 1, MPI_INT, p, t, MPI_COMM_WORLD, &rq[k++]);
            MPI_Isend(&out[p], 1, MPI_INT, p, t, MPI_COMM_WORLD, &rq[k++]);
        }
        MPI_Waitall(k, rq, st);
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            check(t, "world payload", in[p], word(p, t, r, rank));
            sums[t][3] += in[p];
        }
    }
    free(out);
    free(in);
    free(rq);
    free(st);
}

static void any_source(int t)
{
    MPI_Comm c = mine[t];
    for (int r = 0; r < rounds; r++) {
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            int v = word(rank, t, r, p);
            MPI_Send(&v, 1, MPI_INT, p, 100 + r, c);
        }
        unsigned long seen = 0;
        for (int k = 0; k < size - 1; k++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 100 + r, c, &st);
            check(t, "any-source tag", st.MPI_TAG, 100 + r);
            check(t, "any-source payload", v, word(st.MPI_SOURCE, t, r, rank));
            if (seen & (1ul << st.MPI_SOURCE))
                fail(t, "any-source: sender twice", st.MPI_SOURCE, -1);
            seen |= 1ul << st.MPI_SOURCE;
            sums[t][4] += v;
        }
    }
}

static void mprobe(int t)
{
    MPI_Comm c = mine[t];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int r = 0; r < rounds; r++) {
        int v = word(rank, t, r, 9), got = -1;
        MPI_Request rq;
        MPI_Isend(&v, 1, MPI_INT, right, 9, c, &rq);
        MPI_Message m;
        MPI_Status st;
        MPI_Mprobe(left, 9, c, &m, &st);
        int cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        check(t, "mprobe count", cnt, 1);
        MPI_Mrecv(&got, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        check(t, "mrecv payload", got, word(left, t, r, 9));
        sums[t][5] += got;
    }
}

static pthread_barrier_t bar;

static void *thread_main(void *arg)
{
    int t = (int)(long)arg;
    pthread_barrier_wait(&bar);
    MPI_Comm_dup(parent[t], &mine[t]);
    int csize;
    MPI_Comm_size(mine[t], &csize);
    check(t, "dup size", csize, size);
    sums[t][1] = csize;
    pthread_barrier_wait(&bar);
    ring(t);
    pthread_barrier_wait(&bar);
    world(t);
    pthread_barrier_wait(&bar);
    any_source(t);
    pthread_barrier_wait(&bar);
    mprobe(t);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (provided != MPI_THREAD_MULTIPLE || size < 2 || size > 64 ||
        rounds < 1) {
        if (rank == 0)
            fprintf(stderr,
                    "nm_threads: needs MPI_THREAD_MULTIPLE (got %d), 2..64 "
                    "ranks, rounds >= 1\n",
                    provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("threads: %d threads x %d ranks, thread level MULTIPLE\n", NT,
               size);
    for (int t = 0; t < NT; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &parent[t]);
    pthread_t th[NT];
    pthread_barrier_init(&bar, NULL, NT);
    for (int t = 0; t < NT; t++)
        if (pthread_create(&th[t], NULL, thread_main, (void *)(long)t) != 0)
            fail(t, "pthread_create", 0, 1);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    static const char *phase[] = {"",      "dup",        "ring",
                                  "world", "any-source", "mprobe"};
    for (int ph = 1; ph <= 5; ph++) {
        long s = 0, all = 0;
        for (int t = 0; t < NT; t++)
            s += sums[t][ph];
        MPI_Reduce(&s, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("threads: %s ok, checksum %ld\n", phase[ph], all);
    }
    for (int t = 0; t < NT; t++) {
        MPI_Comm_free(&mine[t]);
        MPI_Comm_free(&parent[t]);
    }
    if (rank == 0)
        printf("threads: all checks passed\n");
    MPI_Finalize();
    return 0;
}
