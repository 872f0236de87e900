/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_log.c: PVAS_LOG parsing, the deprecated per-component switches, and
 * the one line format (see pvas_log.h).
 *
 * Each component library links its own copy (hidden symbols), so the state
 * below is per library and, under PiP, per namespace; every copy reads the
 * same environment and so comes to the same levels.
 */
#include "pvas_log.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const comp_name[PVAS_LOG_NCOMP] = {
    "pip", "ulp", "deleg", "mpideleg", "ftagree", "earth", "swin"};

static const char *const alias_name[PVAS_LOG_NCOMP] = {
    "PIP_DEBUG", "ULP_DEBUG", "DLG_DEBUG",     "MPIDELEG_DEBUG",
    "FTA_LOG",   "EARTH_LOG", "SWIN_LOG_LEVEL"};

static const char *const level_name[] = {"off", "error", "info", "debug"};
#define NLEVEL ((int)(sizeof(level_name) / sizeof(level_name[0])))

/* Levels read from the environment; ready says they are filled in. */
static _Atomic int lv[PVAS_LOG_NCOMP];
static atomic_int ready;
static atomic_int reported;
static char env_err[200];
static _Atomic int env_bad;
static _Atomic int my_rank = -1;

const char *pvas_log_name(int comp)
{
    return comp >= 0 && comp < PVAS_LOG_NCOMP ? comp_name[comp] : "pvas";
}

const char *pvas_log_alias_name(int comp)
{
    return comp >= 0 && comp < PVAS_LOG_NCOMP ? alias_name[comp] : NULL;
}

static int level_of(const char *s, size_t n)
{
    if (n == 1 && s[0] >= '0' && s[0] < '0' + NLEVEL)
        return s[0] - '0';
    for (int l = 0; l < NLEVEL; l++)
        if (strlen(level_name[l]) == n && strncmp(s, level_name[l], n) == 0)
            return l;
    return -1;
}

int pvas_log_parse(const char *spec, int levels[PVAS_LOG_NCOMP], int *all,
                   char *err, size_t errlen)
{
    for (int c = 0; c < PVAS_LOG_NCOMP; c++)
        levels[c] = -1;
    *all = -1;
    if (spec == NULL || *spec == '\0')
        return 0;
    const char *p = spec;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', n);
        if (colon == NULL) {
            snprintf(err, errlen,
                     "PVAS_LOG='%s': '%.*s' is not component:level "
                     "(e.g. all:error,earth:info)",
                     spec, (int)n, p);
            return -EINVAL;
        }
        size_t cn = (size_t)(colon - p);
        int c = -2;
        if (cn == 3 && strncmp(p, "all", 3) == 0)
            c = -1;
        for (int i = 0; i < PVAS_LOG_NCOMP && c == -2; i++)
            if (strlen(comp_name[i]) == cn && strncmp(p, comp_name[i], cn) == 0)
                c = i;
        if (c == -2) {
            snprintf(err, errlen,
                     "PVAS_LOG='%s': unknown component '%.*s' (pip, ulp, "
                     "deleg, mpideleg, ftagree, earth, swin or all)",
                     spec, (int)cn, p);
            return -EINVAL;
        }
        int l = level_of(colon + 1, n - cn - 1);
        if (l < 0) {
            snprintf(err, errlen,
                     "PVAS_LOG='%s': unknown level '%.*s' (off, error, info, "
                     "debug or 0-3)",
                     spec, (int)(n - cn - 1), colon + 1);
            return -EINVAL;
        }
        if (c < 0)
            *all = l;
        else
            levels[c] = l;
        if (end == NULL)
            return 0;
        p = end + 1;
    }
}

int pvas_log_alias(int comp, const char *v)
{
    if (v == NULL || *v == '\0')
        return -1;
    switch (comp) {
    case PVAS_LOG_PIP:
    case PVAS_LOG_ULP:
    case PVAS_LOG_DELEG:
        /* any value but 0 switched these on */
        return strcmp(v, "0") == 0 ? PVAS_LOG_ALWAYS : PVAS_LOG_DEBUG;
    case PVAS_LOG_MPIDELEG:
    case PVAS_LOG_FTAGREE:
        /* 0 or 1; the component refuses other values */
        return strcmp(v, "1") == 0 ? PVAS_LOG_DEBUG : PVAS_LOG_ALWAYS;
    case PVAS_LOG_EARTH:
    case PVAS_LOG_SWIN:
        /* 0..3; the component refuses other values */
        return v[0] >= '0' && v[0] <= '3' && v[1] == '\0' ? v[0] - '0'
                                                          : PVAS_LOG_ALWAYS;
    default:
        return -1;
    }
}

static void load(void)
{
    int lev[PVAS_LOG_NCOMP], all = -1;
    char err[sizeof env_err];
    if (pvas_log_parse(getenv("PVAS_LOG"), lev, &all, err, sizeof err) != 0) {
        /* a bad value sets nothing; the aliases still count */
        for (int c = 0; c < PVAS_LOG_NCOMP; c++)
            lev[c] = -1;
        all = -1;
        if (!atomic_load(&env_bad)) {
            memcpy(env_err, err, sizeof env_err);
            atomic_store(&env_bad, 1);
        }
    } else {
        atomic_store(&env_bad, 0);
    }
    for (int c = 0; c < PVAS_LOG_NCOMP; c++) {
        int l = lev[c];
        if (l < 0)
            l = pvas_log_alias(c, getenv(alias_name[c]));
        if (l < 0)
            l = all;
        atomic_store_explicit(&lv[c], l < 0 ? 0 : l, memory_order_relaxed);
    }
    atomic_store_explicit(&ready, 1, memory_order_release);
}

int pvas_log_level(int comp)
{
    if (comp < 0 || comp >= PVAS_LOG_NCOMP)
        return 0;
    if (!atomic_load_explicit(&ready, memory_order_acquire))
        load();
    return atomic_load_explicit(&lv[comp], memory_order_relaxed);
}

const char *pvas_log_env_error(void)
{
    if (!atomic_load_explicit(&ready, memory_order_acquire))
        load();
    return atomic_load(&env_bad) ? env_err : NULL;
}

void pvas_log_reset(void)
{
    atomic_store(&ready, 0);
    atomic_store(&reported, 0);
}

void pvas_log_set_rank(int rank)
{
    atomic_store(&my_rank, rank < 0 ? -1 : rank);
}

size_t pvas_log_format(char *buf, int comp, const char *fmt, va_list ap)
{
    const size_t cap = PVAS_LOG_LINE_MAX - 1; /* room for the newline */
    int r = atomic_load(&my_rank);
    int n = r >= 0
                ? snprintf(buf, cap, "%s[%ld rank %d]: ", pvas_log_name(comp),
                           (long)getpid(), r)
                : snprintf(buf, cap, "%s[%ld]: ", pvas_log_name(comp),
                           (long)getpid());
    if (n < 0)
        n = 0;
    if ((size_t)n < cap) {
        int m = vsnprintf(buf + n, cap - (size_t)n, fmt, ap);
        if (m > 0)
            n += m;
    }
    size_t len = (size_t)n < cap ? (size_t)n : cap - 1;
    buf[len++] = '\n';
    return len;
}

static void put(const char *buf, size_t len)
{
    /* One write(2) per line: a short line (PIPE_BUF at most) reaches a
     * pipe or terminal whole, never mixed with another rank's or thread's. */
    ssize_t w;
    do
        w = write(STDERR_FILENO, buf, len);
    while (w < 0 && errno == EINTR);
}

void pvas_vlog(int comp, int level, const char *fmt, va_list ap)
{
    if (level > pvas_log_level(comp))
        return;
    int saved = errno; /* logging never changes errno */
    char buf[PVAS_LOG_LINE_MAX];
    size_t len = pvas_log_format(buf, comp, fmt, ap);
    put(buf, len);
    errno = saved;
}

void pvas_log(int comp, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pvas_vlog(comp, level, fmt, ap);
    va_end(ap);
}

const char *pvas_log_env_refuse(void)
{
    const char *e = pvas_log_env_error();
    if (e != NULL && !atomic_exchange(&reported, 1)) {
        int saved = errno;
        char buf[sizeof env_err + 2];
        int n = snprintf(buf, sizeof buf, "%s\n", e);
        if (n > 0)
            put(buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
        errno = saved;
    }
    return e;
}

/* Before an abort: wait (at most 2 s) until whoever reads this process's
 * stderr pipe has taken what was written to it.  An MPI launcher (Hydra's
 * proxy) reads a rank's stderr pipe and its PMI socket independently; a
 * line still in the pipe when the abort request arrives is lost with the
 * job, and the user sees an abort without its reason.  Anything but a pipe
 * needs no wait. */
void pvas_log_drain(void)
{
    struct stat st;
    int saved = errno;
    if (fstat(STDERR_FILENO, &st) == 0 && S_ISFIFO(st.st_mode)) {
        for (int i = 0; i < 2000; i++) {
            int pending = 0;
            if (ioctl(STDERR_FILENO, FIONREAD, &pending) != 0 || pending <= 0)
                break;
            usleep(1000);
        }
    }
    errno = saved;
}
