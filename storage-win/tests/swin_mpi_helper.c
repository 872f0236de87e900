/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swin_mpi_helper.c: MPI program driven by test_swin_storage.  Each
 * scenario allocates storage windows in a directory, stores and puts known
 * patterns, checks what it can see from inside (tracking counters, error
 * classes and messages), and leaves the files for the driver to read.
 *
 *   swin_mpi_helper SCENARIO DIR [ARG]
 *
 * Exit status 0 when every in-program check passed, 1 otherwise.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage_win.h"
#include "swin_pattern.h"

static int me, np;
static long ps;
static int failures;

#define CHECK(c)                                                               \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", me,         \
                    __FILE__, __LINE__, #c);                                   \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static MPI_Info storage_info(const char *file, long long off, const char *k,
                             const char *v)
{
    MPI_Info info;
    char buf[32];
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_type", "storage");
    MPI_Info_set(info, "storage_alloc_filename", file);
    if (off >= 0) {
        snprintf(buf, sizeof(buf), "%lld", off);
        MPI_Info_set(info, "storage_alloc_offset", buf);
    }
    if (k != NULL)
        MPI_Info_set(info, k, v);
    return info;
}

static MPI_Win alloc_storage(const char *file, long long off, MPI_Aint size,
                             const char *k, const char *v, void *base)
{
    MPI_Win win;
    MPI_Info info = storage_info(file, off, k, v);
    int rc = MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, base, &win);
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS);
    CHECK(swin_win_is_storage(win));
    return win;
}

static uint64_t last_pages(MPI_Win win)
{
    swin_stats_t st;
    CHECK(swin_win_get_stats(win, &st) == 0);
    return st.last_pages;
}

/* Page-exact counts hold with write tracking; the msync fallback writes
 * back whole windows and is only checked for correctness of the data. */
#define CHECK_PAGES(win, n)                                                    \
    CHECK(swin_track_mode() != SWIN_TRACK_UFFD || last_pages(win) == (n))

static void path_of(char *buf, size_t len, const char *dir, const char *name,
                    int rank)
{
    if (rank >= 0)
        snprintf(buf, len, "%s/%s.%d", dir, name, rank);
    else
        snprintf(buf, len, "%s/%s", dir, name);
}

/* Local stores, then page-exact durable syncs. */
static void sc_local(const char *dir)
{
    char f[4096];
    char *b;
    size_t len = 3 * (size_t)ps + 100;
    path_of(f, sizeof(f), dir, "local", me);
    MPI_Win win = alloc_storage(f, -1, (MPI_Aint)len, NULL, NULL, &b);
    MPI_Win_lock_all(0, win);
    for (size_t i = 0; i < len; i++)
        b[i] = (char)swin_pat(1, me, i);
    MPI_Win_sync(win);
    CHECK_PAGES(win, SWIN_T_LOCAL_PAGES);
    b[2 * ps + 5] = (char)0xA5;
    MPI_Win_sync(win);
    CHECK_PAGES(win, 1);
    MPI_Win_sync(win);
    CHECK_PAGES(win, 0);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

/* Remote contiguous and strided puts into the next rank's window. */
static void sc_put(const char *dir)
{
    char f[4096];
    char *b;
    size_t len = SWIN_T_PUT_PAGES * (size_t)ps;
    path_of(f, sizeof(f), dir, "put", me);
    MPI_Win win = alloc_storage(f, 0, (MPI_Aint)len, NULL, NULL, &b);
    int to = (me + 1) % np;
    size_t plen = SWIN_T_PUT_LEN(ps);
    char *src = malloc(plen);
    for (size_t i = 0; i < plen; i++)
        src[i] = (char)swin_pat(2, me, i);
    int ints[SWIN_T_STRIDE_COUNT];
    for (int i = 0; i < SWIN_T_STRIDE_COUNT; i++)
        ints[i] = 1000 * (me + 1) + i;
    MPI_Datatype vec;
    MPI_Type_vector(SWIN_T_STRIDE_COUNT, 1,
                    SWIN_T_STRIDE_STEP / (int)sizeof(int), MPI_INT, &vec);
    MPI_Type_commit(&vec);

    MPI_Win_lock_all(0, win);
    MPI_Put(src, (int)plen, MPI_BYTE, to, SWIN_T_PUT_DISP(ps), (int)plen,
            MPI_BYTE, win);
    MPI_Put(ints, SWIN_T_STRIDE_COUNT, MPI_INT, to, SWIN_T_STRIDE_DISP(ps), 1,
            vec, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    MPI_Win_sync(win);
    /* Pages 5, 6, 7 (contiguous put) and 10, 11 (strided: 8 KiB span). */
    size_t spages = ((size_t)(SWIN_T_STRIDE_COUNT - 1) * SWIN_T_STRIDE_STEP +
                     sizeof(int) + (size_t)ps - 1) /
                    (size_t)ps;
    CHECK_PAGES(win, 3 + spages);
    MPI_Win_sync(win);
    CHECK_PAGES(win, 0);
    MPI_Win_unlock_all(win);
    MPI_Type_free(&vec);
    free(src);
    MPI_Win_free(&win);
}

/* Two program runs: the second finds the first one's data. */
static void sc_persist(const char *dir, int run)
{
    char f[4096];
    char *b;
    size_t len = 2 * (size_t)ps + 300;
    path_of(f, sizeof(f), dir, "persist", me);
    MPI_Win win = alloc_storage(f, -1, (MPI_Aint)len, NULL, NULL, &b);
    if (run == 1) {
        for (size_t i = 0; i < len; i++)
            b[i] = (char)swin_pat(3, me, i);
    } else {
        size_t bad = 0;
        for (size_t i = 0; i < len; i++)
            bad += (uint8_t)b[i] != swin_pat(3, me, i);
        CHECK(bad == 0);
        /* The restored data is also what the other ranks read remotely. */
        int from = (me + 1) % np;
        char got[64];
        MPI_Win_lock(MPI_LOCK_SHARED, from, 0, win);
        MPI_Get(got, 64, MPI_BYTE, from, 100, 64, MPI_BYTE, win);
        MPI_Win_unlock(from, win);
        for (int i = 0; i < 64; i++)
            CHECK((uint8_t)got[i] == swin_pat(3, from, 100 + (size_t)i));
        MPI_Barrier(MPI_COMM_WORLD); /* everyone has read before we write */
        for (size_t i = 0; i < len; i++)
            b[i] = (char)swin_pat(4, me, i);
    }
    MPI_Win_free(&win);
}

/* Several windows in one file at distinct offsets. */
static void sc_sharedfile(const char *dir)
{
    char f[4096];
    char *b1, *b2;
    path_of(f, sizeof(f), dir, "shared.dat", -1);
    MPI_Win w1 = alloc_storage(f, SWIN_T_SF_OFF(me, ps), SWIN_T_SF_LEN(ps),
                               NULL, NULL, &b1);
    MPI_Win w2 =
        alloc_storage(f, SWIN_T_SF2_OFF(me), SWIN_T_SF2_LEN, NULL, NULL, &b2);
    for (size_t i = 0; i < (size_t)SWIN_T_SF_LEN(ps); i++)
        b1[i] = (char)swin_pat(5, me, i);
    for (size_t i = 0; i < SWIN_T_SF2_LEN; i++)
        b2[i] = (char)swin_pat(6, me, i);
    MPI_Win_lock_all(0, w1);
    MPI_Win_sync(w1);
    CHECK_PAGES(w1, 2);
    MPI_Win_unlock_all(w1);
    MPI_Win_lock_all(0, w2);
    MPI_Win_sync(w2);
    CHECK_PAGES(w2, 1);
    MPI_Win_unlock_all(w2);
    MPI_Win_free(&w2);
    MPI_Win_free(&w1);
}

static void sc_unlink(const char *dir)
{
    char f[4096];
    char *b;
    path_of(f, sizeof(f), dir, "unlink", me);
    MPI_Win win =
        alloc_storage(f, -1, 1000, "storage_alloc_unlink", "true", &b);
    CHECK(access(f, F_OK) == 0);
    b[0] = 1;
    MPI_Win_free(&win);
    CHECK(access(f, F_OK) != 0 && errno == ENOENT);
}

static void sc_discard(const char *dir)
{
    char f[4096];
    char *b;
    swin_stats_t st0, st1, st2;
    path_of(f, sizeof(f), dir, "discard", me);
    CHECK(swin_get_process_stats(&st0) == 0);
    MPI_Win win = alloc_storage(f, -1, 4 * ps, "swin_discard", "true", &b);
    memset(b, 7, 4 * (size_t)ps);
    MPI_Win_free(&win);
    CHECK(swin_get_process_stats(&st1) == 0);
    CHECK(st1.pages_flushed == st0.pages_flushed);
    path_of(f, sizeof(f), dir, "keep", me);
    win = alloc_storage(f, -1, 4 * ps, "storage_alloc_discard", "false", &b);
    b[0] = 1;
    b[3 * ps] = 2;
    MPI_Win_free(&win);
    CHECK(swin_get_process_stats(&st2) == 0);
    CHECK(swin_track_mode() != SWIN_TRACK_UFFD ||
          st2.pages_flushed == st1.pages_flushed + 2);
}

/* Memory and storage windows side by side, RMA and flavour on each. */
static void sc_mixed(const char *dir)
{
    char f[4096];
    MPI_Win w[3];
    int *b[3];
    MPI_Info mem;
    MPI_Info_create(&mem);
    MPI_Info_set(mem, "alloc_type", "memory");
    CHECK(MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &b[0], &w[0]) == MPI_SUCCESS);
    CHECK(MPI_Win_allocate(64 * sizeof(int), sizeof(int), mem, MPI_COMM_WORLD,
                           &b[1], &w[1]) == MPI_SUCCESS);
    MPI_Info_free(&mem);
    path_of(f, sizeof(f), dir, "mixed", me);
    MPI_Info sto = storage_info(f, -1, NULL, NULL);
    CHECK(MPI_Win_allocate(64 * sizeof(int), sizeof(int), sto, MPI_COMM_WORLD,
                           &b[2], &w[2]) == MPI_SUCCESS);
    MPI_Info_free(&sto);
    CHECK(!swin_win_is_storage(w[0]) && !swin_win_is_storage(w[1]) &&
          swin_win_is_storage(w[2]));
    for (int k = 0; k < 3; k++) {
        int *flavor, flag;
        MPI_Win_get_attr(w[k], MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
        CHECK(flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE);
        for (int i = 0; i < 64; i++)
            b[k][i] = 0;
        MPI_Win_fence(0, w[k]);
        int to = (me + 1) % np, val = 10 * k + me, one = 1;
        MPI_Put(&val, 1, MPI_INT, to, 3, 1, MPI_INT, w[k]);
        for (int r = 0; r < np; r++)
            MPI_Accumulate(&one, 1, MPI_INT, r, 7, 1, MPI_INT, MPI_SUM, w[k]);
        MPI_Win_fence(0, w[k]);
        int from = (me + np - 1) % np;
        CHECK(b[k][3] == 10 * k + from);
        CHECK(b[k][7] == np);
        int got = -1;
        MPI_Win_lock(MPI_LOCK_SHARED, from, 0, w[k]);
        MPI_Get(&got, 1, MPI_INT, from, 7, 1, MPI_INT, w[k]);
        MPI_Win_flush(from, w[k]);
        MPI_Win_unlock(from, w[k]);
        CHECK(got == np);
    }
    MPI_Win_lock_all(0, w[2]);
    MPI_Win_sync(w[2]);
    CHECK_PAGES(w[2], 1);
    MPI_Win_unlock_all(w[2]);
    for (int k = 0; k < 3; k++)
        MPI_Win_free(&w[k]);
}

/* MPI_Win_allocate_shared on a storage file: direct load/store between
 * ranks through MPI_Win_shared_query. */
static void sc_shared(const char *dir)
{
    char f[4096];
    char *b;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &node);
    int nme, nnp;
    MPI_Comm_rank(node, &nme);
    MPI_Comm_size(node, &nnp);
    path_of(f, sizeof(f), dir, "shm.dat", -1);
    MPI_Info info = storage_info(f, SWIN_T_SHM_OFF, NULL, NULL);
    MPI_Win win;
    size_t len = SWIN_T_SHM_LEN(nme, ps);
    CHECK(MPI_Win_allocate_shared((MPI_Aint)len, 1, info, node, &b, &win) ==
          MPI_SUCCESS);
    MPI_Info_free(&info);
    int *flavor, flag;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED);
    MPI_Win_lock_all(0, win);
    for (size_t i = 0; i < len; i++)
        b[i] = (char)swin_pat(7, nme, i);
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    char *prev = NULL;
    for (int r = 0; r < nnp; r++) {
        MPI_Aint sz;
        int du;
        char *p;
        MPI_Win_shared_query(win, r, &sz, &du, &p);
        CHECK(sz == (MPI_Aint)SWIN_T_SHM_LEN(r, ps) && du == 1);
        size_t bad = 0;
        for (size_t i = 0; i < (size_t)sz; i++)
            bad += (uint8_t)p[i] != swin_pat(7, r, i);
        CHECK(bad == 0);
        if (r > 0) /* contiguous segments in rank order */
            CHECK(p == prev + SWIN_T_SHM_LEN(r - 1, ps));
        prev = p;
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* Rate limit: an interval far longer than the test turns syncs into
 * counted skips; swin_win_sync_durable still forces one. */
static void sc_ratelimit(const char *dir)
{
    char f[4096];
    char *b;
    swin_stats_t st;
    path_of(f, sizeof(f), dir, "rate", me);
    MPI_Win win =
        alloc_storage(f, -1, 2 * ps, "storage_sync_interval_ms", "3600000", &b);
    MPI_Win_lock_all(0, win);
    b[0] = 1;
    MPI_Win_sync(win);
    b[ps] = 2;
    MPI_Win_sync(win);
    MPI_Win_sync(win);
    MPI_Win_unlock_all(win);
    CHECK(swin_win_get_stats(win, &st) == 0);
    CHECK(st.durable_syncs == 1 && st.skipped_syncs == 2);
    CHECK(swin_track_mode() != SWIN_TRACK_UFFD || st.pages_flushed == 1);
    CHECK(swin_win_sync_durable(win) == 0);
    CHECK_PAGES(win, 1);
    MPI_Win_free(&win);
}

/* One failing allocation: class, message, no window, no leftovers. */
static void expect_error(MPI_Info info, int want_class, const char *want_msg)
{
    MPI_Win win = MPI_WIN_NULL;
    void *b = NULL;
    int rc = MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &b, &win);
    int cls = -1, len;
    char msg[MPI_MAX_ERROR_STRING] = "";
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
    }
    if (cls != want_class || strstr(msg, want_msg) == NULL)
        fprintf(stderr, "[rank %d] got class %d '%s', want %d '%s'\n", me, cls,
                msg, want_class, want_msg);
    CHECK(rc != MPI_SUCCESS);
    CHECK(cls == want_class);
    CHECK(strstr(msg, want_msg) != NULL);
    CHECK(win == MPI_WIN_NULL);
}

static void sc_errors(const char *dir)
{
    char f[4096], d[2048];
    MPI_Info info;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* Unwritable: sysfs refuses new files even to root. */
    const char *ro = "/sys/swin_unwritable_file";
    if (geteuid() != 0) {
        path_of(d, sizeof(d), dir, "ro", me);
        mkdir(d, 0555);
        path_of(f, sizeof(f), d, "f", -1);
        ro = f;
    }
    if (access("/sys", F_OK) == 0 || geteuid() != 0) {
        info = storage_info(ro, -1, NULL, NULL);
        expect_error(info, MPI_ERR_ACCESS, "cannot open");
        MPI_Info_free(&info);
    }
    path_of(f, sizeof(f), dir, "no/such/dir", me);
    info = storage_info(f, -1, NULL, NULL);
    expect_error(info, MPI_ERR_NO_SUCH_FILE, "cannot open");
    MPI_Info_free(&info);

    /* An explicit offset past the end of an existing file. */
    path_of(f, sizeof(f), dir, "small", me);
    int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, "0123456789", 10) == 10);
    close(fd);
    info = storage_info(f, 8192, NULL, NULL);
    expect_error(info, MPI_ERR_ARG, "beyond the end");
    MPI_Info_free(&info);
    struct stat sb;
    CHECK(stat(f, &sb) == 0 && sb.st_size == 10); /* untouched */

    /* Malformed values and a missing key. */
    static const char *const bad[][2] = {
        {"storage_alloc_offset", "12abc"},    {"swin_offset", "-1"},
        {"storage_alloc_unlink", "maybe"},    {"swin_discard", "ja"},
        {"storage_sync_interval_ms", "soon"}, {"striping_factor", "0"},
    };
    path_of(f, sizeof(f), dir, "bad", me);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        info = storage_info(f, -1, bad[i][0], bad[i][1]);
        expect_error(info, MPI_ERR_INFO_VALUE, bad[i][0]);
        MPI_Info_free(&info);
    }
    CHECK(access(f, F_OK) != 0); /* no file left behind */
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_type", "disk");
    expect_error(info, MPI_ERR_INFO_VALUE, "alloc_type");
    MPI_Info_set(info, "alloc_type", "storage");
    expect_error(info, MPI_ERR_INFO_NOKEY, "storage_alloc_filename");
    MPI_Info_free(&info);

    /* Only rank 1 fails: every rank gets an error, nobody hangs, and the
     * files the others created are removed again. */
    if (np > 1) {
        if (me == 1)
            path_of(f, sizeof(f), dir, "missing/one", me);
        else
            path_of(f, sizeof(f), dir, "one", me);
        info = storage_info(f, -1, NULL, NULL);
        expect_error(info,
                     me == 1 ? MPI_ERR_NO_SUCH_FILE : MPI_ERR_NO_SUCH_FILE,
                     me == 1 ? "cannot open" : "another rank");
        MPI_Info_free(&info);
        CHECK(access(f, F_OK) != 0);
    }

    /* Shared windows check their input the same way. */
    info = storage_info(f, -1, "swin_unlink", "perhaps");
    MPI_Win win = MPI_WIN_NULL;
    void *b;
    int rc = MPI_Win_allocate_shared(64, 1, info, MPI_COMM_SELF, &b, &win);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_INFO_VALUE &&
          win == MPI_WIN_NULL);
    MPI_Info_free(&info);

    /* After all that, a valid allocation works. */
    path_of(f, sizeof(f), dir, "fine", me);
    char *p;
    win = alloc_storage(f, -1, 100, NULL, NULL, &p);
    p[0] = 42;
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    ps = sysconf(_SC_PAGESIZE);
    if (argc < 3) {
        if (me == 0)
            fprintf(stderr, "usage: swin_mpi_helper SCENARIO DIR [RUN]\n");
        MPI_Finalize();
        return 2;
    }
    const char *sc = argv[1], *dir = argv[2];
    if (strcmp(sc, "local") == 0)
        sc_local(dir);
    else if (strcmp(sc, "put") == 0)
        sc_put(dir);
    else if (strcmp(sc, "persist") == 0)
        sc_persist(dir, argc > 3 ? atoi(argv[3]) : 1);
    else if (strcmp(sc, "sharedfile") == 0)
        sc_sharedfile(dir);
    else if (strcmp(sc, "unlink") == 0)
        sc_unlink(dir);
    else if (strcmp(sc, "discard") == 0)
        sc_discard(dir);
    else if (strcmp(sc, "mixed") == 0)
        sc_mixed(dir);
    else if (strcmp(sc, "shared") == 0)
        sc_shared(dir);
    else if (strcmp(sc, "ratelimit") == 0)
        sc_ratelimit(dir);
    else if (strcmp(sc, "errors") == 0)
        sc_errors(dir);
    else {
        if (me == 0)
            fprintf(stderr, "swin_mpi_helper: unknown scenario '%s'\n", sc);
        failures++;
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s: %s (tracking %s)\n", sc, all == 0 ? "OK" : "FAILED",
               swin_track_mode() == SWIN_TRACK_UFFD    ? "uffd"
               : swin_track_mode() == SWIN_TRACK_MSYNC ? "msync"
                                                       : "none");
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
