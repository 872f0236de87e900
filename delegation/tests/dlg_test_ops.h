/* SPDX-License-Identifier: BSD-2-Clause */
/* dlg_test_ops.h: handlers shared by the delegation tests. */
#ifndef DLG_TEST_OPS_H
#define DLG_TEST_OPS_H

#include "deleg.h"

#include <stdint.h>
#include <string.h>

enum { OP_ECHO = 1, OP_CSUM = 2, OP_FILL = 3, OP_PTR = 4, OP_RECORD = 5 };

/* Checksum that depends on every byte and its position. */
static inline uint64_t t_csum(const uint8_t *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static inline void t_pattern(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 31 + seed * 7 + (i >> 8));
}

/* Sum of the arguments plus the length; replies with the payload's head. */
static inline int64_t op_echo(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    int64_t s = (int64_t)dlg_req_len(req);
    for (unsigned i = 0; i < dlg_req_nargs(req); i++)
        s += (int64_t)dlg_req_args(req)[i];
    uint8_t head[DLG_REPLY_MAX];
    size_t n =
        dlg_req_len(req) < sizeof(head) ? dlg_req_len(req) : sizeof(head);
    int rc = dlg_req_read(req, 0, head, n);
    if (rc)
        return rc;
    rc = dlg_req_reply(req, head, n);
    return rc ? rc : s;
}

/* Checksum of the buffer, read in chunks through dlg_req_read (any mode). */
static inline int64_t op_csum(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    uint8_t chunk[4096];
    uint64_t h = 14695981039346656037ull;
    size_t len = dlg_req_len(req);
    for (size_t off = 0; off < len; off += sizeof(chunk)) {
        size_t n = len - off < sizeof(chunk) ? len - off : sizeof(chunk);
        int rc = dlg_req_read(req, off, chunk, n);
        if (rc)
            return rc;
        h = t_csum(chunk, n, h);
    }
    return (int64_t)(h >> 1);
}

/* Write the pattern with seed args[0] into the buffer. */
static inline int64_t op_fill(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    uint8_t chunk[4096];
    size_t len = dlg_req_len(req);
    unsigned seed = dlg_req_nargs(req) ? (unsigned)dlg_req_args(req)[0] : 0;
    for (size_t off = 0; off < len; off += sizeof(chunk)) {
        size_t n = len - off < sizeof(chunk) ? len - off : sizeof(chunk);
        for (size_t i = 0; i < n; i++) {
            size_t j = off + i;
            chunk[i] = (uint8_t)(j * 31 + seed * 7 + (j >> 8));
        }
        int rc = dlg_req_write(req, off, chunk, n);
        if (rc)
            return rc;
    }
    return (int64_t)len;
}

static inline int64_t op_ptr(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    return (int64_t)(intptr_t)dlg_req_ptr(req);
}

static inline uint64_t t_csum_full(const uint8_t *p, size_t n)
{
    return t_csum(p, n, 14695981039346656037ull) >> 1;
}

#endif
