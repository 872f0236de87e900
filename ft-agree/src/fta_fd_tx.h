/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_fd_tx.h: the failure detector's transports (fta_fd_tx.c): a
 * libfabric reliable-datagram endpoint or UDP sockets, messages of up to
 * FD_MSG_MAX bytes to ranks 0..size-1.  Used by fta_fd.c only.
 */
#ifndef FTA_FD_TX_H
#define FTA_FD_TX_H

#include <stddef.h>
#include "fta_fd.h"

#define FD_MSG_MAX 1024

typedef struct fd_tx fd_tx_t;

/* A received message (len bytes, arrived at `at`, monotonic seconds);
 * returns 1 when it came from a live peer, else 0. */
typedef int (*fd_rx_fn)(void *ctx, const void *buf, size_t len, double at);

/* Open a transport (FTA_FD_FABRIC or FTA_FD_UDP) for size ranks; *self
 * receives its address.  On failure -errno and a one-line reason. */
int fd_tx_open(int kind, int size, double period, const char *udp_addr,
               fta_fd_addr_t *self, fd_tx_t **out, char *why, size_t wl);
/* The peers' addresses (size entries). */
int fd_tx_connect(fd_tx_t *t, const fta_fd_addr_t *peers);
/* Send (never blocks; a failure is a lost message). */
void fd_tx_send(fd_tx_t *t, int to, const void *buf, size_t len);
/* Every message that arrived to fn; returns how many fn counted after
 * `since` (UDP: kernel arrival time), or -1 when the transport dropped
 * some. */
int fd_tx_drain(fd_tx_t *t, double since, fd_rx_fn fn, void *ctx);
/* Sleep until something may have arrived, at most ms. */
void fd_tx_wait(fd_tx_t *t, int ms);
/* Let the sends in progress leave. */
void fd_tx_flush(fd_tx_t *t);
/* A dead rank's leftovers of the transport (shm regions). */
void fd_tx_forget(fd_tx_t *t, const fta_fd_addr_t *a);
const char *fd_tx_name(const fd_tx_t *t);
/* 1: messages of live peers are not lost (libfabric RDM). */
int fd_tx_reliable(const fd_tx_t *t);
void fd_tx_close(fd_tx_t *t);
double fd_now_mono(void);
double fd_now_real(void);

#endif /* FTA_FD_TX_H */
