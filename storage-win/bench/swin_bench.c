/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swin_bench: storage windows against memory windows.
 *
 *   swin_bench rma    [--shm DIR] [--disk DIR] [--reps R] [--max BYTES] [--csv
 * F] (2 ranks) put/get latency and bandwidth, contiguous and strided, as the
 * EPCC CAF microbenchmarks do them through OpenCoarrays (one lock/op/unlock per
 * access): memory window (MPI_Win_allocate), the same over MPI_Win_create (the
 * MPICH path storage windows take), and storage windows on DIR (/dev/shm) and
 * on disk without durable syncs, plus storage on disk with a durable
 * MPI_Win_sync at the target after every operation.  Ratios are against the
 * memory window. swin_bench stream [--shm DIR] [--disk DIR] [--n DOUBLES]
 * [--reps R] [--csv F] mSTREAM analogue: copy/scale/add/triad on arrays inside
 * a memory window and inside storage windows (each rank on its own window).
 *   swin_bench sync   [--disk DIR] [--sizes MiB,...] [--dirty N,...] [--reps R]
 * [--csv F] Durable-sync time against the number of dirty pages, for several
 *       window sizes (run with SWIN_TRACK=msync for the untracked baseline).
 *
 * Every number is the median of R repetitions; progress goes to stderr,
 * the table to stdout, CSV rows to --csv.
 */
#include "config.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage_win.h"

static int me, np;
static const char *shm_dir = "/dev/shm";
static const char *disk_dir = ".";
static int reps = 5;
static long max_bytes = 1 << 20;
static long stream_n = 1 << 21;
static const char *sizes_mib = "4,64,256";
static const char *dirty_list = "0,1,4,16,64,256,1024";
static FILE *csv;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum kind { K_MEM, K_MEMC, K_SHM, K_DISK, K_DISK_SYNC, K_COUNT };
static const char *const kind_name[] = {"memory", "memory-create",
                                        "storage-shm", "storage-disk",
                                        "storage-disk+sync"};

struct win {
    MPI_Win win;
    char *base;
    void *own; /* malloc'ed memory of K_MEMC */
    char path[4096];
};

static void win_open(struct win *w, enum kind k, MPI_Aint size, const char *tag)
{
    MPI_Info info = MPI_INFO_NULL;
    memset(w, 0, sizeof(*w));
    if (k == K_MEMC) {
        if (posix_memalign(&w->own, 4096, (size_t)size) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        memset(w->own, 0, (size_t)size);
        w->base = w->own;
        MPI_Win_create(w->own, size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        return;
    }
    if (k != K_MEM) {
        snprintf(w->path, sizeof(w->path), "%s/swin-bench-%s-%d-%d.dat",
                 k == K_SHM ? shm_dir : disk_dir, tag, (int)getpid(), me);
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_type", "storage");
        MPI_Info_set(info, "storage_alloc_filename", w->path);
        MPI_Info_set(info, "storage_alloc_unlink", "true");
    }
    if (MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, &w->base, &w->win) !=
        MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    memset(w->base, 0, (size_t)size); /* fault the pages in, like a program */
    MPI_Barrier(MPI_COMM_WORLD);
}

static void win_close(struct win *w)
{
    MPI_Win_free(&w->win);
    free(w->own);
}

/* `iters` operations from rank 0 to rank 1, each timed on its own (at the
 * origin: lock, operation, unlock); the samples go to out[].  Timing single
 * operations and taking medians keeps the scheduler's millisecond stalls on
 * a loaded 2-core machine out of the result.  With sync, rank 1 makes the
 * window durable after each operation and the sample covers that too. */
static void rma_samples(struct win *w, int get, int strided, long bytes,
                        int iters, int sync, char *buf, double *out)
{
    MPI_Datatype t = MPI_BYTE;
    int count = (int)bytes;
    if (strided) {
        /* bytes/8 doubles, every other double of the target (EPCC). */
        MPI_Type_vector((int)(bytes / 8), 1, 2, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        count = 1;
    }
    int ocount = strided ? (int)(bytes / 8) : count;
    MPI_Datatype ot = strided ? MPI_DOUBLE : MPI_BYTE;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++) {
        double t0 = MPI_Wtime();
        if (me == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w->win);
            if (get)
                MPI_Get(buf, ocount, ot, 1, 0, count, t, w->win);
            else
                MPI_Put(buf, ocount, ot, 1, 0, count, t, w->win);
            MPI_Win_unlock(1, w->win);
        }
        if (sync) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 1) {
                MPI_Win_lock_all(0, w->win);
                MPI_Win_sync(w->win);
                MPI_Win_unlock_all(w->win);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        out[i] = MPI_Wtime() - t0;
    }
    if (strided)
        MPI_Type_free(&t);
}

static void bench_rma(void)
{
    if (np != 2) {
        if (me == 0)
            fprintf(stderr, "swin_bench rma: needs exactly 2 ranks\n");
        return;
    }
    MPI_Aint wsize = 2 * max_bytes + 4096;
    char *buf = calloc(1, (size_t)wsize);
    struct win w[K_COUNT];
    for (int k = 0; k < K_COUNT; k++)
        win_open(&w[k], (enum kind)k, wsize, "rma");
    if (me == 0) {
        printf("# put/get, rank 0 -> rank 1, lock/op/unlock per access, "
               "median of all single operations over %d rounds; ratio = time / "
               "memory-window time\n",
               reps);
        printf("%-4s %-4s %9s", "op", "pat", "bytes");
        for (int k = 0; k < K_COUNT; k++)
            printf(" %17s", kind_name[k]);
        printf("\n%-4s %-4s %9s", "", "", "");
        for (int k = 0; k < K_COUNT; k++)
            printf(" %17s", "us (ratio)");
        printf("   us(mem)  MB/s(mem)\n");
        if (csv)
            fprintf(csv, "bench,op,pattern,bytes,window,median_us,mb_per_s,"
                         "ratio_to_memory\n");
    }
    double *samp[K_COUNT];
    int nsamp[K_COUNT];
    for (int k = 0; k < K_COUNT; k++)
        samp[k] = calloc((size_t)reps * 100, sizeof(double));
    for (int get = 0; get < 2; get++)
        for (int strided = 0; strided < 2; strided++)
            for (long bytes = 8; bytes <= max_bytes; bytes *= 8) {
                if (strided && bytes < 16)
                    continue;
                int iters = bytes <= 65536 ? 100 : 10;
                double med[K_COUNT];
                /* Interleave the kinds inside each repetition so that the
                 * machine's load drifts hit them alike. */
                for (int k = 0; k < K_COUNT; k++)
                    nsamp[k] = 0;
                for (int r = 0; r < reps; r++)
                    for (int k = 0; k < K_COUNT; k++) {
                        int sync = k == K_DISK_SYNC;
                        int it = sync ? iters / 10 + 1 : iters;
                        rma_samples(&w[k], get, strided, bytes, it, sync, buf,
                                    samp[k] + nsamp[k]);
                        nsamp[k] += it;
                    }
                for (int k = 0; k < K_COUNT; k++) {
                    med[k] = median(samp[k], nsamp[k]);
                    MPI_Bcast(&med[k], 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
                }
                if (me == 0) {
                    const char *op = get ? "get" : "put";
                    const char *pat = strided ? "str" : "cont";
                    printf("%-4s %-4s %9ld", op, pat, bytes);
                    for (int k = 0; k < K_COUNT; k++)
                        printf(" %9.2f (%5.3f)", med[k] * 1e6,
                               med[k] / med[K_MEM]);
                    printf(" %9.2f %10.1f\n", med[K_MEM] * 1e6,
                           (double)bytes / med[K_MEM] / 1e6);
                    for (int k = 0; k < K_COUNT && csv; k++)
                        fprintf(csv, "rma,%s,%s,%ld,%s,%.3f,%.2f,%.4f\n", op,
                                pat, bytes, kind_name[k], med[k] * 1e6,
                                (double)bytes / med[k] / 1e6,
                                med[k] / med[K_MEM]);
                    fflush(stdout);
                    fprintf(stderr, "rma: %s %s %ld bytes done\n", op, pat,
                            bytes);
                }
            }
    for (int k = 0; k < K_COUNT; k++) {
        win_close(&w[k]);
        free(samp[k]);
    }
    free(buf);
}

/* mSTREAM analogue: a[], b[], c[] live in one window per rank. */
static void bench_stream(void)
{
    size_t n = (size_t)stream_n;
    MPI_Aint wsize = (MPI_Aint)(3 * n * sizeof(double));
    static const char *const kern[] = {"copy", "scale", "add", "triad"};
    static const int nbytes[] = {16, 16, 24, 24};
    enum kind kinds[] = {K_MEM, K_SHM, K_DISK};
    double res[3][4];
    double *v = calloc((size_t)reps * 3 * 4, sizeof(double));
    struct win w[3];
    double *arr[3][3];
    for (int ki = 0; ki < 3; ki++) {
        win_open(&w[ki], kinds[ki], wsize, "stream");
        arr[ki][0] = (double *)w[ki].base;
        arr[ki][1] = arr[ki][0] + n;
        arr[ki][2] = arr[ki][1] + n;
        for (size_t i = 0; i < n; i++) {
            arr[ki][0][i] = 1.0;
            arr[ki][1][i] = 2.0;
            arr[ki][2][i] = 0.0;
        }
    }
    /* Rounds outermost, window kinds interleaved inside, so that load
     * drifts on the shared machine hit every kind alike. */
    for (int r = 0; r < reps; r++)
        for (int kk = 0; kk < 4; kk++)
            for (int ki = 0; ki < 3; ki++) {
                double *a = arr[ki][0], *b = arr[ki][1], *c = arr[ki][2];
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                switch (kk) {
                case 0:
                    for (size_t i = 0; i < n; i++)
                        c[i] = a[i];
                    break;
                case 1:
                    for (size_t i = 0; i < n; i++)
                        b[i] = 3.0 * c[i];
                    break;
                case 2:
                    for (size_t i = 0; i < n; i++)
                        c[i] = a[i] + b[i];
                    break;
                default:
                    for (size_t i = 0; i < n; i++)
                        a[i] = b[i] + 3.0 * c[i];
                    break;
                }
                double dt = MPI_Wtime() - t0, worst;
                MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX,
                              MPI_COMM_WORLD);
                v[(ki * 4 + kk) * reps + r] = worst;
            }
    for (int ki = 0; ki < 3; ki++) {
        for (int kk = 0; kk < 4; kk++)
            /* Aggregate bandwidth of all ranks. */
            res[ki][kk] = (double)nbytes[kk] * (double)n * np /
                          median(v + (ki * 4 + kk) * reps, reps) / 1e6;
        win_close(&w[ki]);
    }
    if (me == 0)
        fprintf(stderr, "stream: done\n");
    if (me == 0) {
        printf("# mSTREAM analogue: %d ranks, %zu doubles per array, median "
               "of %d, aggregate MB/s (ratio to memory)\n",
               np, n, reps);
        printf("%-7s", "kernel");
        for (int ki = 0; ki < 3; ki++)
            printf(" %24s", kind_name[kinds[ki]]);
        printf("\n");
        if (csv)
            fprintf(csv, "bench,kernel,window,mb_per_s,ratio_to_memory\n");
        for (int kk = 0; kk < 4; kk++) {
            printf("%-7s", kern[kk]);
            for (int ki = 0; ki < 3; ki++) {
                printf(" %14.1f (%6.3f)", res[ki][kk],
                       res[ki][kk] / res[0][kk]);
                if (csv)
                    fprintf(csv, "stream,%s,%s,%.1f,%.4f\n", kern[kk],
                            kind_name[kinds[ki]], res[ki][kk],
                            res[ki][kk] / res[0][kk]);
            }
            printf("\n");
        }
    }
    free(v);
}

/* Durable sync cost against dirty pages and window size. */
static void bench_sync(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    long sizes[16], dirty[32];
    int ns = 0, nd = 0;
    char tmp[256];
    snprintf(tmp, sizeof(tmp), "%s", sizes_mib);
    for (char *s = strtok(tmp, ","); s && ns < 16; s = strtok(NULL, ","))
        sizes[ns++] = atol(s);
    snprintf(tmp, sizeof(tmp), "%s", dirty_list);
    for (char *s = strtok(tmp, ","); s && nd < 32; s = strtok(NULL, ","))
        dirty[nd++] = atol(s);
    const char *mode = swin_track_mode() == SWIN_TRACK_MSYNC ? "msync" : "?";
    double *v = calloc((size_t)reps, sizeof(double));
    double *sc = calloc((size_t)reps, sizeof(double));
    if (me == 0 && csv)
        fprintf(csv, "bench,tracking,window_mib,dirty_pages,median_ms,"
                     "pages_written\n");
    for (int si = 0; si < ns; si++) {
        MPI_Aint wsize = (MPI_Aint)sizes[si] << 20;
        long pages = (long)(wsize / ps);
        struct win w;
        win_open(&w, K_DISK, wsize, "sync");
        mode = swin_track_mode() == SWIN_TRACK_UFFD ? "uffd" : "msync";
        MPI_Win_lock_all(0, w.win);
        MPI_Win_sync(w.win); /* the initial fill */
        if (me == 0 && si == 0)
            printf("# durable MPI_Win_sync on disk (%s), tracking %s, median "
                   "of %d, ms\n%10s %12s %12s %14s\n",
                   disk_dir, mode, reps, "window_MiB", "dirty_pages", "sync_ms",
                   "pages_written");
        for (int di = 0; di < nd; di++) {
            long k = dirty[di] < pages ? dirty[di] : pages;
            uint64_t written = 0;
            for (int r = 0; r < reps; r++) {
                /* k pages spread over the whole window. */
                for (long i = 0; i < k; i++) {
                    long p = (long)((i * 7919 + r * 104729) % pages);
                    if (k > 1)
                        p = i * (pages / k) + (r % (pages / k));
                    w.base[p * ps + (r % 64)]++;
                }
                double t0 = MPI_Wtime();
                MPI_Win_sync(w.win);
                v[r] = MPI_Wtime() - t0;
                swin_stats_t st;
                swin_win_get_stats(w.win, &st);
                written = st.last_pages;
            }
            double m = median(v, reps), worst;
            MPI_Reduce(&m, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (me == 0) {
                printf("%10ld %12ld %12.3f %14llu\n", sizes[si], k, worst * 1e3,
                       (unsigned long long)written);
                if (csv)
                    fprintf(csv, "sync,%s,%ld,%ld,%.4f,%llu\n", mode, sizes[si],
                            k, worst * 1e3, (unsigned long long)written);
                fflush(stdout);
            }
        }
        MPI_Win_unlock_all(w.win);
        win_close(&w);
        if (me == 0)
            fprintf(stderr, "sync: %ld MiB window done\n", sizes[si]);
    }
    free(v);
    free(sc);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *what = argc > 1 ? argv[1] : "";
    for (int i = 2; i + 1 < argc; i += 2) {
        const char *o = argv[i], *val = argv[i + 1];
        if (strcmp(o, "--shm") == 0)
            shm_dir = val;
        else if (strcmp(o, "--disk") == 0)
            disk_dir = val;
        else if (strcmp(o, "--reps") == 0)
            reps = atoi(val) > 0 ? atoi(val) : 5;
        else if (strcmp(o, "--max") == 0)
            max_bytes = atol(val) > 8 ? atol(val) : max_bytes;
        else if (strcmp(o, "--n") == 0)
            stream_n = atol(val) > 0 ? atol(val) : stream_n;
        else if (strcmp(o, "--sizes") == 0)
            sizes_mib = val;
        else if (strcmp(o, "--dirty") == 0)
            dirty_list = val;
        else if (strcmp(o, "--csv") == 0 && me == 0) {
            csv = fopen(val, "w");
            if (csv == NULL) {
                fprintf(stderr, "swin_bench: cannot write %s: %s\n", val,
                        strerror(errno));
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        } else if (strcmp(o, "--csv") != 0) {
            if (me == 0)
                fprintf(stderr, "swin_bench: unknown option '%s'\n", o);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (reps > 64)
        reps = 64;
    if (strcmp(what, "rma") == 0)
        bench_rma();
    else if (strcmp(what, "stream") == 0)
        bench_stream();
    else if (strcmp(what, "sync") == 0)
        bench_sync();
    else if (me == 0)
        fprintf(stderr, "usage: swin_bench rma|stream|sync [options] (see "
                        "storage-win/README.md)\n");
    if (csv)
        fclose(csv);
    MPI_Finalize();
    return 0;
}
