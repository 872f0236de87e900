/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_open.c: the interposed file-management calls (open, close,
 * set_view, set_info, get_info) and the per-file queries of earth.h.
 * ROMIO carries every call out through PMPI; EARTH validates its hints,
 * agrees on them and records the file (earth_file.c).
 *
 * An open or a set_view of a file that ROMIO carries (earth_enable=auto on
 * one node, the common case) adds no synchronisation of its own: the
 * agreement on EARTH's hints (every rank must fail alike when one rank's
 * value is bad) is a nonblocking allreduce started before ROMIO's call and
 * completed after it, so that it progresses inside ROMIO's own collectives.
 * When some rank's value was bad, ROMIO's call is undone (the file closed,
 * the previous view and position put back).
 */
#include "earth_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The MPI calls defined here replace MPICH's: export them. */
#pragma GCC visibility push(default)

/* EARTH's communicator, aggregators and progress thread (collective);
 * on failure the file goes to ROMIO on every rank alike. */
static void file_setup(earth_file_t *ef)
{
    if (earth_file_prepare(ef) != MPI_SUCCESS ||
        earth_async_setup(ef) != MPI_SUCCESS) {
        ef->hints.enable = ef->use_earth = 0;
        return;
    }
    ef->ready = 1;
}

/* earth_file_decide() after set_view / set_info: set up what EARTH needs
 * the first time it is asked for (collective, like both calls). */
static void redecide(earth_file_t *ef)
{
    earth_file_decide(ef);
    if (ef->use_earth && !ef->ready)
        file_setup(ef);
}

/* One value of the open's agreement (MPI_MAX over the ranks): any error,
 * a hash of the host name and its negation (equal maxima on one node),
 * the lowest rank with a bad EARTH_* variable (negated). */
static void open_vote(int rc, int envrc, int me, long long v[4])
{
    char name[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int len = 0;
    PMPI_Get_processor_name(name, &len);
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
    v[0] = rc != MPI_SUCCESS;
    v[1] = (long long)(h >> 1);
    v[2] = -(long long)(h >> 1);
    v[3] = envrc != MPI_SUCCESS ? -(long long)me : LLONG_MIN;
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                  MPI_File *fh)
{
    earth_hints_t h;
    int rc, inter = 0, me = 0;
    earth_hints_defaults(&h);
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return PMPI_File_open(comm, filename, amode, info, fh);
    int envrc = earth_env_check();
    if (envrc == MPI_SUCCESS)
        envrc = earth_hints_env(&h);
    rc = envrc;
    if (rc == MPI_SUCCESS)
        rc = earth_hints_apply(&h, info);
    PMPI_Comm_rank(comm, &me);

    /* the agreement, and at the first open on comm its duplicate, progress
     * inside ROMIO's open */
    long long v[4], m[4];
    open_vote(rc, envrc, me, v);
    MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Comm dup = MPI_COMM_NULL;
    earth_base_t *base = earth_base_find(comm);
    int arc = PMPI_Iallreduce(v, m, 4, MPI_LONG_LONG, MPI_MAX, comm, &rq[0]);
    if (arc != MPI_SUCCESS) {
        earth_base_put(base);
        return PMPI_File_call_errhandler(MPI_FILE_NULL, arc), arc;
    }
    if (!base && PMPI_Comm_idup(comm, &dup, &rq[1]) != MPI_SUCCESS)
        rq[1] = MPI_REQUEST_NULL; /* no record: the file is ROMIO's */
    int existed = 1;
    if ((amode & MPI_MODE_CREATE) && me == 0)
        existed = access(earth_strip_prefix(filename), F_OK) == 0;
    int orc = PMPI_File_open(comm, filename, amode, info, fh);
    earth_waitall(2, rq);
    if (!base && dup != MPI_COMM_NULL)
        base = earth_base_attach(comm, dup);

    if (m[0]) {
        /* a bad hint or EARTH_* value on some rank: every rank fails */
        if (orc == MPI_SUCCESS) {
            PMPI_File_close(fh);
            if (!existed)
                unlink(earth_strip_prefix(filename));
        }
        *fh = MPI_FILE_NULL;
        earth_base_put(base);
        if (rc == MPI_SUCCESS)
            rc = MPI_ERR_INFO_VALUE;
        /* a bad variable: said once, by the lowest rank that saw it */
        if (envrc != MPI_SUCCESS && -m[3] == me)
            fprintf(stderr, "mpiio-earth: %s (MPI_File_open returns %s)\n",
                    earth_last_error(),
                    envrc == MPI_ERR_ARG ? "MPI_ERR_ARG"
                                         : "MPI_ERR_INFO_VALUE");
        return PMPI_File_call_errhandler(MPI_FILE_NULL, rc), rc;
    }
    if (orc != MPI_SUCCESS || !base) {
        earth_base_put(base);
        return orc; /* without a record the file is simply ROMIO's */
    }
    struct earth_fsemu_stats fs;
    earth_fsemu_stats(&fs, 0);
    earth_file_t *ef =
        earth_file_new(*fh, base, amode, filename, &h, fs.on || m[1] != -m[2]);
    if (!ef)
        return MPI_SUCCESS;
    /* the rest only when EARTH will carry calls (else when set_info or
     * set_view first asks for it); every rank reaches the same verdict */
    if (ef->use_earth)
        file_setup(ef);
    earth_file_add(ef);
    earth_log(2, "open %s: %d aggregators, cb_buffer_size %lld, %s", filename,
              ef->naggr, (long long)ef->cb_buffer_size,
              ef->use_earth ? "EARTH" : "collective calls to ROMIO");
    return MPI_SUCCESS;
}

int MPI_File_close(MPI_File *fh)
{
    earth_file_t *ef = fh ? earth_file_find(*fh) : NULL;
    /* MPI leaves completing the requests to the user; finish what the
     * progress thread has queued before ROMIO closes the file */
    if (ef)
        earth_async_free(ef);
    int rc = PMPI_File_close(fh);
    if (ef && rc == MPI_SUCCESS) {
        earth_file_remove(ef);
        earth_file_free(ef);
    }
    return rc;
}

static void free_type(MPI_Datatype *t)
{
    int a, b, c, k;
    PMPI_Type_get_envelope(*t, &a, &b, &c, &k);
    if (k != MPI_COMBINER_NAMED)
        PMPI_Type_free(t);
}

/*
 * ROMIO's set_view on a file EARTH has not set up (ROMIO carries its
 * calls), with the agreement on the hints of `info` progressing inside it.
 * When some rank's hint was bad (rc on this rank), the previous view and
 * individual file position are put back and every rank returns the error.
 */
static int set_view_agreed(earth_file_t *ef, int rc, MPI_Offset disp,
                           MPI_Datatype etype, MPI_Datatype filetype,
                           const char *datarep, MPI_Info info, int *ours)
{
    MPI_Offset odisp = 0, opos = 0;
    MPI_Datatype oet, oft;
    char orep[MPI_MAX_DATAREP_STRING + 1];
    int bad = rc != MPI_SUCCESS, any = 0, vrc;
    MPI_Request rq;
    *ours = 0;
    vrc = PMPI_File_get_view(ef->fh, &odisp, &oet, &oft, orep);
    if (vrc != MPI_SUCCESS)
        return vrc;
    if (!(ef->amode & MPI_MODE_SEQUENTIAL))
        PMPI_File_get_position(ef->fh, &opos);
    vrc = PMPI_Iallreduce(&bad, &any, 1, MPI_INT, MPI_MAX, ef->base->comm, &rq);
    if (vrc == MPI_SUCCESS) {
        vrc = PMPI_File_set_view(ef->fh, disp, etype, filetype, datarep, info);
        PMPI_Wait(&rq, MPI_STATUS_IGNORE);
        if (any) {
            if (vrc == MPI_SUCCESS &&
                PMPI_File_set_view(ef->fh, odisp, oet, oft, orep,
                                   MPI_INFO_NULL) == MPI_SUCCESS &&
                !(ef->amode & MPI_MODE_SEQUENTIAL))
                PMPI_File_seek(ef->fh, opos, MPI_SEEK_SET);
            vrc = rc != MPI_SUCCESS ? rc : MPI_ERR_INFO_VALUE;
            *ours = 1;
        }
    }
    free_type(&oet);
    free_type(&oft);
    return vrc;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                      MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    earth_file_t *ef = earth_file_find(fh);
    earth_hints_t nh;
    int rc, ours = 1;
    if (!ef)
        return PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    earth_async_drain(ef);
    nh = ef->hints;
    rc = earth_hints_apply(&nh, info);
    if (!ef->ready) {
        rc = set_view_agreed(ef, rc, disp, etype, filetype, datarep, info,
                             &ours);
    } else if ((rc = earth_agree(ef->comm, rc)) == MPI_SUCCESS) {
        ours = 0;
        rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    }
    if (rc != MPI_SUCCESS) {
        if (ours) /* ROMIO's own errors went through the handler */
            PMPI_File_call_errhandler(fh, rc);
        return rc;
    }
    ef->hints = nh;
    ef->view_valid = 0;
    earth_flat_free(&ef->ftype);
    if (ef->ready && earth_file_refresh_romio(ef) != MPI_SUCCESS)
        ef->hints.enable = 0;
    redecide(ef);
    return MPI_SUCCESS;
}

int MPI_File_set_info(MPI_File fh, MPI_Info info)
{
    earth_file_t *ef = earth_file_find(fh);
    earth_hints_t nh;
    int rc;
    if (!ef)
        return PMPI_File_set_info(fh, info);
    earth_async_drain(ef);
    nh = ef->hints;
    rc = earth_agree(ef->ready ? ef->comm : ef->base->comm,
                     earth_hints_apply(&nh, info));
    if (rc != MPI_SUCCESS)
        return PMPI_File_call_errhandler(fh, rc), rc;
    rc = PMPI_File_set_info(fh, info);
    if (rc == MPI_SUCCESS) {
        ef->hints = nh;
        if (ef->ready && earth_file_refresh_romio(ef) != MPI_SUCCESS)
            ef->hints.enable = 0;
        redecide(ef);
    }
    return rc;
}

int MPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    earth_file_t *ef = earth_file_find(fh);
    int rc = PMPI_File_get_info(fh, info_used);
    if (rc == MPI_SUCCESS && ef)
        rc = earth_hints_report(&ef->hints, *info_used);
    return rc;
}

int earth_file_stats(MPI_File fh, struct earth_stats *st)
{
    earth_file_t *ef = earth_file_find(fh);
    earth_async_drain(ef);
    if (!st)
        return MPI_ERR_ARG;
    if (!ef)
        return MPI_ERR_FILE;
    *st = ef->stats;
    return MPI_SUCCESS;
}

int earth_file_stats_reset(MPI_File fh)
{
    earth_file_t *ef = earth_file_find(fh);
    earth_async_drain(ef);
    if (!ef)
        return MPI_ERR_FILE;
    int32_t n = ef->stats.naggr, a = ef->stats.is_aggr;
    memset(&ef->stats, 0, sizeof(ef->stats));
    ef->stats.naggr = n;
    ef->stats.is_aggr = a;
    return MPI_SUCCESS;
}

int earth_file_aggregators(MPI_File fh, int *ranks, int n)
{
    earth_file_t *ef = earth_file_find(fh);
    if (!ef)
        return -MPI_ERR_FILE;
    for (int i = 0; i < n && i < ef->naggr; i++)
        ranks[i] = ef->aggr[i];
    return ef->naggr;
}
