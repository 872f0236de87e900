/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_earth_hints: EARTH's hints (validation, defaults, environment,
 * MPI_File_get_info), ROMIO's hints as EARTH applies them (cb_nodes,
 * romio_cb_write), the calls handed to ROMIO, and error classes.
 * An MPI program: every rank runs the same cases (run with 2 ranks).
 */
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "earth.h"

static char path[512];
static int me, np;

static MPI_Info mkinfo(const char *k1, ...)
{
    MPI_Info info;
    va_list ap;
    MPI_Info_create(&info);
    va_start(ap, k1);
    for (const char *k = k1; k; k = va_arg(ap, const char *))
        MPI_Info_set(info, k, va_arg(ap, const char *));
    va_end(ap);
    return info;
}

static int open_with(MPI_Info info, int amode, MPI_File *fh)
{
    int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, info, fh);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return rc;
}

static void assert_info(MPI_File fh, const char *key, const char *want)
{
    MPI_Info info;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    assert_int_equal(MPI_File_get_info(fh, &info), MPI_SUCCESS);
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    MPI_Info_free(&info);
    if (!flag)
        fail_msg("key %s not reported", key);
    assert_string_equal(v, want);
}

static int err_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static void get_info_reports_earth_and_romio_hints(void **state)
{
    MPI_File fh;
    (void)state;
    assert_int_equal(
        open_with(mkinfo("earth_req", "4", "earth_steps", "3",
                         "earth_aggr_layout", "block", "striping_unit", "4096",
                         "cb_buffer_size", "65536", NULL),
                  MPI_MODE_RDWR | MPI_MODE_CREATE, &fh),
        MPI_SUCCESS);
    assert_info(fh, "earth_req", "4");
    assert_info(fh, "earth_steps", "3");
    assert_info(fh, "earth_aggr_layout", "block");
    assert_info(fh, "earth_enable", "enable");
    assert_info(fh, "striping_unit", "4096");
    assert_info(fh, "cb_buffer_size", "65536");
    MPI_File_close(&fh);
}

static void defaults_are_reported(void **state)
{
    MPI_File fh;
    (void)state;
    assert_int_equal(
        open_with(MPI_INFO_NULL, MPI_MODE_RDWR | MPI_MODE_CREATE, &fh),
        MPI_SUCCESS);
    assert_info(fh, "earth_req", "2");
    assert_info(fh, "earth_steps", "2");
    assert_info(fh, "earth_aggr_layout", "spread");
    MPI_File_close(&fh);
}

static void bad_open_hint(const char *key, const char *val, int cls)
{
    MPI_File fh = MPI_FILE_NULL;
    int rc =
        open_with(mkinfo(key, val, NULL), MPI_MODE_RDWR | MPI_MODE_CREATE, &fh);
    assert_int_equal(err_class(rc), cls);
    assert_true(fh == MPI_FILE_NULL);
    /* the message names the offending key */
    if (!strstr(earth_last_error(), key))
        fail_msg("message '%s' does not name %s", earth_last_error(), key);
}

static void malformed_values_are_rejected(void **state)
{
    (void)state;
    bad_open_hint("earth_req", "abc", MPI_ERR_INFO_VALUE);
    bad_open_hint("earth_req", "-1", MPI_ERR_INFO_VALUE);
    bad_open_hint("earth_req", "4x", MPI_ERR_INFO_VALUE);
    bad_open_hint("earth_steps", "0", MPI_ERR_INFO_VALUE);
    bad_open_hint("earth_steps", "1000", MPI_ERR_INFO_VALUE);
    bad_open_hint("earth_aggr_layout", "diagonal", MPI_ERR_INFO_VALUE);
    bad_open_hint("earth_enable", "maybe", MPI_ERR_INFO_VALUE);
    bad_open_hint("earth_fd_stripes", "0", MPI_ERR_INFO_VALUE);
}

static void unknown_earth_key_is_rejected(void **state)
{
    (void)state;
    bad_open_hint("earth_reqs", "2", MPI_ERR_INFO_KEY);
}

static void set_info_and_set_view_validate_and_apply(void **state)
{
    MPI_File fh;
    MPI_Info info;
    (void)state;
    assert_int_equal(open_with(mkinfo("earth_req", "2", NULL),
                               MPI_MODE_RDWR | MPI_MODE_CREATE, &fh),
                     MPI_SUCCESS);
    info = mkinfo("earth_req", "zero", NULL);
    assert_int_equal(err_class(MPI_File_set_info(fh, info)),
                     MPI_ERR_INFO_VALUE);
    MPI_Info_free(&info);
    assert_info(fh, "earth_req", "2"); /* unchanged */
    info = mkinfo("earth_req", "8", NULL);
    assert_int_equal(MPI_File_set_info(fh, info), MPI_SUCCESS);
    MPI_Info_free(&info);
    assert_info(fh, "earth_req", "8");
    info = mkinfo("earth_steps", "5", NULL);
    assert_int_equal(
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info),
        MPI_SUCCESS);
    MPI_Info_free(&info);
    assert_info(fh, "earth_steps", "5");
    info = mkinfo("earth_steps", "", NULL);
    assert_int_equal(
        err_class(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info)),
        MPI_ERR_INFO_VALUE);
    MPI_Info_free(&info);
    MPI_File_close(&fh);
}

static void environment_gives_defaults(void **state)
{
    MPI_File fh;
    (void)state;
    setenv("EARTH_REQ", "3", 1);
    assert_int_equal(
        open_with(MPI_INFO_NULL, MPI_MODE_RDWR | MPI_MODE_CREATE, &fh),
        MPI_SUCCESS);
    assert_info(fh, "earth_req", "3");
    MPI_File_close(&fh);
    /* a hint overrides the environment */
    assert_int_equal(open_with(mkinfo("earth_req", "1", NULL),
                               MPI_MODE_RDWR | MPI_MODE_CREATE, &fh),
                     MPI_SUCCESS);
    assert_info(fh, "earth_req", "1");
    MPI_File_close(&fh);
    setenv("EARTH_REQ", "lots", 1);
    fh = MPI_FILE_NULL;
    assert_int_equal(err_class(open_with(MPI_INFO_NULL,
                                         MPI_MODE_RDWR | MPI_MODE_CREATE, &fh)),
                     MPI_ERR_INFO_VALUE);
    unsetenv("EARTH_REQ");
}

static void cb_nodes_sets_the_aggregators(void **state)
{
    MPI_File fh;
    int ranks[8], n;
    (void)state;
    assert_int_equal(open_with(mkinfo("cb_config_list", "*:*", "cb_nodes", "1",
                                      "earth_aggr_layout", "block", NULL),
                               MPI_MODE_RDWR | MPI_MODE_CREATE, &fh),
                     MPI_SUCCESS);
    n = earth_file_aggregators(fh, ranks, 8);
    assert_int_equal(n, 1);
    assert_int_equal(ranks[0], 0);
    MPI_File_close(&fh);
    assert_int_equal(open_with(mkinfo("cb_config_list", "*:*", NULL),
                               MPI_MODE_RDWR | MPI_MODE_CREATE, &fh),
                     MPI_SUCCESS);
    assert_int_equal(earth_file_aggregators(fh, ranks, 8), np);
    MPI_File_close(&fh);
}

/* one collective write; returns the counters afterwards */
static struct earth_stats write_once(MPI_Info info)
{
    MPI_File fh;
    MPI_Status st;
    struct earth_stats s;
    char buf[64];
    memset(buf, me + 1, sizeof(buf));
    assert_int_equal(open_with(info, MPI_MODE_RDWR | MPI_MODE_CREATE, &fh),
                     MPI_SUCCESS);
    assert_int_equal(MPI_File_write_at_all(fh, me * 64, buf, 64, MPI_BYTE, &st),
                     MPI_SUCCESS);
    assert_int_equal(earth_file_stats(fh, &s), MPI_SUCCESS);
    MPI_File_close(&fh);
    return s;
}

static void disabled_calls_go_to_romio(void **state)
{
    struct earth_stats s;
    (void)state;
    s = write_once(MPI_INFO_NULL);
    assert_int_equal(s.coll_calls, 1);
    assert_int_equal(s.fallbacks, 0);
    s = write_once(mkinfo("earth_enable", "disable", NULL));
    assert_int_equal(s.coll_calls, 0);
    assert_int_equal(s.fallbacks, 1);
    s = write_once(mkinfo("romio_cb_write", "disable", NULL));
    assert_int_equal(s.fallbacks, 1);
}

static void throttle_bounds_requests_in_flight(void **state)
{
    struct earth_stats s;
    (void)state;
    /* 16-byte stripes dealt to 2 aggregators, a 64-byte buffer: 4
     * separate pieces per step */
    s = write_once(mkinfo("cb_config_list", "*:*", "striping_unit", "16",
                          "cb_buffer_size", "64", "earth_req", "1",
                          "earth_fd_stripes", "1", NULL));
    if (s.is_aggr) {
        assert_true(s.file_reqs > 0);
        assert_int_equal(s.max_inflight, 1);
        assert_true(s.max_reqs_step >= 2);
    }
    s = write_once(mkinfo("cb_config_list", "*:*", "striping_unit", "16",
                          "cb_buffer_size", "64", "earth_req", "unlimited",
                          "earth_fd_stripes", "1", NULL));
    if (s.is_aggr)
        assert_true(s.max_inflight >= 2);
}

static void error_classes_match_mpi(void **state)
{
    MPI_File fh;
    MPI_Status st;
    char buf[8] = {0};
    struct earth_stats s;
    (void)state;
    write_once(MPI_INFO_NULL); /* the file exists */
    assert_int_equal(open_with(MPI_INFO_NULL, MPI_MODE_RDONLY, &fh),
                     MPI_SUCCESS);
    assert_int_equal(err_class(MPI_File_write_all(fh, buf, 8, MPI_BYTE, &st)),
                     MPI_ERR_READ_ONLY);
    MPI_File_close(&fh);
    assert_int_equal(open_with(MPI_INFO_NULL, MPI_MODE_WRONLY, &fh),
                     MPI_SUCCESS);
    assert_int_equal(err_class(MPI_File_read_all(fh, buf, 8, MPI_BYTE, &st)),
                     MPI_ERR_ACCESS);
    MPI_File_close(&fh);
    /* a file EARTH does not know */
    assert_int_equal(PMPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY,
                                    MPI_INFO_NULL, &fh),
                     MPI_SUCCESS);
    assert_int_equal(earth_file_stats(fh, &s), MPI_ERR_FILE);
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(get_info_reports_earth_and_romio_hints),
        cmocka_unit_test(defaults_are_reported),
        cmocka_unit_test(malformed_values_are_rejected),
        cmocka_unit_test(unknown_earth_key_is_rejected),
        cmocka_unit_test(set_info_and_set_view_validate_and_apply),
        cmocka_unit_test(environment_gives_defaults),
        cmocka_unit_test(cb_nodes_sets_the_aggregators),
        cmocka_unit_test(disabled_calls_go_to_romio),
        cmocka_unit_test(throttle_bounds_requests_in_flight),
        cmocka_unit_test(error_classes_match_mpi),
    };
    long long id;
    int rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *dir = getenv("TMPDIR");
    id = getpid();
    MPI_Bcast(&id, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof(path), "%s/earth-hints-%lld",
             dir && *dir ? dir : "/tmp", id);
    unsetenv("EARTH_REQ");
    unsetenv("EARTH_STEPS");
    unsetenv("EARTH_AGGR_LAYOUT");
    unsetenv("EARTH_DISABLE");
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        unlink(path);
    MPI_Finalize();
    return rc ? 1 : 0;
}
