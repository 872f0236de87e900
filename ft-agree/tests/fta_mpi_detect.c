/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_mpi_detect.c: the failure detector on real processes.
 *
 *   fta_mpi_detect kill OUTDIR   rank 1 kills itself; the others measure
 *                                the time from the kill to its detection
 *   fta_mpi_detect stop OUTDIR MS  rank 0 stops rank 1 (SIGSTOP) for MS
 *                                milliseconds; nobody may declare it dead
 *   fta_mpi_detect idle OUTDIR S   no failure for S seconds (a barrier and
 *                                a 50 ms sleep in a loop); nobody may be
 *                                declared dead
 *
 * Each rank writes its findings to OUTDIR/rank.N ("OK ..." or "FAIL ...");
 * the detection latency line reads "detect_ms=... timeout_ms=...".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "mpix_ft.h"

static double now_real(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* How many processes of MPI_COMM_WORLD are known to have failed. */
static int nfailed(void)
{
    MPI_Group fg;
    int nf = -1;
    MPIX_Comm_get_failed(MPI_COMM_WORLD, &fg);
    MPI_Group_size(fg, &nf);
    MPI_Group_free(&fg);
    return nf;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s kill|stop|idle OUTDIR [MS|S]\n", argv[0]);
        return 99;
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%d", argv[2], rank);
    FILE *rep = fopen(path, "w");
    if (!rep)
        return 99;
    const char *t = getenv("FTA_FD_TIMEOUT_MS");
    double timeout_ms = t ? atof(t) : 2000;
    if (!strcmp(argv[1], "kill")) {
        /* Rank 1 notes when it dies in OUTDIR/kill.time; rank 0 reads it
         * once the death is detected.  Not an MPI message: a receive
         * from a rank already declared dead may fail before it matches
         * (ULFM lets it), and the dead rank is declared within a period
         * or two, so a survivor that runs late would lose the time. */
        double t_kill = 0;
        int one = 1;
        char tpath[4200];
        snprintf(tpath, sizeof tpath, "%s/kill.time", argv[2]);
        if (rank == 1) {
            FILE *tf = fopen(tpath, "w");
            if (!tf)
                return 99;
            t_kill = now_real();
            fprintf(tf, "%.6f\n", t_kill);
            fclose(tf);
            raise(SIGKILL);
        }
        /* Wait for the detector through a call on the dead peer. */
        int rc =
            MPI_Recv(&one, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t_det = 0;
        FTA_Failure_time(1, &t_det);
        if (rank == 0) {
            FILE *tf = fopen(tpath, "r");
            if (!tf || fscanf(tf, "%lf", &t_kill) != 1)
                t_kill = 0;
            if (tf)
                fclose(tf);
        }
        int flag = 1;
        MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        if (rank == 0) {
            double ms = (t_det - t_kill) * 1000.0;
            fprintf(rep, "%s rank 0: rc=%d detect_ms=%.1f timeout_ms=%.0f\n",
                    rc == MPIX_ERR_PROC_FAILED && t_det > 0 && t_kill > 0
                        ? "OK"
                        : "FAIL",
                    rc, ms, timeout_ms);
        } else {
            fprintf(rep, "%s rank %d: rc=%d\n",
                    rc == MPIX_ERR_PROC_FAILED ? "OK" : "FAIL", rank, rc);
        }
    } else if (!strcmp(argv[1], "idle")) {
        double secs = argc > 3 ? atof(argv[3]) : 10, t0 = now_real();
        int go = 1, rounds = 0, rc = MPI_SUCCESS;
        while (go && rc == MPI_SUCCESS) {
            struct timespec d = {0, 50000000L};
            nanosleep(&d, NULL); /* idle time, not a sync */
            go = now_real() - t0 < secs;
            rc = MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
            rounds++;
        }
        int flag = 1, rc2 = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        int nf = nfailed();
        fprintf(rep,
                "%s rank %d: idle %.0f s, %d rounds, rc=%d agree rc=%d "
                "failed=%d\n",
                rc == MPI_SUCCESS && rc2 == MPI_SUCCESS && nf == 0 ? "OK"
                                                                   : "FAIL",
                rank, secs, rounds, rc, rc2, nf);
    } else {
        int ms = argc > 3 ? atoi(argv[3]) : 500;
        int *pids = malloc((size_t)size * sizeof *pids), me = getpid();
        MPI_Allgather(&me, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
        if (rank == 0) {
            struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
            kill(pids[1], SIGSTOP);
            nanosleep(&d, NULL); /* the length of the stop, not a sync */
            kill(pids[1], SIGCONT);
        }
        int flag = 1, rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        int rc2 = MPI_Barrier(MPI_COMM_WORLD);
        int nf = nfailed();
        fprintf(rep,
                "%s rank %d: stopped %d ms, agree rc=%d barrier rc=%d "
                "failed=%d\n",
                rc == MPI_SUCCESS && rc2 == MPI_SUCCESS && nf == 0 ? "OK"
                                                                   : "FAIL",
                rank, ms, rc, rc2, nf);
        free(pids);
    }
    fclose(rep);
    MPI_Finalize();
    return 0;
}
