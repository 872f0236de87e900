/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_region.c: the mapped region shared by a delegatee and its clients.
 *
 * The rest of the library sees only base/size/flags, so a device mapping
 * (a PCIe BAR) could replace memfd / POSIX shm here.  The first cache line of
 * the mapping records the size and flags so that openers learn them;
 * dlg_region_base() returns the memory after it.
 */
#include "config.h"
#include "dlg_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int region_map(dlg_region_t *r, size_t size, int create, unsigned flags)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (p == MAP_FAILED)
        return -errno;
    r->base = p;
    r->size = size;
    struct dlg_region_hdr *rh = p;
    if (create) {
        rh->size = size;
        rh->flags = flags;
    } else if (rh->size != size) {
        munmap(p, size);
        return -EPROTO;
    }
    r->flags = rh->flags;
    snprintf(r->addr_spec, sizeof(r->addr_spec), "addr:%p:%zu", p, size);
    return 0;
}

int dlg_region_create(dlg_region_kind_t kind, const char *name, size_t size,
                      unsigned flags, dlg_region_t **out)
{
    static _Atomic unsigned counter;
    if (!out || size == 0 || size > ((size_t)1 << 40) ||
        (flags & ~DLG_REGION_LOCAL))
        return -EINVAL;
    long pg = sysconf(_SC_PAGESIZE);
    size_t total = (size + DLG_LINE + (size_t)pg - 1) & ~((size_t)pg - 1);
    dlg_region_t *r = calloc(1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->fd = -1;
    r->kind = kind;
    r->owner = 1;
    int rc;
    if (kind == DLG_REGION_MEMFD) {
        r->fd = memfd_create(name ? name : "deleg", MFD_CLOEXEC);
        if (r->fd < 0) {
            rc = -errno;
            goto fail;
        }
        snprintf(r->spec, sizeof(r->spec), "memfd:%ld:%d", (long)getpid(),
                 r->fd);
    } else if (kind == DLG_REGION_SHM) {
        if (name) {
            if (name[0] != '/' || strchr(name + 1, '/') ||
                strlen(name) >= sizeof(r->shm_name)) {
                rc = -EINVAL;
                goto fail;
            }
            snprintf(r->shm_name, sizeof(r->shm_name), "%s", name);
        } else {
            snprintf(r->shm_name, sizeof(r->shm_name), "/deleg-%ld-%u",
                     (long)getpid(), atomic_fetch_add(&counter, 1));
        }
        r->fd =
            shm_open(r->shm_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (r->fd < 0) {
            rc = -errno;
            goto fail;
        }
        snprintf(r->spec, sizeof(r->spec), "shm:%s", r->shm_name);
    } else {
        rc = -EINVAL;
        goto fail;
    }
    if (ftruncate(r->fd, (off_t)total) != 0) {
        rc = -errno;
        goto fail;
    }
    rc = region_map(r, total, 1, flags);
    if (rc)
        goto fail;
    *out = r;
    return 0;
fail:
    if (r->fd >= 0)
        close(r->fd);
    if (kind == DLG_REGION_SHM && r->shm_name[0] && rc != -EEXIST)
        shm_unlink(r->shm_name);
    free(r);
    return rc;
}

int dlg_region_open(const char *spec, dlg_region_t **out)
{
    if (!spec || !out)
        return -EINVAL;
    dlg_region_t *r = calloc(1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->fd = -1;
    int rc;
    long pid;
    int fd;
    char tail;
    if (strncmp(spec, "shm:/", 5) == 0) {
        const char *n = spec + 4;
        if (strchr(n + 1, '/') || strlen(n) >= sizeof(r->shm_name)) {
            rc = -EINVAL;
            goto fail;
        }
        snprintf(r->shm_name, sizeof(r->shm_name), "%s", n);
        r->kind = DLG_REGION_SHM;
        r->fd = shm_open(n, O_RDWR | O_CLOEXEC, 0);
    } else if (strncmp(spec, "addr:", 5) == 0) {
        /* the creator's own mapping, in this address space */
        void *base = NULL;
        size_t size = 0;
        if (sscanf(spec, "addr:%p:%zu%c", &base, &size, &tail) != 2 || !base ||
            size < 2 * DLG_LINE || ((uintptr_t)base & (DLG_LINE - 1))) {
            rc = -EINVAL;
            goto fail;
        }
        const struct dlg_region_hdr *rh = base;
        if (rh->size != size) {
            rc = -EPROTO;
            goto fail;
        }
        r->base = base;
        r->size = size;
        r->flags = rh->flags;
        r->borrowed = 1;
        snprintf(r->spec, sizeof(r->spec), "%s", spec);
        snprintf(r->addr_spec, sizeof(r->addr_spec), "%s", spec);
        *out = r;
        return 0;
    } else if (sscanf(spec, "memfd:%ld:%d%c", &pid, &fd, &tail) == 2 &&
               pid > 0 && fd >= 0) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%ld/fd/%d", pid, fd);
        r->kind = DLG_REGION_MEMFD;
        r->fd = open(path, O_RDWR | O_CLOEXEC);
    } else {
        rc = -EINVAL;
        goto fail;
    }
    if (r->fd < 0) {
        rc = -errno;
        goto fail;
    }
    struct stat sb;
    if (fstat(r->fd, &sb) != 0) {
        rc = -errno;
        goto fail;
    }
    if ((size_t)sb.st_size < 2 * DLG_LINE) {
        rc = -EPROTO;
        goto fail;
    }
    rc = region_map(r, (size_t)sb.st_size, 0, 0);
    if (rc)
        goto fail;
    snprintf(r->spec, sizeof(r->spec), "%s", spec);
    *out = r;
    return 0;
fail:
    if (r->fd >= 0)
        close(r->fd);
    free(r);
    return rc;
}

const char *dlg_region_spec(const dlg_region_t *r)
{
    return r ? r->spec : "";
}

const char *dlg_region_addr_spec(const dlg_region_t *r)
{
    return r ? r->addr_spec : "";
}

void *dlg_region_base(const dlg_region_t *r)
{
    return r ? (char *)r->base + DLG_LINE : NULL;
}

size_t dlg_region_size(const dlg_region_t *r)
{
    return r ? r->size - DLG_LINE : 0;
}

unsigned dlg_region_flags(const dlg_region_t *r)
{
    return r ? r->flags : 0;
}

int dlg_region_close(dlg_region_t *r)
{
    if (!r)
        return 0;
    int rc = 0;
    if (!r->borrowed && munmap(r->base, r->size) != 0)
        rc = -errno;
    if (r->fd >= 0)
        close(r->fd);
    if (r->owner && r->kind == DLG_REGION_SHM && shm_unlink(r->shm_name) != 0 &&
        rc == 0)
        rc = -errno;
    free(r);
    return rc;
}
