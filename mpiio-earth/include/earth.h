/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth.h: introspection API of libmpiio-earth, the EARTH collective MPI-IO
 * library.
 *
 * The library needs no API of its own: linked into an MPICH program, or put
 * in LD_PRELOAD, it takes over MPI_File_write_all, MPI_File_read_all, the
 * _at_all, split (_begin/_end) and nonblocking (MPI_File_iwrite_all, ...)
 * forms, and hands every other MPI-IO call to ROMIO through PMPI.  These
 * functions only let programs and benchmarks see what it did.
 *
 * Environment: see mpiio-earth/README.md (EARTH_REQ, EARTH_STEPS,
 * EARTH_AGGR_LAYOUT, EARTH_DISABLE, EARTH_ASYNC, EARTH_BOARD_SIZE, EARTH_FSEMU_*;
 * logging: PVAS_LOG=earth:LEVEL, or the deprecated EARTH_LOG).
 *
 * Thread safety: like MPI-IO itself; call for a file handle only from the
 * thread that uses that handle.
 */
#ifndef EARTH_H
#define EARTH_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EARTH_EXPORT __attribute__((visibility("default")))

/** Counters of one file handle, local to the calling rank. */
struct earth_stats {
    uint64_t coll_calls;    /**< collective calls EARTH carried out */
    uint64_t fallbacks;     /**< collective calls handed to ROMIO */
    uint64_t steps;         /**< pipeline steps run as aggregator */
    uint64_t file_reqs;     /**< file requests issued as aggregator */
    uint64_t max_reqs_step; /**< most file requests in one step */
    uint64_t max_inflight;  /**< most requests in flight at one time */
    uint64_t bytes;         /**< bytes written or read as aggregator */
    int32_t naggr;          /**< number of aggregators of the file */
    int32_t is_aggr;        /**< 1 when this rank is an aggregator */
};

/**
 * @brief Copy the counters of an open file into *st.
 * @param fh  a file opened while the library was active
 * @param st  receives the counters
 * @return MPI_SUCCESS; MPI_ERR_FILE when fh is not known to EARTH (opened
 *         through PMPI directly, or closed); MPI_ERR_ARG when st is NULL.
 */
EARTH_EXPORT int earth_file_stats(MPI_File fh, struct earth_stats *st);

/**
 * @brief Zero the counters of an open file (naggr/is_aggr are kept).
 * @return MPI_SUCCESS or MPI_ERR_FILE as earth_file_stats().
 */
EARTH_EXPORT int earth_file_stats_reset(MPI_File fh);

/**
 * @brief Aggregator ranks of an open file, in the order domains are dealt.
 * @param fh    file handle
 * @param ranks array of at least n entries, receives ranks in the file's
 *              communicator
 * @param n     capacity of ranks
 * @return number of aggregators (may exceed n; only n are stored), or
 *         -MPI_ERR_FILE when fh is unknown.
 */
EARTH_EXPORT int earth_file_aggregators(MPI_File fh, int *ranks, int n);

/** Counters of the contention model (EARTH_FSEMU=1), machine-wide. */
struct earth_fsemu_stats {
    uint64_t requests; /**< server requests issued by all processes */
    int32_t max_load;  /**< most requests in flight on one server */
    int32_t servers;   /**< emulated servers */
    int32_t on;        /**< 1 when the model is active */
};

/**
 * @brief Read (and optionally zero) the contention model's counters.
 * @param st    receives the counters (zeroed, on = 0, when the model is off)
 * @param reset non-zero: zero requests and max_load after reading; not
 *              atomic with respect to other processes' requests, so call
 *              it between timed phases (after a barrier)
 * @return 0, or -1 when the model is off.
 */
EARTH_EXPORT int earth_fsemu_stats(struct earth_fsemu_stats *st, int reset);

/**
 * @brief The message of the last hint rejected in this process, e.g.
 *        "hint earth_req='abc': expected an integer 0..1024 or 'unlimited'"
 *        (MPI_File_open, MPI_File_set_view and MPI_File_set_info return
 *        MPI_ERR_INFO_VALUE or MPI_ERR_INFO_KEY for such a hint).
 * @return a NUL-terminated string, empty if none; valid until the next
 *         rejected hint.
 */
EARTH_EXPORT const char *earth_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* EARTH_H */
