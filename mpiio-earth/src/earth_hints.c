/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_hints.c: EARTH's own hints (earth_*), their environment defaults,
 * validation, and their report through MPI_File_get_info.
 *
 * Keys beginning with "earth_" belong to this library: an unknown one is
 * MPI_ERR_INFO_KEY and a malformed value MPI_ERR_INFO_VALUE, each with a
 * one-line message retrievable with MPI_Error_string.  ROMIO's keys are left
 * to ROMIO; striping_unit/striping_factor are also recorded here because
 * EARTH lays its file domains out by them.
 */
#include "earth_internal.h"
#include "pvas_log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pvas_env.h"

#define EARTH_REQ_MAX   1024
#define EARTH_STEPS_MAX 64

void earth_hints_defaults(earth_hints_t *h)
{
    memset(h, 0, sizeof(*h));
    h->enable = 2; /* auto: decided at open (earth_file.c) */
    /* measured on the contention model (bench/RESULTS.md): 2 requests in
     * flight per aggregator wrote 2.0x ROMIO's bandwidth at 4 ranks, 1
     * gave 1.7x, 4 and unlimited 1.0x */
    h->req = 2;
    h->steps = 2;
    h->layout = EARTH_LAYOUT_SPREAD;
}

const char *earth_layout_name(int layout)
{
    return layout == EARTH_LAYOUT_BLOCK ? "block" : "spread";
}

static char last_error[MPI_MAX_ERROR_STRING];

const char *earth_last_error(void)
{
    return last_error;
}

/*
 * Record the message (earth_last_error, and stderr when EARTH_LOG >= 1) and
 * return the plain class: MPICH mangles the strings of codes added to a
 * predefined class, so the class itself is what callers get.
 */
static int hint_error(int cls, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int hint_error(int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    earth_log(1, "%s", last_error);
    return cls;
}

/* Strict integer parse: optional blanks, digits, nothing else. */
static int parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    long long v;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s) && *s != '-' && *s != '+')
        return -EINVAL;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s)
        return -EINVAL;
    while (isspace((unsigned char)*end))
        end++;
    if (*end || v < lo || v > hi)
        return -ERANGE;
    *out = v;
    return 0;
}

static int hint_set1(earth_hints_t *h, const char *key, const char *val,
                     const char *src);

/* Apply one key; `src` names where it came from, for the message.  A
 * tuning key (everything but earth_enable) asks for EARTH itself, so
 * earth_enable=auto then means enable. */
static int hint_set(earth_hints_t *h, const char *key, const char *val,
                    const char *src)
{
    int rc = hint_set1(h, key, val, src);
    if (rc == MPI_SUCCESS && !strncmp(key, "earth_", 6) &&
        strcmp(key, "earth_enable"))
        h->tuned = 1;
    return rc;
}

static int hint_set1(earth_hints_t *h, const char *key, const char *val,
                     const char *src)
{
    long long v;
    if (!strcmp(key, "earth_enable")) {
        if (!strcmp(val, "enable") || !strcmp(val, "true"))
            h->enable = 1;
        else if (!strcmp(val, "disable") || !strcmp(val, "false"))
            h->enable = 0;
        else if (!strcmp(val, "auto"))
            h->enable = 2;
        else
            return hint_error(MPI_ERR_INFO_VALUE,
                              "%s earth_enable='%s': expected "
                              "auto, enable or disable",
                              src, val);
    } else if (!strcmp(key, "earth_req")) {
        if (!strcmp(val, "unlimited"))
            h->req = 0;
        else if (parse_int(val, 0, EARTH_REQ_MAX, &v) == 0)
            h->req = (int)v;
        else
            return hint_error(MPI_ERR_INFO_VALUE,
                              "%s earth_req='%s': expected an "
                              "integer 0..%d or 'unlimited'",
                              src, val, EARTH_REQ_MAX);
    } else if (!strcmp(key, "earth_steps")) {
        if (parse_int(val, 1, EARTH_STEPS_MAX, &v) == 0)
            h->steps = (int)v;
        else
            return hint_error(MPI_ERR_INFO_VALUE,
                              "%s earth_steps='%s': expected an "
                              "integer 1..%d",
                              src, val, EARTH_STEPS_MAX);
    } else if (!strcmp(key, "earth_aggr_layout")) {
        if (!strcmp(val, "spread"))
            h->layout = EARTH_LAYOUT_SPREAD;
        else if (!strcmp(val, "block"))
            h->layout = EARTH_LAYOUT_BLOCK;
        else
            return hint_error(MPI_ERR_INFO_VALUE,
                              "%s earth_aggr_layout='%s': "
                              "expected spread or block",
                              src, val);
    } else if (!strcmp(key, "earth_fd_stripes")) {
        if (!strcmp(val, "auto"))
            h->fd_stripes = 0;
        else if (parse_int(val, 1, 1 << 20, &v) == 0)
            h->fd_stripes = v;
        else
            return hint_error(MPI_ERR_INFO_VALUE,
                              "%s earth_fd_stripes='%s': expected 'auto' or "
                              "an integer 1..1048576",
                              src, val);
    } else if (!strncmp(key, "earth_", 6)) {
        return hint_error(MPI_ERR_INFO_KEY,
                          "%s: unknown EARTH hint '%s' (known: "
                          "earth_enable, earth_req, earth_steps, "
                          "earth_aggr_layout, earth_fd_stripes)",
                          src, key);
    } else if (!strcmp(key, "striping_unit")) {
        /* ROMIO validates its own keys; we only record a sane value */
        if (parse_int(val, 1, INT_MAX, &v) == 0)
            h->striping_unit = v;
    } else if (!strcmp(key, "striping_factor")) {
        if (parse_int(val, 1, INT_MAX, &v) == 0)
            h->striping_factor = v;
    }
    return MPI_SUCCESS;
}

int earth_hints_apply(earth_hints_t *h, MPI_Info info)
{
    int nkeys, flag, rc;
    earth_hints_t tmp = *h;
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    PMPI_Info_get_nkeys(info, &nkeys);
    for (int i = 0; i < nkeys; i++) {
        PMPI_Info_get_nthkey(info, i, key);
        PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
        if (!flag)
            continue;
        if ((rc = hint_set(&tmp, key, val, "hint")) != MPI_SUCCESS)
            return rc;
    }
    *h = tmp;
    return MPI_SUCCESS;
}

int earth_hints_env(earth_hints_t *h)
{
    static const struct {
        const char *env, *key;
    } map[] = {{"EARTH_ENABLE", "earth_enable"},
               {"EARTH_REQ", "earth_req"},
               {"EARTH_STEPS", "earth_steps"},
               {"EARTH_AGGR_LAYOUT", "earth_aggr_layout"},
               {"EARTH_FD_STRIPES", "earth_fd_stripes"}};
    earth_hints_t tmp = *h;
    int rc;
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        const char *v = getenv(map[i].env);
        if (v && (rc = hint_set(&tmp, map[i].key, v, map[i].env)) != 0)
            return rc;
    }
    int off;
    if (pvas_env_bool("EARTH_DISABLE", 0, 0, &off) < 0)
        return hint_error(MPI_ERR_INFO_VALUE, "EARTH_DISABLE='%s': expected %s",
                          getenv("EARTH_DISABLE"), pvas_env_bool_expected(0));
    if (off)
        tmp.enable = 0;
    *h = tmp;
    return MPI_SUCCESS;
}

/* A number in [lo, hi] (integers only when `integer`). */
static int env_number(const char *name, int integer, double lo, double hi)
{
    const char *v = getenv(name);
    char *end;
    if (!v)
        return MPI_SUCCESS;
    errno = 0;
    double d = integer ? (double)strtoll(v, &end, 10) : strtod(v, &end);
    if (!*v || *end || errno || d < lo || d > hi || d != d)
        return hint_error(MPI_ERR_ARG, "%s='%s': expected %s %.*f..%.*f", name,
                          v, integer ? "an integer" : "a number",
                          integer ? 0 : 3, lo, integer ? 0 : 3, hi);
    return MPI_SUCCESS;
}

int earth_env_check(void)
{
    static const struct {
        const char *name;
        int integer;
        double lo, hi;
    } nums[] = {{"EARTH_LOG", 1, 0, 3},
                {"EARTH_BOARD_SIZE", 1, 1, 1 << 20},
                {"EARTH_FSEMU_SERVERS", 1, 1, 64},
                {"EARTH_FSEMU_STRIPE", 1, 1, 1099511627776.0},
                {"EARTH_FSEMU_LATENCY_US", 0, 0, 1e7},
                {"EARTH_FSEMU_BW_MBPS", 0, 1e-3, 1e9},
                {"EARTH_FSEMU_K", 1, 1, 1 << 20},
                {"EARTH_FSEMU_ALPHA", 0, 0, 1e6}};
    int rc;
    const char *bad_log = pvas_log_env_error();
    if (bad_log != NULL)
        return hint_error(MPI_ERR_ARG, "%s", bad_log);
    static const char *const flags[] = {"EARTH_ASYNC", "EARTH_FSEMU"};
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        int on;
        if (pvas_env_bool(flags[i], 0, 0, &on) < 0)
            return hint_error(MPI_ERR_ARG, "%s='%s': expected %s", flags[i],
                              getenv(flags[i]), pvas_env_bool_expected(0));
    }
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
        if ((rc = env_number(nums[i].name, nums[i].integer, nums[i].lo,
                             nums[i].hi)) != MPI_SUCCESS)
            return rc;
    const char *shm = getenv("EARTH_FSEMU_SHM");
    if (shm && (shm[0] != '/' || strchr(shm + 1, '/') || strlen(shm) > 200))
        return hint_error(MPI_ERR_ARG,
                          "EARTH_FSEMU_SHM='%s': expected a shared-memory "
                          "name '/NAME' (no other '/')",
                          shm);
    return MPI_SUCCESS;
}

int earth_hints_report(const earth_hints_t *h, MPI_Info info)
{
    char v[32];
    int flag;
    char old[MPI_MAX_INFO_VAL + 1];
    PMPI_Info_set(info, "earth_enable",
                  h->enable == 2 ? "auto"
                  : h->enable    ? "enable"
                                 : "disable");
    if (h->req)
        snprintf(v, sizeof(v), "%d", h->req);
    else
        snprintf(v, sizeof(v), "unlimited");
    PMPI_Info_set(info, "earth_req", v);
    snprintf(v, sizeof(v), "%d", h->steps);
    PMPI_Info_set(info, "earth_steps", v);
    PMPI_Info_set(info, "earth_aggr_layout", earth_layout_name(h->layout));
    if (h->fd_stripes)
        snprintf(v, sizeof(v), "%lld", (long long)h->fd_stripes);
    else
        snprintf(v, sizeof(v), "auto");
    PMPI_Info_set(info, "earth_fd_stripes", v);
    /* ROMIO does not report these on every file system */
    PMPI_Info_get(info, "striping_unit", MPI_MAX_INFO_VAL, old, &flag);
    if (!flag && h->striping_unit) {
        snprintf(v, sizeof(v), "%lld", (long long)h->striping_unit);
        PMPI_Info_set(info, "striping_unit", v);
    }
    PMPI_Info_get(info, "striping_factor", MPI_MAX_INFO_VAL, old, &flag);
    if (!flag && h->striping_factor) {
        snprintf(v, sizeof(v), "%lld", (long long)h->striping_factor);
        PMPI_Info_set(info, "striping_factor", v);
    }
    return MPI_SUCCESS;
}

void earth_log(int level, const char *fmt, ...)
{
    /* a bad EARTH_LOG is refused by MPI_File_open; log nothing meanwhile */
    va_list ap;
    va_start(ap, fmt);
    pvas_vlog(PVAS_LOG_EARTH, level, fmt, ap);
    va_end(ap);
}
