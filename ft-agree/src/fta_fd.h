/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_fd.h: the failure detector: ring observation with heartbeats and
 * timeouts, failure notices spread by reliable broadcast over a binomial
 * graph, run by a thread of its own, over libfabric or UDP.
 *
 * Every live rank sends a heartbeat each period to its observers, the
 * `observers` live ranks before it in the ring (by rank, wrapping round),
 * so each rank sends and receives `observers` heartbeats per period
 * whatever the number of ranks.  An observer declares an observed rank
 * dead when nothing came from it for (timeout - period), or at once when
 * it runs on the same host and /proc shows its process gone; when an
 * observed rank dies (or leaves cleanly) its observer adopts the next live
 * rank, with a fresh grace period.  A declaration is forwarded, by every
 * rank that learns it, to its neighbours in the binomial graph of the live
 * ranks (the revoke's graph, fta_bmg_targets), and again to new neighbours
 * when failures change the graph; heartbeats carry a digest of the sender's
 * failed set, and an observer whose digest differs exchanges its list with
 * the sender, so a lost notice is repaired within a period.  Reports are
 * trusted: a process told it is dead terminates (fail-stop).  An observer
 * that was itself stalled and heard nobody meanwhile gives its observed
 * ranks a fresh grace period instead of blaming them.
 */
#ifndef FTA_FD_H
#define FTA_FD_H

#include <stdint.h>

typedef struct fta_fd fta_fd_t;

#define FTA_FD_NAME_MAX 112

typedef struct fta_fd_addr {
    int32_t pid; /* the process, for the local liveness check */
    uint32_t namelen;
    uint64_t start; /* its start time (/proc/PID/stat, clock ticks) */
    uint64_t host;  /* boot and PID namespace it runs in; 0: unknown */
    unsigned char name[FTA_FD_NAME_MAX]; /* transport address */
} fta_fd_addr_t;

/* Transports. */
enum { FTA_FD_UDP = 0, FTA_FD_FABRIC = 1 };

typedef struct fta_fd_cfg {
    int rank, size;
    uint64_t nonce;
    double period, timeout; /* seconds */
    int observers;          /* observers per rank (1..1024) */
    int transport;          /* FTA_FD_UDP or FTA_FD_FABRIC */
    int use_proc;           /* the local /proc check */
    const char *udp_addr;   /* IPv4 address to bind (UDP) */
} fta_fd_cfg_t;

/* Detector traffic counters (this rank). */
typedef struct fta_fd_stats {
    uint64_t hb_sent, notice_sent, sync_sent, other_sent;
    uint64_t periods; /* heartbeat periods elapsed */
} fta_fd_stats_t;

/* Open the transport for rank of size; *self receives its address.
 * On failure returns -errno and puts a one-line reason in why. */
int fta_fd_create(const fta_fd_cfg_t *cfg, fta_fd_t **out, fta_fd_addr_t *self,
                  char *why, size_t whylen);
/* Peers' addresses (size entries), then start the thread. */
int fta_fd_start(fta_fd_t *fd, const fta_fd_addr_t *peers);
/* Tell the ring neighbours we leave cleanly, stop the thread, free. */
void fta_fd_stop(fta_fd_t *fd, int say_bye);
/* Increments whenever a process is newly declared dead. */
uint64_t fta_fd_generation(const fta_fd_t *fd);
int fta_fd_is_dead(const fta_fd_t *fd, int rank);
/* CLOCK_REALTIME seconds when rank was declared dead here, or 0. */
double fta_fd_detect_time(const fta_fd_t *fd, int rank);
/* Declare rank dead (for the MPI layer's own evidence). */
void fta_fd_declare(fta_fd_t *fd, int rank);
void fta_fd_get_stats(const fta_fd_t *fd, fta_fd_stats_t *st);
/* The transport in use: "udp" or "fabric:<provider>". */
const char *fta_fd_transport_name(const fta_fd_t *fd);
/* Whether this build has the libfabric transport. */
int fta_fd_have_fabric(void);

#endif /* FTA_FD_H */
