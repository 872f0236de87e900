/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_threads: threads of an MPI_THREAD_MULTIPLE program open, write,
 * read back and close different files at the same time, each thread on
 * its own duplicate of MPI_COMM_SELF, so EARTH's file registry, its
 * per-communicator bases and the contention model's setup are used by
 * several threads at once.  Every round checks the file's bytes (written
 * and read back with collective calls through EARTH), that EARTH carried
 * the calls (earth_file_stats) and that a closed handle is no longer
 * known to it.
 *
 * Each thread has a communicator of its own rank only: MPICH runs all of
 * ROMIO's calls of a process under one lock, held while a collective
 * waits for the other ranks, so threads of two ranks in collective file
 * calls on two communicators at once can wait for each other for ever
 * (with or without EARTH).
 *
 * usage: earth_threads DIR [ROUNDS]   (exit 0 = passed, 77 = no
 * MPI_THREAD_MULTIPLE, 1 = failed)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "earth.h"

#define NTHREADS 3
#define N        2048 /* ints per rank, thread and round */

static int me, np, rounds = 20;
static const char *dir;
static MPI_Comm comms[NTHREADS];
static int fails[NTHREADS];

#define CHECK(t, cond, ...)                                                    \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "rank %d thread %d: check failed: %s: ", me, t,    \
                    #cond);                                                    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            fails[t]++;                                                        \
        }                                                                      \
    } while (0)

static int value(int t, int r, int rank, int i)
{
    return ((t * 1000 + r) * 64 + rank) * N + i;
}

static void *run(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm comm = comms[t];
    int *out = malloc(N * sizeof(int)), *in = malloc(N * sizeof(int));
    char path[4096];
    snprintf(path, sizeof path, "%s/threads-%d-%d", dir, me, t);
    for (int r = 0; r < rounds && out && in && !fails[t]; r++) {
        for (int i = 0; i < N; i++)
            out[i] = value(t, r, me, i);
        MPI_File fh;
        int rc = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                               MPI_INFO_NULL, &fh);
        CHECK(t, rc == MPI_SUCCESS, "open: %d", rc);
        if (rc != MPI_SUCCESS)
            break;
        rc = MPI_File_write_at_all(fh, 0, out, N, MPI_INT, MPI_STATUS_IGNORE);
        CHECK(t, rc == MPI_SUCCESS, "write_at_all: %d", rc);
        memset(in, 0xff, N * sizeof(int));
        rc = MPI_File_read_at_all(fh, 0, in, N, MPI_INT, MPI_STATUS_IGNORE);
        CHECK(t, rc == MPI_SUCCESS, "read_at_all: %d", rc);
        int bad = 0;
        for (int i = 0; i < N; i++)
            bad += in[i] != value(t, r, me, i);
        CHECK(t, bad == 0, "round %d: %d of %d ints wrong", r, bad, N);
        struct earth_stats st;
        rc = earth_file_stats(fh, &st);
        CHECK(t, rc == MPI_SUCCESS && st.coll_calls == 2,
              "round %d: stats rc %d, %llu collective calls by EARTH", r, rc,
              (unsigned long long)st.coll_calls);
        rc = MPI_File_close(&fh);
        CHECK(t, rc == MPI_SUCCESS, "close: %d", rc);
        CHECK(t, earth_file_stats(fh, &st) != MPI_SUCCESS,
              "a closed handle is still known");
    }
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    if (argc < 2) {
        fprintf(stderr, "usage: earth_threads DIR [ROUNDS]\n");
        return 1;
    }
    dir = argv[1];
    if (argc > 2)
        rounds = atoi(argv[2]);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (me == 0)
            printf("SKIP: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Finalize();
        return 77;
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_dup(MPI_COMM_SELF, &comms[t]);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        if (pthread_create(&th[t], NULL, run, (void *)(long)t) != 0) {
            fprintf(stderr, "rank %d: pthread_create failed\n", me);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    int mine = 0, all = 0;
    for (int t = 0; t < NTHREADS; t++) {
        mine += fails[t];
        MPI_Comm_free(&comms[t]);
    }
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("earth_threads: %d ranks x %d threads x %d rounds: %s\n", np,
               NTHREADS, rounds, all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
