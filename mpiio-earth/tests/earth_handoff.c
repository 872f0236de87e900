/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_handoff.c: nonblocking collectives that EARTH's progress thread
 * hands to ROMIO, waited for by a rank with nothing else in flight.
 *
 *   earth_handoff FILE [big]
 *
 * The memory datatype is a Fortran 90 integer type (MPI_Type_create_f90_
 * integer; ROMIO takes it for the contiguous type it is, EARTH does not
 * decode its combiner), so every call below is agreed to fall back inside
 * the collective, in the file's progress thread.  The ranks then sit in
 * MPI_Wait (write), MPI_Test (read), MPI_Waitall (two writes) with no
 * other communication pending; the data read back and EARTH's count of
 * hand-overs are checked.  test_earth_handoff.sh runs this under mpi-run's
 * timeout, on 1 rank (nothing else in flight) and on 2.
 *
 * "big": additionally a nonblocking explicit-offset write and read of
 * 2 GiB + 1 MiB per rank through a view, as i_bigtype does, from a memory
 * type with holes (EARTH packs it itself), which EARTH must carry out; needs
 * 6.2 GiB of memory and 2.1 GiB in FILE's directory per rank.
 */
#include <earth.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4099

typedef struct {
    int a, b;
} dint_t;

static int errs;

#define CHECK(c, ...)                                                          \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            errs++;                                                            \
        }                                                                      \
    } while (0)

static void fill(dint_t *v, int n, int rank, int salt)
{
    for (int k = 0; k < n; k++) {
        v[k].a = rank * 1000000 + k + salt;
        v[k].b = rank * 7 + k + salt;
    }
}

static int same(const dint_t *a, const dint_t *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k].a != b[k].a || a[k].b != b[k].b)
            return 0;
    return 1;
}

static void big(const char *path, int rank, int size)
{
    /* 2049 blocks of 1 MiB with 8-byte holes between them in memory (so
     * EARTH packs the data itself), contiguous in the file through a view
     * of 4-byte elements (i_bigtype's): 2 GiB + 1 MiB per call */
    const int nblk = 2049, blk = 1 << 18, stride = (1 << 18) + 2; /* ints */
    const size_t ext = (size_t)(nblk - 1) * stride + blk;         /* ints */
    const MPI_Count nint = (MPI_Count)nblk * blk;
    MPI_Datatype four, ftype, mtype;
    MPI_File fh;
    MPI_Request rq;
    MPI_Status st;
    int *w = calloc(ext, sizeof(int)), *r = calloc(ext, sizeof(int));
    if (!w || !r) {
        fprintf(stderr, "big: not enough memory\n");
        errs++;
        free(w);
        free(r);
        return;
    }
    for (int b = 0; b < nblk; b++)
        for (int k = 0; k < blk; k++)
            w[(size_t)b * stride + k] = b * 31 + k + rank;
    MPI_Type_vector(nblk, blk, stride, MPI_INT, &mtype);
    MPI_Type_commit(&mtype);
    MPI_Type_contiguous(4, MPI_BYTE, &four);
    MPI_Type_vector(1, (int)nint, 1, four, &ftype);
    MPI_Type_commit(&ftype);
    MPI_Type_free(&four);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                  MPI_INFO_NULL, &fh);
    MPI_Offset disp = 2144 + (MPI_Offset)rank * nint * 4;
    MPI_File_set_view(fh, disp, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
    CHECK(MPI_File_iwrite_at_all(fh, 0, w, 1, mtype, &rq) == MPI_SUCCESS,
          "big: iwrite_at_all failed");
    MPI_Wait(&rq, &st);
    MPI_Count got = 0;
    MPI_Get_elements_x(&st, MPI_BYTE, &got);
    CHECK(got == nint * 4, "big: write moved %lld bytes, want %lld",
          (long long)got, (long long)(nint * 4));
    MPI_File_set_view(fh, disp, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
    CHECK(MPI_File_iread_at_all(fh, 0, r, 1, mtype, &rq) == MPI_SUCCESS,
          "big: iread_at_all failed");
    MPI_Wait(&rq, &st);
    /* the holes stay 0 in both */
    CHECK(memcmp(w, r, ext * sizeof(int)) == 0, "big: data read back differ");
    struct earth_stats es;
    if (earth_file_stats(fh, &es) == MPI_SUCCESS)
        CHECK(es.coll_calls >= 2 && es.fallbacks == 0,
              "big: EARTH carried out %llu calls and handed %llu to ROMIO, "
              "want 2 and 0",
              (unsigned long long)es.coll_calls,
              (unsigned long long)es.fallbacks);
    else
        CHECK(0, "big: file not opened through EARTH");
    MPI_File_close(&fh);
    MPI_Type_free(&mtype);
    MPI_Type_free(&ftype);
    free(w);
    free(r);
    if (rank == 0)
        printf("big: %lld bytes per rank and call on %d rank(s), by EARTH\n",
               (long long)(nint * 4), size);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || (argc == 3 && strcmp(argv[2], "big") != 0) || argc > 3) {
        if (rank == 0)
            fprintf(stderr, "usage: earth_handoff FILE [big]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_File fh;
    MPI_Request rq[2];
    MPI_Status st;
    dint_t *w = calloc(2 * N, sizeof *w), *r = calloc(2 * N, sizeof *r);
    if (!w || !r)
        MPI_Abort(MPI_COMM_WORLD, 1);
    fill(w, 2 * N, rank, 0);
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR | MPI_MODE_CREATE,
                  MPI_INFO_NULL, &fh);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_Datatype f90;
    MPI_Type_create_f90_integer(9, &f90); /* predefined: never freed */
    int fsize = 0;
    MPI_Type_size(f90, &fsize);
    if (fsize != sizeof(int)) {
        fprintf(stderr, "f90 integer(9) has %d bytes, not %zu\n", fsize,
                sizeof(int));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int n = 2 * N; /* elements per pair array of N entries */
    MPI_Aint ext = 2 * sizeof(int);
    MPI_Offset mine = (MPI_Offset)rank * 2 * N * ext;

    /* 1. write, MPI_Wait */
    CHECK(MPI_File_iwrite_at_all(fh, mine, w, n, f90, &rq[0]) == MPI_SUCCESS,
          "iwrite_at_all failed");
    CHECK(MPI_Wait(&rq[0], &st) == MPI_SUCCESS, "MPI_Wait failed");
    /* 2. read, MPI_Test loop */
    CHECK(MPI_File_iread_at_all(fh, mine, r, n, f90, &rq[0]) == MPI_SUCCESS,
          "iread_at_all failed");
    for (int flag = 0; !flag;)
        MPI_Test(&rq[0], &flag, &st);
    CHECK(same(w, r, N), "rank %d: read back differs", rank);
    /* 3. two writes, MPI_Waitall */
    fill(w, 2 * N, rank, 5);
    MPI_File_iwrite_at_all(fh, mine, w, n, f90, &rq[0]);
    MPI_File_iwrite_at_all(fh, mine + (MPI_Offset)N * ext, w + N, n, f90,
                           &rq[1]);
    MPI_Status sts[2];
    CHECK(MPI_Waitall(2, rq, sts) == MPI_SUCCESS, "MPI_Waitall failed");
    memset(r, 0, 2 * N * sizeof *r);
    MPI_File_iread_at_all(fh, mine, r, 2 * n, f90, &rq[0]);
    MPI_Wait(&rq[0], &st);
    CHECK(same(w, r, 2 * N), "rank %d: second read back differs", rank);

    struct earth_stats es;
    if (earth_file_stats(fh, &es) == MPI_SUCCESS) {
        CHECK(es.fallbacks >= 4,
              "EARTH handed %llu calls to ROMIO, want at least 4",
              (unsigned long long)es.fallbacks);
        if (rank == 0)
            printf("handed to ROMIO in the progress thread: %llu calls\n",
                   (unsigned long long)es.fallbacks);
    } else {
        CHECK(0, "earth_file_stats failed: file not opened through EARTH");
    }
    MPI_File_close(&fh);
    free(w);
    free(r);
    if (argc == 3)
        big(argv[1], rank, size);
    int tot = 0;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(tot ? " Found %d errors\n" : " No Errors\n", tot);
    MPI_Finalize();
    return tot != 0;
}
