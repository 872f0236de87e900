/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_ior: an IOR-like MPI-IO program with no hints and no knowledge of
 * EARTH (run it with and without LD_PRELOAD=libmpiio-earth.so): every rank
 * writes its blocks of the file, interleaved with the other ranks' (IOR's
 * strided layout: block i of rank r at (i * ranks + r) * block), with
 * MPI_File_write_all through a vector file view, closes, reopens and reads
 * them back with MPI_File_read_all, and checks the data.  Times include
 * open and close (as IOR's do); each is the median of REPS iterations.
 *
 * With -c, one collective call per block instead (MPI_File_write_at_all /
 * read_at_all of one block at its offset, no view), as IOR's MPI-IO
 * backend does with -c.
 *
 * usage: earth_ior FILE [-m MiB of the whole file] [-b KiB per block]
 *                       [-r REPS] [-c]
 * Output (rank 0): "write MiB/s read MiB/s" on one line.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "earth_ior: %s: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define OK(call, what)                                                         \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != MPI_SUCCESS)                                                \
            die(rc_, what);                                                    \
    } while (0)

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long mib = 32, kib = 1024, reps = 3;
    int percall = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        long *dst = NULL;
        if (!strcmp(argv[i], "-c")) {
            percall = 1;
            continue;
        }
        if (!strcmp(argv[i], "-m"))
            dst = &mib;
        else if (!strcmp(argv[i], "-b"))
            dst = &kib;
        else if (!strcmp(argv[i], "-r"))
            dst = &reps;
        else if (!path && argv[i][0] != '-') {
            path = argv[i];
            continue;
        }
        if (!dst || i + 1 >= argc ||
            (*dst = strtol(argv[++i], &end, 10)) <= 0 || *end) {
            if (me == 0)
                fprintf(stderr,
                        "usage: earth_ior FILE [-m MiB] [-b KiB] "
                        "[-r REPS] (bad or missing '%s')\n",
                        argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    if (!path || reps > 100 || mib > 65536) {
        if (me == 0)
            fprintf(stderr,
                    "usage: earth_ior FILE [-m MiB] [-b KiB] [-r REPS]\n");
        MPI_Finalize();
        return 2;
    }
    size_t block = (size_t)kib * 1024;
    size_t total = (size_t)mib << 20;
    int nblk = (int)(total / block / (size_t)np); /* blocks per rank */
    if (nblk < 1) {
        if (me == 0)
            fprintf(stderr, "earth_ior: file too small for %d ranks\n", np);
        MPI_Finalize();
        return 2;
    }
    size_t mine = (size_t)nblk * block;
    unsigned char *buf = malloc(mine), *in = malloc(mine);
    if (!buf || !in)
        die(MPI_ERR_NO_MEM, "malloc");
    for (size_t i = 0; i < mine; i++)
        buf[i] = (unsigned char)(i * 7 + (size_t)me * 13 + i / block);
    MPI_Datatype ft;
    MPI_Type_vector(nblk, (int)block, (int)block * np, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    double *tw = calloc((size_t)reps, sizeof(double));
    double *tr = calloc((size_t)reps, sizeof(double));
    int bad = 0;
    for (long k = 0; k < reps; k++) {
        MPI_File fh;
        MPI_Status st;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        OK(MPI_File_open(MPI_COMM_WORLD, path,
                         MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
           "open for writing");
        if (percall) {
            for (int b = 0; b < nblk; b++)
                OK(MPI_File_write_at_all(
                       fh, ((MPI_Offset)b * np + me) * (MPI_Offset)block,
                       buf + (size_t)b * block, (int)block, MPI_BYTE, &st),
                   "write_at_all");
        } else {
            OK(MPI_File_set_view(fh, (MPI_Offset)me * (MPI_Offset)block,
                                 MPI_BYTE, ft, "native", MPI_INFO_NULL),
               "set_view");
            OK(MPI_File_write_all(fh, buf, (int)mine, MPI_BYTE, &st),
               "write_all");
        }
        OK(MPI_File_close(&fh), "close");
        double t1 = MPI_Wtime(), dt = t1 - t0;
        MPI_Allreduce(&dt, &tw[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        memset(in, 0, mine);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL,
                         &fh),
           "open for reading");
        if (percall) {
            for (int b = 0; b < nblk; b++)
                OK(MPI_File_read_at_all(
                       fh, ((MPI_Offset)b * np + me) * (MPI_Offset)block,
                       in + (size_t)b * block, (int)block, MPI_BYTE, &st),
                   "read_at_all");
        } else {
            OK(MPI_File_set_view(fh, (MPI_Offset)me * (MPI_Offset)block,
                                 MPI_BYTE, ft, "native", MPI_INFO_NULL),
               "set_view");
            OK(MPI_File_read_all(fh, in, (int)mine, MPI_BYTE, &st), "read_all");
        }
        OK(MPI_File_close(&fh), "close");
        dt = MPI_Wtime() - t0;
        MPI_Allreduce(&dt, &tr[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (memcmp(in, buf, mine))
            bad = 1;
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0)
            MPI_File_delete(path, MPI_INFO_NULL);
    }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    double mb = (double)((size_t)nblk * block * (size_t)np) / 1048576.0;
    if (me == 0) {
        if (anybad)
            fprintf(stderr, "earth_ior: data read back differ\n");
        else
            printf("%.2f %.2f\n", mb / median(tw, (int)reps),
                   mb / median(tr, (int)reps));
    }
    MPI_Type_free(&ft);
    free(buf);
    free(in);
    free(tw);
    free(tr);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
