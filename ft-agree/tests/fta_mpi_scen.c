/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_mpi_scen.c: real-process failure scenarios for the ULFM layer.
 *
 *   fta_mpi_scen MODE OUTDIR VICTIM[,VICTIM...]
 *
 * MODE before: the victims kill themselves (SIGKILL) before any agreement;
 * during: they kill themselves inside an agreement, after contributing;
 * after: they die after a successful agreement.  Every survivor then
 * (1) gets MPIX_ERR_PROC_FAILED from a receive from a dead peer,
 * (2) agrees (MPIX_ERR_PROC_FAILED until it acknowledged the failures,
 *     then success), (3) shrinks, (4) runs an allreduce on the new
 * communicator and checks the result, and writes "OK" lines to
 * OUTDIR/rank.N.  Survivors are judged by these reports (mpiexec exits
 * with the victims' signal).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "mpix_ft.h"

static FILE *rep;
static int wrank;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(rep, "FAIL rank %d line %d: ", wrank, __LINE__);           \
            fprintf(rep, __VA_ARGS__);                                         \
            fprintf(rep, "\n");                                                \
            fclose(rep);                                                       \
            _exit(1);                                                          \
        }                                                                      \
    } while (0)

static int is_victim(const char *list, int r)
{
    char *dup = strdup(list), *save = NULL;
    int hit = 0;
    for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save))
        hit |= atoi(t) == r;
    free(dup);
    return hit;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s before|during|after OUTDIR VICTIMS\n",
                argv[0]);
        return 99;
    }
    const char *mode = argv[1];
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%d", argv[2], wrank);
    rep = fopen(path, "w");
    if (!rep)
        return 99;
    setvbuf(rep, NULL, _IOLBF, 0);
    int victim = is_victim(argv[3], wrank), nvict = 0, firstv = -1;
    int firsts = -1;
    for (int r = 0; r < size; r++) {
        if (is_victim(argv[3], r)) {
            nvict++;
            if (firstv < 0)
                firstv = r;
        } else if (firsts < 0) {
            firsts = r;
        }
    }
    int flag, rc;

    if (!strcmp(mode, "before") && victim)
        raise(SIGKILL);
    if (!strcmp(mode, "during")) {
        flag = 1;
        MPI_Request req;
        rc = MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &req);
        CHECK(rc == MPI_SUCCESS, "iagree start rc=%d", rc);
        if (victim) {
            int done = 0;
            for (int i = 0; i < 50 && !done; i++)
                MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            raise(SIGKILL);
        }
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        fprintf(rep, "rank %d: agreement during the failure: rc=%d flag=%d\n",
                wrank, rc, flag);
        CHECK(rc == MPI_SUCCESS || rc == MPIX_ERR_PROC_FAILED, "iagree rc=%d",
              rc);
    }
    if (!strcmp(mode, "after")) {
        flag = 1;
        rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        CHECK(rc == MPI_SUCCESS && flag == 1, "first agree rc=%d flag=%d", rc,
              flag);
        if (victim)
            raise(SIGKILL);
    }

    /* (1) A call that involves a dead peer fails with PROC_FAILED. */
    int x = 0;
    rc =
        MPI_Recv(&x, 1, MPI_INT, firstv, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_PROC_FAILED, "recv from dead %d: rc=%d", firstv, rc);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPIX_ERR_PROC_FAILED, "error class %d", cls);
    rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rc == MPIX_ERR_PROC_FAILED, "barrier with a dead member: rc=%d", rc);

    /* (2) Agreement: failures not acknowledged yet give PROC_FAILED, with
     * the value still agreed; after acknowledging them, success. */
    flag = ~0;
    rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    CHECK(rc == MPIX_ERR_PROC_FAILED || rc == MPI_SUCCESS, "agree rc=%d", rc);
    int acked = 0;
    for (int tries = 0; tries < 100; tries++) {
        MPI_Group fg;
        int nf;
        MPIX_Comm_failure_ack(MPI_COMM_WORLD);
        MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &fg);
        MPI_Group_size(fg, &nf);
        MPI_Group_free(&fg);
        acked = nf;
        flag = wrank == firsts ? 5 : 7;
        rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        if (rc == MPI_SUCCESS)
            break;
        CHECK(rc == MPIX_ERR_PROC_FAILED, "agree after ack rc=%d", rc);
    }
    CHECK(rc == MPI_SUCCESS && flag == 5, "agree after ack: rc=%d flag=%d", rc,
          flag);
    CHECK(acked == nvict, "acknowledged %d failures, want %d", acked, nvict);
    fprintf(rep, "rank %d: agreed with %d acknowledged failures\n", wrank,
            acked);

    /* (3) Shrink; (4) a collective on the survivors. */
    MPI_Comm sc;
    rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &sc);
    CHECK(rc == MPI_SUCCESS, "shrink rc=%d", rc);
    int ssize, srank, sum = 0, one = 1;
    MPI_Comm_size(sc, &ssize);
    MPI_Comm_rank(sc, &srank);
    CHECK(ssize == size - nvict, "shrunk size %d, want %d", ssize,
          size - nvict);
    MPI_Comm_set_errhandler(sc, MPI_ERRORS_RETURN);
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, sc);
    CHECK(rc == MPI_SUCCESS && sum == ssize, "allreduce rc=%d sum=%d", rc, sum);
    int rev = 1;
    MPIX_Comm_is_revoked(sc, &rev);
    CHECK(!rev, "new communicator is revoked");
    /* Revoke the old communicator: everybody sees it. */
    if (srank == 0)
        MPIX_Comm_revoke(MPI_COMM_WORLD);
    rc = MPI_Barrier(sc);
    CHECK(rc == MPI_SUCCESS, "barrier on shrunk rc=%d", rc);
    for (int i = 0; i < 1000000 && !rev; i++)
        MPIX_Comm_is_revoked(MPI_COMM_WORLD, &rev);
    CHECK(rev, "revoke not seen");
    rc = MPI_Send(&one, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    CHECK(rc == MPIX_ERR_REVOKED, "send on revoked rc=%d", rc);
    fprintf(rep, "OK rank %d: shrunk to %d ranks (rank %d), sum %d\n", wrank,
            ssize, srank, sum);
    fclose(rep);
    MPI_Comm_free(&sc);
    MPI_Finalize();
    return 0;
}
