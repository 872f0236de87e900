/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_mpi_scen.c: real-process failure scenarios for the ULFM layer.
 *
 *   fta_mpi_scen MODE OUTDIR VICTIM[,VICTIM...]
 *
 * MODE shrink: everybody shrinks MPI_COMM_WORLD at once and the victims
 * kill themselves inside the shrink, at their FTA_SCEN_KILL_AT-th protocol
 * message (default 2: after contributing to its agreement); the survivors
 * get a communicator of the survivors and reduce on it.
 * MODE before: the victims kill themselves (SIGKILL) before any agreement;
 * during: they kill themselves inside an agreement, after contributing;
 * after: they die after a successful agreement.  Every survivor then
 * (1) gets MPIX_ERR_PROC_FAILED from a receive from a dead peer,
 * (2) agrees (MPIX_ERR_PROC_FAILED until it acknowledged the failures,
 *     then success), (3) shrinks, (4) runs an allreduce on the new
 * communicator and checks the result, and writes "OK" lines to
 * OUTDIR/rank.N.  Survivors are judged by these reports (mpiexec exits
 * with the victims' signal).  Nonblocking receives from the first victim
 * are posted before anybody dies; after the failure MPI_Wait, MPI_Test,
 * MPI_Waitall and MPI_Waitany complete them with the failure (and the
 * requests to live peers normally), and gather, scatter, allgather,
 * alltoall, reduce_scatter(_block) and scan on the old communicator fail,
 * then give the right results on the shrunk one.  Nonblocking calls
 * started after the failure is known (MPI_Isend, MPI_Irecv, MPI_Ibarrier,
 * MPI_Ibcast, MPI_Iallreduce, the 13 other nonblocking collectives;
 * MPI_Isend on the revoked communicator) start and report the failure (the
 * revocation) in their completion calls (MPI_Request_get_status reports it
 * without freeing).  An ibarrier, an ialltoall and an igather started by
 * the survivors alone before any failure, on a duplicate of the world,
 * fail once the victims die (the igather at its root: MPICH's nbccoll).
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

/* Gather, scatter, allgather, alltoall, reduce_scatter, reduce_scatter
 * _block, scan on comm.  With check, verify the results (all must
 * succeed); else every call must fail with MPIX_ERR_PROC_FAILED.  Returns
 * the common result class. */
static int colls(MPI_Comm comm, int check)
{
    int n, r, rc, want = check ? MPI_SUCCESS : MPIX_ERR_PROC_FAILED;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    int *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    int *cnt = calloc((size_t)n, sizeof *cnt), v = r + 1, out = 0;
    CHECK(a && b && cnt, "out of memory");
    for (int i = 0; i < n; i++) {
        a[i] = 100 * r + i;
        cnt[i] = 1;
    }
    rc = MPI_Gather(&v, 1, MPI_INT, b, 1, MPI_INT, 0, comm);
    CHECK(rc == want, "gather rc=%d", rc);
    for (int i = 0; check && r == 0 && i < n; i++)
        CHECK(b[i] == i + 1, "gather b[%d]=%d", i, b[i]);
    rc = MPI_Scatter(a, 1, MPI_INT, &out, 1, MPI_INT, 0, comm);
    CHECK(rc == want, "scatter rc=%d", rc);
    CHECK(!check || out == r, "scatter got %d", out);
    rc = MPI_Allgather(&v, 1, MPI_INT, b, 1, MPI_INT, comm);
    CHECK(rc == want, "allgather rc=%d", rc);
    for (int i = 0; check && i < n; i++)
        CHECK(b[i] == i + 1, "allgather b[%d]=%d", i, b[i]);
    rc = MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, comm);
    CHECK(rc == want, "alltoall rc=%d", rc);
    for (int i = 0; check && i < n; i++)
        CHECK(b[i] == 100 * i + r, "alltoall b[%d]=%d", i, b[i]);
    rc = MPI_Reduce_scatter(a, &out, cnt, MPI_INT, MPI_SUM, comm);
    CHECK(rc == want, "reduce_scatter rc=%d", rc);
    CHECK(!check || out == 100 * n * (n - 1) / 2 + n * r,
          "reduce_scatter got %d", out);
    rc = MPI_Reduce_scatter_block(a, &out, 1, MPI_INT, MPI_SUM, comm);
    CHECK(rc == want, "reduce_scatter_block rc=%d", rc);
    CHECK(!check || out == 100 * n * (n - 1) / 2 + n * r,
          "reduce_scatter_block got %d", out);
    rc = MPI_Scan(&v, &out, 1, MPI_INT, MPI_SUM, comm);
    CHECK(rc == want, "scan rc=%d", rc);
    CHECK(!check || out == (r + 1) * (r + 2) / 2, "scan got %d", out);
    free(a);
    free(b);
    free(cnt);
    return want;
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

    if (!strcmp(mode, "shrink")) {
        const char *ka = getenv("FTA_SCEN_KILL_AT");
        if (victim)
            FTA_Test_kill_at_send(ka ? atol(ka) : 2);
        MPI_Comm sc;
        rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &sc);
        CHECK(rc == MPI_SUCCESS, "shrink rc=%d", rc);
        CHECK(!victim, "victim survived the shrink");
        int ssize, one = 1, sum = 0;
        MPI_Comm_size(sc, &ssize);
        CHECK(ssize == size - nvict, "shrunk size %d, want %d", ssize,
              size - nvict);
        MPI_Comm_set_errhandler(sc, MPI_ERRORS_RETURN);
        rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, sc);
        CHECK(rc == MPI_SUCCESS && sum == ssize, "allreduce rc=%d sum=%d", rc,
              sum);
        fprintf(rep, "OK rank %d: shrunk to %d ranks during a failure\n", wrank,
                ssize);
        fclose(rep);
        MPI_Comm_free(&sc);
        MPI_Finalize();
        return 0;
    }

    /* A communicator on which only the survivors start collectives (the
     * victims die without joining them): MPICH's test/mpi/ft nbccoll. */
    MPI_Comm cw;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &cw);
    CHECK(rc == MPI_SUCCESS, "dup rc=%d", rc);
    MPI_Comm_set_errhandler(cw, MPI_ERRORS_RETURN);
    MPI_Request rcw[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                          MPI_REQUEST_NULL};
    int cwin[16] = {0}, cwout[16] = {0};
    CHECK(size <= 16, "at most 16 ranks");

    /* Survivors post receives from the first victim (and exchange with
     * their neighbours in the ring of survivors) while all are alive. */
    MPI_Request rwait = MPI_REQUEST_NULL, rtest = MPI_REQUEST_NULL, rall[3],
                rany[2];
    int dummy[4], live[2] = {-1, -1}, succ = -1, pred = -1;
    if (!victim) {
        for (int d = 1; d < size && succ < 0; d++)
            if (!is_victim(argv[3], (wrank + d) % size))
                succ = (wrank + d) % size;
        for (int d = 1; d < size && pred < 0; d++)
            if (!is_victim(argv[3], (wrank - d + size) % size))
                pred = (wrank - d + size) % size;
        rc = MPI_Irecv(&dummy[0], 1, MPI_INT, firstv, 43, MPI_COMM_WORLD,
                       &rwait);
        CHECK(rc == MPI_SUCCESS, "irecv rc=%d", rc);
        rc = MPI_Irecv(&dummy[1], 1, MPI_INT, firstv, 44, MPI_COMM_WORLD,
                       &rtest);
        CHECK(rc == MPI_SUCCESS, "irecv rc=%d", rc);
        MPI_Irecv(&dummy[2], 1, MPI_INT, firstv, 45, MPI_COMM_WORLD, &rall[0]);
        MPI_Irecv(&live[0], 1, MPI_INT, pred, 46, MPI_COMM_WORLD, &rall[1]);
        MPI_Isend(&wrank, 1, MPI_INT, succ, 46, MPI_COMM_WORLD, &rall[2]);
        MPI_Irecv(&dummy[3], 1, MPI_INT, firstv, 47, MPI_COMM_WORLD, &rany[0]);
        MPI_Irecv(&live[1], 1, MPI_INT, pred, 48, MPI_COMM_WORLD, &rany[1]);
        rc = MPI_Send(&wrank, 1, MPI_INT, succ, 48, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "send to live succ %d rc=%d", succ, rc);
        /* Started before any failure: they wait for the victims. */
        rc = MPI_Ibarrier(cw, &rcw[0]);
        CHECK(rc == MPI_SUCCESS, "ibarrier on cw: start rc=%d", rc);
        rc = MPI_Ialltoall(cwin, 1, MPI_INT, cwout, 1, MPI_INT, cw, &rcw[1]);
        CHECK(rc == MPI_SUCCESS, "ialltoall on cw: start rc=%d", rc);
        rc = MPI_Igather(cwin, 1, MPI_INT, cwout, 1, MPI_INT, firsts, cw,
                         &rcw[2]);
        CHECK(rc == MPI_SUCCESS, "igather on cw: start rc=%d", rc);
    }
    /* Nobody dies before every survivor has posted its receives (a
     * victim dead that early is declared within two heartbeat periods by
     * the /proc check, and a slow survivor's receives from it would then
     * fail at once instead of pending). */
    rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "barrier before the failures rc=%d", rc);

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

    /* (1b) Nonblocking requests posted before the failure. */
    MPI_Status sts[3];
    rc = MPI_Wait(&rwait, &sts[0]);
    CHECK(rc == MPIX_ERR_PROC_FAILED && rwait == MPI_REQUEST_NULL,
          "wait on irecv from dead: rc=%d", rc);
    CHECK(sts[0].MPI_ERROR == MPIX_ERR_PROC_FAILED, "wait status %d",
          sts[0].MPI_ERROR);
    flag = 0;
    rc = MPI_Test(&rtest, &flag, MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_PROC_FAILED && flag && rtest == MPI_REQUEST_NULL,
          "test on irecv from dead: rc=%d flag=%d", rc, flag);
    rc = MPI_Waitall(3, rall, sts);
    CHECK(rc == MPI_ERR_IN_STATUS, "waitall rc=%d", rc);
    CHECK(sts[0].MPI_ERROR == MPIX_ERR_PROC_FAILED &&
              sts[1].MPI_ERROR == MPI_SUCCESS &&
              sts[2].MPI_ERROR == MPI_SUCCESS && live[0] == pred,
          "waitall statuses %d %d %d, got %d from %d", sts[0].MPI_ERROR,
          sts[1].MPI_ERROR, sts[2].MPI_ERROR, live[0], pred);
    int idx = -1;
    rc = MPI_Waitany(2, rany, &idx, MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_PROC_FAILED && idx == 0, "waitany rc=%d index=%d", rc,
          idx);
    rc = MPI_Waitany(2, rany, &idx, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && idx == 1 && live[1] == pred,
          "second waitany rc=%d index=%d got %d", rc, idx, live[1]);
    /* (1c) Nonblocking calls started once the failure is known (the
     * blocking barrier above reported it): they start, and their
     * completion calls report it (ULFM), whatever the start returned. */
    MPI_Request rs, rn[2];
    rc = MPI_Isend(&x, 1, MPI_INT, firstv, 49, MPI_COMM_WORLD, &rs);
    CHECK(rc == MPI_SUCCESS && rs != MPI_REQUEST_NULL,
          "isend to dead: start rc=%d", rc);
    sts[0].MPI_ERROR = -1;
    rc = MPI_Wait(&rs, &sts[0]);
    CHECK(rc == MPIX_ERR_PROC_FAILED && rs == MPI_REQUEST_NULL &&
              sts[0].MPI_ERROR == MPIX_ERR_PROC_FAILED,
          "isend to dead: wait rc=%d status %d", rc, sts[0].MPI_ERROR);
    rc = MPI_Ibarrier(MPI_COMM_WORLD, &rs);
    CHECK(rc == MPI_SUCCESS && rs != MPI_REQUEST_NULL,
          "ibarrier with a dead member: start rc=%d", rc);
    rc = MPI_Wait(&rs, MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_PROC_FAILED && rs == MPI_REQUEST_NULL,
          "ibarrier with a dead member: wait rc=%d", rc);
    int in = 1, out = 0;
    rc = MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rs);
    CHECK(rc == MPI_SUCCESS, "iallreduce with a dead member: start rc=%d", rc);
    flag = 0;
    rc = MPI_Test(&rs, &flag, MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_PROC_FAILED && flag && rs == MPI_REQUEST_NULL,
          "iallreduce with a dead member: test rc=%d flag=%d", rc, flag);
    rc = MPI_Irecv(&dummy[0], 1, MPI_INT, firstv, 50, MPI_COMM_WORLD, &rn[0]);
    CHECK(rc == MPI_SUCCESS, "irecv from dead: start rc=%d", rc);
    rc = MPI_Ibcast(&in, 1, MPI_INT, firsts, MPI_COMM_WORLD, &rn[1]);
    CHECK(rc == MPI_SUCCESS, "ibcast with a dead member: start rc=%d", rc);
    rc = MPI_Waitall(2, rn, sts);
    CHECK(rc == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPIX_ERR_PROC_FAILED &&
              sts[1].MPI_ERROR == MPIX_ERR_PROC_FAILED &&
              rn[0] == MPI_REQUEST_NULL && rn[1] == MPI_REQUEST_NULL,
          "irecv+ibcast: waitall rc=%d statuses %d %d", rc, sts[0].MPI_ERROR,
          sts[1].MPI_ERROR);
    /* Every other nonblocking collective, started once the failure is
     * known; MPI_Request_get_status reports it without freeing. */
    {
        int a[16] = {0}, b[16] = {0}, c1[16], dsp[16];
        MPI_Datatype ty[16];
        for (int i = 0; i < 16; i++) {
            c1[i] = 1;
            dsp[i] = i;
            ty[i] = MPI_INT;
        }
        int bd[16];
        for (int i = 0; i < 16; i++)
            bd[i] = i * (int)sizeof(int);
        const char *name[13] = {
            "igather",       "igatherv",      "iscatter",
            "iscatterv",     "iallgather",    "iallgatherv",
            "ialltoall",     "ialltoallv",    "ialltoallw",
            "ireduce_scatter", "ireduce_scatter_block", "iscan",
            "iexscan"};
        for (int k = 0; k < 13; k++) {
            MPI_Comm w = MPI_COMM_WORLD;
            MPI_Request q = MPI_REQUEST_NULL;
            switch (k) {
            case 0: rc = MPI_Igather(a, 1, MPI_INT, b, 1, MPI_INT, firsts, w, &q); break;
            case 1: rc = MPI_Igatherv(a, 1, MPI_INT, b, c1, dsp, MPI_INT, firsts, w, &q); break;
            case 2: rc = MPI_Iscatter(a, 1, MPI_INT, b, 1, MPI_INT, firsts, w, &q); break;
            case 3: rc = MPI_Iscatterv(a, c1, dsp, MPI_INT, b, 1, MPI_INT, firsts, w, &q); break;
            case 4: rc = MPI_Iallgather(a, 1, MPI_INT, b, 1, MPI_INT, w, &q); break;
            case 5: rc = MPI_Iallgatherv(a, 1, MPI_INT, b, c1, dsp, MPI_INT, w, &q); break;
            case 6: rc = MPI_Ialltoall(a, 1, MPI_INT, b, 1, MPI_INT, w, &q); break;
            case 7: rc = MPI_Ialltoallv(a, c1, dsp, MPI_INT, b, c1, dsp, MPI_INT, w, &q); break;
            case 8: rc = MPI_Ialltoallw(a, c1, bd, ty, b, c1, bd, ty, w, &q); break;
            case 9: rc = MPI_Ireduce_scatter(a, b, c1, MPI_INT, MPI_SUM, w, &q); break;
            case 10: rc = MPI_Ireduce_scatter_block(a, b, 1, MPI_INT, MPI_SUM, w, &q); break;
            case 11: rc = MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, w, &q); break;
            default: rc = MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, w, &q); break;
            }
            CHECK(rc == MPI_SUCCESS && q != MPI_REQUEST_NULL,
                  "%s with a dead member: start rc=%d", name[k], rc);
            if (k % 2 == 0) {
                flag = 0;
                sts[0].MPI_ERROR = -1;
                rc = MPI_Request_get_status(q, &flag, &sts[0]);
                CHECK(rc == MPIX_ERR_PROC_FAILED && flag &&
                          sts[0].MPI_ERROR == MPIX_ERR_PROC_FAILED,
                      "%s: get_status rc=%d flag=%d status %d", name[k], rc,
                      flag, sts[0].MPI_ERROR);
            }
            rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
            CHECK(rc == MPIX_ERR_PROC_FAILED && q == MPI_REQUEST_NULL,
                  "%s with a dead member: wait rc=%d", name[k], rc);
        }
    }
    /* The collectives started on cw before the failure: a barrier and an
     * alltoall cannot complete without the victims; the gather cannot at
     * its root (elsewhere MPI may have delivered the contribution). */
    flag = 0;
    rc = MPI_Request_get_status(rcw[1], &flag, MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_PROC_FAILED && flag && rcw[1] != MPI_REQUEST_NULL,
          "pending ialltoall: get_status rc=%d flag=%d", rc, flag);
    rc = MPI_Wait(&rcw[0], MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_PROC_FAILED && rcw[0] == MPI_REQUEST_NULL,
          "ibarrier started before the failure: wait rc=%d", rc);
    rc = MPI_Wait(&rcw[1], MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_PROC_FAILED && rcw[1] == MPI_REQUEST_NULL,
          "ialltoall started before the failure: wait rc=%d", rc);
    rc = MPI_Wait(&rcw[2], MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_PROC_FAILED ||
              (rc == MPI_SUCCESS && wrank != firsts),
          "igather started before the failure (root %d): wait rc=%d", firsts,
          rc);
    CHECK(colls(MPI_COMM_WORLD, 0) == MPIX_ERR_PROC_FAILED,
          "collectives with a dead member did not fail");
    fprintf(rep,
            "rank %d: nonblocking calls and collectives report the "
            "failure\n",
            wrank);

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
    rc = colls(sc, 1);
    CHECK(rc == MPI_SUCCESS, "collectives on the shrunk communicator: %d", rc);
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
    MPI_Request rv;
    rc = MPI_Isend(&one, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &rv);
    CHECK(rc == MPI_SUCCESS, "isend on revoked: start rc=%d", rc);
    rc = MPI_Wait(&rv, MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_REVOKED && rv == MPI_REQUEST_NULL,
          "isend on revoked: wait rc=%d", rc);
    fprintf(rep, "OK rank %d: shrunk to %d ranks (rank %d), sum %d\n", wrank,
            ssize, srank, sum);
    fclose(rep);
    MPI_Comm_free(&sc);
    MPI_Finalize();
    return 0;
}
