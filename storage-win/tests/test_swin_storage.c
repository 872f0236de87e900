/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_swin_storage: storage windows end to end.  Each case runs the MPI
 * helper (swin_mpi_helper SCENARIO DIR) on 4 ranks through mpi-run, then
 * reads the window files itself, byte by byte, with plain read(): what
 * local stores and remote puts left in the files, persistence across two
 * program runs, windows at offsets of one file, shared windows, unlink,
 * discard, memory and storage windows side by side, and the error cases.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "swin_pattern.h"
#include "th_util.h"

#define NP 4

static char *helper;
static const char *mpi_run;
static long ps;

struct fx {
    char dir[PATH_MAX];
};

static int rm_one(const char *p, const struct stat *sb, int flag,
                  struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    chmod(p, 0700);
    return remove(p);
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof(f->dir), "%s/swin-test.XXXXXX",
             tmp != NULL ? tmp : "/tmp");
    if (mkdtemp(f->dir) == NULL) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* Run the helper; fail the test with its output unless it passed. */
static void run_helper(const struct fx *f, const char *scenario,
                       const char *arg)
{
    char np[8];
    snprintf(np, sizeof(np), "%d", NP);
    char *argv[] = {
        (char *)mpi_run,  "-n",           np,          "-t", "90", helper,
        (char *)scenario, (char *)f->dir, (char *)arg, NULL};
    int status = -1;
    char *out = NULL, *err = NULL;
    int rc = th_run(argv, NULL, 120, &status, &out, &err);
    int ok = rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok)
        print_error("helper %s: rc=%d status=%#x\nstdout:\n%s\nstderr:\n%s\n",
                    scenario, rc, status, out ? out : "", err ? err : "");
    free(out);
    free(err);
    assert_true(ok);
}

/* Whole file into memory. */
static uint8_t *slurp(const struct fx *f, const char *name, size_t *len)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s/%s", f->dir, name);
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        print_error("cannot open %s: %s\n", p, strerror(errno));
    assert_true(fd >= 0);
    struct stat sb;
    assert_int_equal(fstat(fd, &sb), 0);
    uint8_t *b = malloc((size_t)sb.st_size + 1);
    assert_non_null(b);
    size_t got = 0;
    while (got < (size_t)sb.st_size) {
        ssize_t n = read(fd, b + got, (size_t)sb.st_size - got);
        assert_true(n > 0);
        got += (size_t)n;
    }
    close(fd);
    *len = got;
    return b;
}

static int exists(const struct fx *f, const char *name)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s/%s", f->dir, name);
    return access(p, F_OK) == 0;
}

/* Bytes [from, to) of b must be zero. */
static void expect_zero(const uint8_t *b, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (b[i] != 0) {
            print_error("byte %zu is %u, expected 0\n", i, b[i]);
            fail();
        }
}

static void expect_pat(const uint8_t *b, size_t at, int tag, int rank, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[at + i] != swin_pat(tag, rank, i)) {
            print_error("byte %zu: %u, expected %u (tag %d rank %d)\n", at + i,
                        b[at + i], swin_pat(tag, rank, i), tag, rank);
            fail();
        }
}

static void local_stores_reach_the_file_page_exactly(void **state)
{
    struct fx *f = *state;
    run_helper(f, "local", NULL);
    size_t len = 3 * (size_t)ps + 100;
    for (int r = 0; r < NP; r++) {
        char name[32];
        size_t n;
        snprintf(name, sizeof(name), "local.%d", r);
        uint8_t *b = slurp(f, name, &n);
        assert_true(n >= len);
        size_t hit = 2 * (size_t)ps + 5;
        expect_pat(b, 0, 1, r, hit);
        assert_int_equal(b[hit], 0xA5);
        for (size_t i = hit + 1; i < len; i++)
            assert_int_equal(b[i], swin_pat(1, r, i));
        expect_zero(b, len, n);
        free(b);
    }
}

static void remote_puts_contiguous_and_strided_reach_the_file(void **state)
{
    struct fx *f = *state;
    run_helper(f, "put", NULL);
    for (int t = 0; t < NP; t++) {
        int s = (t + NP - 1) % NP;
        char name[32];
        size_t n;
        snprintf(name, sizeof(name), "put.%d", t);
        uint8_t *b = slurp(f, name, &n);
        assert_int_equal(n, SWIN_T_PUT_PAGES * (size_t)ps);
        size_t d = SWIN_T_PUT_DISP(ps), l = SWIN_T_PUT_LEN(ps);
        expect_zero(b, 0, d);
        expect_pat(b, d, 2, s, l);
        size_t sd = SWIN_T_STRIDE_DISP(ps);
        expect_zero(b, d + l, sd);
        for (int k = 0; k < SWIN_T_STRIDE_COUNT; k++) {
            size_t at = sd + (size_t)k * SWIN_T_STRIDE_STEP;
            int v;
            memcpy(&v, b + at, sizeof(v));
            assert_int_equal(v, 1000 * (s + 1) + k);
            size_t next =
                k + 1 < SWIN_T_STRIDE_COUNT ? at + SWIN_T_STRIDE_STEP : n;
            expect_zero(b, at + sizeof(v), next);
        }
        free(b);
    }
}

static void second_run_reads_first_runs_data(void **state)
{
    struct fx *f = *state;
    size_t len = 2 * (size_t)ps + 300;
    run_helper(f, "persist", "1");
    for (int r = 0; r < NP; r++) {
        char name[32];
        size_t n;
        snprintf(name, sizeof(name), "persist.%d", r);
        uint8_t *b = slurp(f, name, &n);
        expect_pat(b, 0, 3, r, len);
        free(b);
    }
    /* Run 2 checks pattern 3 from inside (locally and by MPI_Get), then
     * leaves pattern 4. */
    run_helper(f, "persist", "2");
    for (int r = 0; r < NP; r++) {
        char name[32];
        size_t n;
        snprintf(name, sizeof(name), "persist.%d", r);
        uint8_t *b = slurp(f, name, &n);
        expect_pat(b, 0, 4, r, len);
        free(b);
    }
}

static void windows_at_offsets_of_one_file(void **state)
{
    struct fx *f = *state;
    run_helper(f, "sharedfile", NULL);
    size_t n;
    uint8_t *b = slurp(f, "shared.dat", &n);
    uint8_t *seen = calloc(n, 1);
    for (int r = 0; r < NP; r++) {
        size_t o1 = SWIN_T_SF_OFF(r, ps), l1 = SWIN_T_SF_LEN(ps);
        size_t o2 = SWIN_T_SF2_OFF(r);
        assert_true(o1 + l1 <= n && o2 + SWIN_T_SF2_LEN <= n);
        expect_pat(b, o1, 5, r, l1);
        expect_pat(b, o2, 6, r, SWIN_T_SF2_LEN);
        memset(seen + o1, 1, l1);
        memset(seen + o2, 1, SWIN_T_SF2_LEN);
    }
    for (size_t i = 0; i < n; i++)
        if (!seen[i] && b[i] != 0) {
            print_error("byte %zu outside every window is %u\n", i, b[i]);
            fail();
        }
    free(seen);
    free(b);
}

static void shared_window_segments_are_contiguous_in_the_file(void **state)
{
    struct fx *f = *state;
    run_helper(f, "shared", NULL);
    size_t n, at = SWIN_T_SHM_OFF;
    uint8_t *b = slurp(f, "shm.dat", &n);
    expect_zero(b, 0, SWIN_T_SHM_OFF);
    for (int r = 0; r < NP; r++) {
        size_t l = SWIN_T_SHM_LEN(r, ps);
        assert_true(at + l <= n);
        expect_pat(b, at, 7, r, l);
        at += l;
    }
    expect_zero(b, at, n);
    free(b);
}

static void unlink_removes_the_files(void **state)
{
    struct fx *f = *state;
    run_helper(f, "unlink", NULL);
    for (int r = 0; r < NP; r++) {
        char name[32];
        snprintf(name, sizeof(name), "unlink.%d", r);
        assert_false(exists(f, name));
    }
}

static void discard_skips_the_final_sync(void **state)
{
    struct fx *f = *state;
    /* The helper checks the flush counters; the kept window's data is in
     * its file. */
    run_helper(f, "discard", NULL);
    for (int r = 0; r < NP; r++) {
        char name[32];
        size_t n;
        snprintf(name, sizeof(name), "keep.%d", r);
        uint8_t *b = slurp(f, name, &n);
        assert_int_equal(n, 4 * (size_t)ps);
        assert_int_equal(b[0], 1);
        assert_int_equal(b[3 * ps], 2);
        free(b);
    }
}

static void memory_and_storage_windows_mix(void **state)
{
    struct fx *f = *state;
    run_helper(f, "mixed", NULL);
    for (int r = 0; r < NP; r++) {
        char name[32];
        size_t n;
        int v[8];
        snprintf(name, sizeof(name), "mixed.%d", r);
        uint8_t *b = slurp(f, name, &n);
        assert_true(n >= sizeof(v));
        memcpy(v, b, sizeof(v));
        assert_int_equal(v[3], 20 + (r + NP - 1) % NP);
        assert_int_equal(v[7], NP);
        free(b);
    }
}

static void rate_limit_counts_skips_and_force_flushes(void **state)
{
    struct fx *f = *state;
    run_helper(f, "ratelimit", NULL);
    for (int r = 0; r < NP; r++) {
        char name[32];
        size_t n;
        snprintf(name, sizeof(name), "rate.%d", r);
        uint8_t *b = slurp(f, name, &n);
        assert_int_equal(b[0], 1);
        assert_int_equal(b[ps], 2);
        free(b);
    }
}

static void bad_input_gives_error_classes_and_leaves_nothing(void **state)
{
    struct fx *f = *state;
    run_helper(f, "errors", NULL);
    for (int r = 0; r < NP; r++) {
        char name[32];
        size_t n;
        snprintf(name, sizeof(name), "small.%d", r);
        uint8_t *b = slurp(f, name, &n);
        assert_int_equal(n, 10); /* not extended */
        free(b);
        snprintf(name, sizeof(name), "bad.%d", r);
        assert_false(exists(f, name));
        snprintf(name, sizeof(name), "one.%d", r);
        assert_false(exists(f, name));
        snprintf(name, sizeof(name), "fine.%d", r);
        assert_true(exists(f, name));
    }
}

int main(void)
{
    mpi_run = getenv("MPI_RUN");
    if (mpi_run == NULL) {
        fprintf(stderr, "SKIP: MPI_RUN is not set (run through make check)\n");
        return TH_EXIT_SKIP;
    }
    helper = th_sibling_path("swin_mpi_helper");
    if (helper == NULL || access(helper, X_OK) != 0) {
        fprintf(stderr, "swin_mpi_helper not found next to the test\n");
        return TH_EXIT_HARD_ERROR;
    }
    ps = sysconf(_SC_PAGESIZE);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            local_stores_reach_the_file_page_exactly, setup, teardown),
        cmocka_unit_test_setup_teardown(
            remote_puts_contiguous_and_strided_reach_the_file, setup, teardown),
        cmocka_unit_test_setup_teardown(second_run_reads_first_runs_data, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(windows_at_offsets_of_one_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            shared_window_segments_are_contiguous_in_the_file, setup, teardown),
        cmocka_unit_test_setup_teardown(unlink_removes_the_files, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(discard_skips_the_final_sync, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(memory_and_storage_windows_mix, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            rate_limit_counts_skips_and_force_flushes, setup, teardown),
        cmocka_unit_test_setup_teardown(
            bad_input_gives_error_classes_and_leaves_nothing, setup, teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(helper);
    return rc;
}
