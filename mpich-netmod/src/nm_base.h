/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_base.h: what the base of libmpideleg (nm_init.c) offers beyond
 * nm_internal.h: the hooks through which the other parts take part in
 * communicator events and progress without the base calling them, and the
 * pieces MPI_Init and MPI_Finalize (nm_mpi.c) put together.
 */
#ifndef NM_BASE_H
#define NM_BASE_H

#include "nm_internal.h"

/* What happens when a delegated communicator is registered (collective over
 * its members; an MPI error class) and when any communicator is forgotten. */
typedef struct {
    int (*created)(nm_comm_t *c);
    void (*forgotten)(nm_comm_t *c);
} nm_comm_events_t;
void nm_comm_events_set(const nm_comm_events_t *ev);
void nm_comm_table_clear(void); /* forget every communicator */

/* The function nm_coll_progress() runs (NULL: nothing). */
typedef void nm_progress_fn(void);
void nm_coll_progress_set(nm_progress_fn *fn);

/* The duplicate of the world the library's own traffic uses; its probe is
 * nm_mpi_progress(). */
extern MPI_Comm nm_setup_comm;

/* Read the layout and the settings; parts_env reads those of the other
 * parts (at the point where the first bad variable must be reported).
 * 0, or -1 with the reason in nm_env_message(). */
int nm_layout_read(int (*parts_env)(void));
const char *nm_env_message(void);
int nm_env_policy(const char *name, dlg_policy_t dflt, dlg_policy_t *out);
int nm_disabled(void); /* MPIDELEG_DISABLE=1 */

#endif
