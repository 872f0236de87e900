/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pvas_log.c: the PVAS_LOG parser, the deprecated aliases, the order
 * in which they count, the line format, and one write(2) per line.
 * write is wrapped (-Wl,--wrap=write): what the library writes to stderr
 * is captured here, with the number of calls.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvas_log.h"

ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);

static char got[8192];
static size_t got_len;
static int got_writes;

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
    if (fd != STDERR_FILENO)
        return __real_write(fd, buf, n);
    got_writes++;
    if (got_len + n < sizeof got) {
        memcpy(got + got_len, buf, n);
        got_len += n;
        got[got_len] = '\0';
    }
    return (ssize_t)n;
}

static const char *const vars[] = {"PVAS_LOG",      "PIP_DEBUG", "ULP_DEBUG",
                                   "DLG_DEBUG",     "MPIDELEG_DEBUG",
                                   "FTA_LOG",       "EARTH_LOG",
                                   "SWIN_LOG_LEVEL"};

static int clean_env(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    pvas_log_reset();
    pvas_log_set_rank(-1);
    got_len = 0;
    got[0] = '\0';
    got_writes = 0;
    return 0;
}

static void parse_good(void **state)
{
    int lv[PVAS_LOG_NCOMP], all;
    char err[256] = "";
    (void)state;
    assert_int_equal(pvas_log_parse("all:error,earth:info,pip:3,swin:off", lv,
                                    &all, err, sizeof err),
                     0);
    assert_int_equal(all, PVAS_LOG_ERROR);
    assert_int_equal(lv[PVAS_LOG_EARTH], PVAS_LOG_INFO);
    assert_int_equal(lv[PVAS_LOG_PIP], PVAS_LOG_DEBUG);
    assert_int_equal(lv[PVAS_LOG_SWIN], 0);
    assert_int_equal(lv[PVAS_LOG_ULP], -1);
    /* every component name is accepted, the last setting wins */
    for (int c = 0; c < PVAS_LOG_NCOMP; c++) {
        char spec[64];
        snprintf(spec, sizeof spec, "%s:debug,%s:info", pvas_log_name(c),
                 pvas_log_name(c));
        assert_int_equal(pvas_log_parse(spec, lv, &all, err, sizeof err), 0);
        assert_int_equal(lv[c], PVAS_LOG_INFO);
        assert_int_equal(all, -1);
    }
    /* empty: nothing set */
    assert_int_equal(pvas_log_parse("", lv, &all, err, sizeof err), 0);
    assert_int_equal(all, -1);
    assert_int_equal(lv[PVAS_LOG_DELEG], -1);
}

static void parse_bad(void **state)
{
    static const char *const bad[] = {
        "earth",      "earth:",    "earth:loud", "bogus:info",
        "all:info,",  ",all:info", "all:4",      "EARTH:info",
        "earth:info:", "pip:debug,ulp", ":info",  "all:-1"};
    int lv[PVAS_LOG_NCOMP], all;
    char err[256];
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        int rc = pvas_log_parse(bad[i], lv, &all, err, sizeof err);
        if (rc != -EINVAL)
            fail_msg("'%s' accepted", bad[i]);
        /* one line that names the variable and the value */
        assert_non_null(strstr(err, "PVAS_LOG='"));
        assert_non_null(strstr(err, bad[i]));
        assert_null(strchr(err, '\n'));
    }
}

static void aliases(void **state)
{
    (void)state;
    /* switches that any value but 0 turned on */
    assert_int_equal(pvas_log_alias(PVAS_LOG_PIP, "1"), PVAS_LOG_DEBUG);
    assert_int_equal(pvas_log_alias(PVAS_LOG_ULP, "yes"), PVAS_LOG_DEBUG);
    assert_int_equal(pvas_log_alias(PVAS_LOG_DELEG, "0"), 0);
    assert_int_equal(pvas_log_alias(PVAS_LOG_PIP, ""), -1);
    assert_int_equal(pvas_log_alias(PVAS_LOG_PIP, NULL), -1);
    /* 0 or 1 */
    assert_int_equal(pvas_log_alias(PVAS_LOG_MPIDELEG, "1"), PVAS_LOG_DEBUG);
    assert_int_equal(pvas_log_alias(PVAS_LOG_FTAGREE, "1"), PVAS_LOG_DEBUG);
    assert_int_equal(pvas_log_alias(PVAS_LOG_FTAGREE, "yes"), 0);
    /* levels 0..3 */
    for (int l = 0; l <= 3; l++) {
        char v[2] = {(char)('0' + l), 0};
        assert_int_equal(pvas_log_alias(PVAS_LOG_EARTH, v), l);
        assert_int_equal(pvas_log_alias(PVAS_LOG_SWIN, v), l);
    }
    assert_int_equal(pvas_log_alias(PVAS_LOG_EARTH, "loud"), 0);
    assert_int_equal(pvas_log_alias(PVAS_LOG_SWIN, "4"), 0);
    assert_string_equal(pvas_log_alias_name(PVAS_LOG_SWIN), "SWIN_LOG_LEVEL");
}

static void precedence(void **state)
{
    (void)state;
    /* nothing set: off */
    for (int c = 0; c < PVAS_LOG_NCOMP; c++)
        assert_int_equal(pvas_log_level(c), 0);
    /* an alias alone */
    setenv("EARTH_LOG", "2", 1);
    pvas_log_reset();
    assert_int_equal(pvas_log_level(PVAS_LOG_EARTH), 2);
    assert_int_equal(pvas_log_level(PVAS_LOG_SWIN), 0);
    /* all: for every component without a say of its own */
    setenv("PVAS_LOG", "all:error", 1);
    pvas_log_reset();
    assert_int_equal(pvas_log_level(PVAS_LOG_EARTH), 2);
    assert_int_equal(pvas_log_level(PVAS_LOG_SWIN), PVAS_LOG_ERROR);
    assert_int_equal(pvas_log_level(PVAS_LOG_PIP), PVAS_LOG_ERROR);
    /* a component named in PVAS_LOG beats its alias */
    setenv("PVAS_LOG", "all:error,earth:off", 1);
    pvas_log_reset();
    assert_int_equal(pvas_log_level(PVAS_LOG_EARTH), 0);
    assert_null(pvas_log_env_error());
    /* a bad PVAS_LOG counts for nothing, the aliases still do */
    setenv("PVAS_LOG", "earth:loud", 1);
    setenv("PIP_DEBUG", "1", 1);
    pvas_log_reset();
    assert_int_equal(pvas_log_level(PVAS_LOG_EARTH), 2);
    assert_int_equal(pvas_log_level(PVAS_LOG_PIP), PVAS_LOG_DEBUG);
    assert_int_equal(pvas_log_level(PVAS_LOG_ULP), 0);
    const char *e = pvas_log_env_error();
    assert_non_null(e);
    assert_non_null(strstr(e, "PVAS_LOG='earth:loud'"));
}

static void line_format(void **state)
{
    char want[128];
    (void)state;
    setenv("PVAS_LOG", "swin:info,deleg:debug", 1);
    pvas_log_reset();
    pvas_log(PVAS_LOG_SWIN, PVAS_LOG_DEBUG, "not shown %d", 1);
    pvas_log(PVAS_LOG_EARTH, PVAS_LOG_ERROR, "not shown either");
    assert_int_equal(got_writes, 0);
    pvas_log(PVAS_LOG_SWIN, PVAS_LOG_INFO, "window %d of %s", 7, "x");
    snprintf(want, sizeof want, "swin[%ld]: window 7 of x\n", (long)getpid());
    assert_string_equal(got, want);
    assert_int_equal(got_writes, 1);
    got_len = 0;
    pvas_log_set_rank(3);
    pvas_log(PVAS_LOG_DELEG, PVAS_LOG_DEBUG, "up");
    snprintf(want, sizeof want, "deleg[%ld rank 3]: up\n", (long)getpid());
    assert_string_equal(got, want);
    assert_int_equal(got_writes, 2);
    /* PVAS_LOG_ALWAYS is printed even when the component is off */
    got_len = 0;
    pvas_log(PVAS_LOG_ULP, PVAS_LOG_ALWAYS, "refused");
    assert_int_equal(got_writes, 3);
    assert_non_null(strstr(got, "]: refused\n"));
}

static void long_line_one_write(void **state)
{
    static char big[3 * PVAS_LOG_LINE_MAX];
    (void)state;
    memset(big, 'a', sizeof big - 1);
    setenv("PVAS_LOG", "all:debug", 1);
    pvas_log_reset();
    errno = 12345;
    pvas_log(PVAS_LOG_PIP, PVAS_LOG_DEBUG, "%s", big);
    assert_int_equal(errno, 12345); /* logging leaves errno alone */
    assert_int_equal(got_writes, 1);
    assert_true(got_len <= PVAS_LOG_LINE_MAX);
    assert_true(got_len > PVAS_LOG_LINE_MAX / 2);
    assert_int_equal(got[got_len - 1], '\n');
    assert_null(memchr(got, '\n', got_len - 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(parse_good, clean_env),
        cmocka_unit_test_setup(parse_bad, clean_env),
        cmocka_unit_test_setup(aliases, clean_env),
        cmocka_unit_test_setup(precedence, clean_env),
        cmocka_unit_test_setup(line_format, clean_env),
        cmocka_unit_test_setup(long_line_one_write, clean_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
