/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_report.c: pip_bench_pvas's output: the tables (with the ratios
 * against each baseline and the verdict on the targets), the CSV,
 * and the gnuplot data, script and plots.
 */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pvas_report.h"

static const char *mname[PVAS_M_COUNT] = {"pip", "shm-2copy", "cma", "mpich"};
/* Names of the strided case's methods (same slots, what each one does). */
static const char *ncname[PVAS_M_COUNT] = {"pip-1copy", "shm-pack", "cma-iovec",
                                           "mpich-vector"};

static void fmt_size(char *buf, size_t len, size_t s)
{
    if (s >= (1u << 20) && s % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", s >> 20);
    else if (s >= 1024 && s % 1024 == 0)
        snprintf(buf, len, "%zu KiB", s >> 10);
    else
        snprintf(buf, len, "%zu B", s);
}

/* Cell of a series: value or n/a. */
static void cell(FILE *f, const pvas_series_t *s, double v, int prec)
{
    if (s->ok)
        fprintf(f, "%11.*f", prec, v);
    else
        fprintf(f, "%11s", "n/a");
}

static void ratio(FILE *f, int ok, double x)
{
    if (ok && x > 0 && isfinite(x))
        fprintf(f, " %9.2fx", x);
    else
        fprintf(f, " %10s", "n/a");
}

static void notes(FILE *f, const pvas_series_t *s, const char **names)
{
    for (int m = 0; m < PVAS_M_COUNT; m++)
        if (!s[m].ok)
            fprintf(f, "  %s: n/a (%s)\n", names[m], s[m].why);
}

/* Latency (bw == 0) or bandwidth table of one ping-pong sweep. */
static void pp_table(FILE *f, const pvas_results_t *r, const size_t *sizes,
                     int ns, const pvas_series_t *s, const char **names, int bw)
{
    fprintf(f, "%9s", "size");
    for (int m = 0; m < PVAS_M_COUNT; m++)
        fprintf(f, " %11.11s", names[m]);
    for (int m = 1; m < PVAS_M_COUNT; m++) {
        char h[32];
        if (bw)
            snprintf(h, sizeof(h), "pip/%.5s", mname[m]);
        else
            snprintf(h, sizeof(h), "%.5s/pip", mname[m]);
        fprintf(f, " %10s", h);
    }
    fputc('\n', f);
    for (int i = 0; i < ns; i++) {
        char sz[32];
        fmt_size(sz, sizeof(sz), sizes[i]);
        fprintf(f, "%9s", sz);
        for (int m = 0; m < PVAS_M_COUNT; m++) {
            double v = s[m].st[i].med;
            if (bw)
                v = v > 0 ? (double)sizes[i] / v : 0; /* bytes/us = MB/s */
            fputc(' ', f);
            cell(f, &s[m], v, bw ? 1 : 3);
        }
        for (int m = 1; m < PVAS_M_COUNT; m++)
            ratio(f, s[0].ok && s[m].ok, s[m].st[i].med / s[0].st[i].med);
        fputc('\n', f);
    }
    notes(f, s, names);
    (void)r;
}

static int find_size(const size_t *sizes, int n, size_t want)
{
    for (int i = 0; i < n; i++)
        if (sizes[i] == want)
            return i;
    return -1;
}

/* "better than every baseline at size `want`": prints the verdict line. */
static void pp_verdict(FILE *f, const pvas_results_t *r, size_t want,
                       const char *what)
{
    int i = find_size(r->pp_size, r->npp, want);
    char sz[32];
    fmt_size(sz, sizeof(sz), want);
    fprintf(f, "%s at %s: ", what, sz);
    if (i < 0 || !r->pp[0].ok) {
        fprintf(f, "not measured\n");
        return;
    }
    int all = 1, any = 0;
    for (int m = 1; m < PVAS_M_COUNT; m++) {
        if (!r->pp[m].ok) {
            fprintf(f, "%s n/a; ", mname[m]);
            all = 0;
            continue;
        }
        double x = r->pp[m].st[i].med / r->pp[0].st[i].med;
        any = 1;
        fprintf(f, "%.2fx vs %s; ", x, mname[m]);
        if (x <= 1.0)
            all = 0;
    }
    fprintf(f, "%s\n",
            all && any ? "better than all three baselines: YES"
                       : "better than all three baselines: NO");
}

/* Ratio of the medians of baseline m over pip at size i (0 if none). */
static double pp_ratio(const pvas_results_t *r, int m, int i)
{
    double p = r->pp[0].st[i].med;
    return p > 0 ? r->pp[m].st[i].med / p : 0;
}

/* Rounds a verdict needs: with fewer, no outcome of a sign test is
 * significant at PVAS_SIGN_P. */
#define PVAS_MIN_ROUNDS 5
#define PVAS_SIGN_P     0.05

/* P(X <= k) for X binomial(n, 1/2): the sign test's one-sided p-value. */
static double sign_p(int k, int n)
{
    double c = 1, sum = 0;
    for (int i = 0; i <= k && i <= n; i++) {
        sum += c;
        c = c * (n - i) / (i + 1);
    }
    return sum / pow(2.0, n);
}

/*
 * The verdict at size i against baseline m: 1 pip faster (the ratio of the
 * medians and the paired ratio at least 1.00, and pip not slower in so
 * many rounds that chance would do it with probability < PVAS_SIGN_P),
 * -1 pip slower (both ratios below 1.00, and pip slower in as many rounds
 * by the same test), 0 a tie (no significant difference), 2 not judged
 * (fewer than PVAS_MIN_ROUNDS rounds).
 */
static int pp_side(const pvas_results_t *r, int m, int i)
{
    double q = pp_ratio(r, m, i), pq = r->pp_pair[m][i];
    int won = r->pp_won[m][i], n = r->pp_npair[m];
    if (n < PVAS_MIN_ROUNDS)
        return 2;
    if (q >= 1.0 && pq >= 1.0 && sign_p(n - won, n) < PVAS_SIGN_P)
        return 1;
    if (q < 1.0 && pq < 1.0 && sign_p(won, n) < PVAS_SIGN_P)
        return -1;
    return 0;
}

static const char *side_name(int v)
{
    return v == 2  ? "not judged"
           : v > 0 ? "pip faster"
           : v < 0 ? "pip SLOWER"
                   : "tie";
}

/*
 * Per size against baseline m: the two one-way times, the ratio of the
 * medians, the paired ratio (each round's baseline / pip, median over the
 * rounds; rounds pip was not slower), the same two ratios of the
 * repetitions' means (preemptions included, as IMB would report them),
 * the repetitions in which no party was switched out, and the verdict
 * (pp_side).
 */
static void pp_every_size(FILE *f, const pvas_results_t *r, int m)
{
    int n = r->pp_npair[m];
    const pvas_series_t *p = &r->pp[0], *b = &r->pp[m];
    if (!p->ok || !b->ok || r->npp == 0 || n == 0)
        return;
    fprintf(f,
            "\n== pip against %s at every size (one-way us; ratios = %s / "
            "pip, >1: pip faster;\n   paired: median over the rounds of "
            "each round's ratio, (rounds pip not slower); mean, pmean: the "
            "same of the\n   repetitions' means, preemptions included; "
            "quiet: repetitions no party was switched out in, pip and %s;\n"
            "   verdict: faster or SLOWER when both ratios say so and the "
            "rounds do too (sign test, p < %.2f), else tie)\n",
            mname[m], mname[m], mname[m], PVAS_SIGN_P);
    fprintf(f, "%9s %9s %9s %7s %13s %7s %7s %17s  %s\n", "size", "pip",
            mname[m], "ratio", "paired", "mean", "pmean", "quiet", "verdict");
    for (int i = 0; i < r->npp; i++) {
        const pvas_stat_t *x = &p->st[i], *y = &b->st[i];
        char sz[32], won[32], qr[32];
        fmt_size(sz, sizeof(sz), r->pp_size[i]);
        snprintf(won, sizeof(won), "%.2fx (%d/%d)", r->pp_pair[m][i],
                 r->pp_won[m][i], n);
        snprintf(qr, sizeof(qr), "%d/%d %d/%d", x->quiet, x->nrep, y->quiet,
                 y->nrep);
        fprintf(f, "%9s %9.3f %9.3f %6.2fx %13s %6.2fx %6.2fx %17s  %s\n", sz,
                x->med, y->med, pp_ratio(r, m, i), won,
                x->mean > 0 ? y->mean / x->mean : 0, r->pp_pair_mean[m][i], qr,
                side_name(pp_side(r, m, i)));
    }
}

/* The verdict line of "pip not slower than baseline m at any size". */
static void pp_any_size(FILE *f, const pvas_results_t *r, int m)
{
    int n = r->pp_npair[m];
    fprintf(f, "pip not slower than %s at any size: ", mname[m]);
    if (!r->pp[0].ok || !r->pp[m].ok || r->npp == 0 || n == 0) {
        fprintf(f, "not measured\n");
        return;
    }
    if (n < PVAS_MIN_ROUNDS) {
        fprintf(f,
                "not judged (%d round(s); a verdict needs %d or more: "
                "--rounds)\n",
                n, PVAS_MIN_ROUNDS);
        return;
    }
    int lo = 0, cnt[3] = {0, 0, 0};
    for (int i = 0; i < r->npp; i++) {
        double q = pp_ratio(r, m, i), pq = r->pp_pair[m][i];
        if (fmin(q, pq) < fmin(pp_ratio(r, m, lo), r->pp_pair[m][lo]))
            lo = i;
        cnt[pp_side(r, m, i) + 1]++;
    }
    char sz[32];
    fmt_size(sz, sizeof(sz), r->pp_size[lo]);
    fprintf(f,
            "%s (of %d sizes in %d rounds: pip faster at %d, tie at %d, pip "
            "slower at %d; lowest at %s: %.2fx, paired %.2fx)\n",
            cnt[0] == 0 ? "YES" : "NO", r->npp, n, cnt[2], cnt[1], cnt[0], sz,
            pp_ratio(r, m, lo), r->pp_pair[m][lo]);
}

/* KiB per added party between the first and last N where both sides ran. */
static int a2a_slopes(const pvas_results_t *r, double *pip, double *proc,
                      int *n0, int *n1, int pte)
{
    int a = -1, b = -1;
    for (int i = 0; i < r->na2a; i++)
        if (r->a2a[i].ok[0] && r->a2a[i].ok[1]) {
            if (a < 0 || r->a2a[i].n < r->a2a[a].n)
                a = i;
            if (b < 0 || r->a2a[i].n > r->a2a[b].n)
                b = i;
        }
    if (a < 0 || r->a2a[a].n == r->a2a[b].n)
        return -1;
    const pvas_a2a_row_t *x = &r->a2a[a], *y = &r->a2a[b];
    double dn = y->n - x->n;
    *pip = (double)(pte ? y->pte[0] - x->pte[0] : y->pss[0] - x->pss[0]) / dn;
    *proc = (double)(pte ? y->pte[1] - x->pte[1] : y->pss[1] - x->pss[1]) / dn;
    *n0 = x->n;
    *n1 = y->n;
    return 0;
}

void pvas_report_table(FILE *f, const pvas_results_t *r)
{
    fprintf(f, "PVAS benchmark: %d core(s), PiP %s mode\n", r->ncpu,
            r->pip_mode);
    fprintf(f,
            "machine: %s\nload average (1, 5, 15 min): %s at the start, "
            "%s at the end\n",
            r->machine, r->load0, r->load1);
    if (r->did_pp || r->did_nc) {
        fprintf(
            f,
            "ping-pong: median of %d "
            "interleaved round(s) of %d repetitions each (the median of the "
            "rounds' medians); a repetition's time is its typical round "
            "trip (median of its timed blocks; the mean, preemptions "
            "included, in the CSV); the machine is shared and noisy: "
            "compare ratios of one run\n",
            r->rounds, r->reps);
        fprintf(f, "message buffers: %s\n",
                r->fresh
                    ? "the sender stores to every cache line of its message "
                      "before each send (--fresh)"
                    : "unchanged between sends, as IMB PingPong (a "
                      "receiver's cache may keep the sender's data; "
                      "--fresh to prevent it)");
        if (r->prefetch)
            fprintf(f,
                    "receivers (pip, shm-2copy): prefetch a message of up to "
                    "%d bytes, then memcpy (--prefetch)\n",
                    PVAS_PREFETCH_MAX);
        if (r->flags_only)
            fprintf(f, "--flags-only: NO DATA MOVED, only the flags (the "
                       "floor of every method; sizes are labels only)\n");
    }
    if (r->did_pp) {
        fprintf(f, "\n== Ping-pong latency (one-way us; ratio = baseline / "
                   "pip, >1: pip faster)\n");
        pp_table(f, r, r->pp_size, r->npp, r->pp, mname, 0);
        fprintf(f, "\n== Ping-pong bandwidth (MB/s = size / one-way time; "
                   "ratio = pip / baseline)\n");
        pp_table(f, r, r->pp_size, r->npp, r->pp, mname, 1);
        pp_every_size(f, r, PVAS_M_SHM);
    }
    if (r->did_nc) {
        fprintf(f,
                "\n== Strided (vector) messages, block %zu B: one-way us; "
                "ratio = baseline / pip\n",
                r->nc_block);
        pp_table(f, r, r->nc_size, r->nnc, r->nc, ncname, 0);
    }
    if (r->did_a2a) {
        fprintf(f,
                "\n== All-to-all footprint, %zu B per pair: N PiP tasks "
                "(one address space, counted once) vs N processes + POSIX "
                "shm (sums), KiB\n",
                r->a2a_block);
        fprintf(f, "%4s %9s %9s %8s %10s %10s %9s %9s %9s %10s %10s\n", "N",
                "pip RSS", "pip PSS", "pip PTE", "proc RSS", "proc PSS",
                "proc PTE", "PTE p/pip", "PSS p/pip", "pip a2a us",
                "proc a2a us");
        for (int i = 0; i < r->na2a; i++) {
            const pvas_a2a_row_t *a = &r->a2a[i];
            fprintf(f, "%4d", a->n);
            if (a->ok[0])
                fprintf(f, " %9ld %9ld %8ld", a->rss[0], a->pss[0], a->pte[0]);
            else
                fprintf(f, " %28s", "n/a");
            if (a->ok[1])
                fprintf(f, " %10ld %10ld %9ld", a->rss[1], a->pss[1],
                        a->pte[1]);
            else
                fprintf(f, " %31s", "n/a");
            int both = a->ok[0] && a->ok[1];
            ratio(f, both, (double)a->pte[1] / (double)a->pte[0]);
            ratio(f, both, (double)a->pss[1] / (double)a->pss[0]);
            if (a->ok[0])
                fprintf(f, " %10.1f", a->t_med[0]);
            else
                fprintf(f, " %10s", "n/a");
            if (a->ok[1])
                fprintf(f, " %11.1f", a->t_med[1]);
            else
                fprintf(f, " %11s", "n/a");
            fputc('\n', f);
            for (int k = 0; k < 2; k++)
                if (!a->ok[k])
                    fprintf(f, "     %s: n/a (%s)\n",
                            k == 0 ? "pip" : "processes", a->why[k]);
        }
    }

    fprintf(f, "\n== Targets\n");
    if (r->did_pp) {
        pp_verdict(f, r, 8, "latency");
        pp_verdict(f, r, 1u << 20, "bandwidth");
        pp_any_size(f, r, PVAS_M_SHM);
    }
    if (r->did_a2a) {
        double p, q, ps, qs;
        int n0, n1;
        if (a2a_slopes(r, &p, &q, &n0, &n1, 1) == 0 &&
            a2a_slopes(r, &ps, &qs, &n0, &n1, 0) == 0)
            fprintf(f,
                    "page tables, N=%d..%d: pip %+.1f KiB per task, processes "
                    "%+.1f KiB per process; pip grows slower: %s\n"
                    "PSS, N=%d..%d: pip %+.1f KiB per task, processes %+.1f "
                    "KiB per process\n",
                    n0, n1, p, q, p < q ? "YES" : "NO", n0, n1, ps, qs);
        else
            fprintf(f, "page tables: fewer than two N measured on both "
                       "sides, no growth to compare\n");
    }
}

/* ---- CSV ------------------------------------------------------------------
 */

/* Metrics of a ping-pong sweep in the CSV. */
enum { CSV_LAT, CSV_BW, CSV_MEAN, CSV_CSW, CSV_QUIET, CSV_NMETRIC };
static const char *csv_metric[CSV_NMETRIC] = {
    "latency", "bandwidth", "latency_mean", "cswitch", "quiet_reps"};
static const char *csv_unit[CSV_NMETRIC] = {"us", "MB/s", "us", "count",
                                            "count"};

static void csv_series(FILE *f, const char *section, const size_t *sizes,
                       int ns, const pvas_series_t *s, const char **names,
                       int reps)
{
    for (int q = 0; q < CSV_NMETRIC; q++)
        for (int i = 0; i < ns; i++)
            for (int m = 0; m < PVAS_M_COUNT; m++) {
                const pvas_stat_t *x = &s[m].st[i], *p = &s[0].st[i];
                fprintf(f, "%s,%zu,%s,%s,%s,", section, sizes[i], names[m],
                        csv_metric[q], csv_unit[q]);
                if (!s[m].ok) {
                    fprintf(f, ",,,%d,,,\"n/a (%s)\"\n", reps, s[m].why);
                    continue;
                }
                double sz = (double)sizes[i], adv = -1;
                switch (q) {
                case CSV_LAT:
                    fprintf(f, "%.4f,%.4f,%.4f,", x->med, x->min, x->max);
                    adv = p->med > 0 ? x->med / p->med : -1;
                    break;
                case CSV_BW:
                    fprintf(f, "%.3f,%.3f,%.3f,", sz / x->med, sz / x->max,
                            sz / x->min);
                    adv = p->med > 0 ? x->med / p->med : -1;
                    break;
                case CSV_MEAN:
                    fprintf(f, "%.4f,,,", x->mean);
                    adv = p->mean > 0 ? x->mean / p->mean : -1;
                    break;
                case CSV_CSW:
                    fprintf(f, "%.1f,,,", x->csw);
                    break;
                default:
                    fprintf(f, "%d,,,", x->quiet);
                    break;
                }
                fprintf(f, "%d,%ld,", q == CSV_QUIET ? x->nrep : reps,
                        x->iters);
                if (s[0].ok && adv >= 0)
                    fprintf(f, "%.4f,\n", adv);
                else
                    fprintf(f, ",\n");
            }
}

int pvas_report_csv(const char *path, const pvas_results_t *r)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "section,x,method,metric,unit,median,min,max,reps,iters,"
               "pip_advantage,note\n");
    if (r->did_pp)
        csv_series(f, "pingpong", r->pp_size, r->npp, r->pp, mname, r->reps);
    if (r->did_nc)
        csv_series(f, "strided", r->nc_size, r->nnc, r->nc, ncname, r->reps);
    static const char *side[2] = {"pip", "procs-shm"};
    static const char *metric[4] = {"rss", "pss", "pte", "a2a_time"};
    for (int i = 0; r->did_a2a && i < r->na2a; i++) {
        const pvas_a2a_row_t *a = &r->a2a[i];
        for (int k = 0; k < 2; k++)
            for (int q = 0; q < 4; q++) {
                fprintf(f, "alltoall,%d,%s,%s,%s,", a->n, side[k], metric[q],
                        q == 3 ? "us" : "KiB");
                if (!a->ok[k]) {
                    fprintf(f, ",,,%d,,,\"n/a (%s)\"\n", r->reps, a->why[k]);
                    continue;
                }
                double v[2][4] = {{(double)a->rss[0], (double)a->pss[0],
                                   (double)a->pte[0], a->t_med[0]},
                                  {(double)a->rss[1], (double)a->pss[1],
                                   (double)a->pte[1], a->t_med[1]}};
                fprintf(f, "%.1f,,,%d,,", v[k][q], q == 3 ? r->reps : 1);
                if (a->ok[0] && v[0][q] > 0)
                    fprintf(f, "%.4f,\n", v[k][q] / v[0][q]);
                else
                    fprintf(f, ",\n");
            }
    }
    if (fclose(f) != 0)
        return -1;
    return 0;
}

/* ---- plots ------------------------------------------------------------------
 */

static FILE *open_in(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f == NULL)
        fprintf(stderr, "pip_bench_pvas: %s: %s\n", p, strerror(errno));
    return f;
}

static void dat_series(FILE *f, const size_t *sizes, int ns,
                       const pvas_series_t *s, int with_bw)
{
    for (int i = 0; i < ns; i++) {
        fprintf(f, "%zu", sizes[i]);
        for (int bw = 0; bw <= with_bw; bw++)
            for (int m = 0; m < PVAS_M_COUNT; m++) {
                double v = s[m].st[i].med;
                if (!s[m].ok || v <= 0)
                    fprintf(f, " NaN");
                else
                    fprintf(f, " %.6g", bw ? (double)sizes[i] / v : v);
            }
        fputc('\n', f);
    }
}

static const char gp_script[] =
    "# pip_bench_pvas plots: gnuplot pvas.gp (in this directory)\n"
    "set terminal svg size 800,520 dynamic\n"
    "set key top left\n"
    "set grid\n"
    "set logscale x 2\n"
    "set xtics ('8' 8, '64' 64, '512' 512, '4K' 4096, '32K' 32768, '256K' "
    "262144, '2M' 2097152, '16M' 16777216)\n"
    "set xlabel 'message size (bytes; K = 1024)'\n"
    "if (exists('pp')) {\n"
    "  set output 'pvas_latency.svg'\n"
    "  set logscale y\n"
    "  set ylabel 'one-way latency (us)'\n"
    "  set title 'Ping-pong latency: PiP 1-copy vs shm 2-copy, CMA, MPICH'\n"
    "  plot 'pvas_pingpong.dat' u 1:2 w lp t 'pip (1 copy)', '' u 1:3 w lp t "
    "'shm 2-copy', '' u 1:4 w lp t 'cma (process\\_vm\\_readv)', '' u 1:5 w "
    "lp t 'mpich (mpiexec -n 2)'\n"
    "  set output 'pvas_bandwidth.svg'\n"
    "  set ylabel 'bandwidth (MB/s)'\n"
    "  set title 'Ping-pong bandwidth'\n"
    "  plot 'pvas_pingpong.dat' u 1:6 w lp t 'pip (1 copy)', '' u 1:7 w lp t "
    "'shm 2-copy', '' u 1:8 w lp t 'cma (process\\_vm\\_readv)', '' u 1:9 w "
    "lp t 'mpich (mpiexec -n 2)'\n"
    "}\n"
    "if (exists('nc')) {\n"
    "  set output 'pvas_strided.svg'\n"
    "  set logscale y\n"
    "  set ylabel 'one-way time (us)'\n"
    "  set title 'Strided messages: PiP sender copies into the receiver "
    "layout'\n"
    "  plot 'pvas_strided.dat' u 1:2 w lp t 'pip 1-copy', '' u 1:3 w lp t "
    "'shm pack+unpack', '' u 1:4 w lp t 'cma iovec', '' u 1:5 w lp t 'mpich "
    "vector type'\n"
    "}\n"
    "if (exists('a2a')) {\n"
    "  set output 'pvas_footprint.svg'\n"
    "  set logscale y\n"
    "  set logscale y2\n"
    "  set ytics nomirror\n"
    "  set y2tics\n"
    "  set y2label 'KiB (PSS)'\n"
    "  set xtics autofreq\n"
    "  set format x '%g'\n"
    "  set xlabel 'N (tasks / processes)'\n"
    "  set ylabel 'KiB'\n"
    "  set title 'All-to-all footprint: PiP tasks vs processes + POSIX shm'\n"
    "  plot 'pvas_alltoall.dat' u 1:2 w lp t 'pip page tables', '' u 1:3 w lp "
    "t 'processes page tables', '' u 1:4 w lp axes x1y2 t 'pip PSS (right)', "
    "'' u 1:5 w lp axes x1y2 t 'processes PSS (right)'\n"
    "}\n";

int pvas_report_plot(const char *dir, const pvas_results_t *r)
{
    FILE *f;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "pip_bench_pvas: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char defs[128] = "";
    if (r->did_pp && (f = open_in(dir, "pvas_pingpong.dat")) != NULL) {
        fprintf(f, "# size latency_us[pip shm cma mpich] "
                   "bandwidth_MBps[pip shm cma mpich]\n");
        dat_series(f, r->pp_size, r->npp, r->pp, 1);
        fclose(f);
        strcat(defs, "pp=1;");
    }
    if (r->did_nc && (f = open_in(dir, "pvas_strided.dat")) != NULL) {
        fprintf(f, "# size latency_us[pip shm-pack cma-iovec mpich-vector]\n");
        dat_series(f, r->nc_size, r->nnc, r->nc, 0);
        fclose(f);
        strcat(defs, "nc=1;");
    }
    if (r->did_a2a && (f = open_in(dir, "pvas_alltoall.dat")) != NULL) {
        fprintf(f, "# N pte_kib[pip procs] pss_kib[pip procs] "
                   "rss_kib[pip procs]\n");
        for (int i = 0; i < r->na2a; i++) {
            const pvas_a2a_row_t *a = &r->a2a[i];
            fprintf(f, "%d", a->n);
            for (int q = 0; q < 3; q++)
                for (int k = 0; k < 2; k++) {
                    long v = q == 0   ? a->pte[k]
                             : q == 1 ? a->pss[k]
                                      : a->rss[k];
                    if (a->ok[k])
                        fprintf(f, " %ld", v);
                    else
                        fprintf(f, " NaN");
                }
            fputc('\n', f);
        }
        fclose(f);
        strcat(defs, "a2a=1;");
    }
    if ((f = open_in(dir, "pvas.gp")) == NULL)
        return -1;
    fputs(gp_script, f);
    fclose(f);

    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        execlp("gnuplot", "gnuplot", "-e", defs, "pvas.gp", (char *)NULL);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        fprintf(stderr,
                "pip_bench_pvas: gnuplot not found: no plots (apt-get install "
                "-y gnuplot-nox); data and script are in %s (pvas.gp)\n",
                dir);
        return -1;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr,
                "pip_bench_pvas: gnuplot failed (status 0x%x); data "
                "and script are in %s\n",
                st, dir);
        return -1;
    }
    fprintf(stderr, "pip_bench_pvas: plots in %s: %s%s%s\n", dir,
            r->did_pp ? "pvas_latency.svg pvas_bandwidth.svg " : "",
            r->did_nc ? "pvas_strided.svg " : "",
            r->did_a2a ? "pvas_footprint.svg" : "");
    return 0;
}
