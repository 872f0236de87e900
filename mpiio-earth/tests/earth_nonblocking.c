/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_nonblocking: the nonblocking collective forms (MPI_File_iwrite_all,
 * _iread_all, _iwrite_at_all, _iread_at_all) are really nonblocking.
 *
 * Each case posts the operation in a "relay": rank 0 posts first and then
 * sends a token to rank 1, which posts only after receiving it, and so on.
 * This is a valid MPI program; a library that carries the collective out
 * inside the posting call deadlocks here (rank 0 waits in the collective
 * for rank 1, rank 1 waits for the token), and test/mpi-run's timeout then
 * fails the test.  Checked besides: file contents (written through EARTH,
 * read back through ROMIO and through EARTH), the individual file pointer
 * right after posting, MPI_Get_count of the statuses, completion seen by
 * MPI_Test, several requests outstanding on one file, MPI_Request_free
 * before completion, a datatype freed before completion, a strided file
 * view, and that EARTH (not ROMIO) carried the calls out.
 *
 * usage: earth_nonblocking DIR   (exit 0 = passed, 77 = no
 * MPI_THREAD_MULTIPLE with EARTH_ASYNC unset, 1 = failed)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "earth.h"

#define N 4096 /* ints per rank and case */

static int me, np, failures, async_on = 1;
static char path[4096];

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", me,          \
                    __FILE__, __LINE__, #cond);                                \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static int value(int rank, int i, int salt)
{
    return salt * 1000003 + rank * 65537 + i;
}

/* Wait for the token of the previous rank (rank 0: nothing). */
static void relay_in(void)
{
    int tok;
    if (me > 0)
        MPI_Recv(&tok, 1, MPI_INT, me - 1, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

/* Hand the token to the next rank (the last one: nothing). */
static void relay_out(void)
{
    int tok = me;
    if (me < np - 1)
        MPI_Send(&tok, 1, MPI_INT, me + 1, 7, MPI_COMM_WORLD);
}

/* Complete with MPI_Test only (progress from this thread's side). */
static void test_until_done(MPI_Request *req, MPI_Status *st)
{
    int done = 0;
    while (!done)
        MPI_Test(req, &done, st);
}

static void check_count(MPI_Status *st, MPI_Datatype t, int want,
                        const char *what)
{
    int cnt = -1;
    MPI_Get_count(st, t, &cnt);
    CHECK(cnt == want, "%s: MPI_Get_count %d, expected %d", what, cnt, want);
}

/* Read the whole file through ROMIO (PMPI) on rank 0 and compare. */
static void verify_file(const int *expect, int nints, const char *what)
{
    MPI_File fh;
    MPI_Status st;
    int *got = calloc((size_t)nints, sizeof(int));
    int bad = 0;
    if (me == 0) {
        if (PMPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL,
                           &fh) != MPI_SUCCESS) {
            bad = 1;
        } else {
            PMPI_File_read_at(fh, 0, got, nints, MPI_INT, &st);
            PMPI_File_close(&fh);
            for (int i = 0; i < nints && !bad; i++)
                if (got[i] != expect[i]) {
                    fprintf(stderr, "%s: file int %d is %d, expected %d\n",
                            what, i, got[i], expect[i]);
                    bad = 1;
                }
        }
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(!bad, "%s: file contents differ", what);
    free(got);
}

static MPI_File open_file(int amode)
{
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS) {
        fprintf(stderr, "rank %d: cannot open %s\n", me, path);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    return fh;
}

static void check_earth_ran(MPI_File fh, unsigned long want, const char *what)
{
    struct earth_stats s;
    if (!async_on) /* EARTH_ASYNC=0: ROMIO's nonblocking forms ran */
        return;
    CHECK(earth_file_stats(fh, &s) == MPI_SUCCESS, "%s: stats", what);
    CHECK(s.coll_calls == want && s.fallbacks == 0,
          "%s: EARTH carried out %llu calls (%llu to ROMIO), expected %lu",
          what, (unsigned long long)s.coll_calls,
          (unsigned long long)s.fallbacks, want);
}

/* 1. iwrite_at_all and iwrite_all posted in relays; read back with the
 *    nonblocking reads, also in relays. */
static void case_relay(int *expect)
{
    MPI_File fh = open_file(MPI_MODE_CREATE | MPI_MODE_RDWR);
    MPI_Request rq;
    MPI_Status st;
    int *a = malloc(N * sizeof(int)), *b = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) {
        a[i] = value(me, i, 1);
        b[i] = value(me, i, 2);
    }
    earth_file_stats_reset(fh);
    /* block 1: explicit offsets, ranks side by side */
    relay_in();
    CHECK(MPI_File_iwrite_at_all(fh, (MPI_Offset)me * N * 4, a, N, MPI_INT,
                                 &rq) == MPI_SUCCESS,
          "iwrite_at_all");
    relay_out();
    MPI_Wait(&rq, &st);
    check_count(&st, MPI_INT, N, "iwrite_at_all");
    /* block 2: the individual file pointer, after the first block */
    MPI_File_seek(fh, (MPI_Offset)(np + me) * N * 4, MPI_SEEK_SET);
    relay_in();
    CHECK(MPI_File_iwrite_all(fh, b, N, MPI_INT, &rq) == MPI_SUCCESS,
          "iwrite_all");
    MPI_Offset pos = -1;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == (MPI_Offset)(np + me + 1) * N * 4,
          "file pointer %lld right after posting, expected %lld",
          (long long)pos, (long long)(np + me + 1) * N * 4);
    relay_out();
    test_until_done(&rq, &st);
    check_count(&st, MPI_INT, N, "iwrite_all");
    check_earth_ran(fh, 2, "writes");

    for (int r = 0; r < np; r++)
        for (int i = 0; i < N; i++) {
            expect[r * N + i] = value(r, i, 1);
            expect[(np + r) * N + i] = value(r, i, 2);
        }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    verify_file(expect, 2 * np * N, "relay writes");

    /* read back in the opposite relay order (the last rank first) */
    int *ra = calloc(N, sizeof(int)), *rb = calloc(N, sizeof(int));
    int tok = 0;
    if (me < np - 1)
        MPI_Recv(&tok, 1, MPI_INT, me + 1, 8, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Request rr[2];
    CHECK(MPI_File_iread_at_all(fh, (MPI_Offset)me * N * 4, ra, N, MPI_INT,
                                &rr[0]) == MPI_SUCCESS,
          "iread_at_all");
    MPI_File_seek(fh, (MPI_Offset)(np + me) * N * 4, MPI_SEEK_SET);
    CHECK(MPI_File_iread_all(fh, rb, N, MPI_INT, &rr[1]) == MPI_SUCCESS,
          "iread_all");
    if (me > 0)
        MPI_Send(&tok, 1, MPI_INT, me - 1, 8, MPI_COMM_WORLD);
    MPI_Status sts[2];
    MPI_Waitall(2, rr, sts);
    check_count(&sts[0], MPI_INT, N, "iread_at_all");
    check_count(&sts[1], MPI_INT, N, "iread_all");
    CHECK(!memcmp(ra, a, N * sizeof(int)), "iread_at_all data");
    CHECK(!memcmp(rb, b, N * sizeof(int)), "iread_all data");
    check_earth_ran(fh, 4, "reads");
    free(ra);
    free(rb);
    free(a);
    free(b);
    MPI_File_close(&fh);
}

/* 2. Several requests outstanding on one file (one freed before it
 *    completes, with its datatype freed too), through a strided view:
 *    rank r owns every np-th block of 16 ints. */
static void case_many(int *expect)
{
    enum { K = 3, B = 16 };
    MPI_File fh = open_file(MPI_MODE_CREATE | MPI_MODE_RDWR);
    MPI_Datatype ft, bt;
    MPI_Type_vector(N / B, B, B * np, MPI_INT, &ft);
    MPI_Type_create_resized(ft, 0, (MPI_Aint)N * np * 4, &bt);
    MPI_Type_free(&ft);
    MPI_Type_commit(&bt);
    MPI_File_set_view(fh, (MPI_Offset)me * B * 4, MPI_INT, bt, "native",
                      MPI_INFO_NULL);
    earth_file_stats_reset(fh);
    int *buf[K];
    MPI_Request rq[K];
    MPI_Datatype types[K];
    for (int k = 0; k < K; k++)
        types[k] = MPI_DATATYPE_NULL;
    relay_in();
    for (int k = 0; k < K; k++) {
        buf[k] = malloc(N * sizeof(int));
        for (int i = 0; i < N; i++)
            buf[k][i] = value(me, i, 10 + k);
        MPI_Datatype t;
        MPI_Type_contiguous(N, MPI_INT, &t);
        MPI_Type_commit(&t);
        CHECK(MPI_File_iwrite_at_all(fh, (MPI_Offset)k * N, buf[k], 1, t,
                                     &rq[k]) == MPI_SUCCESS,
              "iwrite_at_all %d", k);
        /* allowed while the request is pending (ROMIO's own nonblocking
         * forms mishandle it: only with EARTH's) */
        if (async_on)
            MPI_Type_free(&t);
        else
            types[k] = t;
    }
    /* completes on its own (ROMIO's own forms would never progress it) */
    if (async_on)
        MPI_Request_free(&rq[1]);
    relay_out();
    MPI_Status st;
    if (!async_on)
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[2], &st);
    check_count(&st, MPI_BYTE, N * 4, "third of three");
    MPI_Wait(&rq[0], &st);
    check_count(&st, MPI_INT, N, "first of three");
    /* close finishes the freed request before the file goes */
    MPI_File_close(&fh);
    MPI_Type_free(&bt);
    for (int k = 0; k < K; k++)
        if (types[k] != MPI_DATATYPE_NULL)
            MPI_Type_free(&types[k]);
    for (int k = 0; k < K; k++)
        for (int r = 0; r < np; r++)
            for (int i = 0; i < N; i++) {
                int blk = i / B, j = i % B;
                expect[k * N * np + (blk * np + r) * B + j] =
                    value(r, i, 10 + k);
            }
    verify_file(expect, K * N * np, "three outstanding, strided view");
    for (int k = 0; k < K; k++)
        free(buf[k]);
}

/* 3. A zero-count nonblocking read on every rank, still in a relay. */
static void case_zero_count(void)
{
    MPI_File fh = open_file(MPI_MODE_RDWR);
    earth_file_stats_reset(fh);
    int *b = calloc(N, sizeof(int));
    MPI_Request rq;
    MPI_Status st;
    relay_in();
    CHECK(MPI_File_iread_at_all(fh, 0, b, 0, MPI_INT, &rq) == MPI_SUCCESS,
          "zero-count iread_at_all");
    relay_out();
    MPI_Wait(&rq, &st);
    check_count(&st, MPI_INT, 0, "zero-count read");
    check_earth_ran(fh, 1, "zero-count read");
    MPI_File_close(&fh);
    free(b);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        if (me == 0)
            fprintf(stderr, "usage: earth_nonblocking DIR\n");
        MPI_Finalize();
        return 99;
    }
    const char *e = getenv("EARTH_ASYNC");
    async_on = !(e && !strcmp(e, "0"));
    if (provided != MPI_THREAD_MULTIPLE && !(e && !strcmp(e, "0"))) {
        if (me == 0)
            fprintf(stderr, "earth_nonblocking: MPI_THREAD_MULTIPLE not "
                            "provided: skip\n");
        MPI_Finalize();
        return 77;
    }
    snprintf(path, sizeof(path), "%s/nb.dat", argv[1]);
    int *expect = malloc(sizeof(int) * 3 * N * (size_t)np);
    if (me == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    case_relay(expect);
    if (me == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    case_many(expect);
    case_zero_count();
    if (me == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    free(expect);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("earth_nonblocking: %d ranks, %s\n", np,
               all ? "FAILED" : "passed");
    MPI_Finalize();
    return all ? 1 : 0;
}
