/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_hdf5.c: parallel HDF5 over MPI-IO, for test_earth_hdf5.sh.
 *
 *   earth_hdf5 FILE
 *
 * The ranks form a 2-D process grid (MPI_Dims_create) and each writes its
 * block of two 2-D datasets of doubles with a collective H5Dwrite
 * (H5FD_MPIO_COLLECTIVE): "contig" (contiguous layout) and "chunked"
 * (chunks that do not line up with the blocks, so a chunk holds pieces of
 * several ranks).  The blocks are uneven (the grid does not divide the
 * extent).  Then every rank reads the whole of both datasets back
 * collectively and checks every element.  Prints "No Errors" on rank 0.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 203 /* rows */
#define NY 157 /* columns */

static double value(hsize_t i, hsize_t j, int which)
{
    return (double)(i * 1000 + j) + (which ? 0.5 : 0.25);
}

/* The part [start, start + n) of 0..len-1 that block k of nb owns. */
static void split(hsize_t len, int nb, int k, hsize_t *start, hsize_t *n)
{
    hsize_t q = len / (hsize_t)nb, r = len % (hsize_t)nb;
    *start = (hsize_t)k * q + ((hsize_t)k < r ? (hsize_t)k : r);
    *n = q + ((hsize_t)k < r ? 1 : 0);
}

static int write_one(hid_t file, const char *name, hid_t dcpl, int which,
                     const hsize_t start[2], const hsize_t count[2], hid_t xfer)
{
    hsize_t dims[2] = {NX, NY};
    hid_t fspace = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT,
                            dcpl, H5P_DEFAULT);
    if (fspace < 0 || dset < 0)
        return -1;
    double *buf = malloc((count[0] * count[1] + 1) * sizeof *buf);
    if (!buf)
        return -1;
    for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < count[1]; j++)
            buf[i * count[1] + j] = value(start[0] + i, start[1] + j, which);
    hid_t mspace = H5Screate_simple(2, count, NULL);
    herr_t e =
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    if (e >= 0)
        e = H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, xfer, buf);
    free(buf);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(dset);
    return e < 0 ? -1 : 0;
}

static int check_one(hid_t file, const char *name, int which, hid_t xfer)
{
    hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
    if (dset < 0)
        return -1;
    double *buf = malloc((size_t)NX * NY * sizeof *buf);
    if (!buf)
        return -1;
    int bad = 0;
    if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, xfer, buf) < 0)
        bad = -1;
    for (hsize_t i = 0; !bad && i < NX; i++)
        for (hsize_t j = 0; j < NY; j++)
            if (buf[i * NY + j] != value(i, j, which)) {
                fprintf(stderr, "%s[%llu][%llu] = %g, want %g\n", name,
                        (unsigned long long)i, (unsigned long long)j,
                        buf[i * NY + j], value(i, j, which));
                bad = 1;
                break;
            }
    free(buf);
    H5Dclose(dset);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size, dims[2] = {0, 0}, errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: earth_hdf5 FILE\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Dims_create(size, 2, dims);
    hsize_t start[2], count[2];
    split(NX, dims[0], rank / dims[1], &start[0], &count[0]);
    split(NY, dims[1], rank % dims[1], &start[1], &count[1]);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    if (file < 0) {
        fprintf(stderr, "cannot create %s\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    hid_t contig = H5Pcreate(H5P_DATASET_CREATE);
    hid_t chunked = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t chunk[2] = {37, 41};
    H5Pset_chunk(chunked, 2, chunk);
    /* chunks are allocated at creation (required for parallel writes) and
     * not filled, so the file holds only what the ranks wrote */
    H5Pset_fill_time(chunked, H5D_FILL_TIME_NEVER);
    H5Pset_fill_time(contig, H5D_FILL_TIME_NEVER);
    if (write_one(file, "contig", contig, 0, start, count, xfer) ||
        write_one(file, "chunked", chunked, 1, start, count, xfer)) {
        fprintf(stderr, "rank %d: collective H5Dwrite failed\n", rank);
        errs++;
    }
    H5Fflush(file, H5F_SCOPE_GLOBAL);
    if (check_one(file, "contig", 0, xfer) ||
        check_one(file, "chunked", 1, xfer))
        errs++;
    H5Pclose(contig);
    H5Pclose(chunked);
    H5Pclose(xfer);
    H5Fclose(file);
    H5Pclose(fapl);
    int tot = 0;
    MPI_Reduce(&errs, &tot, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(tot ? " Found %d errors\n" : " No Errors\n", tot);
    MPI_Finalize();
    return tot != 0;
}
