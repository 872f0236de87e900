/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swin_pattern.h: the byte patterns the storage tests write and check.
 * Shared by the MPI helper (writer) and the test driver (independent
 * reader of the files).
 */
#ifndef SWIN_PATTERN_H
#define SWIN_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/* Byte i of the pattern `tag` written by rank `rank`; never 0 so that an
 * unwritten (zero) byte is always told apart. */
static inline uint8_t swin_pat(int tag, int rank, size_t i)
{
    uint8_t v = (uint8_t)(tag * 31 + rank * 7 + (int)(i * 13) + (int)(i >> 8));
    return v == 0 ? 1 : v;
}

/* Layout constants of the scenarios. */
#define SWIN_T_LOCAL_PAGES     4  /* local: window of 3 pages + 100 bytes */
#define SWIN_T_PUT_PAGES       16 /* put: window pages per rank */
#define SWIN_T_PUT_DISP(ps)    (5 * (ps) + 17)
#define SWIN_T_PUT_LEN(ps)     (2 * (ps))
#define SWIN_T_STRIDE_DISP(ps) (10 * (ps))
#define SWIN_T_STRIDE_COUNT    8
#define SWIN_T_STRIDE_STEP     1024 /* bytes between strided ints */
#define SWIN_T_SF_OFF(r, ps)   ((r)*2 * (ps) + 100)
#define SWIN_T_SF_LEN(ps)      ((ps) + 50)
#define SWIN_T_SF2_OFF(r)      (29000 + (r)*64)
#define SWIN_T_SF2_LEN         10
#define SWIN_T_SHM_OFF         4096
#define SWIN_T_SHM_LEN(r, ps)  ((ps) + (r)*10)

#endif /* SWIN_PATTERN_H */
