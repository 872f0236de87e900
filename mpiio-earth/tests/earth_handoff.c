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
 * "big": additionally the explicit-offset write of more than 2 GiB through
 * a view, as i_bigtype does (EARTH hands calls over 2 GiB to ROMIO), and its
 * read back; needs 4.1 GiB of memory and 2 GiB in FILE's directory.
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
    /* 2 GiB + 8 bytes per rank: one contiguous block of a struct type, the
     * file view a contiguous vector of 4-byte elements (i_bigtype's) */
    const MPI_Count n = ((MPI_Count)1 << 29) + 2; /* ints */
    MPI_Datatype inner, four, ftype, mtype;
    MPI_File fh;
    MPI_Request rq;
    MPI_Status st;
    int *w = malloc((size_t)n * sizeof(int)),
        *r = calloc((size_t)n, sizeof(int));
    if (!w || !r) {
        fprintf(stderr, "big: not enough memory\n");
        errs++;
        free(w);
        free(r);
        return;
    }
    for (MPI_Count k = 0; k < n; k++)
        w[k] = (int)(k * 3 + rank);
    MPI_Type_contiguous((int)(n / 2), MPI_INT, &inner);
    MPI_Type_contiguous(2, inner, &mtype); /* n ints */
    MPI_Type_commit(&mtype);
    MPI_Type_free(&inner);
    MPI_Type_contiguous(4, MPI_BYTE, &four);
    MPI_Type_vector(1, (int)n, 1, four, &ftype);
    MPI_Type_commit(&ftype);
    MPI_Type_free(&four);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                  MPI_INFO_NULL, &fh);
    MPI_Offset disp = 2144 + (MPI_Offset)rank * n * 4;
    MPI_File_set_view(fh, disp, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
    CHECK(MPI_File_iwrite_at_all(fh, 0, w, 1, mtype, &rq) == MPI_SUCCESS,
          "big: iwrite_at_all failed");
    MPI_Wait(&rq, &st);
    MPI_Count got = 0;
    MPI_Get_elements_x(&st, MPI_BYTE, &got);
    CHECK(got == n * 4, "big: write moved %lld bytes, want %lld",
          (long long)got, (long long)(n * 4));
    MPI_File_set_view(fh, disp, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
    CHECK(MPI_File_iread_at_all(fh, 0, r, 1, mtype, &rq) == MPI_SUCCESS,
          "big: iread_at_all failed");
    MPI_Wait(&rq, &st);
    CHECK(memcmp(w, r, (size_t)n * sizeof(int)) == 0,
          "big: data read back differ");
    MPI_File_close(&fh);
    MPI_Type_free(&mtype);
    MPI_Type_free(&ftype);
    free(w);
    free(r);
    if (rank == 0)
        printf("big: %lld bytes per rank on %d rank(s)\n", (long long)(n * 4),
               size);
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
