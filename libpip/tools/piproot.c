/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * piproot.c: libpiproot.a, the static TLS reserve `pipcc --piproot` links
 * into a root executable.
 *
 * Tasks built as plain PIE programs reach their __thread variables at a
 * fixed offset from the thread pointer, which libpip maps onto the root
 * executable's own TLS block (see pip.h, THREAD-LOCAL STORAGE).  This
 * object gives the root a block of PIP_TOOLS_TLS_RESERVE bytes (as
 * pip-exec has), with the same PIP_ROOT_TLS_RESERVE mechanism a root's
 * source can use directly.  pipcc pulls it in with
 * -Wl,--undefined=pip_root_tls_reserve_bytes.
 */
#include <pip/pip.h>

#include <stddef.h>

#include "pip_tools.h"

PIP_ROOT_TLS_RESERVE(PIP_TOOLS_TLS_RESERVE);

/* The symbol pipcc asks the linker for; also tells the reserve's size. */
extern const size_t pip_root_tls_reserve_bytes;
__attribute__((visibility("hidden"), used))
const size_t pip_root_tls_reserve_bytes = PIP_TOOLS_TLS_RESERVE;
