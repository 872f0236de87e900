/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_standin.h: the stand-in protocol of the PiP form, shared by
 * mpideleg-pip (tools/mpideleg_pip.c) and the preloaded form
 * (MPIDELEG_FORM=pip, nm_form.c).  The first rank of a delegatee group
 * runs every rank of the group as a PiP task; each other rank's process
 * stays as a stand-in towards the launcher: it connects to the root's
 * group socket (abstract namespace), says its rank, and exits with the
 * status of its task when the root writes it (an int32 wait status).
 */
#ifndef NM_STANDIN_H
#define NM_STANDIN_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

/* Monotonic seconds. */
double nm_si_now(void);

/* The abstract socket "mpideleg:KEY:G" of group g of the job KEY names. */
socklen_t nm_si_addr(struct sockaddr_un *a, const char *key, long g);

/* Connect to it, retrying every 10 ms for up to `timeout` seconds: the
 * connected descriptor (close-on-exec), or -1. */
int nm_si_connect(const struct sockaddr_un *a, socklen_t len, double timeout);

/* Wait for the root's word on this rank's task: the exit code a process
 * would have had; a task killed by a signal ends the caller by the same
 * signal (no core), as the process would have ended (128 + signal if that
 * signal does not end it); 1 with a line on stderr when the root ended
 * without a word. */
int nm_si_wait(int fd, long rank, const char *me);

/* A wait status as a process exit code. */
int nm_si_code(int st);

/* Write a task's wait status to its stand-in; 0 or -1. */
int nm_si_tell(int fd, int32_t st);

/* The launcher's process of this node for this job (hydra_pmi_proxy, the
 * nearest such ancestor), or the parent. */
pid_t nm_si_job_pid(void);

/* Are the ranks first..last-1 of the job KEY all on this node?  (rank,
 * size: this rank and the job's size; nlocal, lid: hydra's
 * MPI_LOCALNRANKS and MPI_LOCALRANKID.)  Marks this rank present. */
int nm_si_group_is_local(const char *key, long rank, long size, long nlocal,
                         long lid, long first, long last);

#endif
