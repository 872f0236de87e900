/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swin_cfg.c: info keys, values, errors and logging of the storage-window
 * library.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "swin_internal.h"
#include "pvas_log.h"

void swin_log(int level, const char *fmt, ...)
{
    /* SWIN_LOG_LEVEL other than 0..3 is refused by swin_env_check */
    va_list ap;
    va_start(ap, fmt);
    pvas_vlog(PVAS_LOG_SWIN, level, fmt, ap);
    va_end(ap);
}

void swin_err_set(struct swin_err *e, int mpi_class, const char *fmt, ...)
{
    va_list ap;
    e->mpi_class = mpi_class;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    swin_log(1, "%s", e->msg);
}

/* The one place where system errors become MPI error classes. */
int swin_errno_class(int err)
{
    switch (err) {
    case EACCES:
    case EPERM:
    case EROFS:
        return MPI_ERR_ACCESS;
    case ENOENT:
    case ENOTDIR:
        return MPI_ERR_NO_SUCH_FILE;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
        return MPI_ERR_NO_SPACE;
    case ENAMETOOLONG:
    case EISDIR:
        return MPI_ERR_BAD_FILE;
    case ENOMEM:
        return MPI_ERR_NO_MEM;
    case EINVAL:
        return MPI_ERR_ARG;
    default:
        return MPI_ERR_IO;
    }
}

/* A fresh error code of the class for each error.  MPICH 4.0.2 returns
 * codes from MPI_Add_error_code that MPI_Error_class maps to the right class
 * but that its own MPI_Error_string decodes as an unrelated internal message,
 * so the message is kept here and MPI_Error_string is interposed
 * (swin_err_lookup). */
#define SWIN_ERR_RING 64
static struct {
    int code;
    char msg[512];
} err_ring[SWIN_ERR_RING];
static unsigned err_next;

int swin_err_to_code(const struct swin_err *e)
{
    int code;
    if (e->mpi_class <= MPI_SUCCESS)
        return e->mpi_class;
    if (PMPI_Add_error_code(e->mpi_class, &code) != MPI_SUCCESS)
        return e->mpi_class;
    (void)PMPI_Add_error_string(code, e->msg);
    unsigned i =
        __atomic_fetch_add(&err_next, 1, __ATOMIC_RELAXED) % SWIN_ERR_RING;
    err_ring[i].code = code;
    snprintf(err_ring[i].msg, sizeof(err_ring[i].msg), "%s", e->msg);
    return code;
}

const char *swin_err_lookup(int code)
{
    for (unsigned i = 0; i < SWIN_ERR_RING; i++)
        if (err_ring[i].code == code && code != 0)
            return err_ring[i].msg;
    return NULL;
}

int swin_parse_bool(const char *s, int *out)
{
    if (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0 ||
        strcasecmp(s, "yes") == 0) {
        *out = 1;
        return 0;
    }
    if (strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0 ||
        strcasecmp(s, "no") == 0) {
        *out = 0;
        return 0;
    }
    return -EINVAL;
}

int swin_parse_ll(const char *s, long long min, long long *out)
{
    char *end;
    errno = 0;
    if (*s == '\0')
        return -EINVAL;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min)
        return -EINVAL;
    *out = v;
    return 0;
}

static int env_word(const char *name, const char *const *words,
                    struct swin_err *e)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return 0;
    for (int i = 0; words[i] != NULL; i++)
        if (strcmp(s, words[i]) == 0)
            return 0;
    char list[128] = "";
    for (int i = 0; words[i] != NULL; i++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                 i == 0         ? ""
                 : words[i + 1] ? ", "
                                : " or ",
                 words[i]);
    swin_err_set(e, MPI_ERR_ARG, "storage window: %s='%s': expected %s", name,
                 s, list);
    e->env = 1;
    return -1;
}

int swin_env_check(struct swin_err *e)
{
    static const char *const track[] = {"auto", "uffd", "msync", NULL};
    static const char *const adv[] = {"random", "normal", NULL};
    static const char *const lvl[] = {"0", "1", "2", "3", NULL};
    long long v;
    const char *bad_log = pvas_log_env_error();
    if (bad_log != NULL) {
        swin_err_set(e, MPI_ERR_ARG, "storage window: %s", bad_log);
        e->env = 1;
        return -1;
    }
    const char *s = getenv("SWIN_SYNC_INTERVAL_MS");
    if (s != NULL && *s != '\0' && swin_parse_ll(s, 0, &v) != 0) {
        swin_err_set(e, MPI_ERR_ARG,
                     "storage window: SWIN_SYNC_INTERVAL_MS='%s': expected "
                     "an integer >= 0",
                     s);
        e->env = 1;
        return -1;
    }
    if (env_word("SWIN_TRACK", track, e) || env_word("SWIN_MADVISE", adv, e))
        return -1;
    s = getenv("SWIN_LOG_LEVEL");
    if (s != NULL && *s != '\0' && env_word("SWIN_LOG_LEVEL", lvl, e)) {
        swin_err_set(e, MPI_ERR_ARG,
                     "storage window: SWIN_LOG_LEVEL='%s': expected 0..3", s);
        e->env = 1;
        return -1;
    }
    return 0;
}

long swin_env_sync_interval(void)
{
    const char *s = getenv("SWIN_SYNC_INTERVAL_MS");
    long long v;
    if (s == NULL || swin_parse_ll(s, 0, &v) != 0)
        return 0;
    return (long)v;
}

/* Value of the first key of the pair that is present; 1 if found. */
static int info_get(MPI_Info info, const char *k1, const char *k2, char *val,
                    int len, const char **key)
{
    int flag = 0;
    PMPI_Info_get(info, k1, len - 1, val, &flag);
    *key = k1;
    if (!flag && k2 != NULL) {
        PMPI_Info_get(info, k2, len - 1, val, &flag);
        *key = k2;
    }
    return flag;
}

void swin_cfg_clear(struct swin_cfg *cfg)
{
    free(cfg->filename);
    memset(cfg, 0, sizeof(*cfg));
}

int swin_cfg_from_info(MPI_Info info, struct swin_cfg *cfg, struct swin_err *e)
{
    char val[PATH_MAX + 1];
    const char *key;
    long long v;
    int b;

    memset(cfg, 0, sizeof(*cfg));
    cfg->sync_interval_ms = swin_env_sync_interval();
    if (info == MPI_INFO_NULL)
        return 0;
    if (info_get(info, "alloc_type", "swin_alloc_type", val, sizeof(val),
                 &key)) {
        cfg->type_given = 1;
        if (strcmp(val, "storage") == 0)
            cfg->storage = 1;
        else if (strcmp(val, "memory") != 0) {
            swin_err_set(e, MPI_ERR_INFO_VALUE,
                         "storage window: info %s='%s': expected 'storage' "
                         "or 'memory'",
                         key, val);
            return -1;
        }
    }
    if (!cfg->storage)
        return 0;
    if (!info_get(info, "storage_alloc_filename", "swin_filename", val,
                  sizeof(val), &key) ||
        val[0] == '\0') {
        swin_err_set(e, MPI_ERR_INFO_NOKEY,
                     "storage window: alloc_type=storage needs the info key "
                     "storage_alloc_filename");
        return -1;
    }
    cfg->filename = strdup(val);
    if (cfg->filename == NULL) {
        swin_err_set(e, MPI_ERR_NO_MEM, "out of memory");
        return -1;
    }
    if (info_get(info, "storage_alloc_offset", "swin_offset", val, sizeof(val),
                 &key)) {
        if (swin_parse_ll(val, 0, &v) != 0) {
            swin_err_set(e, MPI_ERR_INFO_VALUE,
                         "storage window: info %s='%s': expected a "
                         "non-negative byte offset",
                         key, val);
            return -1;
        }
        cfg->offset = v;
        cfg->offset_given = 1;
    }
    static const char *const bools[][2] = {
        {"storage_alloc_unlink", "swin_unlink"},
        {"storage_alloc_discard", "swin_discard"},
    };
    for (int i = 0; i < 2; i++) {
        if (!info_get(info, bools[i][0], bools[i][1], val, sizeof(val), &key))
            continue;
        if (swin_parse_bool(val, &b) != 0) {
            swin_err_set(e, MPI_ERR_INFO_VALUE,
                         "storage window: info %s='%s': expected 'true' or "
                         "'false'",
                         key, val);
            return -1;
        }
        if (i == 0)
            cfg->unlink_at_free = b;
        else
            cfg->discard = b;
    }
    if (info_get(info, "storage_sync_interval_ms", "swin_sync_interval_ms", val,
                 sizeof(val), &key)) {
        if (swin_parse_ll(val, 0, &v) != 0 || v > LONG_MAX) {
            swin_err_set(e, MPI_ERR_INFO_VALUE,
                         "storage window: info %s='%s': expected a "
                         "non-negative number of milliseconds",
                         key, val);
            return -1;
        }
        cfg->sync_interval_ms = (long)v;
    }
    static const char *const stripes[] = {"striping_unit", "striping_factor"};
    for (int i = 0; i < 2; i++) {
        if (info_get(info, stripes[i], NULL, val, sizeof(val), &key) &&
            swin_parse_ll(val, 1, &v) != 0) {
            swin_err_set(e, MPI_ERR_INFO_VALUE,
                         "storage window: info %s='%s': expected a positive "
                         "integer",
                         key, val);
            return -1;
        }
    }
    return 0;
}

const char *swin_strerror(int err)
{
    if (err == 0)
        return "success";
    if (err == -EINVAL)
        return "not a storage window, or invalid argument";
    return strerror(err < 0 ? -err : err);
}
