/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * storage_win.h: MPI storage windows and persistent coarrays.
 *
 * libmpi-storagewin is a PMPI interposition library (use it with LD_PRELOAD
 * or link it before libmpich).  It changes nothing for ordinary windows.  A
 * window allocated with MPI_Win_allocate or MPI_Win_allocate_shared whose
 * info carries alloc_type=storage is mapped (MAP_SHARED) onto a file; MPICH
 * sees plain memory, so every one-sided operation and synchronisation call
 * keeps working.  MPI_Win_sync and MPI_Win_free additionally make the pages
 * that changed since the previous durable sync durable in the file.
 *
 * Info keys (each also accepted with the swin_ spelling given in brackets):
 *   alloc_type               "storage" or "memory"          [swin_alloc_type]
 *   storage_alloc_filename   path of the backing file        [swin_filename]
 *   storage_alloc_offset     byte offset in the file (>= 0)  [swin_offset]
 *   storage_alloc_unlink     "true": remove the file at free [swin_unlink]
 *   storage_alloc_discard    "true": no durable sync at free [swin_discard]
 *   storage_sync_interval_ms minimum interval between durable syncs
 *                            triggered by MPI_Win_sync [swin_sync_interval_ms]
 *   striping_unit, striping_factor: accepted and validated; they only
 *                            matter on striped parallel file systems.
 *
 * Persistent coarrays: with PCAF_ENABLED=true every MPI_Win_allocate that
 * does not itself ask for storage (OpenCoarrays' coarrays) becomes a storage
 * window configured by PCAF_PATH, PCAF_PREFIX, PCAF_SHAREDFILE, PCAF_UNLINK,
 * PCAF_SYNCFREQ, PCAF_SEGSIZE, PCAF_STRIPESIZE and PCAF_STRIPECOUNT; see
 * storage-win/README.md for their meaning and for SWIN_* variables.
 *
 * Errors of the MPI calls: bad info values give MPI_ERR_INFO_VALUE, a
 * missing file name MPI_ERR_INFO_NOKEY, an unwritable path MPI_ERR_ACCESS,
 * a missing directory MPI_ERR_NO_SUCH_FILE, no space MPI_ERR_NO_SPACE, an
 * offset beyond the end of an existing file MPI_ERR_ARG, other I/O failures
 * MPI_ERR_IO.  The error code carries a one-line message (MPI_Error_string)
 * and is raised through the communicator's error handler.
 *
 * The C functions below are for tests, benchmarks and tools.  They return 0
 * or a negative errno value (swin_strerror() describes it).  Thread safety:
 * the library serialises its own bookkeeping with a mutex; the MPI calls
 * follow the thread level MPI was initialised with.
 */
#ifndef STORAGE_WIN_H
#define STORAGE_WIN_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SWIN_API __attribute__((visibility("default")))
#else
#define SWIN_API
#endif

/* Counters of one storage window (or of the whole process). */
typedef struct swin_stats {
    uint64_t durable_syncs;   /**< durable syncs performed */
    uint64_t skipped_syncs;   /**< durable syncs skipped by the rate limit */
    uint64_t pages_flushed;   /**< pages written back by durable syncs */
    uint64_t ranges_flushed;  /**< contiguous dirty ranges written back */
    uint64_t last_pages;      /**< pages written back by the latest sync */
    double last_sync_seconds; /**< duration of the latest durable sync */
} swin_stats_t;

/* How changed pages are found. */
enum swin_track_mode {
    SWIN_TRACK_UFFD = 1, /**< userfaultfd write-protect + PAGEMAP_SCAN */
    SWIN_TRACK_MSYNC = 2 /**< no tracking: msync(MS_SYNC) of the window */
};

/**
 * @brief Is @p win a storage window made by this library?
 * @return 1 if it is, 0 if not (also for MPI_WIN_NULL).
 */
SWIN_API int swin_win_is_storage(MPI_Win win);

/**
 * @brief Counters of the storage window @p win.
 * @param win  a storage window
 * @param st   receives the counters
 * @return 0, or -EINVAL if @p win is not a storage window or @p st is NULL.
 */
SWIN_API int swin_win_get_stats(MPI_Win win, swin_stats_t *st);

/**
 * @brief Sum of the counters of every storage window this process has had,
 *        including freed ones.
 * @return 0, or -EINVAL if @p st is NULL.
 */
SWIN_API int swin_get_process_stats(swin_stats_t *st);

/**
 * @brief Make the changed pages of @p win durable now, ignoring the rate
 *        limit (MPI_Win_sync does this subject to the rate limit).
 * @return 0, -EINVAL if @p win is not a storage window, or the negative errno
 *         of the failing system call.
 */
SWIN_API int swin_win_sync_durable(MPI_Win win);

/**
 * @brief The dirty-tracking mode storage windows of this process use
 *        (decided at the first storage allocation; SWIN_TRACK).
 * @return an enum swin_track_mode value, or 0 before the first allocation.
 */
SWIN_API int swin_track_mode(void);

/** @brief One-line description of a negative errno value of this API. */
SWIN_API const char *swin_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* STORAGE_WIN_H */
