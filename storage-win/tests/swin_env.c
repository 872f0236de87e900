/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swin_env: one MPI_Win_allocate, for test_swin_env.sh.
 *   swin_env storage FILE   a storage window on FILE (alloc_type=storage)
 *   swin_env plain          a window without info (a coarray's allocation:
 *                           PCAF_ENABLED=true makes it a storage window)
 * With a third argument "return" the world communicator's error handler is
 * MPI_ERRORS_RETURN and rank 0 prints "allocate: CLASS"; otherwise the
 * default (fatal) handler applies.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int me;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int storage = argc > 1 && !strcmp(argv[1], "storage");
    const char *mode = argc > 2 + storage ? argv[2 + storage] : "";
    if (argc < 2 || (storage && argc < 3)) {
        if (me == 0)
            fprintf(stderr, "usage: swin_env storage FILE [return] | plain "
                            "[return]\n");
        MPI_Finalize();
        return 2;
    }
    if (!strcmp(mode, "return"))
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Info info = MPI_INFO_NULL;
    if (storage) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_type", "storage");
        MPI_Info_set(info, "storage_alloc_filename", argv[2]);
    }
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, &win);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (me == 0)
        printf("allocate: %s\n", cls == MPI_SUCCESS   ? "MPI_SUCCESS"
                                 : cls == MPI_ERR_ARG ? "MPI_ERR_ARG"
                                                      : "other");
    if (win != MPI_WIN_NULL)
        MPI_Win_free(&win);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    MPI_Finalize();
    return 0;
}
