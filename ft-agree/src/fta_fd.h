/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_fd.h: the failure detector: heartbeats over UDP with timeouts,
 * run by a thread of its own.
 *
 * Every process sends a heartbeat datagram to every other process each
 * period and declares a process dead when nothing came from it for
 * (timeout - period): a process killed right after a heartbeat is declared
 * within the timeout.  A declaration is sent to every other process, which
 * adopts it (failure reports are trusted, so all processes converge on the
 * same failed set); a process told it is dead terminates (fail-stop).  An
 * observer that was itself stalled (stopped, descheduled) for long gives
 * everybody a fresh grace period instead of blaming them.
 */
#ifndef FTA_FD_H
#define FTA_FD_H

#include <netinet/in.h>
#include <stdint.h>

typedef struct fta_fd fta_fd_t;

typedef struct fta_fd_addr {
    uint32_t ip;   /* network order */
    uint16_t port; /* network order */
    uint16_t pad;
    int32_t pid; /* the process, for the local liveness check */
    uint32_t pad2;
    uint64_t start; /* its start time (/proc/PID/stat, clock ticks) */
    uint64_t host;  /* boot and PID namespace it runs in; 0: unknown */
} fta_fd_addr_t;

/* Bind a socket for rank of size; *self receives its address. */
int fta_fd_create(int rank, int size, uint64_t nonce, double period_s,
                  double timeout_s, fta_fd_t **out, fta_fd_addr_t *self);
/* Peers' addresses (size entries), then start the thread. */
int fta_fd_start(fta_fd_t *fd, const fta_fd_addr_t *peers);
/* Tell everybody we leave cleanly, stop the thread, free. */
void fta_fd_stop(fta_fd_t *fd, int say_bye);
/* Increments whenever a process is newly declared dead. */
uint64_t fta_fd_generation(const fta_fd_t *fd);
int fta_fd_is_dead(const fta_fd_t *fd, int rank);
/* CLOCK_REALTIME seconds when rank was declared dead here, or 0. */
double fta_fd_detect_time(const fta_fd_t *fd, int rank);
/* Declare rank dead (for the MPI layer's own evidence). */
void fta_fd_declare(fta_fd_t *fd, int rank);

#endif /* FTA_FD_H */
