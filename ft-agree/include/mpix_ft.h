/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mpix_ft.h: the ULFM interface offered by libftagree to MPI programs.
 *
 * Link a program with -lftagree before the MPI library (or LD_PRELOAD
 * libftagree.so): it interposes MPI_Init*, MPI_Finalize, the communicator
 * constructors and the communication and completion calls listed in
 * ftagree(7) through the PMPI profiling interface, runs its own failure
 * detector and its own agreement and revoke, and implements the calls
 * below.  MPICH's own ULFM calls abort in this MPICH build; these
 * definitions replace them with compatible prototypes.
 *
 * Error classes: MPIX_ERR_PROC_FAILED and MPIX_ERR_REVOKED are MPICH's own
 * classes (101 and 103 in MPICH 4.0), returned (through the communicator's
 * error handler) by calls that involve a failed peer or a revoked
 * communicator; use MPI_ERRORS_RETURN to see them.
 *
 * Thread safety: call from one thread at a time (MPI_THREAD_SERIALIZED at
 * most).  Environment: see ftagree(7) (FTA_FD_TRANSPORT, FTA_FD_OBSERVERS,
 * FTA_FD_PERIOD_MS, FTA_FD_TIMEOUT_MS,
 * FTA_FD_ADDR, FTA_ARITY, FTA_FAST_MAX, FTA_FAULT_SEND; logging:
 * PVAS_LOG=ftagree:debug, or the deprecated FTA_LOG).
 */
#ifndef MPIX_FT_H
#define MPIX_FT_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MPIX_ERR_PROC_FAILED
#define MPIX_ERR_PROC_FAILED 101
#endif
#ifndef MPIX_ERR_REVOKED
#define MPIX_ERR_REVOKED 103
#endif

/* Already declared by MPICH's mpi.h (same prototypes): MPIX_Comm_revoke,
 * MPIX_Comm_shrink, MPIX_Comm_agree, MPIX_Comm_failure_ack,
 * MPIX_Comm_failure_get_acked. */

/* Nonblocking agreement; complete with MPI_Wait/MPI_Test. *flag is
 * written on completion; the request's status carries the error. */
int MPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request);
/* *flag = 1 when comm was revoked (locally or by any member). */
int MPIX_Comm_is_revoked(MPI_Comm comm, int *flag);
/* Group of the members of comm known failed here, in detection order. */
int MPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failed_group);
/* Acknowledge the first num_to_ack failures of MPIX_Comm_get_failed;
 * *num_acked receives the number acknowledged in total. */
int MPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked);

/* ft-agree extension: CLOCK_REALTIME seconds at which this process
 * declared world rank r failed (0 if it did not). */
int FTA_Failure_time(int world_rank, double *when);
/* ft-agree extension, for tests: this process kills itself (SIGKILL) when
 * it sends its n-th protocol message from now on (n >= 1; like
 * FTA_FAULT_SEND).  Returns MPI_SUCCESS or MPI_ERR_ARG. */
int FTA_Test_kill_at_send(long n);
/* ft-agree extension, for benchmarks: this process's failure-detector
 * traffic so far: counts[0] heartbeats, [1] failure notices, [2] failed-set
 * exchanges, [3] other messages (goodbyes) sent, [4] heartbeat periods
 * elapsed; the transport's name ("udp", "fabric:PROVIDER") to transport
 * (len bytes, may be NULL).  MPI_ERR_ARG before MPI_Init. */
int FTA_Detector_stats(unsigned long long counts[5], char *transport, int len);

#ifdef __cplusplus
}
#endif
#endif /* MPIX_FT_H */
