/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_tools.h: what the PiP tools share.
 */
#ifndef PIP_TOOLS_H
#define PIP_TOOLS_H

/*
 * The static TLS reserve of a root: pip-exec's, and what `pipcc --piproot`
 * links in (libpiproot.a).  Tasks whose __thread data needs more cannot run
 * under such a root; pip-check compares against it.
 */
#define PIP_TOOLS_TLS_RESERVE (64 * 1024)

#endif /* PIP_TOOLS_H */
