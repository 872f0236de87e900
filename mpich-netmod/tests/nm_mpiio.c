/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_mpiio: a plain MPI-IO program that checks itself (run directly and
 * under the shim; the scripts compare rank 0's transcript and the files).
 * Usage: nm_mpiio DIR.  On MPI_COMM_WORLD, on a dup, on a reversed split,
 * on pairs of ranks and on MPI_COMM_SELF it opens a file collectively and
 * uses every family of data access: explicit offsets, individual and
 * shared file pointers, blocking, nonblocking and split collectives, a
 * strided file view, then reads everything back and checks it.  The files
 * stay in DIR.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rank;
#include "nm_check.h"

#define N 1024 /* ints per rank per block */

static int nranks;

static void ok(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        CHECK(0, "%s: %s", what, msg);
    }
}

static unsigned salt; /* differs per file */

static int val(int r, int blk, int i)
{
    return salt + r * 1000003 + blk * 10007 + i;
}

/* Checksum of the whole file, read by every rank independently. */
static uint64_t file_sum(MPI_File fh)
{
    MPI_Offset size;
    ok(MPI_File_get_size(fh, &size), "get_size");
    unsigned char *b = malloc((size_t)size + 1);
    CHECK(b != NULL, "malloc");
    MPI_Status st;
    ok(MPI_File_read_at(fh, 0, b, (int)size, MPI_BYTE, &st), "read_at");
    uint64_t h = 1469598103934665603ull;
    for (MPI_Offset i = 0; i < size; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    free(b);
    return h ^ (uint64_t)size;
}

/* All access families on one communicator; `tag` names the file. */
static void exercise(MPI_Comm comm, const char *dir, const char *tag)
{
    int r, n, world;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.dat", dir, tag);
    salt = 0;
    for (const char *p = tag; *p; p++)
        salt = salt * 31 + (unsigned char)*p;
    salt &= 0xfffff;
    MPI_File fh;
    ok(MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                     &fh),
       "open");
    ok(MPI_File_set_size(fh, 0), "set_size");

    MPI_Group g, cg;
    int cmp;
    ok(MPI_File_get_group(fh, &g), "get_group");
    MPI_Comm_group(comm, &cg);
    MPI_Group_compare(g, cg, &cmp);
    CHECK(cmp == MPI_IDENT, "file group differs from the communicator's");
    MPI_Group_free(&g);
    MPI_Group_free(&cg);
    int amode;
    ok(MPI_File_get_amode(fh, &amode), "get_amode");
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode %d", amode);

    int *buf = malloc(N * sizeof(int)), *in = malloc(N * sizeof(int));
    CHECK(buf && in, "malloc");
    MPI_Status st;
    int cnt;
    const MPI_Offset blk = (MPI_Offset)N * sizeof(int);

    /* block 0: write_at_all, contiguous per rank */
    for (int i = 0; i < N; i++)
        buf[i] = val(r, 0, i);
    ok(MPI_File_write_at_all(fh, r * blk, buf, N, MPI_INT, &st),
       "write_at_all");
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == N, "write_at_all count %d", cnt);

    /* block 1: individual write_at, block 2: iwrite_at_all */
    for (int i = 0; i < N; i++)
        buf[i] = val(r, 1, i);
    ok(MPI_File_write_at(fh, (n + r) * blk, buf, N, MPI_INT, &st), "write_at");
    int *buf2 = malloc(N * sizeof(int));
    CHECK(buf2 != NULL, "malloc");
    for (int i = 0; i < N; i++)
        buf2[i] = val(r, 2, i);
    MPI_Request rq;
    ok(MPI_File_iwrite_at_all(fh, (2 * n + r) * blk, buf2, N, MPI_INT, &rq),
       "iwrite_at_all");
    ok(MPI_Wait(&rq, &st), "wait iwrite_at_all");

    /* blocks 3..4: strided view (ranks interleaved by 16 ints) with
     * write_all, then a split collective with the individual pointer */
    MPI_Datatype ft;
    MPI_Type_vector(N / 16, 16, 16 * n, MPI_INT, &ft);
    MPI_Datatype ftr;
    MPI_Type_create_resized(ft, 0, (MPI_Aint)16 * n * N / 16 * sizeof(int),
                            &ftr);
    MPI_Type_commit(&ftr);
    ok(MPI_File_set_view(fh, 3 * n * blk + r * 16 * (MPI_Offset)sizeof(int),
                         MPI_INT, ftr, "native", MPI_INFO_NULL),
       "set_view");
    for (int i = 0; i < N; i++)
        buf[i] = val(r, 3, i);
    ok(MPI_File_write_all(fh, buf, N, MPI_INT, &st), "write_all");
    MPI_Offset pos, byte;
    ok(MPI_File_get_position(fh, &pos), "get_position");
    CHECK(pos == N, "position %lld", (long long)pos);
    ok(MPI_File_get_byte_offset(fh, pos, &byte), "get_byte_offset");
    CHECK(byte == 4 * n * blk + r * 16 * (MPI_Offset)sizeof(int),
          "byte offset %lld", (long long)byte);
    for (int i = 0; i < N; i++)
        buf[i] = val(r, 4, i);
    ok(MPI_File_write_all_begin(fh, buf, N, MPI_INT), "write_all_begin");
    ok(MPI_File_write_all_end(fh, buf, &st), "write_all_end");
    ok(MPI_File_sync(fh), "sync");

    /* read blocks 3..4 back through the view */
    ok(MPI_File_seek(fh, 0, MPI_SEEK_SET), "seek");
    for (int b = 3; b <= 4; b++) {
        memset(in, 0xff, N * sizeof(int));
        ok(MPI_File_read_all(fh, in, N, MPI_INT, &st), "read_all");
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == N, "read_all count %d", cnt);
        for (int i = 0; i < N; i++)
            CHECK(in[i] == val(r, b, i), "%s block %d [%d] = %d", tag, b, i,
                  in[i]);
    }
    ok(MPI_File_seek(fh, 0, MPI_SEEK_SET), "seek");
    ok(MPI_File_iread_all(fh, in, N, MPI_INT, &rq), "iread_all");
    ok(MPI_Wait(&rq, &st), "wait iread_all");
    CHECK(in[N - 1] == val(r, 3, N - 1), "iread_all");
    MPI_Type_free(&ftr);
    MPI_Type_free(&ft);

    /* back to bytes; blocks 0..2 with read_at_all, read_at_all_begin/end,
     * iread_at */
    ok(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
       "set_view bytes");
    ok(MPI_File_read_at_all(fh, r * blk, in, N, MPI_INT, &st), "read_at_all");
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(r, 0, i), "block 0 [%d]", i);
    ok(MPI_File_read_at_all_begin(fh, (n + r) * blk, in, N, MPI_INT),
       "read_at_all_begin");
    ok(MPI_File_read_at_all_end(fh, in, &st), "read_at_all_end");
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(r, 1, i), "block 1 [%d]", i);
    ok(MPI_File_iread_at(fh, (2 * n + r) * blk, in, N, MPI_INT, &rq),
       "iread_at");
    ok(MPI_Wait(&rq, &st), "wait iread_at");
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(r, 2, i), "block 2 [%d]", i);

    /* shared file pointer after block 4: write_ordered, then each rank
     * appends one record with write_shared (order unknown: checked as a
     * set) */
    MPI_Offset end = 5 * n * blk;
    ok(MPI_File_seek_shared(fh, end, MPI_SEEK_SET), "seek_shared");
    for (int i = 0; i < 64; i++)
        buf[i] = val(r, 5, i);
    ok(MPI_File_write_ordered(fh, buf, 64 * (int)sizeof(int), MPI_BYTE, &st),
       "write_ordered");
    MPI_Barrier(comm);
    int rec = val(r, 6, 0);
    ok(MPI_File_write_shared(fh, &rec, 1, MPI_INT, &st), "write_shared");
    MPI_Barrier(comm);
    ok(MPI_File_get_position_shared(fh, &pos), "get_position_shared");
    ok(MPI_File_seek_shared(fh, end, MPI_SEEK_SET), "seek_shared");
    ok(MPI_File_read_ordered(fh, in, 64, MPI_INT, &st), "read_ordered");
    for (int i = 0; i < 64; i++)
        CHECK(in[i] == val(r, 5, i), "ordered [%d]", i);
    int *recs = malloc(n * sizeof(int));
    CHECK(recs != NULL, "malloc");
    ok(MPI_File_read_at_all(fh, end + (MPI_Offset)n * 64 * sizeof(int), recs, n,
                            MPI_INT, &st),
       "read_at_all records");
    long sum = 0, want = 0;
    for (int i = 0; i < n; i++) {
        sum += recs[i];
        want += val(i, 6, 0);
    }
    CHECK(sum == want, "shared records sum %ld, want %ld", sum, want);
    free(recs);
    /* the records' order depends on timing: put them in rank order, so
     * that every run writes the same bytes */
    ok(MPI_File_write_at_all(fh,
                             end + (MPI_Offset)n * 64 * sizeof(int) +
                                 r * (MPI_Offset)sizeof(int),
                             &rec, 1, MPI_INT, &st),
       "write_at_all records");

    /* the same bytes on every rank, and atomic mode round trip */
    ok(MPI_File_set_atomicity(fh, 1), "set_atomicity");
    int flag;
    ok(MPI_File_get_atomicity(fh, &flag), "get_atomicity");
    CHECK(flag == 1, "atomicity");
    ok(MPI_File_set_atomicity(fh, 0), "set_atomicity 0");
    MPI_Info info;
    ok(MPI_File_get_info(fh, &info), "get_info");
    MPI_Info_free(&info);
    /* MPI-IO's sync-barrier-sync: every rank's writes visible to all */
    ok(MPI_File_sync(fh), "sync");
    MPI_Barrier(comm);
    ok(MPI_File_sync(fh), "sync");
    uint64_t h = file_sum(fh), h0 = h;
    MPI_Bcast(&h0, 1, MPI_UINT64_T, 0, comm);
    CHECK(h == h0, "ranks see different files");
    MPI_Offset size;
    ok(MPI_File_get_size(fh, &size), "get_size");
    ok(MPI_File_close(&fh), "close");
    CHECK(fh == MPI_FILE_NULL, "close left the handle");
    if (world == 0)
        printf("%s: %d ranks, %lld bytes, checksum %016llx\n", tag, n,
               (long long)size, (unsigned long long)h);
    fflush(stdout);
    free(buf);
    free(buf2);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    CHECK(argc == 2, "usage: nm_mpiio DIR");
    const char *dir = argv[1];
    if (rank == 0)
        printf("nm_mpiio: %d ranks\n", nranks);

    exercise(MPI_COMM_WORLD, dir, "world");
    say("world");

    MPI_Comm dup, rev, pair;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    exercise(dup, dir, "dup");
    say("dup");
    MPI_Comm_free(&dup);

    MPI_Comm_split(MPI_COMM_WORLD, 0, nranks - rank, &rev);
    exercise(rev, dir, "reversed");
    say("reversed split");
    MPI_Comm_free(&rev);

    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
    char tag[64];
    snprintf(tag, sizeof tag, "pair%d", rank / 2);
    exercise(pair, dir, tag);
    say("pairs");
    MPI_Comm_free(&pair);

    snprintf(tag, sizeof tag, "self%d", rank);
    exercise(MPI_COMM_SELF, dir, tag);
    say("self");

    /* delete by one rank, then a collective open without CREATE fails
     * with MPI_ERR_NO_SUCH_FILE on every rank */
    char path[4096];
    snprintf(path, sizeof path, "%s/self%d.dat", dir, rank);
    MPI_File fh;
    ok(MPI_File_open(MPI_COMM_SELF, path,
                     MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                     &fh),
       "open delete_on_close");
    ok(MPI_File_close(&fh), "close");
    snprintf(path, sizeof path, "%s/absent.dat", dir);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL,
                           &fh);
    CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_NO_SUCH_FILE,
          "open of a missing file: class %d", class_of(rc));
    say("errors");
    MPI_Finalize();
    return 0;
}
