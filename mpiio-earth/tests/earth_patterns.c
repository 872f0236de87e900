/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_patterns: the correctness suite of EARTH against ROMIO.
 *
 * Every access pattern is run twice: on a file opened with PMPI_File_open
 * (unknown to the library, so every call goes to ROMIO) and on a file
 * opened with MPI_File_open (EARTH).  The two files must be byte-identical;
 * then both are read back, through ROMIO and EARTH respectively, and every
 * rank's transcript (read data, MPI_Get_count / MPI_Get_elements results,
 * file positions, error classes) must be identical.  EARTH must really
 * have carried out the calls (its counters), except in the patterns where
 * it must hand them to ROMIO (atomic mode, external32).
 *
 * ROMIO writes whatever its collective buffer held into holes past the end
 * of the file (uninitialised memory; EARTH writes zeros there), so the
 * patterns that leave holes first get the file prefilled with PREFILL bytes
 * of known data, which both must then preserve (read-modify-write).
 *
 * usage: earth_patterns [-c CONFIGS] [PATTERN...]
 *   CONFIGS: hint sets to run, as digits ("02"); default all.
 *   PATTERN: default all.  Exit 0 = all passed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "earth.h"

#define PREFILL 65536

static int me, np;

static void prefill(MPI_File fh)
{
    if (me == 0) {
        char *p = malloc(PREFILL);
        MPI_Status st;
        for (int i = 0; i < PREFILL; i++)
            p[i] = (char)(0xC0 + i % 61);
        if (!p || MPI_File_write_at(fh, 0, p, PREFILL, MPI_BYTE, &st))
            MPI_Abort(MPI_COMM_WORLD, 99);
        free(p);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- transcript ---- */
typedef struct {
    unsigned char *b;
    size_t n, cap;
} tr_t;

static void rec(tr_t *t, const void *p, size_t n)
{
    if (t->n + n > t->cap) {
        t->cap = (t->n + n) * 2 + 256;
        t->b = realloc(t->b, t->cap);
        if (!t->b)
            MPI_Abort(MPI_COMM_WORLD, 99);
    }
    memcpy(t->b + t->n, p, n);
    t->n += n;
}

static void rec_int(tr_t *t, long long v)
{
    rec(t, &v, sizeof(v));
}

static void rec_status(tr_t *t, MPI_Status *st, MPI_Datatype type)
{
    int c, e;
    MPI_Get_count(st, type, &c);
    MPI_Get_elements(st, type, &e);
    rec_int(t, c);
    rec_int(t, e);
}

static void rec_pos(tr_t *t, MPI_File fh)
{
    MPI_Offset o;
    MPI_File_get_position(fh, &o);
    rec_int(t, o);
}

static void rec_rc(tr_t *t, int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    rec_int(t, cls);
}

static void fill(void *p, size_t n, int seed)
{
    unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        c[i] = (unsigned char)(1 + (me * 131 + (int)i * 7 + seed * 13) % 251);
}

/* ---- patterns: phase 0 writes, phase 1 reads back (file read-only) ---- */
typedef void (*pat_fn)(MPI_File fh, int phase, tr_t *t);

#define CHECK(x)                                                               \
    do {                                                                       \
        int rc_ = (x);                                                         \
        rec_rc(t, rc_);                                                        \
    } while (0)

/* write (phase 0) or read (phase 1) `count` of `type` through the
 * individual pointer, recording status and position */
static void rw_all(MPI_File fh, int phase, tr_t *t, void *buf, int count,
                   MPI_Datatype type, size_t bytes)
{
    MPI_Status st;
    if (phase == 0) {
        CHECK(MPI_File_write_all(fh, buf, count, type, &st));
    } else {
        memset(buf, 0xA5, bytes);
        CHECK(MPI_File_read_all(fh, buf, count, type, &st));
        rec(t, buf, bytes);
    }
    rec_status(t, &st, type);
    rec_pos(t, fh);
}

static void rw_at_all(MPI_File fh, int phase, tr_t *t, MPI_Offset off,
                      void *buf, int count, MPI_Datatype type, size_t bytes)
{
    MPI_Status st;
    if (phase == 0) {
        CHECK(MPI_File_write_at_all(fh, off, buf, count, type, &st));
    } else {
        memset(buf, 0xA5, bytes);
        CHECK(MPI_File_read_at_all(fh, off, buf, count, type, &st));
        rec(t, buf, bytes);
    }
    rec_status(t, &st, type);
    rec_pos(t, fh);
}

static void p_contig_at(MPI_File fh, int phase, tr_t *t)
{
    char buf[1000];
    fill(buf, sizeof(buf), 1);
    rw_at_all(fh, phase, t, (MPI_Offset)me * 1000, buf, 1000, MPI_BYTE,
              sizeof(buf));
}

static void p_view_int(MPI_File fh, int phase, tr_t *t)
{
    int buf[250];
    fill(buf, sizeof(buf), 2);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)me * 1000, MPI_INT, MPI_INT,
                            "native", MPI_INFO_NULL));
    rw_all(fh, phase, t, buf, 250, MPI_INT, sizeof(buf));
}

static void p_vector(MPI_File fh, int phase, tr_t *t)
{
    int buf[150];
    MPI_Datatype ft;
    fill(buf, sizeof(buf), 3);
    MPI_Type_vector(50, 3, 3 * np, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)me * 12, MPI_INT, ft, "native",
                            MPI_INFO_NULL));
    rw_all(fh, phase, t, buf, 150, MPI_INT, sizeof(buf));
    MPI_Type_free(&ft);
}

/* contiguous blocks tiled by a resized filetype, two calls */
static void p_vector_tiled(MPI_File fh, int phase, tr_t *t)
{
    int buf[120];
    MPI_Datatype c, ft;
    fill(buf, sizeof(buf), 4);
    MPI_Type_contiguous(5, MPI_INT, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)5 * 4 * np, &ft);
    MPI_Type_commit(&ft);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)me * 20, MPI_INT, ft, "native",
                            MPI_INFO_NULL));
    rw_all(fh, phase, t, buf, 47, MPI_INT, 47 * 4);
    rw_all(fh, phase, t, buf + 47, 73, MPI_INT, 73 * 4);
    MPI_Type_free(&c);
    MPI_Type_free(&ft);
}

static void subarray(MPI_File fh, int phase, tr_t *t, int nd, const int *gs,
                     const int *ss, const int *st, int order, MPI_Datatype el,
                     int elsize, int seed)
{
    MPI_Datatype ft;
    int n = 1;
    for (int i = 0; i < nd; i++)
        n *= ss[i];
    char *buf = malloc((size_t)n * (size_t)elsize);
    fill(buf, (size_t)n * (size_t)elsize, seed);
    MPI_Type_create_subarray(nd, gs, ss, st, order, el, &ft);
    MPI_Type_commit(&ft);
    CHECK(MPI_File_set_view(fh, 0, el, ft, "native", MPI_INFO_NULL));
    rw_all(fh, phase, t, buf, n, el, (size_t)n * (size_t)elsize);
    MPI_Type_free(&ft);
    free(buf);
}

static void p_sub2d_cols(MPI_File fh, int phase, tr_t *t)
{
    int gs[2] = {16, 8 * np}, ss[2] = {16, 8}, st[2] = {0, 8 * me};
    subarray(fh, phase, t, 2, gs, ss, st, MPI_ORDER_C, MPI_INT, 4, 5);
}

static void p_sub2d_grid(MPI_File fh, int phase, tr_t *t)
{
    int px = np % 2 == 0 ? 2 : 1, py = np / px;
    int gs[2] = {10 * px, 6 * py}, ss[2] = {10, 6},
        st[2] = {10 * (me / py), 6 * (me % py)};
    subarray(fh, phase, t, 2, gs, ss, st, MPI_ORDER_C, MPI_INT, 4, 6);
}

static void p_sub2d_fortran(MPI_File fh, int phase, tr_t *t)
{
    int gs[2] = {7 * np, 9}, ss[2] = {7, 9}, st[2] = {7 * me, 0};
    subarray(fh, phase, t, 2, gs, ss, st, MPI_ORDER_FORTRAN, MPI_SHORT, 2, 7);
}

static void p_sub3d(MPI_File fh, int phase, tr_t *t)
{
    int px = np % 2 == 0 ? 2 : 1, py = np / px;
    int gs[3] = {6, 4 * px, 5 * py}, ss[3] = {6, 4, 5},
        st[3] = {0, 4 * (me / py), 5 * (me % py)};
    subarray(fh, phase, t, 3, gs, ss, st, MPI_ORDER_C, MPI_DOUBLE, 8, 8);
}

static void darray(MPI_File fh, int phase, tr_t *t, int nd, const int *gs,
                   const int *dist, const int *darg, const int *ps, int seed)
{
    MPI_Datatype ft;
    int size;
    MPI_Type_create_darray(np, me, nd, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT,
                           &ft);
    MPI_Type_commit(&ft);
    MPI_Type_size(ft, &size);
    char *buf = malloc((size_t)size + 1);
    fill(buf, (size_t)size, seed);
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    rw_all(fh, phase, t, buf, size / 4, MPI_INT, (size_t)size);
    MPI_Type_free(&ft);
    free(buf);
}

static void p_darray_2d(MPI_File fh, int phase, tr_t *t)
{
    int gs[2] = {12, 10 * np + 3},
        dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {1, np};
    darray(fh, phase, t, 2, gs, dist, darg, ps, 9);
}

static void p_darray_1d(MPI_File fh, int phase, tr_t *t)
{
    int gs[1] = {97}, dist[1] = {MPI_DISTRIBUTE_CYCLIC}, darg[1] = {3},
        ps[1] = {np};
    darray(fh, phase, t, 1, gs, dist, darg, ps, 10);
}

/* indexed filetype with holes nobody writes; prefill=1 puts known data
 * in the holes first, which both must preserve (read-modify-write) */
static void holes(MPI_File fh, int phase, tr_t *t, int prefill)
{
    int bl[3] = {2, 3, 1}, dp[3] = {me * 16, me * 16 + 5, me * 16 + 11};
    int buf[24];
    MPI_Datatype ix, ft;
    if (phase == 0 && prefill && me == 0) {
        size_t n = (size_t)16 * 4 * (size_t)np * 4;
        char *p = malloc(n);
        memset(p, 0xEE, n);
        MPI_Status st;
        CHECK(MPI_File_write_at(fh, 0, p, (int)n, MPI_BYTE, &st));
        free(p);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    fill(buf, sizeof(buf), 11);
    MPI_Type_indexed(3, bl, dp, MPI_INT, &ix);
    MPI_Type_create_resized(ix, 0, (MPI_Aint)16 * 4 * np, &ft);
    MPI_Type_commit(&ft);
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    rw_all(fh, phase, t, buf, 24, MPI_INT, sizeof(buf));
    MPI_Type_free(&ix);
    MPI_Type_free(&ft);
}

static void p_holes_prefilled(MPI_File fh, int phase, tr_t *t)
{
    holes(fh, phase, t, 1);
}

static void p_zero_count(MPI_File fh, int phase, tr_t *t)
{
    char buf[700];
    fill(buf, sizeof(buf), 12);
    int cnt = me % 2 ? 0 : 700;
    rw_at_all(fh, phase, t, (MPI_Offset)me * 700, buf, cnt, MPI_BYTE,
              (size_t)cnt);
}

static void p_all_zero(MPI_File fh, int phase, tr_t *t)
{
    char buf[8];
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    rw_all(fh, phase, t, buf, 0, MPI_INT, 0);
    rw_at_all(fh, phase, t, 5, buf, 0, MPI_INT, 0);
}

static void p_noncontig_mem(MPI_File fh, int phase, tr_t *t)
{
    int buf[150];
    MPI_Datatype mt;
    fill(buf, sizeof(buf), 13);
    MPI_Type_vector(50, 2, 3, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)me * 400, MPI_INT, MPI_INT,
                            "native", MPI_INFO_NULL));
    if (phase == 1)
        memset(buf, 0x5A, sizeof(buf));
    MPI_Status st;
    if (phase == 0)
        CHECK(MPI_File_write_all(fh, buf, 1, mt, &st));
    else
        CHECK(MPI_File_read_all(fh, buf, 1, mt, &st));
    if (phase == 1) /* the gaps must be untouched too */
        rec(t, buf, sizeof(buf));
    rec_status(t, &st, mt);
    rec_pos(t, fh);
    MPI_Type_free(&mt);
}

static void p_noncontig_both(MPI_File fh, int phase, tr_t *t)
{
    int bl[2] = {2, 1};
    MPI_Aint dp[2] = {0, 16};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, s, mt, ft;
    char buf[32 * 20];
    MPI_Type_create_struct(2, bl, dp, ty, &s);
    MPI_Type_create_resized(s, 0, 32, &mt);
    MPI_Type_commit(&mt);
    MPI_Type_create_hvector(20, 16, (MPI_Aint)16 * np, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    fill(buf, sizeof(buf), 14);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)me * 16, MPI_BYTE, ft, "native",
                            MPI_INFO_NULL));
    MPI_Status st;
    if (phase == 0) {
        CHECK(MPI_File_write_all(fh, buf, 20, mt, &st));
    } else {
        memset(buf, 0x5A, sizeof(buf));
        CHECK(MPI_File_read_all(fh, buf, 20, mt, &st));
        rec(t, buf, sizeof(buf));
    }
    rec_status(t, &st, mt);
    rec_pos(t, fh);
    MPI_Type_free(&s);
    MPI_Type_free(&mt);
    MPI_Type_free(&ft);
}

static void tiled_view(MPI_File fh, tr_t *t, int blk, MPI_Datatype et,
                       int etsize)
{
    MPI_Datatype c, ft;
    MPI_Type_contiguous(blk, et, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)blk * etsize * np, &ft);
    MPI_Type_commit(&ft);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)me * blk * etsize, et, ft, "native",
                            MPI_INFO_NULL));
    MPI_Type_free(&c);
    MPI_Type_free(&ft);
}

static void p_offset_at(MPI_File fh, int phase, tr_t *t)
{
    int buf[13];
    fill(buf, sizeof(buf), 15);
    tiled_view(fh, t, 4, MPI_INT, 4);
    rw_at_all(fh, phase, t, 4 * me + 3, buf, 10, MPI_INT, 40);
    rw_at_all(fh, phase, t, 0, buf + 10, 3, MPI_INT, 12);
}

static void p_consecutive(MPI_File fh, int phase, tr_t *t)
{
    int buf[23];
    fill(buf, sizeof(buf), 16);
    tiled_view(fh, t, 8, MPI_INT, 4);
    rw_all(fh, phase, t, buf, 5, MPI_INT, 20);
    rw_all(fh, phase, t, buf + 5, 11, MPI_INT, 44);
    rw_all(fh, phase, t, buf, 0, MPI_INT, 0);
    rw_all(fh, phase, t, buf + 16, 7, MPI_INT, 28);
}

/* write, then read back through the same handle before closing */
static void p_read_after_write(MPI_File fh, int phase, tr_t *t)
{
    int buf[64], back[64];
    MPI_Status st;
    fill(buf, sizeof(buf), 17);
    tiled_view(fh, t, 16, MPI_INT, 4);
    if (phase == 0) {
        CHECK(MPI_File_write_all(fh, buf, 64, MPI_INT, &st));
        CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
        memset(back, 0, sizeof(back));
        CHECK(MPI_File_read_all(fh, back, 64, MPI_INT, &st));
        rec_status(t, &st, MPI_INT);
        rec_int(t, memcmp(buf, back, sizeof(buf)) == 0);
    } else {
        rw_all(fh, 1, t, back, 64, MPI_INT, sizeof(back));
    }
}

static void p_split(MPI_File fh, int phase, tr_t *t)
{
    int buf[40];
    MPI_Status st;
    fill(buf, sizeof(buf), 18);
    tiled_view(fh, t, 10, MPI_INT, 4);
    if (phase == 0) {
        CHECK(MPI_File_write_all_begin(fh, buf, 20, MPI_INT));
        CHECK(MPI_File_write_all_end(fh, buf, &st));
        rec_status(t, &st, MPI_INT);
        rec_pos(t, fh);
        CHECK(MPI_File_write_at_all_begin(fh, 20, buf + 20, 20, MPI_INT));
        CHECK(MPI_File_write_at_all_end(fh, buf + 20, &st));
        rec_status(t, &st, MPI_INT);
        rec_pos(t, fh);
    } else {
        memset(buf, 0, sizeof(buf));
        CHECK(MPI_File_read_all_begin(fh, buf, 20, MPI_INT));
        CHECK(MPI_File_read_all_end(fh, buf, &st));
        rec_status(t, &st, MPI_INT);
        CHECK(MPI_File_read_at_all_begin(fh, 20, buf + 20, 20, MPI_INT));
        CHECK(MPI_File_read_at_all_end(fh, buf + 20, &st));
        rec_status(t, &st, MPI_INT);
        rec(t, buf, sizeof(buf));
        rec_pos(t, fh);
    }
}

static void p_nonblocking(MPI_File fh, int phase, tr_t *t)
{
    int buf[30];
    MPI_Request rq;
    MPI_Status st;
    fill(buf, sizeof(buf), 19);
    tiled_view(fh, t, 6, MPI_INT, 4);
    if (phase == 0) {
        CHECK(MPI_File_iwrite_all(fh, buf, 12, MPI_INT, &rq));
        CHECK(MPI_Wait(&rq, &st));
        rec_status(t, &st, MPI_INT);
        rec_pos(t, fh);
        CHECK(MPI_File_iwrite_at_all(fh, 12, buf + 12, 18, MPI_INT, &rq));
        CHECK(MPI_Wait(&rq, &st));
        rec_status(t, &st, MPI_INT);
    } else {
        memset(buf, 0, sizeof(buf));
        CHECK(MPI_File_iread_all(fh, buf, 12, MPI_INT, &rq));
        CHECK(MPI_Wait(&rq, &st));
        rec_status(t, &st, MPI_INT);
        CHECK(MPI_File_iread_at_all(fh, 12, buf + 12, 18, MPI_INT, &rq));
        CHECK(MPI_Wait(&rq, &st));
        rec_status(t, &st, MPI_INT);
        rec(t, buf, sizeof(buf));
    }
    rec_pos(t, fh);
}

static void p_struct_ft(MPI_File fh, int phase, tr_t *t)
{
    int bl[2] = {2, 1};
    MPI_Aint dp[2] = {0, 16};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, s, ft;
    char buf[16 * 9];
    MPI_Type_create_struct(2, bl, dp, ty, &s);
    MPI_Type_create_resized(s, 0, (MPI_Aint)24 * np, &ft);
    MPI_Type_commit(&ft);
    fill(buf, sizeof(buf), 20);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)me * 24, MPI_BYTE, ft, "native",
                            MPI_INFO_NULL));
    rw_all(fh, phase, t, buf, (int)sizeof(buf), MPI_BYTE, sizeof(buf));
    MPI_Type_free(&s);
    MPI_Type_free(&ft);
}

static void p_uneven(MPI_File fh, int phase, tr_t *t)
{
    char buf[64 * 37];
    MPI_Offset off = 0;
    for (int r = 0; r < me; r++)
        off += (r + 1) * 37;
    fill(buf, sizeof(buf), 21);
    rw_at_all(fh, phase, t, off, buf, (me + 1) * 37, MPI_BYTE,
              (size_t)(me + 1) * 37);
}

static void p_large(MPI_File fh, int phase, tr_t *t)
{
    size_t n = 48 * 1024 + 17;
    char *buf = malloc(n);
    fill(buf, n, 22);
    rw_at_all(fh, phase, t, (MPI_Offset)me * (MPI_Offset)n, buf, (int)n,
              MPI_BYTE, n);
    free(buf);
}

static void p_etype_derived(MPI_File fh, int phase, tr_t *t)
{
    int buf[27];
    MPI_Datatype et;
    MPI_Type_contiguous(3, MPI_INT, &et);
    MPI_Type_commit(&et);
    fill(buf, sizeof(buf), 23);
    tiled_view(fh, t, 1, et, 12);
    rw_all(fh, phase, t, buf, 21, MPI_INT, 84);
    rw_at_all(fh, phase, t, 10, buf + 21, 6, MPI_INT, 24);
    MPI_Type_free(&et);
}

static void p_getcount_double(MPI_File fh, int phase, tr_t *t)
{
    double buf[33];
    MPI_Status st;
    fill(buf, sizeof(buf), 24);
    tiled_view(fh, t, 11, MPI_DOUBLE, 8);
    if (phase == 0)
        CHECK(MPI_File_write_all(fh, buf, 33, MPI_DOUBLE, &st));
    else
        CHECK(MPI_File_read_all(fh, buf, 33, MPI_DOUBLE, &st));
    rec_status(t, &st, MPI_DOUBLE);
    rec_status(t, &st, MPI_INT);
    rec_status(t, &st, MPI_BYTE);
    if (phase)
        rec(t, buf, sizeof(buf));
}

/* handed to ROMIO: atomic mode */
static void p_atomic(MPI_File fh, int phase, tr_t *t)
{
    CHECK(MPI_File_set_atomicity(fh, 1));
    p_contig_at(fh, phase, t);
}

/* handed to ROMIO: a non-native data representation */
static void p_external32(MPI_File fh, int phase, tr_t *t)
{
    int buf[100];
    fill(buf, sizeof(buf), 25);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)me * 400, MPI_INT, MPI_INT,
                            "external32", MPI_INFO_NULL));
    rw_all(fh, phase, t, buf, 100, MPI_INT, sizeof(buf));
}

/* error classes: writing a read-only file, negative count */
static void p_errors(MPI_File fh, int phase, tr_t *t)
{
    char buf[16] = {0};
    MPI_Status st;
    if (phase == 0) {
        rw_at_all(fh, 0, t, (MPI_Offset)me * 16, buf, 16, MPI_BYTE, 16);
        return;
    }
    /* phase 1 files are opened read-only */
    CHECK(MPI_File_write_all(fh, buf, 16, MPI_BYTE, &st));
    CHECK(MPI_File_write_at_all(fh, 0, buf, 16, MPI_BYTE, &st));
    rw_at_all(fh, 1, t, (MPI_Offset)me * 16, buf, 16, MPI_BYTE, 16);
}

static const struct {
    const char *name;
    pat_fn fn;
    int romio_only; /* EARTH must hand it to ROMIO */
    int prefill;    /* leaves holes: see PREFILL */
} pats[] = {
    {"contig_at", p_contig_at, 0, 0},
    {"view_int", p_view_int, 0, 0},
    {"vector", p_vector, 0, 0},
    {"vector_tiled", p_vector_tiled, 0, 0},
    {"sub2d_cols", p_sub2d_cols, 0, 0},
    {"sub2d_grid", p_sub2d_grid, 0, 0},
    {"sub2d_fortran", p_sub2d_fortran, 0, 0},
    {"sub3d", p_sub3d, 0, 0},
    {"darray_2d", p_darray_2d, 0, 0},
    {"darray_1d", p_darray_1d, 0, 0},
    {"holes_prefilled", p_holes_prefilled, 0, 0},
    {"zero_count", p_zero_count, 0, 0},
    {"all_zero", p_all_zero, 0, 0},
    {"noncontig_mem", p_noncontig_mem, 0, 0},
    {"noncontig_both", p_noncontig_both, 0, 0},
    {"offset_at", p_offset_at, 0, 1},
    {"consecutive", p_consecutive, 0, 1},
    {"read_after_write", p_read_after_write, 0, 0},
    {"split", p_split, 0, 0},
    {"nonblocking", p_nonblocking, 0, 0},
    {"struct_ft", p_struct_ft, 0, 1},
    {"uneven", p_uneven, 0, 0},
    {"large", p_large, 0, 0},
    {"etype_derived", p_etype_derived, 0, 0},
    {"getcount_double", p_getcount_double, 0, 0},
    {"errors", p_errors, 0, 0},
    {"atomic", p_atomic, 1, 0},
    {"external32", p_external32, 1, 0},
};

/* hint sets: many aggregators and tiny steps; ROMIO defaults; odd sizes */
static const char *configs[][2 * 6 + 1] = {
    {"cb_config_list", "*:*", "cb_buffer_size", "256", "striping_unit", "64",
     "earth_req", "1", "earth_steps", "2", "earth_fd_stripes", "1", NULL},
    {"earth_req", "unlimited", NULL},
    {"cb_config_list", "*:*", "cb_nodes", "2", "cb_buffer_size", "1000",
     "earth_req", "2", "earth_steps", "1", "romio_cb_write", "enable", NULL},
    {"cb_config_list", "*:*", "cb_buffer_size", "96", "striping_unit", "200",
     "earth_req", "0", "earth_steps", "3", "earth_aggr_layout", "block", NULL},
};

static int files_equal(const char *a, const char *b, long *where)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int eq = fa && fb;
    long pos = 0;
    while (eq) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            eq = 0;
        else if (ca == EOF)
            break;
        else
            pos++;
    }
    *where = pos;
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return eq;
}

int main(int argc, char **argv)
{
    char fa[512], fb[512];
    int failed = 0, ran = 0;
    long long id;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    id = getpid();
    MPI_Bcast(&id, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    const char *only = NULL;
    int first = 1;
    if (argc > 2 && !strcmp(argv[1], "-c")) {
        only = argv[2];
        first = 3;
    }
    snprintf(fa, sizeof(fa), "%s/earth-pat-%lld-romio", dir, id);
    snprintf(fb, sizeof(fb), "%s/earth-pat-%lld-earth", dir, id);

    for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]); c++) {
        MPI_Info info;
        if (only && !strchr(only, (int)('0' + c)))
            continue;
        MPI_Info_create(&info);
        for (int k = 0; configs[c][k]; k += 2)
            MPI_Info_set(info, configs[c][k], configs[c][k + 1]);
        for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
            int want = argc <= first;
            for (int a = first; a < argc; a++)
                want |= !strcmp(argv[a], pats[p].name);
            if (!want)
                continue;
            tr_t tw[2] = {{0}}, tr[2] = {{0}};
            struct earth_stats st = {0};
            MPI_File fh;
            const char *fn[2] = {fa, fb};
            if (me == 0) {
                unlink(fa);
                unlink(fb);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            for (int w = 0; w < 2; w++) { /* 0 = ROMIO, 1 = EARTH */
                int am = MPI_MODE_RDWR | MPI_MODE_CREATE;
                int rc =
                    w ? MPI_File_open(MPI_COMM_WORLD, fn[w], am, info, &fh)
                      : PMPI_File_open(MPI_COMM_WORLD, fn[w], am, info, &fh);
                if (rc != MPI_SUCCESS)
                    MPI_Abort(MPI_COMM_WORLD, 99);
                if (pats[p].prefill)
                    prefill(fh);
                if (w)
                    earth_file_stats_reset(fh);
                pats[p].fn(fh, 0, &tw[w]);
                if (w)
                    earth_file_stats(fh, &st);
                MPI_File_close(&fh);
            }
            long where = 0;
            int same = 1;
            if (me == 0)
                same = files_equal(fa, fb, &where);
            MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
            for (int w = 0; w < 2; w++) {
                int am = MPI_MODE_RDONLY;
                int rc =
                    w ? MPI_File_open(MPI_COMM_WORLD, fn[w], am, info, &fh)
                      : PMPI_File_open(MPI_COMM_WORLD, fn[w], am, info, &fh);
                if (rc != MPI_SUCCESS)
                    MPI_Abort(MPI_COMM_WORLD, 99);
                pats[p].fn(fh, 1, &tr[w]);
                MPI_File_close(&fh);
            }
            int ok_w = tw[0].n == tw[1].n && !memcmp(tw[0].b, tw[1].b, tw[0].n);
            int ok_r = tr[0].n == tr[1].n && !memcmp(tr[0].b, tr[1].b, tr[0].n);
            long long mine[2] = {(long long)st.coll_calls,
                                 (long long)st.fallbacks},
                      sum[2];
            MPI_Allreduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            int ok_path =
                pats[p].romio_only ? sum[1] > 0 : sum[1] == 0 && sum[0] > 0;
            int ok = ok_w && ok_r, all_ok;
            MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
            all_ok = all_ok && same && ok_path;
            ran++;
            if (me == 0) {
                if (all_ok)
                    printf("ok   config %zu  %-18s (%d ranks)\n", c,
                           pats[p].name, np);
                else
                    printf("FAIL config %zu  %-18s files %s%s, write "
                           "transcript %s, read-back %s, path %s "
                           "(earth calls %lld, fallbacks %lld)\n",
                           c, pats[p].name, same ? "identical" : "differ at ",
                           same ? "" : "", ok_w ? "ok" : "differs",
                           ok_r ? "ok" : "differs", ok_path ? "ok" : "WRONG",
                           sum[0], sum[1]);
                if (!same)
                    printf("     first differing byte: %ld\n", where);
                fflush(stdout);
            }
            failed += !all_ok;
            free(tw[0].b);
            free(tw[1].b);
            free(tr[0].b);
            free(tr[1].b);
        }
        MPI_Info_free(&info);
    }
    if (me == 0 && !getenv("EARTH_PATTERNS_KEEP")) {
        unlink(fa);
        unlink(fb);
    }
    if (me == 0) {
        printf("%d of %d pattern runs passed\n", ran - failed, ran);
    }
    MPI_Finalize();
    return failed ? 1 : (ran ? 0 : 77);
}
