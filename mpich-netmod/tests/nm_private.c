/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_private.c: what a rank owns as a process, checked where it can be
 * shared by mistake: ranks that are PiP tasks of one address space
 * (test_netmod_private.sh compares its output with a direct run).
 *
 *   nm_private [LINES [crash|stdin]]
 *
 * With "crash", rank 1 raises SIGSEGV after MPI_Init (a rank that dies of
 * a signal must end the job as directly: mpiexec's status the signal).
 * With "stdin", the other ranks first look whether their standard input
 * has anything to read within 0.5 s (hydra gives them a pipe that stays
 * empty: "quiet"), then rank 0 reads its own to the end and prints how
 * many bytes it got (the launcher gives the job's input to rank 0).
 *
 * Each rank
 * - sets NM_PRIV_RANK to its own rank, waits for all, and reads it back
 *   (one environ per rank: with a shared libc the last writer wins), and
 *   checks that its PMI_RANK is its launcher's (the environment it was
 *   started with);
 * - increments a global counter once (private program data: 1 each);
 * - writes LINES numbered lines to stdout through stdio, fully buffered
 *   (a pipe), flushed only at exit, and one line to stderr; an atexit
 *   handler prints one more line (each rank's own libc runs its own);
 * - runs MPI: rank and size, an allreduce of the ranks, a ring of
 *   MPI_Sendrecv (an int) and of MPI_Isend/MPI_Irecv (64 KiB, each byte
 *   a function of the sender and its place), a split into even and odd
 *   ranks with an allreduce on each half, a broadcast of a string from
 *   the last rank, and an allgather of the process ids (all distinct, as
 *   processes have).
 * Rank r prints "rank r of n: ..." lines; every line starts with the rank,
 * so that the launcher's labels (mpiexec -l) can be checked against it.
 * Exit status 1 when a check fails (the failing checks are named).
 */
#include <mpi.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG (64 * 1024)

static int counter;
static int me = -1;

static void at_exit(void)
{
    printf("rank %d: atexit ran\n", me);
}

static unsigned mix(unsigned a, unsigned b)
{
    unsigned h = a * 2654435761u ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2));
    return h ^ (h >> 15);
}

int main(int argc, char **argv)
{
    int lines = argc > 1 ? atoi(argv[1]) : 200;
    const char *pmi_rank = getenv("PMI_RANK");
    char *start_rank = pmi_rank ? strdup(pmi_rank) : NULL;
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    char why[256] = "";
#define BAD(what)                                                              \
    do {                                                                       \
        bad = 1;                                                               \
        strncat(why, " " what, sizeof why - strlen(why) - 1);                  \
    } while (0)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    me = rank;
    if (argc > 2 && strcmp(argv[2], "crash") == 0 && rank == 1)
        raise(SIGSEGV);
    if (argc > 2 && strcmp(argv[2], "stdin") == 0) {
        if (rank > 0) {
            struct pollfd p = {0, POLLIN, 0};
            int r = poll(&p, 1, 500);
            printf("rank %d: stdin %s\n", rank, r == 0 ? "quiet" : "readable");
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            char buf[4096];
            long got = 0;
            ssize_t k;
            while ((k = read(0, buf, sizeof buf)) > 0)
                got += k;
            printf("rank %d: stdin %ld bytes\n", rank, got);
        }
        MPI_Finalize();
        return 0;
    }
    atexit(at_exit);

    /* environ: the launcher's, and one per rank */
    char v[32];
    snprintf(v, sizeof v, "%d", rank);
    if (setenv("NM_PRIV_RANK", v, 1) != 0)
        BAD("setenv");
    counter++;
    MPI_Barrier(MPI_COMM_WORLD);
    const char *g = getenv("NM_PRIV_RANK");
    if (!g || strcmp(g, v) != 0)
        BAD("environ");
    if (counter != 1)
        BAD("counter");
    /* PMI_RANK is the world rank hydra gave this process; under the shim
     * the clients' world ranks need not be their ranks, so only that it is
     * there and the same after MPI_Init */
    const char *pr = getenv("PMI_RANK");
    if (start_rank && (!pr || strcmp(pr, start_rank) != 0))
        BAD("PMI_RANK");

    /* MPI state */
    long r = rank, sum = -1;
    MPI_Allreduce(&r, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum != (long)size * (size - 1) / 2)
        BAD("allreduce");
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, from = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, next, 5, &from, 1, MPI_INT, prev, 5,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (from != prev)
        BAD("ring");
    unsigned char *out = malloc(BIG), *in = malloc(BIG);
    if (!out || !in)
        return 2;
    for (int i = 0; i < BIG; i++)
        out[i] = (unsigned char)mix((unsigned)rank, (unsigned)i);
    memset(in, 0, BIG);
    MPI_Request rq[2];
    MPI_Status sts[2];
    MPI_Irecv(in, BIG, MPI_BYTE, prev, 6, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(out, BIG, MPI_BYTE, next, 6, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, sts);
    int big_ok = 1;
    for (int i = 0; i < BIG; i++)
        big_ok &= in[i] == (unsigned char)mix((unsigned)prev, (unsigned)i);
    if (!big_ok)
        BAD("bigring");
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hrank, hsize, hmax = -1;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    MPI_Allreduce(&rank, &hmax, 1, MPI_INT, MPI_MAX, half);
    MPI_Comm_free(&half);
    char msg[64] = "";
    if (rank == size - 1)
        snprintf(msg, sizeof msg, "from rank %d of %d", rank, size);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, size - 1, MPI_COMM_WORLD);
    int pid = (int)getpid(), distinct = 1;
    int *pids = malloc(sizeof(int) * (size_t)size);
    if (!pids)
        return 2;
    MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        for (int j = i + 1; j < size; j++)
            distinct &= pids[i] != pids[j];
    if (!distinct)
        BAD("pids");

    /* stdio: buffered lines, flushed at exit */
    for (int i = 0; i < lines; i++)
        printf("rank %d line %d of %d: %08x\n", rank, i, lines,
               mix((unsigned)rank, (unsigned)i));
    fprintf(stderr, "rank %d: a line on stderr\n", rank);
    printf("rank %d of %d: environ %s, counter %d, sum %ld, ring from %d, "
           "64 KiB ring %s, half %d of %d max %d, bcast '%s', pids %s%s%s\n",
           rank, size, g && strcmp(g, v) == 0 ? "own" : "SHARED", counter, sum,
           from, big_ok ? "ok" : "BAD", hrank, hsize, hmax, msg,
           distinct ? "distinct" : "SHARED", bad ? ", FAILED:" : "", why);
    free(out);
    free(in);
    free(pids);
    free(start_rank);
    MPI_Finalize();
    return bad;
}
