/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swin_pcaf.c: persistent coarrays.  OpenCoarrays (libcaf_mpich) allocates
 * every coarray with MPI_Win_allocate and no info; with PCAF_ENABLED=true
 * each such allocation is turned into a storage window whose file name is
 * derived from the image index and the allocation order, so that a second
 * run of the same program maps the first run's files again.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swin_internal.h"
#include "pvas_env.h"

static long alloc_seq;            /* allocations made so far */
static long long shared_next_off; /* next free offset in the shared file */

/* Read an on/off variable (common/pvas_env.h; OpenCoarrays' true/false
 * too); -1 with e set when malformed. */
static int env_bool(const char *name, int dflt, int *out, struct swin_err *e)
{
    if (pvas_env_bool(name, dflt, PVAS_ENV_TRUE_FALSE, out) != 0) {
        swin_err_set(e, MPI_ERR_ARG,
                     "persistent coarrays: %s='%s': expected %s", name,
                     getenv(name), pvas_env_bool_expected(PVAS_ENV_TRUE_FALSE));
        e->env = 1;
        return -1;
    }
    return 0;
}

static int env_num(const char *name, long long min, long long dflt,
                   long long *out, struct swin_err *e)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0') {
        *out = dflt;
        return 0;
    }
    if (swin_parse_ll(s, min, out) != 0) {
        swin_err_set(e, MPI_ERR_ARG,
                     "persistent coarrays: %s='%s': expected an integer "
                     ">= %lld",
                     name, s, min);
        e->env = 1;
        return -1;
    }
    return 0;
}

int swin_pcaf_enabled(void)
{
    int b;
    if (pvas_env_bool("PCAF_ENABLED", 0, PVAS_ENV_TRUE_FALSE, &b) != 0)
        return -1;
    return b;
}

int swin_pcaf_cfg(MPI_Comm comm, MPI_Aint size, struct swin_cfg *cfg,
                  struct swin_err *e)
{
    int enabled, shared, unl;
    long long freq, seg, stripe;
    long page = sysconf(_SC_PAGESIZE);
    (void)comm;

    memset(cfg, 0, sizeof(*cfg));
    if (env_bool("PCAF_ENABLED", 0, &enabled, e) != 0)
        return -1;
    if (!enabled)
        return 0;
    if (env_bool("PCAF_SHAREDFILE", 0, &shared, e) != 0 ||
        env_bool("PCAF_UNLINK", 0, &unl, e) != 0 ||
        env_num("PCAF_SYNCFREQ", 0, 0, &freq, e) != 0 ||
        env_num("PCAF_SEGSIZE", page, page, &seg, e) != 0 ||
        env_num("PCAF_STRIPESIZE", 1, 1, &stripe, e) != 0 ||
        env_num("PCAF_STRIPECOUNT", 1, 1, &stripe, e) != 0)
        return -1;
    if (seg % page != 0) {
        swin_err_set(e, MPI_ERR_ARG,
                     "persistent coarrays: PCAF_SEGSIZE='%lld' is not a "
                     "multiple of the page size (%ld)",
                     seg, page);
        e->env = 1;
        return -1;
    }
    if (freq > LONG_MAX)
        freq = LONG_MAX;
    const char *path = getenv("PCAF_PATH");
    if (path == NULL || *path == '\0')
        path = ".";
    const char *prefix = getenv("PCAF_PREFIX");
    if (prefix == NULL)
        prefix = "OpenCoarrays_";
    if (strchr(prefix, '/') != NULL) {
        swin_err_set(e, MPI_ERR_ARG,
                     "persistent coarrays: PCAF_PREFIX='%s' must not "
                     "contain '/'",
                     prefix);
        e->env = 1;
        return -1;
    }
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[PATH_MAX];
    int n;
    if (shared)
        n = snprintf(name, sizeof(name), "%s/%s%d", path, prefix, rank + 1);
    else
        n = snprintf(name, sizeof(name), "%s/%s%d_%ld", path, prefix, rank + 1,
                     alloc_seq);
    if (n < 0 || (size_t)n >= sizeof(name)) {
        swin_err_set(e, MPI_ERR_BAD_FILE,
                     "persistent coarrays: PCAF_PATH is too long");
        return -1;
    }
    cfg->filename = strdup(name);
    if (cfg->filename == NULL) {
        swin_err_set(e, MPI_ERR_NO_MEM, "out of memory");
        return -1;
    }
    cfg->storage = 1;
    cfg->pcaf = 1;
    cfg->unlink_at_free = unl;
    cfg->sync_interval_ms = (long)freq;
    cfg->align = seg;
    if (shared) {
        /* Coarrays follow each other in program order, each starting on a
         * segment boundary. */
        cfg->offset = shared_next_off;
        shared_next_off += ((long long)size + seg - 1) / seg * seg;
        if (size == 0)
            shared_next_off += seg;
    }
    alloc_seq++;
    return 1;
}
