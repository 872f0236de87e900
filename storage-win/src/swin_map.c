/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swin_map.c: map a file region MAP_SHARED and make its changed pages
 * durable.
 *
 * Dirty tracking.  MPICH (and UCX, through process_vm_writev from other
 * ranks) writes into the window as plain memory, so tracking must not change
 * what a store does.  Soft-dirty bits would fit, but they are process-wide to
 * clear and absent on kernels without CONFIG_MEM_SOFT_DIRTY (the one this was
 * developed on).  We use a userfaultfd in asynchronous write-protect mode
 * (UFFD_FEATURE_WP_ASYNC, Linux >= 6.7): the kernel resolves write faults by
 * itself (no handler thread, remote writes through GUP included) and records
 * which pages were written; ioctl(PAGEMAP_SCAN, PM_SCAN_WP_MATCHING) returns
 * the written ranges of one mapping and write-protects them again in the same
 * step, so a store racing with a sync is either reported now or at the next
 * sync, never lost, and other mappings are not touched.  A durable sync then
 * starts writeback of exactly those file ranges (sync_file_range) and ends
 * with one fdatasync for the metadata and the device cache.
 *
 * Without userfaultfd (old kernel, permissions) the fallback is msync(MS_SYNC)
 * of the whole mapping, which is correct but pays the kernel's walk over the
 * mapping's page cache on every sync.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <linux/userfaultfd.h>

#include "swin_internal.h"

/* Kernel ABI newer than the build machine's headers (Linux 6.7). */
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef PAGEMAP_SCAN
struct page_region {
    __u64 start, end, categories;
};
struct pm_scan_arg {
    __u64 size, flags, start, end, walk_end, vec, vec_len, max_pages,
        category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN          _IOWR('f', 16, struct pm_scan_arg)
#define PM_SCAN_WP_MATCHING   (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#define PAGE_IS_WRITTEN       (1 << 1)
#endif

int swin_track_mode_used;
static int uffd = -1;
static int pagemap_fd = -1;
static pthread_mutex_t track_lock = PTHREAD_MUTEX_INITIALIZER;

double swin_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void swin_stats_add(swin_stats_t *dst, const swin_stats_t *src)
{
    dst->durable_syncs += src->durable_syncs;
    dst->skipped_syncs += src->skipped_syncs;
    dst->pages_flushed += src->pages_flushed;
    dst->ranges_flushed += src->ranges_flushed;
    dst->last_pages = src->last_pages;
    dst->last_sync_seconds = src->last_sync_seconds;
}

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

static int uffd_open(void)
{
    /* Write-protect faults are resolved by the kernel (WP_ASYNC) and never
     * reach us, so user-mode-only is enough, and it is what an unprivileged
     * process may open when vm.unprivileged_userfaultfd is 0. */
    int fd = (int)syscall(SYS_userfaultfd,
                          O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    if (fd < 0 && errno == EINVAL)
        fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    struct uffdio_api api = {
        .api = UFFD_API,
        .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED,
    };
    if (ioctl(fd, UFFDIO_API, &api) != 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    return fd;
}

/* Decide the tracking mode once per process (SWIN_TRACK=auto|uffd|msync). */
int swin_track_init(void)
{
    int rc = 0;
    pthread_mutex_lock(&track_lock);
    if (swin_track_mode_used != 0)
        goto out;
    const char *want = getenv("SWIN_TRACK");
    if (want == NULL || *want == '\0')
        want = "auto";
    if (strcmp(want, "msync") == 0) {
        swin_track_mode_used = SWIN_TRACK_MSYNC;
        goto out;
    }
    if (strcmp(want, "auto") != 0 && strcmp(want, "uffd") != 0) {
        rc = -EINVAL;
        goto out;
    }
    int fd = uffd_open();
    int pm = fd >= 0 ? open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0 || pm < 0) {
        int err = fd < 0 ? fd : -errno;
        if (fd >= 0)
            close(fd);
        if (strcmp(want, "uffd") == 0) {
            rc = err;
            goto out;
        }
        swin_log(1,
                 "userfaultfd write-protect tracking unavailable (%s); "
                 "durable syncs msync whole windows",
                 strerror(-err));
        swin_track_mode_used = SWIN_TRACK_MSYNC;
        goto out;
    }
    uffd = fd;
    pagemap_fd = pm;
    swin_track_mode_used = SWIN_TRACK_UFFD;
out:
    pthread_mutex_unlock(&track_lock);
    return rc;
}

static int track_register(void *addr, size_t len)
{
    struct uffdio_register reg = {
        .range = {.start = (uintptr_t)addr, .len = len},
        .mode = UFFDIO_REGISTER_MODE_WP,
    };
    if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0)
        return -errno;
    struct uffdio_writeprotect wp = {
        .range = {.start = (uintptr_t)addr, .len = len},
        .mode = UFFDIO_WRITEPROTECT_MODE_WP,
    };
    if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) != 0) {
        int err = -errno;
        struct uffdio_range r = {.start = (uintptr_t)addr, .len = len};
        (void)ioctl(uffd, UFFDIO_UNREGISTER, &r);
        return err;
    }
    return 0;
}

static void track_unregister(void *addr, size_t len)
{
    struct uffdio_range r = {.start = (uintptr_t)addr, .len = len};
    (void)ioctl(uffd, UFFDIO_UNREGISTER, &r);
}

int swin_map_open(struct swin_map *m, const struct swin_cfg *cfg,
                  struct swin_err *e)
{
    memset(m, 0, sizeof(*m));
    m->fd = -1;
    m->path = strdup(cfg->filename);
    if (m->path == NULL) {
        swin_err_set(e, MPI_ERR_NO_MEM, "out of memory");
        return -1;
    }
    /* O_EXCL tells reliably whether this call created the file (several
     * ranks may open one file at once); only a creator removes it again
     * when the allocation fails. */
    m->fd = open(cfg->filename, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    m->created = m->fd >= 0;
    if (m->fd < 0 && errno == EEXIST)
        m->fd = open(cfg->filename, O_RDWR | O_CLOEXEC);
    if (m->fd < 0) {
        int err = errno;
        swin_err_set(e, swin_errno_class(err),
                     "storage window: cannot open '%s' for reading and "
                     "writing: %s",
                     cfg->filename, strerror(err));
        return -1;
    }
    struct stat sb;
    if (fstat(m->fd, &sb) != 0) {
        int err = errno;
        swin_err_set(e, MPI_ERR_IO, "storage window: fstat '%s': %s",
                     cfg->filename, strerror(err));
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        swin_err_set(e, MPI_ERR_BAD_FILE,
                     "storage window: '%s' is not a regular file",
                     cfg->filename);
        return -1;
    }
    /* An explicit offset past the end of a file that already holds data is
     * almost certainly the wrong file or offset: refuse it rather than
     * silently growing the file with a hole. */
    if (cfg->offset_given && sb.st_size > 0 && cfg->offset > sb.st_size) {
        swin_err_set(e, MPI_ERR_ARG,
                     "storage window: offset %lld lies beyond the end of "
                     "'%s' (%lld bytes)",
                     cfg->offset, cfg->filename, (long long)sb.st_size);
        return -1;
    }
    return 0;
}

/* Let the file cover [0, end): never shrink it, even when other ranks extend
 * the same file concurrently, and reserve the blocks so that a full disk is
 * an error now and not a SIGBUS at the first store. */
static int file_extend(int fd, off_t end)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return -errno;
    if (sb.st_size >= end)
        return 0;
    off_t from = sb.st_size;
    if (fallocate(fd, 0, from, end - from) == 0)
        return 0;
    if (errno != EOPNOTSUPP && errno != ENOSYS)
        return -errno;
    /* ftruncate can shrink: grow only while we are still the largest. */
    if (fstat(fd, &sb) != 0)
        return -errno;
    if (sb.st_size < end && ftruncate(fd, end) != 0)
        return -errno;
    return 0;
}

int swin_map_map(struct swin_map *m, const struct swin_cfg *cfg, size_t len,
                 struct swin_err *e)
{
    long page = sysconf(_SC_PAGESIZE);
    off_t off = (off_t)cfg->offset;
    m->file_off = off - off % page;
    m->delta = (size_t)(off - m->file_off);
    off_t end = off + (off_t)len;
    long long align = cfg->align > page ? cfg->align : page;
    end = (end + align - 1) / align * align;
    int err = file_extend(m->fd, end);
    if (err != 0) {
        swin_err_set(e, swin_errno_class(-err),
                     "storage window: cannot extend '%s' to %lld bytes: %s",
                     m->path, (long long)end, strerror(-err));
        return -1;
    }
    if (len == 0)
        return 0;
    m->len = (m->delta + len + (size_t)page - 1) / (size_t)page * (size_t)page;
    void *p = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd,
                   m->file_off);
    if (p == MAP_FAILED) {
        err = errno;
        m->len = 0;
        swin_err_set(e, err == ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_IO,
                     "storage window: cannot map %zu bytes of '%s': %s", len,
                     m->path, strerror(err));
        return -1;
    }
    m->addr = p;
    /* Order-0 page-cache folios keep writeback at page granularity: with
     * large folios one store dirties (and a sync writes) up to 2 MiB. */
    const char *adv = getenv("SWIN_MADVISE");
    if (adv == NULL || strcmp(adv, "normal") != 0)
        (void)madvise(p, m->len, MADV_RANDOM);
    if (swin_track_mode_used == SWIN_TRACK_UFFD) {
        err = track_register(p, m->len);
        if (err != 0) {
            swin_err_set(e, MPI_ERR_OTHER,
                         "storage window: userfaultfd tracking of '%s' "
                         "failed: %s (set SWIN_TRACK=msync)",
                         m->path, strerror(-err));
            return -1;
        }
        m->tracked = 1;
    }
    return 0;
}

/* Write back [off, off+len) of the file and wait for it. */
static int flush_range_start(int fd, off_t off, off_t len)
{
    if (sync_file_range(fd, off, len, SYNC_FILE_RANGE_WRITE) != 0)
        return -errno;
    return 0;
}

int swin_map_sync(struct swin_map *m)
{
    if (m->addr == NULL)
        return 0;
    double t0 = swin_now();
    uint64_t pages = 0, ranges = 0;
    long page = sysconf(_SC_PAGESIZE);
    int rc = 0;

    if (!m->tracked) {
        if (msync(m->addr, m->len, MS_SYNC) != 0)
            return -errno;
        pages = m->len / (size_t)page;
        ranges = 1;
        goto done;
    }

    struct page_region vec[256];
    uintptr_t start = (uintptr_t)m->addr, end = start + m->len;
    while (start < end) {
        struct pm_scan_arg a = {
            .size = sizeof(a),
            .flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
            .start = start,
            .end = end,
            .vec = (uintptr_t)vec,
            .vec_len = sizeof(vec) / sizeof(vec[0]),
            .category_mask = PAGE_IS_WRITTEN,
            .return_mask = PAGE_IS_WRITTEN,
        };
        long n = ioctl(pagemap_fd, PAGEMAP_SCAN, &a);
        if (n < 0)
            return -errno;
        for (long i = 0; i < n; i++) {
            off_t off =
                m->file_off + (off_t)(vec[i].start - (uintptr_t)m->addr);
            off_t len = (off_t)(vec[i].end - vec[i].start);
            int err = flush_range_start(m->fd, off, len);
            if (err != 0 && rc == 0)
                rc = err;
            pages += (uint64_t)len / (uint64_t)page;
            ranges++;
        }
        if (a.walk_end <= start)
            break;
        start = a.walk_end;
    }
    if (ranges == 0) {
        /* Nothing written since the last sync: no I/O, no system call
         * beyond the scan (MPI_Win_sync in spin loops stays cheap). */
        m->st.durable_syncs++;
        m->st.last_pages = 0;
        m->st.last_sync_seconds = swin_now() - t0;
        return rc;
    }
    /* One fdatasync waits for the writeback started above and commits the
     * block allocation and the device cache. */
    if (fdatasync(m->fd) != 0 && rc == 0)
        rc = -errno;
done:
    m->st.durable_syncs++;
    m->st.pages_flushed += pages;
    m->st.ranges_flushed += ranges;
    m->st.last_pages = pages;
    m->st.last_sync_seconds = swin_now() - t0;
    return rc;
}

void swin_map_close(struct swin_map *m, int do_unlink)
{
    if (m->addr != NULL) {
        if (m->tracked)
            track_unregister(m->addr, m->len);
        munmap(m->addr, m->len);
        m->addr = NULL;
    }
    if (m->fd >= 0) {
        close(m->fd);
        m->fd = -1;
    }
    if (do_unlink && m->path != NULL)
        (void)unlink(m->path);
    free(m->path);
    m->path = NULL;
}
