/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_api.c: the interposed collective data-access calls.  Each one
 * decides, the same way on every rank, whether EARTH can carry it out;
 * otherwise (file not opened through the library, earth_enable=disable,
 * romio_cb_write/read=disable, atomic mode, a non-native data
 * representation, sequential access mode, a file opened without the needed
 * access, a view EARTH cannot decode) it hands the call to ROMIO, which
 * also produces ROMIO's own error classes.
 */
#include "earth_internal.h"

#include <stdlib.h>
#include <string.h>

/* The MPI calls defined here replace MPICH's: export them. */
#pragma GCC visibility push(default)

enum op { OP_WRITE_ALL, OP_READ_ALL, OP_WRITE_AT_ALL, OP_READ_AT_ALL };
enum form { FORM_BLOCKING, FORM_BEGIN, FORM_NONBLOCKING };

/* The ROMIO version of the call. */
static int romio_call(enum op op, enum form form, MPI_File fh, MPI_Offset off,
                      void *buf, int count, MPI_Datatype type,
                      MPI_Status *status, MPI_Request *req)
{
    switch (form) {
    case FORM_BLOCKING:
        switch (op) {
        case OP_WRITE_ALL:
            return PMPI_File_write_all(fh, buf, count, type, status);
        case OP_READ_ALL:
            return PMPI_File_read_all(fh, buf, count, type, status);
        case OP_WRITE_AT_ALL:
            return PMPI_File_write_at_all(fh, off, buf, count, type, status);
        case OP_READ_AT_ALL:
            return PMPI_File_read_at_all(fh, off, buf, count, type, status);
        }
        break;
    case FORM_BEGIN:
        switch (op) {
        case OP_WRITE_ALL:
            return PMPI_File_write_all_begin(fh, buf, count, type);
        case OP_READ_ALL:
            return PMPI_File_read_all_begin(fh, buf, count, type);
        case OP_WRITE_AT_ALL:
            return PMPI_File_write_at_all_begin(fh, off, buf, count, type);
        case OP_READ_AT_ALL:
            return PMPI_File_read_at_all_begin(fh, off, buf, count, type);
        }
        break;
    case FORM_NONBLOCKING:
        switch (op) {
        case OP_WRITE_ALL:
            return PMPI_File_iwrite_all(fh, buf, count, type, req);
        case OP_READ_ALL:
            return PMPI_File_iread_all(fh, buf, count, type, req);
        case OP_WRITE_AT_ALL:
            return PMPI_File_iwrite_at_all(fh, off, buf, count, type, req);
        case OP_READ_AT_ALL:
            return PMPI_File_iread_at_all(fh, off, buf, count, type, req);
        }
        break;
    }
    return MPI_ERR_INTERN;
}

/* Conditions, local but the same on every rank, that send a call to ROMIO. */
static int wants_romio(earth_file_t *ef, int is_write, int count)
{
    int atomic = 0;
    if (!ef->use_earth || count < 0)
        return 1;
    if ((is_write && ef->cb_write == 0) || (!is_write && ef->cb_read == 0))
        return 1;
    if (is_write && (ef->amode & MPI_MODE_RDONLY))
        return 1; /* ROMIO reports MPI_ERR_READ_ONLY */
    if (!is_write && (ef->amode & MPI_MODE_WRONLY))
        return 1; /* ROMIO reports MPI_ERR_ACCESS */
    if (ef->amode & MPI_MODE_SEQUENTIAL)
        return 1;
    PMPI_File_get_atomicity(ef->fh, &atomic);
    return atomic;
}

/* Size of the view's etype, asked of ROMIO (the cached view belongs to the
 * progress thread while operations are queued). */
static int64_t etype_size(MPI_File fh)
{
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING + 1];
    int size = 0, a, b, c, k;
    if (PMPI_File_get_view(fh, &disp, &et, &ft, rep) != MPI_SUCCESS)
        return -1;
    PMPI_Type_size(et, &size);
    PMPI_Type_get_envelope(et, &a, &b, &c, &k);
    if (k != MPI_COMBINER_NAMED)
        PMPI_Type_free(&et);
    PMPI_Type_get_envelope(ft, &a, &b, &c, &k);
    if (k != MPI_COMBINER_NAMED)
        PMPI_Type_free(&ft);
    return size;
}

/*
 * A nonblocking collective: nothing collective may happen here (the other
 * ranks may post theirs only after talking to us).  The individual file
 * pointer moves now by the amount requested (MPI: at initiation), and the
 * operation runs at that explicit offset in the file's progress thread.
 */
static int earth_post(earth_file_t *ef, enum op op, MPI_Offset off, void *buf,
                      int count, MPI_Datatype type, MPI_Request *req)
{
    int is_write = op == OP_WRITE_ALL || op == OP_WRITE_AT_ALL;
    int explicit = op == OP_WRITE_AT_ALL || op == OP_READ_AT_ALL;
    MPI_Offset pos = off;
    int rc;

    /* the same on every rank: ROMIO's nonblocking form (asynchronous in
     * ROMIO itself) when EARTH would not run the call or cannot progress
     * it asynchronously */
    if (!ef->async || wants_romio(ef, is_write, count)) {
        earth_async_drain(ef);
        return romio_call(op, FORM_NONBLOCKING, ef->fh, off, buf, count, type,
                          MPI_STATUS_IGNORE, req);
    }
    int local = 0;
    if (!explicit) {
        MPI_Count tsize = 0;
        PMPI_Type_size_x(type, &tsize);
        int64_t nbytes = (int64_t)count * tsize;
        /* earth_coll_rw would fall back for such a size anyway; let the
         * progress thread agree on it with the others */
        int64_t esize = etype_size(ef->fh);
        if (PMPI_File_get_position(ef->fh, &pos) != MPI_SUCCESS || esize <= 0 ||
            nbytes % esize)
            local = 1;
        else if (nbytes > 0 && PMPI_File_seek(ef->fh, pos + nbytes / esize,
                                              MPI_SEEK_SET) != MPI_SUCCESS)
            local = 1;
    }
    rc = earth_async_post(ef, is_write, pos, buf, count, type, local, req);
    if (rc != MPI_SUCCESS)
        PMPI_File_call_errhandler(ef->fh, rc);
    return rc;
}

static int earth_do(enum op op, enum form form, MPI_File fh, MPI_Offset off,
                    const void *cbuf, int count, MPI_Datatype type,
                    MPI_Status *status, MPI_Request *req)
{
    void *buf = (void *)cbuf;
    earth_file_t *ef = earth_file_find(fh);
    int is_write = op == OP_WRITE_ALL || op == OP_WRITE_AT_ALL;
    int explicit = op == OP_WRITE_AT_ALL || op == OP_READ_AT_ALL;
    int fb = 0, rc;
    MPI_Count nb = 0;
    MPI_Offset pos = off;

    if (!ef)
        return romio_call(op, form, fh, off, buf, count, type, status, req);
    if (form == FORM_NONBLOCKING)
        return earth_post(ef, op, off, buf, count, type, req);
    /* anything else first lets the file's progress thread finish */
    earth_async_drain(ef);
    if (form == FORM_BEGIN && ef->split_active) {
        rc = MPI_ERR_IO; /* one split collective per file at a time */
        PMPI_File_call_errhandler(fh, rc);
        return rc;
    }
    if (!ef->use_earth) {
        /* handed over by the file's setting, the same on every rank (see
         * earth_file.c, earth_file_decide): straight to ROMIO, no agreement */
        ef->stats.fallbacks++;
        rc = romio_call(op, form, fh, off, buf, count, type, status, req);
        if (form == FORM_BEGIN && rc == MPI_SUCCESS)
            ef->split_active = 2;
        return rc;
    }
    int local = wants_romio(ef, is_write, count);
    if (!local && !explicit && PMPI_File_get_position(fh, &pos) != 0)
        local = 1;
    rc = earth_coll_rw(ef, ef->comm, is_write, pos, buf, count, type, local,
                       &fb, &nb);
    if (fb) {
        ef->stats.fallbacks++;
        earth_log(2, "call handed to ROMIO");
        rc = romio_call(op, form, fh, off, buf, count, type, status, req);
        if (form == FORM_BEGIN && rc == MPI_SUCCESS) {
            ef->split_active = 2; /* ROMIO's split: its _end finishes it */
        }
        return rc;
    }
    earth_log(3, "collective %s by EARTH: %lld bytes",
              is_write ? "write" : "read", (long long)nb);
    /* the individual file pointer moves by the data accessed, in etypes,
     * as ROMIO moves it */
    if (rc == MPI_SUCCESS && !explicit && nb > 0)
        rc = PMPI_File_seek(fh, pos + (MPI_Offset)(nb / ef->etype_size),
                            MPI_SEEK_SET);
    switch (form) {
    case FORM_BLOCKING:
        if (status != MPI_STATUS_IGNORE)
            PMPI_Status_set_elements_x(status, MPI_BYTE, nb);
        break;
    case FORM_BEGIN:
        ef->split_active = 1;
        ef->split_err = rc;
        ef->split_bytes = nb;
        break;
    case FORM_NONBLOCKING: /* handled by earth_post */
        break;
    }
    if (rc != MPI_SUCCESS)
        PMPI_File_call_errhandler(fh, rc);
    return rc;
}

/* _end of a split collective begun by earth_do. */
static int earth_end(enum op op, MPI_File fh, void *buf, MPI_Status *status)
{
    earth_file_t *ef = earth_file_find(fh);
    if (!ef || ef->split_active == 2 || !ef->split_active) {
        if (ef)
            ef->split_active = 0;
        switch (op) {
        case OP_WRITE_ALL:
            return PMPI_File_write_all_end(fh, buf, status);
        case OP_READ_ALL:
            return PMPI_File_read_all_end(fh, buf, status);
        case OP_WRITE_AT_ALL:
            return PMPI_File_write_at_all_end(fh, buf, status);
        case OP_READ_AT_ALL:
            return PMPI_File_read_at_all_end(fh, buf, status);
        }
    }
    ef->split_active = 0;
    if (status != MPI_STATUS_IGNORE)
        PMPI_Status_set_elements_x(status, MPI_BYTE, ef->split_bytes);
    return ef->split_err;
}

int MPI_File_write_all(MPI_File fh, const void *buf, int count,
                       MPI_Datatype type, MPI_Status *status)
{
    return earth_do(OP_WRITE_ALL, FORM_BLOCKING, fh, 0, buf, count, type,
                    status, NULL);
}

int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype type,
                      MPI_Status *status)
{
    return earth_do(OP_READ_ALL, FORM_BLOCKING, fh, 0, buf, count, type, status,
                    NULL);
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf,
                          int count, MPI_Datatype type, MPI_Status *status)
{
    return earth_do(OP_WRITE_AT_ALL, FORM_BLOCKING, fh, off, buf, count, type,
                    status, NULL);
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int count,
                         MPI_Datatype type, MPI_Status *status)
{
    return earth_do(OP_READ_AT_ALL, FORM_BLOCKING, fh, off, buf, count, type,
                    status, NULL);
}

int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count,
                             MPI_Datatype type)
{
    return earth_do(OP_WRITE_ALL, FORM_BEGIN, fh, 0, buf, count, type, NULL,
                    NULL);
}

int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return earth_end(OP_WRITE_ALL, fh, (void *)buf, status);
}

int MPI_File_read_all_begin(MPI_File fh, void *buf, int count,
                            MPI_Datatype type)
{
    return earth_do(OP_READ_ALL, FORM_BEGIN, fh, 0, buf, count, type, NULL,
                    NULL);
}

int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return earth_end(OP_READ_ALL, fh, buf, status);
}

int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset off, const void *buf,
                                int count, MPI_Datatype type)
{
    return earth_do(OP_WRITE_AT_ALL, FORM_BEGIN, fh, off, buf, count, type,
                    NULL, NULL);
}

int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return earth_end(OP_WRITE_AT_ALL, fh, (void *)buf, status);
}

int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset off, void *buf,
                               int count, MPI_Datatype type)
{
    return earth_do(OP_READ_AT_ALL, FORM_BEGIN, fh, off, buf, count, type, NULL,
                    NULL);
}

int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return earth_end(OP_READ_AT_ALL, fh, buf, status);
}

int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count,
                        MPI_Datatype type, MPI_Request *req)
{
    return earth_do(OP_WRITE_ALL, FORM_NONBLOCKING, fh, 0, buf, count, type,
                    NULL, req);
}

int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype type,
                       MPI_Request *req)
{
    return earth_do(OP_READ_ALL, FORM_NONBLOCKING, fh, 0, buf, count, type,
                    NULL, req);
}

int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset off, const void *buf,
                           int count, MPI_Datatype type, MPI_Request *req)
{
    return earth_do(OP_WRITE_AT_ALL, FORM_NONBLOCKING, fh, off, buf, count,
                    type, NULL, req);
}

int MPI_File_iread_at_all(MPI_File fh, MPI_Offset off, void *buf, int count,
                          MPI_Datatype type, MPI_Request *req)
{
    return earth_do(OP_READ_AT_ALL, FORM_NONBLOCKING, fh, off, buf, count, type,
                    NULL, req);
}
