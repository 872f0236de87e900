/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_agree: EARTH's agreements on hints when only one rank's value is
 * bad, and its per-communicator state.  Run on 2 or more ranks.
 *   1. open with a bad earth_* hint on the last rank only, MPI_MODE_CREATE:
 *      every rank fails with MPI_ERR_INFO_VALUE, the handle stays
 *      MPI_FILE_NULL and the file is not left behind;
 *   2. set_view with a bad hint on the last rank only, on a file ROMIO
 *      carries (earth_enable=auto on one node) and on one EARTH carries
 *      (earth_enable=enable): every rank fails, the previous view
 *      (displacement, etype) and the individual file position are kept;
 *   3. set_info likewise;
 *   4. two files opened on a communicator that is freed while they are
 *      open, then used (write_all, read_all, checked) and closed, and a
 *      file on MPI_COMM_SELF; files opened again on MPI_COMM_WORLD.
 * usage: earth_agree DIR   (prints "ok" on rank 0; exit status 1 on error)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "earth.h"

static int me, np, failed;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "earth_agree rank %d: ", me);                      \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
            failed = 1;                                                        \
        }                                                                      \
    } while (0)

static int cls(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

/* an info with KEY=VAL on the last rank only (and `also` on every rank) */
static MPI_Info last_only(const char *key, const char *val, const char *also)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (me == np - 1)
        MPI_Info_set(info, key, val);
    if (also)
        MPI_Info_set(info, "earth_enable", also);
    return info;
}

static void open_fails(const char *path)
{
    MPI_File fh = MPI_FILE_NULL;
    MPI_Info info = last_only("earth_req", "abc", NULL);
    int rc = MPI_File_open(MPI_COMM_WORLD, path,
                           MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                           info, &fh);
    MPI_Info_free(&info);
    CHECK(cls(rc) == MPI_ERR_INFO_VALUE, "open: class %d, want %d", cls(rc),
          MPI_ERR_INFO_VALUE);
    CHECK(fh == MPI_FILE_NULL, "open: handle not null after the error");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(access(path, F_OK) != 0, "open: %s left behind", path);
}

static void view_kept(MPI_File fh, const char *what)
{
    MPI_Offset disp = -1, pos = -1;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING + 1];
    int size = 0;
    MPI_File_get_view(fh, &disp, &et, &ft, rep);
    MPI_Type_size(et, &size);
    MPI_File_get_position(fh, &pos);
    CHECK(disp == 16 && size == 4 && !strcmp(rep, "native") && pos == 3,
          "%s: view changed (disp %lld, etype %d bytes, %s, position %lld)",
          what, (long long)disp, size, rep, (long long)pos);
    if (ft != MPI_INT)
        MPI_Type_free(&ft);
}

static void set_calls_fail(const char *path, const char *enable)
{
    MPI_File fh;
    MPI_Info info;
    char what[64];
    MPI_Info_create(&info);
    MPI_Info_set(info, "earth_enable", enable);
    int rc = MPI_File_open(MPI_COMM_WORLD, path,
                           MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS, "%s: open failed", enable);
    if (rc != MPI_SUCCESS)
        return;
    MPI_File_set_view(fh, 16, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_seek(fh, 3, MPI_SEEK_SET);

    info = last_only("earth_steps", "0", NULL);
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info);
    MPI_Info_free(&info);
    snprintf(what, sizeof what, "set_view (%s)", enable);
    CHECK(cls(rc) == MPI_ERR_INFO_VALUE, "%s: class %d", what, cls(rc));
    view_kept(fh, what);

    info = last_only("earth_aggr_layout", "diagonal", NULL);
    rc = MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    snprintf(what, sizeof what, "set_info (%s)", enable);
    CHECK(cls(rc) == MPI_ERR_INFO_VALUE, "%s: class %d", what, cls(rc));
    view_kept(fh, what);

    /* the file still works: a collective write through the kept view */
    int v[2] = {me, -me};
    MPI_File_set_view(fh, 16, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    rc = MPI_File_write_at_all(fh, 2 * me, v, 2, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "%s: write after the errors failed", enable);
    struct earth_stats st;
    CHECK(earth_file_stats(fh, &st) == MPI_SUCCESS, "%s: no record", enable);
    int earth = !strcmp(enable, "enable");
    CHECK(earth ? st.coll_calls == 1 && st.fallbacks == 0
                : st.coll_calls == 0 && st.fallbacks == 1,
          "%s: EARTH carried %llu calls, handed %llu to ROMIO", enable,
          (unsigned long long)st.coll_calls, (unsigned long long)st.fallbacks);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
}

/* write_all and read_all of 4 ints per rank (rank order), checked */
static void use(MPI_File fh, MPI_Comm comm, const char *what)
{
    int r, n, v[4], w[4] = {0};
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    for (int i = 0; i < 4; i++)
        v[i] = 1000 * me + i;
    int rc = MPI_File_set_view(fh, (MPI_Offset)r * 16, MPI_INT, MPI_INT,
                               "native", MPI_INFO_NULL);
    if (rc == MPI_SUCCESS)
        rc = MPI_File_write_all(fh, v, 4, MPI_INT, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = MPI_File_seek(fh, 0, MPI_SEEK_SET);
    if (rc == MPI_SUCCESS)
        rc = MPI_File_read_all(fh, w, 4, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && !memcmp(v, w, sizeof v), "%s: data differ",
          what);
    (void)n;
}

static void comm_lifetime(const char *dir)
{
    char a[512], b[512], s[512];
    MPI_Comm half;
    MPI_File fa, fb, fs;
    snprintf(a, sizeof a, "%s/agree-a.%d", dir, me % 2);
    snprintf(b, sizeof b, "%s/agree-b.%d", dir, me % 2);
    snprintf(s, sizeof s, "%s/agree-self.%d", dir, me);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    int rc = MPI_File_open(half, a, MPI_MODE_CREATE | MPI_MODE_RDWR,
                           MPI_INFO_NULL, &fa);
    CHECK(rc == MPI_SUCCESS, "open a failed");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "earth_enable", "enable");
    rc = MPI_File_open(half, b, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fb);
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS, "open b failed");
    MPI_Comm_free(&half); /* the files outlive their communicator */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* may reuse the freed handle */
    use(fa, dup, "file a (communicator freed)");
    use(fb, dup, "file b (communicator freed, EARTH)");
    struct earth_stats st;
    CHECK(earth_file_stats(fb, &st) == MPI_SUCCESS && st.coll_calls == 2,
          "file b: EARTH carried %llu calls, want 2",
          (unsigned long long)st.coll_calls);
    MPI_Comm_free(&dup);
    MPI_File_close(&fa);
    MPI_File_close(&fb);
    rc = MPI_File_open(MPI_COMM_SELF, s,
                       MPI_MODE_CREATE | MPI_MODE_RDWR |
                           MPI_MODE_DELETE_ON_CLOSE,
                       MPI_INFO_NULL, &fs);
    CHECK(rc == MPI_SUCCESS, "open on MPI_COMM_SELF failed");
    if (rc == MPI_SUCCESS) {
        use(fs, MPI_COMM_SELF, "file on MPI_COMM_SELF");
        MPI_File_close(&fs);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me < 2) {
        unlink(a);
        unlink(b);
    }
}

int main(int argc, char **argv)
{
    char path[512];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc != 2 || np < 2) {
        if (me == 0)
            fprintf(stderr, "usage: earth_agree DIR (2 or more ranks)\n");
        MPI_Finalize();
        return 2;
    }
    snprintf(path, sizeof path, "%s/agree.dat", argv[1]);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    open_fails(path);
    set_calls_fail(path, "auto");
    set_calls_fail(path, "enable");
    for (int round = 0; round < 2; round++)
        comm_lifetime(argv[1]);
    open_fails(path);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0 && !any)
        printf("ok\n");
    MPI_Finalize();
    return any;
}
