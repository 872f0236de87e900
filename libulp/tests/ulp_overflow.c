/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_overflow.c: a root whose ULP crashes, for test_ulp_guard.
 *   ulp_overflow fn            a ulp_create() ULP overflows its stack
 *   ulp_overflow task PROG     a PiP-task ULP (PROG recurse) overflows
 *   ulp_overflow wild          a ULP touches an inaccessible page (not an
 *                              overflow)
 * Expected: killed by SIGSEGV; for overflows, a report on stderr.
 */
#include <ulp.h>

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

PIP_ROOT_TLS_RESERVE(4096);

/* Deep enough to overflow any stack; a bound keeps the compiler quiet. */
static volatile int ov_recurse_limit = 1 << 30;

static int ov_recurse(volatile char *prev, int depth)
{
    volatile char buf[512];
    buf[0] = (char)depth;
    if (prev != NULL)
        buf[1] = prev[0];
    if (depth > ov_recurse_limit)
        return 0;
    return ov_recurse(buf, depth + 1) + buf[1];
}

static int ov_fn(void *arg)
{
    (void)arg;
    return ov_recurse(NULL, 0);
}

#if defined(__SANITIZE_ADDRESS__)
/* Sanitizer builds: leave SIGSEGV to libulp and the default action, as in
 * a normal build (ASan's own handler would exit with status 1). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "handle_segv=0:detect_leaks=0";
}
#endif

static int ov_wild(void *arg)
{
    volatile int *p = arg; /* a PROT_NONE page, not near any stack */
    return *p;
}

int main(int argc, char **argv)
{
    struct rlimit nocore = {0, 0};
    ulp_sched_t *s;
    ulp_t *u;
    int rc;

    setrlimit(RLIMIT_CORE, &nocore);
    if (argc < 2)
        return 2;
    if (strcmp(argv[1], "task") == 0) {
        int n = 1;
        if (argc < 3 || pip_init(NULL, &n, NULL, PIP_MODE_PTHREAD) != 0)
            return 2;
    }
    if ((rc = ulp_init()) != 0 || (rc = ulp_sched_create(&s, -1)) != 0) {
        fprintf(stderr, "ulp_overflow: %s\n", ulp_strerror(rc));
        return 2;
    }
    if (strcmp(argv[1], "fn") == 0) {
        rc = ulp_create(&u, s, ov_fn, NULL);
    } else if (strcmp(argv[1], "wild") == 0) {
        void *page =
            mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED)
            return 2;
        rc = ulp_create(&u, s, ov_wild, page);
    } else {
        char *av[] = {argv[2], "recurse", NULL};
        pip_spawn_program_t p;
        pip_spawn_from_main(&p, argv[2], av, NULL, NULL, NULL);
        rc = ulp_spawn(&u, s, &p, NULL);
    }
    if (rc != 0) {
        fprintf(stderr, "ulp_overflow: %s\n", ulp_strerror(rc));
        return 2;
    }
    (void)ulp_join(u, NULL);
    fprintf(stderr, "ulp_overflow: the ULP ended without a fault\n");
    return 3;
}
