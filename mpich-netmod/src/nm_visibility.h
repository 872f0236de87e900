/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_visibility.h: included first into every file of libmpideleg (-include,
 * see Makefile.mk).  The library is built with -fvisibility=hidden; mpi.h's
 * declarations are made here with default visibility, so the MPI and PMPI
 * functions the library defines (the ones it interposes) are exported and
 * its own nm_* functions are not.  Its public API (mpideleg.h) says so on
 * each declaration.
 */
#ifndef NM_VISIBILITY_H
#define NM_VISIBILITY_H

#pragma GCC visibility push(default)
#include <mpi.h>
#pragma GCC visibility pop

#endif /* NM_VISIBILITY_H */
