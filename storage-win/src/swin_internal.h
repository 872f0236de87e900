/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swin_internal.h: shared declarations of the storage-window library.
 */
#ifndef SWIN_INTERNAL_H
#define SWIN_INTERNAL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "storage_win.h"

#define SWIN_WUR    __attribute__((warn_unused_result))
#define SWIN_HIDDEN __attribute__((visibility("hidden")))

/* OpenCoarrays' sync images messages carry this tag (libcaf_mpich). */
#define SWIN_CAF_SYNC_IMAGES_TAG 424242

/* A storage request, from info keys or from PCAF_* variables. */
struct swin_cfg {
    int storage;           /* 1: map onto a file */
    int type_given;        /* info had an alloc_type key */
    char *filename;        /* malloc'ed */
    long long offset;      /* byte offset in the file */
    int offset_given;      /* the offset came from the user (checked) */
    int unlink_at_free;    /* remove the file at MPI_Win_free */
    int discard;           /* no durable sync at MPI_Win_free */
    long sync_interval_ms; /* minimum interval between rate-limited syncs */
    long long align;       /* PCAF: file end rounded up to this at extend */
    int pcaf;              /* made by the PCAF layer */
};

/* Error reporting: an MPI error class plus a one-line message. */
struct swin_err {
    int mpi_class; /* MPI_SUCCESS when there is no error */
    char msg[512];
    int env;       /* a bad environment value (msg names it) */
    int env_first; /* after agree(): 1 + lowest rank with env set, or 0 */
    int printed;   /* the message is on stderr already */
};

/* Check the SWIN_* variables: 0, or -1 with e set (MPI_ERR_ARG, env). */
int swin_env_check(struct swin_err *e) SWIN_HIDDEN;

void swin_err_set(struct swin_err *e, int mpi_class, const char *fmt, ...)
    __attribute__((format(printf, 3, 4))) SWIN_HIDDEN;
int swin_errno_class(int err) SWIN_HIDDEN;
/* Turn e into an MPI error code with e->msg as its string. */
int swin_err_to_code(const struct swin_err *e) SWIN_HIDDEN;
/* The message of a code made by swin_err_to_code, or NULL. */
const char *swin_err_lookup(int code) SWIN_HIDDEN;

/* Logging (SWIN_LOG_LEVEL). */
void swin_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3))) SWIN_HIDDEN;

/* Info parsing (swin_cfg.c). */
int swin_cfg_from_info(MPI_Info info, struct swin_cfg *cfg,
                       struct swin_err *e) SWIN_HIDDEN SWIN_WUR;
void swin_cfg_clear(struct swin_cfg *cfg) SWIN_HIDDEN;
int swin_parse_bool(const char *s, int *out) SWIN_HIDDEN SWIN_WUR;
int swin_parse_ll(const char *s, long long min,
                  long long *out) SWIN_HIDDEN SWIN_WUR;
long swin_env_sync_interval(void) SWIN_HIDDEN;

/* PCAF (swin_pcaf.c): fill cfg for the next OpenCoarrays allocation.
 * Returns 1 if PCAF is enabled and cfg was filled, 0 if disabled, -1 on
 * a bad environment value (e set). */
int swin_pcaf_cfg(MPI_Comm comm, MPI_Aint size, struct swin_cfg *cfg,
                  struct swin_err *e) SWIN_HIDDEN SWIN_WUR;
int swin_pcaf_enabled(void) SWIN_HIDDEN;

/* A file region mapped MAP_SHARED, with its dirty tracking (swin_map.c). */
struct swin_map {
    int fd;
    char *path;
    void *addr;      /* page-aligned mapping, NULL when len == 0 */
    size_t len;      /* bytes mapped */
    off_t file_off;  /* file offset of addr (page-aligned) */
    size_t delta;    /* requested offset - file_off */
    int tracked;     /* registered with the userfaultfd tracker */
    int created;     /* the file did not exist before */
    swin_stats_t st; /* counters */
};

/* Phase 1: open (create) the file and check the offset against its size
 * before any rank of the collective call changed it. */
int swin_map_open(struct swin_map *m, const struct swin_cfg *cfg,
                  struct swin_err *e) SWIN_HIDDEN SWIN_WUR;
/* Phase 2: make the file cover [offset, offset+len) and map it. */
int swin_map_map(struct swin_map *m, const struct swin_cfg *cfg, size_t len,
                 struct swin_err *e) SWIN_HIDDEN SWIN_WUR;
/* Durable sync of the pages written since the previous one. */
int swin_map_sync(struct swin_map *m) SWIN_HIDDEN SWIN_WUR;
/* Unmap and close; unlink the file if asked. */
void swin_map_close(struct swin_map *m, int do_unlink) SWIN_HIDDEN;
int swin_track_init(void) SWIN_HIDDEN;
extern int swin_track_mode_used SWIN_HIDDEN;
double swin_now(void) SWIN_HIDDEN;
void swin_stats_add(swin_stats_t *dst, const swin_stats_t *src) SWIN_HIDDEN;

#endif /* SWIN_INTERNAL_H */
