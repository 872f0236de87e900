/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_mpich.c: the MPICH baseline of pip_bench_pvas: ping-pong and
 * strided sweeps of pvas_mpi under mpiexec -n 2, read back from its output.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvas_driver.h"

/* ---- MPICH baseline ------------------------------------------------------ */

static void mpi_na(pvas_results_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void mpi_na(pvas_results_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->pp[PVAS_M_MPI].why, PVAS_MSG_MAX, fmt, ap);
    va_end(ap);
    memcpy(r->nc[PVAS_M_MPI].why, r->pp[PVAS_M_MPI].why, PVAS_MSG_MAX);
    r->pp[PVAS_M_MPI].ok = r->nc[PVAS_M_MPI].ok = 0;
}

/*
 * pvas_mpi under `mpi-run -n 2 -t T` (the tree's launcher wrapper: kills
 * the whole job at the timeout) or, without it, plain `mpiexec -n 2` whose
 * process group we kill at the timeout.
 */
void run_mpi(pvas_results_t *r)
{
    if (opt.no_mpi || opt.flags_only) {
        mpi_na(r, opt.no_mpi ? "skipped (--no-mpi)" : "skipped (--flags-only)");
        return;
    }
    if (opt.mpi_prog == NULL || access(opt.mpi_prog, X_OK) != 0) {
        mpi_na(r, "pvas_mpi not built (no MPI at configure time)");
        return;
    }
    fprintf(stderr, "pip_bench_pvas: mpich (mpiexec -n 2) ...");
    double t0 = pvas_now();
    char a[8][32], tmo[32];
    snprintf(a[0], 32, "%zu", opt.pp_lo);
    snprintf(a[1], 32, "%zu", opt.do_pp ? opt.pp_hi : 0);
    snprintf(a[2], 32, "%zu", opt.nc_block);
    snprintf(a[3], 32, "%zu", opt.nc_lo);
    snprintf(a[4], 32, "%zu", opt.do_nc ? opt.nc_hi : 0);
    snprintf(a[5], 32, "%d", opt.reps);
    snprintf(a[6], 32, "%d", opt.max_iters);
    snprintf(a[7], 32, "%d", opt.fresh);
    snprintf(tmo, sizeof(tmo), "%d", (int)opt.timeout);
    char *argv[16];
    int k = 0;
    if (opt.mpi_run != NULL && opt.mpi_run[0] != '\0') {
        argv[k++] = (char *)opt.mpi_run;
        argv[k++] = "-n";
        argv[k++] = "2";
        argv[k++] = "-t";
        argv[k++] = tmo;
    } else {
        argv[k++] = "mpiexec";
        argv[k++] = "-n";
        argv[k++] = "2";
    }
    argv[k++] = (char *)opt.mpi_prog;
    for (int i = 0; i < 8; i++)
        argv[k++] = a[i];
    argv[k] = NULL;

    int fds[2];
    if (pipe(fds) != 0)
        die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "pip_bench_pvas: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(fds[1]);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    if (out == NULL)
        die("out of memory");
    double end = pvas_now() + opt.timeout + 30;
    struct pollfd pfd = {fds[0], POLLIN, 0};
    for (;;) {
        int left = (int)((end - pvas_now()) * 1000);
        if (left <= 0 || poll(&pfd, 1, left) != 1)
            break;
        ssize_t got = read(fds[0], out + len, cap - 1 - len);
        if (got <= 0)
            break;
        len += (size_t)got;
        if (len + 1 >= cap) {
            char *bigger = realloc(out, cap *= 2);
            if (bigger == NULL)
                die("out of memory");
            out = bigger;
        }
    }
    out[len] = '\0';
    close(fds[0]);
    int st = wait_or_kill(pid, end);
    int np = 0, nn = 0, okline = 0;
    for (char *line = strtok(out, "\n"); line != NULL;
         line = strtok(NULL, "\n")) {
        char kind[8];
        size_t size;
        pvas_stat_t s;
        if (strcmp(line, "ok") == 0)
            okline = 1;
        memset(&s, 0, sizeof(s));
        s.nrep = opt.reps;
        if (sscanf(line, "%7s %zu %ld %lf %lf %lf %lf %lf %d", kind, &size,
                   &s.iters, &s.med, &s.min, &s.max, &s.mean, &s.csw,
                   &s.quiet) != 9)
            continue;
        if (strcmp(kind, "pp") == 0 && np < r->npp && r->pp_size[np] == size)
            r->pp[PVAS_M_MPI].st[np++] = s;
        else if (strcmp(kind, "nc") == 0 && nn < r->nnc &&
                 r->nc_size[nn] == size)
            r->nc[PVAS_M_MPI].st[nn++] = s;
    }
    free(out);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !okline ||
        (opt.do_pp && np != r->npp) || (opt.do_nc && nn != r->nnc)) {
        mpi_na(r, "mpiexec run failed (%s %d)",
               st == -1        ? "timeout"
               : WIFEXITED(st) ? "exit status"
                               : "signal",
               st == -1        ? (int)opt.timeout
               : WIFEXITED(st) ? WEXITSTATUS(st)
                               : WTERMSIG(st));
    } else {
        r->pp[PVAS_M_MPI].ok = opt.do_pp;
        r->nc[PVAS_M_MPI].ok = opt.do_nc;
    }
    fprintf(stderr, " %s (%.1f s)\n",
            r->pp[PVAS_M_MPI].ok || r->nc[PVAS_M_MPI].ok
                ? "done"
                : r->pp[PVAS_M_MPI].why,
            pvas_now() - t0);
}
