/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_env: open a file collectively (hints from argv: KEY=VALUE ...),
 * write 64 KiB per rank with MPI_File_write_all and report on rank 0 what
 * happened, for test_earth_env.sh:
 *   "open: CLASS"                         the open failed with CLASS
 *   "earth_enable=V coll=N fallbacks=M"   reported hint, EARTH's counters
 * usage: earth_env FILE [KEY=VALUE ...]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "earth.h"

static const char *class_name(int c)
{
    switch (c) {
    case MPI_ERR_ARG:
        return "MPI_ERR_ARG";
    case MPI_ERR_INFO_VALUE:
        return "MPI_ERR_INFO_VALUE";
    case MPI_ERR_INFO_KEY:
        return "MPI_ERR_INFO_KEY";
    default:
        return "other";
    }
}

int main(int argc, char **argv)
{
    int me, rc = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 2) {
        if (me == 0)
            fprintf(stderr, "usage: earth_env FILE [KEY=VALUE ...]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 2; i < argc; i++) {
        char kv[256];
        snprintf(kv, sizeof kv, "%s", argv[i]);
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = 0;
            MPI_Info_set(info, kv, eq + 1);
        }
    }
    MPI_File fh = MPI_FILE_NULL;
    int err = MPI_File_open(MPI_COMM_WORLD, argv[1],
                            MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    if (err != MPI_SUCCESS) {
        int c;
        MPI_Error_class(err, &c);
        if (me == 0)
            printf("open: %s\n", class_name(c));
        rc = fh == MPI_FILE_NULL ? 0 : 1; /* the handle must stay null */
        MPI_Finalize();
        return rc;
    }
    enum { N = 65536 };
    char *buf = malloc(N);
    memset(buf, 'a' + me % 26, N);
    MPI_Status st;
    err = MPI_File_write_at_all(fh, (MPI_Offset)me * N, buf, N, MPI_BYTE, &st);
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_File_get_info(fh, &used);
    MPI_Info_get(used, "earth_enable", MPI_MAX_INFO_VAL, v, &flag);
    MPI_Info_free(&used);
    struct earth_stats s;
    memset(&s, 0, sizeof s);
    earth_file_stats(fh, &s);
    if (me == 0)
        printf("earth_enable=%s coll=%llu fallbacks=%llu write=%d\n", v,
               (unsigned long long)s.coll_calls,
               (unsigned long long)s.fallbacks, err);
    MPI_File_close(&fh);
    free(buf);
    MPI_Finalize();
    return err != MPI_SUCCESS;
}
