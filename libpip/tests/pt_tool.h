/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pt_tool.h: helpers of the tests of the PiP tools (pipcc, pip-check,
 * pip-mode, pips, pip-unpie): run a tool with a timeout and capture its
 * output, check the one-line error of a bad invocation, and a scratch
 * directory removed at the end.  Header only; cmocka asserts.
 */
#ifndef PT_TOOL_H
#define PT_TOOL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "th_util.h"

#define PT_TOOL_TIMEOUT 120 /* seconds per command (compiles on a busy box) */

#if defined(__SANITIZE_ADDRESS__)
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0"; /* helpers keep paths for the whole run */
}
#endif

typedef struct {
    int status; /* waitpid status */
    char *out, *err;
} pt_run_t;

/* Path of a program relative to this test's directory; 99 if missing. */
static inline char *pt_tool_path(const char *rel)
{
    char *p = th_sibling_path(rel);
    if (p == NULL || access(p, X_OK) != 0) {
        fprintf(stderr, "SETUP: %s not built\n", p != NULL ? p : rel);
        exit(TH_EXIT_HARD_ERROR);
    }
    return p;
}

/* Source file under the source tree ($abs_top_srcdir, set by make check). */
static inline char *pt_src_path(const char *rel)
{
    const char *top = getenv("abs_top_srcdir");
    char *p = NULL;
    if (top == NULL) {
        fprintf(stderr, "SETUP: abs_top_srcdir is not set (run by make "
                        "check)\n");
        exit(TH_EXIT_HARD_ERROR);
    }
    assert_true(asprintf(&p, "%s/%s", top, rel) > 0);
    return p;
}

static inline void pt_run_free(pt_run_t *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* Run argv (NULL-terminated) with extra environment entries (may be NULL). */
static inline pt_run_t pt_runv(char *const env[], char *const argv[])
{
    pt_run_t r = {-1, NULL, NULL};
    int rc = th_run(argv, env, PT_TOOL_TIMEOUT, &r.status, &r.out, &r.err);
    if (rc != 0)
        fail_msg("%s: th_run: %s", argv[0], strerror(-rc));
    assert_non_null(r.out);
    assert_non_null(r.err);
    return r;
}

/* pt_run(env, prog, args..., NULL) */
static inline pt_run_t pt_run(char *const env[], const char *prog, ...)
{
    char *argv[64];
    int argc = 0;
    va_list ap;
    argv[argc++] = (char *)prog;
    va_start(ap, prog);
    for (char *a = va_arg(ap, char *); a != NULL && argc < 63;
         a = va_arg(ap, char *))
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    return pt_runv(env, argv);
}

static inline int pt_exit_code(const pt_run_t *r)
{
    return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 1000;
}

/* Exited with `code`; on mismatch show what the tool said. */
#define PT_EXPECT_EXIT(r, code)                                                \
    do {                                                                       \
        if (pt_exit_code(&(r)) != (code))                                      \
            fail_msg("exit %d (status 0x%x), want %d; stdout: %s; stderr: %s", \
                     pt_exit_code(&(r)), (r).status, (code), (r).out,          \
                     (r).err);                                                 \
    } while (0)

/*
 * A bad invocation: non-zero exit `code`, nothing on stdout, exactly one
 * line on stderr that starts with "TOOL: " and contains `needle`.
 */
static inline void pt_expect_one_line_error(const pt_run_t *r, int code,
                                            const char *tool,
                                            const char *needle)
{
    if (pt_exit_code(r) != code || th_count(r->err, "\n") != 1 ||
        strncmp(r->err, tool, strlen(tool)) != 0 ||
        strncmp(r->err + strlen(tool), ": ", 2) != 0 ||
        (needle != NULL && strstr(r->err, needle) == NULL) || r->out[0] != '\0')
        fail_msg("want exit %d and one stderr line '%s: ...%s...'; got exit "
                 "%d (0x%x), stderr '%s', stdout '%s'",
                 code, tool, needle ? needle : "", pt_exit_code(r), r->status,
                 r->err, r->out);
}

/* ---- scratch directory ---- */

static char *pt_scratch;

static inline int pt_rm_one(const char *path, const struct stat *st, int flag,
                            struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline void pt_scratch_remove(void)
{
    if (pt_scratch != NULL)
        (void)nftw(pt_scratch, pt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh directory for this test program, removed at exit. */
static inline const char *pt_scratch_dir(void)
{
    if (pt_scratch == NULL) {
        const char *tmp = getenv("TMPDIR");
        char *p = NULL;
        assert_true(asprintf(&p, "%s/pt_tool_XXXXXX", tmp ? tmp : "/tmp") > 0);
        assert_non_null(mkdtemp(p));
        pt_scratch = p;
        atexit(pt_scratch_remove);
    }
    return pt_scratch;
}

/* "DIR/name" in the scratch directory (heap). */
static inline char *pt_scratch_file(const char *name)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", pt_scratch_dir(), name) > 0);
    return p;
}

static inline void pt_write_file(const char *path, const char *text, int mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    assert_true(fd >= 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
    assert_int_equal(chmod(path, (mode_t)mode), 0);
}

/* Whole file as a heap string (binary files: only size matters). */
static inline char *pt_slurp(const char *path, size_t *lenp)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    char *buf = malloc((size_t)st.st_size + 1);
    assert_non_null(buf);
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        assert_true(n > 0);
        got += (size_t)n;
    }
    buf[got] = '\0';
    close(fd);
    if (lenp != NULL)
        *lenp = got;
    return buf;
}

#endif /* PT_TOOL_H */
