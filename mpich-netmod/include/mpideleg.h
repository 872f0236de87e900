/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mpideleg.h: query interface of libmpideleg, the MPI delegation shim.
 *
 * libmpideleg needs no source changes: load it with
 * LD_PRELOAD=libmpideleg.so or link it before -lmpich.  The layout comes
 * from the environment (read in MPI_Init; bad values abort the job with a
 * one-line message):
 *   MPIDELEG_BOARD_SIZE            client ranks per board (default 1)
 *   MPIDELEG_BOARDS_PER_DELEGATEE  boards served by one delegatee (1)
 *   MPIDELEG_DISABLE               1: pass everything to MPICH
 *   MPIDELEG_POLICY_BLOCKING       poll|block|adaptive for blocking calls
 *   MPIDELEG_POLICY_NONBLOCKING    the same for MPI_Wait on delegated requests
 *   MPIDELEG_DELEGATEE_IDLE        poll|adaptive idle loop of the delegatee
 *   MPIDELEG_DEBUG                 1: diagnostics on stderr (deprecated:
 *                                  PVAS_LOG=mpideleg:debug)
 * See mpich-netmod/README.md for the rank layout.
 *
 * Thread safety: the shim supports MPI_THREAD_FUNNELED at most.
 */
#ifndef MPIDELEG_H
#define MPIDELEG_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIDELEG_VERSION 1

/**
 * Tell whether point-to-point calls on `comm` go through the delegatees.
 * @param comm  any communicator (MPI_COMM_WORLD means the clients' world).
 * @param flag  1: delegated (its members sit on more than one board);
 *              0: straight to MPICH.
 * @return MPI_SUCCESS, or MPI_ERR_ARG when flag is NULL.
 * Programs that must also run without the shim can look the symbol up with
 * dlsym(RTLD_DEFAULT, "mpideleg_comm_delegated").
 */
int mpideleg_comm_delegated(MPI_Comm comm, int *flag)
    __attribute__((visibility("default")));

#ifdef __cplusplus
}
#endif
#endif /* MPIDELEG_H */
