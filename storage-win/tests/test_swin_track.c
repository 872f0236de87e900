/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_swin_track: the file mapping and dirty tracking under the storage
 * windows, without MPI: which pages a durable sync writes back (local
 * stores, stores by another process through process_vm_writev as an
 * intra-node RMA transport does), offsets inside a file, files that never
 * shrink, the msync fallback, and the value parsers.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "swin_internal.h"
#include "th_util.h"

static long ps;

struct fx {
    char path[PATH_MAX];
    struct swin_map m;
    struct swin_cfg cfg;
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    const char *tmp = getenv("TMPDIR");
    snprintf(f->path, sizeof(f->path), "%s/swin-track.XXXXXX",
             tmp != NULL ? tmp : "/tmp");
    int fd = mkstemp(f->path);
    if (fd < 0) {
        free(f);
        return -1;
    }
    close(fd);
    f->cfg.storage = 1;
    f->cfg.filename = f->path;
    f->m.fd = -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    swin_map_close(&f->m, 0);
    unlink(f->path);
    free(f);
    return 0;
}

static void map_or_fail(struct fx *f, long long off, size_t len)
{
    struct swin_err e = {0, "", 0, 0, 0};
    f->cfg.offset = off;
    int rc = swin_map_open(&f->m, &f->cfg, &e);
    if (rc == 0)
        rc = swin_map_map(&f->m, &f->cfg, len, &e);
    if (rc != 0)
        print_error("map: %s\n", e.msg);
    assert_int_equal(rc, 0);
}

static char *base(struct fx *f)
{
    return (char *)f->m.addr + f->m.delta;
}

static void sync_ok(struct fx *f)
{
    assert_int_equal(swin_map_sync(&f->m), 0);
}

static void sync_writes_back_exactly_the_written_pages(void **state)
{
    struct fx *f = *state;
    map_or_fail(f, 0, 64 * (size_t)ps);
    char *b = base(f);
    sync_ok(f);
    assert_int_equal(f->m.st.last_pages, 0);
    /* 5 scattered pages, two of them adjacent. */
    static const int pages[] = {0, 7, 8, 31, 63};
    for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
        b[(size_t)pages[i] * (size_t)ps + 11] = (char)(i + 1);
    sync_ok(f);
    assert_int_equal(f->m.st.last_pages, 5);
    assert_int_equal(f->m.st.ranges_flushed, 4);
    sync_ok(f);
    assert_int_equal(f->m.st.last_pages, 0);
    /* The bytes are in the file, read independently. */
    int fd = open(f->path, O_RDONLY);
    assert_true(fd >= 0);
    for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
        char c = 0;
        assert_int_equal(pread(fd, &c, 1, (off_t)pages[i] * ps + 11), 1);
        assert_int_equal(c, (char)(i + 1));
    }
    close(fd);
}

static void stores_by_another_process_are_tracked(void **state)
{
    struct fx *f = *state;
    map_or_fail(f, 0, 16 * (size_t)ps);
    char *b = base(f);
    sync_ok(f);
    /* Let the child write into us like an intra-node RMA transport
     * (process_vm_writev, i.e. the kernel's GUP path). */
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    pid_t parent = getpid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char data[100];
        memset(data, 0x5A, sizeof(data));
        struct iovec l = {data, sizeof(data)};
        struct iovec r = {b + 3 * ps - 50, sizeof(data)}; /* pages 2 and 3 */
        _exit(process_vm_writev(parent, &l, 1, &r, 1, 0) == 100 ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    /* Permitted here (main checked): a refusal now is a failure. */
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(b[3 * ps - 50], 0x5A);
    sync_ok(f);
    assert_int_equal(f->m.st.last_pages, 2);
}

static void unaligned_offset_maps_the_right_bytes(void **state)
{
    struct fx *f = *state;
    map_or_fail(f, 3 * ps + 123, 200);
    char *b = base(f);
    memset(b, 'q', 200);
    sync_ok(f);
    assert_int_equal(f->m.st.last_pages, 1);
    struct stat sb;
    assert_int_equal(stat(f->path, &sb), 0);
    assert_true(sb.st_size >= 3 * ps + 323);
    int fd = open(f->path, O_RDONLY);
    char got[202];
    assert_int_equal(pread(fd, got, 202, 3 * ps + 122), 202);
    close(fd);
    assert_int_equal(got[0], 0);
    assert_int_equal(got[1], 'q');
    assert_int_equal(got[200], 'q');
    assert_int_equal(got[201], 0);
}

static void a_second_window_never_shrinks_the_file(void **state)
{
    struct fx *f = *state;
    map_or_fail(f, 0, 10 * (size_t)ps);
    struct swin_map m2;
    struct swin_err e = {0, "", 0, 0, 0};
    struct swin_cfg c2 = f->cfg;
    c2.offset = ps;
    c2.offset_given = 1;
    assert_int_equal(swin_map_open(&m2, &c2, &e), 0);
    assert_int_equal(swin_map_map(&m2, &c2, 100, &e), 0);
    struct stat sb;
    assert_int_equal(stat(f->path, &sb), 0);
    assert_int_equal(sb.st_size, 10 * ps);
    /* Both mappings see the same file bytes. */
    ((char *)m2.addr + m2.delta)[5] = 'z';
    assert_int_equal(base(f)[ps + 5], 'z');
    swin_map_close(&m2, 0);
}

static void offset_beyond_an_existing_file_is_refused(void **state)
{
    struct fx *f = *state;
    int fd = open(f->path, O_WRONLY);
    assert_int_equal(write(fd, "abc", 3), 3);
    close(fd);
    struct swin_err e = {0, "", 0, 0, 0};
    f->cfg.offset = 2 * ps;
    f->cfg.offset_given = 1;
    assert_int_not_equal(swin_map_open(&f->m, &f->cfg, &e), 0);
    assert_int_equal(e.mpi_class, MPI_ERR_ARG);
    assert_non_null(strstr(e.msg, "beyond the end"));
}

static void non_regular_and_missing_paths_are_refused(void **state)
{
    struct fx *f = *state;
    struct swin_err e = {0, "", 0, 0, 0};
    struct swin_cfg c = f->cfg;
    c.filename = "/dev/null";
    assert_int_not_equal(swin_map_open(&f->m, &c, &e), 0);
    assert_int_equal(e.mpi_class, MPI_ERR_BAD_FILE);
    swin_map_close(&f->m, 0);
    c.filename = "/nonexistent-dir-swin/x";
    assert_int_not_equal(swin_map_open(&f->m, &c, &e), 0);
    assert_int_equal(e.mpi_class, MPI_ERR_NO_SUCH_FILE);
    assert_non_null(strstr(e.msg, "/nonexistent-dir-swin/x"));
}

static void msync_fallback_writes_the_whole_window(void **state)
{
    struct fx *f = *state;
    int saved = swin_track_mode_used;
    swin_track_mode_used = SWIN_TRACK_MSYNC;
    map_or_fail(f, 0, 8 * (size_t)ps);
    swin_track_mode_used = saved;
    assert_false(f->m.tracked);
    base(f)[0] = 1;
    sync_ok(f);
    assert_int_equal(f->m.st.last_pages, 8);
}

static void value_parsers_reject_malformed_input(void **state)
{
    (void)state;
    int b;
    long long v;
    assert_int_equal(swin_parse_bool("TRUE", &b), 0);
    assert_int_equal(b, 1);
    assert_int_equal(swin_parse_bool("false", &b), 0);
    assert_int_equal(b, 0);
    assert_int_not_equal(swin_parse_bool("maybe", &b), 0);
    assert_int_not_equal(swin_parse_bool("", &b), 0);
    assert_int_equal(swin_parse_ll("4096", 0, &v), 0);
    assert_int_equal(v, 4096);
    assert_int_not_equal(swin_parse_ll("12abc", 0, &v), 0);
    assert_int_not_equal(swin_parse_ll("-1", 0, &v), 0);
    assert_int_not_equal(swin_parse_ll("", 0, &v), 0);
    assert_int_not_equal(swin_parse_ll("99999999999999999999999", 0, &v), 0);
}

int main(void)
{
    ps = sysconf(_SC_PAGESIZE);
    if (swin_track_init() != 0) {
        fprintf(stderr, "SWIN_TRACK has a bad value\n");
        return TH_EXIT_HARD_ERROR;
    }
    /*
     * Three entries of make check (Makefile.mk): the cases every machine
     * runs, the page-exact ones (userfaultfd), and stores by another
     * process (userfaultfd and cross memory attach).  An entry whose
     * kernel feature is missing skips as a whole.
     */
    const char *group = getenv("SWIN_TRACK_GROUP");
    if (group == NULL)
        group = "";
    const struct CMUnitTest uffd_tests[] = {
        cmocka_unit_test_setup_teardown(
            sync_writes_back_exactly_the_written_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(unaligned_offset_maps_the_right_bytes,
                                        setup, teardown),
    };
    const struct CMUnitTest cma_tests[] = {
        cmocka_unit_test_setup_teardown(stores_by_another_process_are_tracked,
                                        setup, teardown),
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_second_window_never_shrinks_the_file,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            offset_beyond_an_existing_file_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(
            non_regular_and_missing_paths_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(msync_fallback_writes_the_whole_window,
                                        setup, teardown),
        cmocka_unit_test(value_parsers_reject_malformed_input),
    };
    if (*group == '\0')
        return cmocka_run_group_tests(tests, NULL, NULL);
    if (strcmp(group, "uffd") != 0 && strcmp(group, "cma") != 0) {
        fprintf(stderr, "SWIN_TRACK_GROUP must be empty, uffd or cma\n");
        return TH_EXIT_HARD_ERROR;
    }
    if (swin_track_mode_used != SWIN_TRACK_UFFD) {
        printf("SKIP: userfaultfd write tracking unavailable here (kernel "
               "or vm.unprivileged_userfaultfd)\n");
        return TH_EXIT_SKIP;
    }
    if (strcmp(group, "uffd") == 0)
        return cmocka_run_group_tests(uffd_tests, NULL, NULL);
    int e = th_cma_refused(1);
    if (e != 0) {
        printf("SKIP: process_vm_writev into another process refused here "
               "(%s)\n",
               strerror(e));
        return TH_EXIT_SKIP;
    }
    return cmocka_run_group_tests(cma_tests, NULL, NULL);
}
