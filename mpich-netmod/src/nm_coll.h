/* SPDX-License-Identifier: BSD-2-Clause */
/* nm_coll.h: the collectives' entry points that MPI_Init registers. */
#ifndef NM_COLL_H
#define NM_COLL_H

void nm_coll_run(void); /* move running nonblocking collectives */

#endif
