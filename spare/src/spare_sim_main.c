/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spare_sim_main.c: spare-sim, the message-collision simulator.
 * See spare/man/spare-sim.1.md.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spare.h"
#include "spare_sim.h"

#define MAXM 8
#define NDEG (SPARE_MAX_DIMS + 1)

static const char *prog = "spare-sim";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s -d SIZES -a qD(r,s) [options]\n"
            "       %s --scenario FILE [--load-svg FILE]\n"
            "  -d, --dims SIZES        sizes joined by x, t marks a torus "
            "dimension (24x24x24, 8tx8t)\n"
            "  -a, --alloc qD(r,s)     spare allocation, e.g. 3D(2,1)\n"
            "  -m, --method NAME       0D, 1D.., hybrid(all), hybrid(-2D), "
            "hybrid(3D+1D+0D); repeatable\n"
            "  -p, --pattern NAME      5p 7p 9p star allreduce-rd "
            "barrier-dissem (default star)\n"
            "      --periodic          periodic stencil\n"
            "  -R, --routing NAME      dor (dimension order, default) or sym "
            "(symmetric)\n"
            "  -C, --count RULE        both (every message, default) or paper "
            "(Figure 6: moved ranks' received messages only)\n"
            "      --qd-limit N|none   qD slidings per case (default: spare "
            "layers, the paper's)\n"
            "  -M, --mode MODE         sets (default), orders, random\n"
            "  -f, --max-failures F    failures per case (random: default "
            "all spares)\n"
            "  -n, --samples S         random sequences per method\n"
            "  -s, --seed N            random seed (default 1)\n"
            "  -j, --threads T         worker threads (default: online CPUs)\n"
            "  -o, --csv FILE          collision table (default: stdout)\n"
            "      --export-worst FILE scenario file of the worst case (first "
            "method)\n"
            "      --export-failures F  ... with exactly F failures (default: "
            "the worst of all)\n"
            "  -r, --rates FILE        selection-rate table\n"
            "      --svg FILE          plot worst/average/best per method\n"
            "      --rates-svg FILE    plot selection rates (first method)\n"
            "      --acc-svg FILE      plot accumulated selection rates\n"
            "      --logx              logarithmic failure axis in plots\n"
            "      --title TEXT        plot title\n"
            "  -q, --quiet             no progress display\n"
            "  -h, --help\n",
            prog, prog);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static long parse_long(const char *s, const char *what, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "%s: bad %s '%s' (expected %ld..%ld)\n", prog, what, s,
                lo, hi);
        exit(2);
    }
    return v;
}

struct prog_state {
    const char *label;
    struct timespec t0;
    int tty;
    int last_decile;
};

static double elapsed(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void progress(void *arg, long done, long total)
{
    struct prog_state *p = arg;
    double e = elapsed(&p->t0);
    double frac = total ? (double)done / (double)total : 1.0;
    double eta = frac > 0 ? e / frac - e : 0;
    if (p->tty) {
        fprintf(stderr, "\r%s: %s %ld/%ld (%5.1f%%) %.1f s, ETA %.0f s   ",
                prog, p->label, done, total, 100 * frac, e, eta);
        if (done == total)
            fputc('\n', stderr);
    } else {
        int dec = (int)(frac * 10);
        if (dec > p->last_decile || done == total) {
            if (dec == p->last_decile && done == total && dec == 10)
                return;
            p->last_decile = dec;
            fprintf(stderr, "%s: %s %ld/%ld (%.0f%%) %.1f s\n", prog, p->label,
                    done, total, 100 * frac, e);
        }
    }
}

static const char *colors[] = {"#888888", "black",   "#1f77b4", "#d62728",
                               "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

int main(int argc, char **argv)
{
    const char *dims = NULL, *alloc = NULL, *pattern = "star";
    const char *methods[MAXM];
    int nmeth = 0, periodic = 0, quiet = 0, logx = 0;
    const char *mode_s = "sets", *csv = NULL, *rates = NULL, *svg = NULL;
    const char *rates_svg = NULL, *acc_svg = NULL, *title = NULL;
    const char *scenario = NULL, *routing = "dor", *count = "both";
    const char *export_worst = NULL, *load_svg = NULL, *qd_limit = NULL;
    long export_f = -1;
    long maxf = -1, samples = -1, threads = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t seed = 1;
    enum {
        O_PERIODIC = 256,
        O_SVG,
        O_RSVG,
        O_ASVG,
        O_LOGX,
        O_TITLE,
        O_SCEN,
        O_QDL,
        O_EXPW,
        O_EXPF,
        O_LSVG
    };
    static const struct option opts[] = {
        {"dims", required_argument, 0, 'd'},
        {"alloc", required_argument, 0, 'a'},
        {"method", required_argument, 0, 'm'},
        {"pattern", required_argument, 0, 'p'},
        {"periodic", no_argument, 0, O_PERIODIC},
        {"routing", required_argument, 0, 'R'},
        {"count", required_argument, 0, 'C'},
        {"qd-limit", required_argument, 0, O_QDL},
        {"export-worst", required_argument, 0, O_EXPW},
        {"export-failures", required_argument, 0, O_EXPF},
        {"load-svg", required_argument, 0, O_LSVG},
        {"mode", required_argument, 0, 'M'},
        {"max-failures", required_argument, 0, 'f'},
        {"samples", required_argument, 0, 'n'},
        {"seed", required_argument, 0, 's'},
        {"threads", required_argument, 0, 'j'},
        {"csv", required_argument, 0, 'o'},
        {"rates", required_argument, 0, 'r'},
        {"svg", required_argument, 0, O_SVG},
        {"rates-svg", required_argument, 0, O_RSVG},
        {"acc-svg", required_argument, 0, O_ASVG},
        {"logx", no_argument, 0, O_LOGX},
        {"title", required_argument, 0, O_TITLE},
        {"scenario", required_argument, 0, O_SCEN},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    if (threads < 1)
        threads = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":d:a:m:p:R:C:M:f:n:s:j:o:r:qh", opts,
                            NULL)) != -1) {
        switch (c) {
        case 'd':
            dims = optarg;
            break;
        case 'a':
            alloc = optarg;
            break;
        case 'm':
            if (nmeth == MAXM)
                die("at most 8 methods, got another: %s", optarg);
            methods[nmeth++] = optarg;
            break;
        case 'p':
            pattern = optarg;
            break;
        case O_PERIODIC:
            periodic = 1;
            break;
        case 'R':
            routing = optarg;
            break;
        case 'C':
            count = optarg;
            break;
        case O_QDL:
            qd_limit = optarg;
            break;
        case O_EXPW:
            export_worst = optarg;
            break;
        case O_EXPF:
            export_f = parse_long(optarg, "--export-failures", 1, 1000000);
            break;
        case O_LSVG:
            load_svg = optarg;
            break;
        case 'M':
            mode_s = optarg;
            break;
        case 'f':
            maxf = parse_long(optarg, "--max-failures", 1, 1000000);
            break;
        case 'n':
            samples = parse_long(optarg, "--samples", 1, 1000000000);
            break;
        case 's':
            seed = (uint64_t)parse_long(optarg, "--seed", 0, __LONG_MAX__);
            break;
        case 'j':
            threads = parse_long(optarg, "--threads", 1, 1024);
            break;
        case 'o':
            csv = optarg;
            break;
        case 'r':
            rates = optarg;
            break;
        case O_SVG:
            svg = optarg;
            break;
        case O_RSVG:
            rates_svg = optarg;
            break;
        case O_ASVG:
            acc_svg = optarg;
            break;
        case O_LOGX:
            logx = 1;
            break;
        case O_TITLE:
            title = optarg;
            break;
        case O_SCEN:
            scenario = optarg;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            die("option %s needs an argument (try --help)", argv[optind - 1]);
            break;
        default:
            die("unknown option %s (try --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        die("unexpected argument '%s' (try --help)", argv[optind]);
    if (load_svg && !scenario)
        die("%s", "--load-svg needs --scenario");
    if (scenario) {
        char err[256];
        if (sim_scenario_run(scenario, stdout, load_svg, err, sizeof(err)) !=
            0) {
            fprintf(stderr, "%s: %s\n", prog, err);
            return 1;
        }
        return 0;
    }
    if (!dims || !alloc)
        die("%s", "--dims and --alloc are required (try --help)");
    spare_topo_t *topo;
    spare_pattern_t *pat = NULL;
    FILE *out = NULL, *rout = NULL;
    spare_study_result_t *res[MAXM] = {0};
    double *x = NULL, *ys = NULL;
    int status = 1;
    int rc = spare_topo_parse(dims, alloc, &topo);
    if (rc < 0) {
        fprintf(stderr, "%s: bad node space '%s' with allocation '%s': %s\n",
                prog, dims, alloc, spare_strerror(rc));
        return 2;
    }
    spare_routing_t rt;
    if (spare_routing_parse(routing, &rt) < 0) {
        spare_topo_destroy(topo);
        die("bad routing '%s' (dor or sym)", routing);
    }
    spare_topo_set_routing(topo, rt);
    spare_count_t ct;
    if (spare_count_parse(count, &ct) < 0) {
        spare_topo_destroy(topo);
        die("bad counting rule '%s' (both or paper)", count);
    }
    spare_topo_set_count(topo, ct);
    if (qd_limit) {
        long lim = strcmp(qd_limit, "none") == 0
                       ? SPARE_QD_UNLIMITED
                       : parse_long(qd_limit, "--qd-limit", 0, 1000000000);
        spare_topo_set_qd_limit(topo, lim);
    }
    int nd = spare_topo_ndims(topo);
    spare_pattern_kind_t kind;
    if (spare_pattern_parse(pattern, nd, &kind) < 0)
        die("bad pattern '%s' for this node space (5p/9p: 2-D, 7p: 3-D, star, "
            "allreduce-rd, barrier-dissem)",
            pattern);
    spare_study_mode_t mode;
    if (strcmp(mode_s, "sets") == 0)
        mode = SPARE_STUDY_SETS;
    else if (strcmp(mode_s, "orders") == 0)
        mode = SPARE_STUDY_ORDERS;
    else if (strcmp(mode_s, "random") == 0)
        mode = SPARE_STUDY_RANDOM;
    else
        die("bad mode '%s' (sets, orders, random)", mode_s);
    if (nmeth == 0)
        methods[nmeth++] = "hybrid(all)";
    spare_method_t meth[MAXM];
    for (int i = 0; i < nmeth; i++)
        if (spare_method_parse(methods[i], nd, &meth[i]) < 0)
            die("bad method '%s' (0D.., hybrid(all), hybrid(-2D), "
                "hybrid(3D+1D+0D))",
                methods[i]);
    if (maxf < 0) {
        if (mode != SPARE_STUDY_RANDOM)
            die("%s", "--max-failures is required in the exhaustive modes");
        maxf = spare_topo_spares(topo);
    }
    if (mode == SPARE_STUDY_RANDOM && samples < 0)
        die("%s", "--samples is required in random mode");
    if (maxf < 1)
        die("%s", "the allocation has no spare node");
    if (export_f > maxf)
        die("--export-failures %ld is above --max-failures %ld", export_f,
            maxf);
    if (export_f > 0 && !export_worst)
        die("%s", "--export-failures needs --export-worst");
    rc = spare_pattern_create(topo, kind, periodic, &pat);
    if (rc < 0) {
        fprintf(stderr, "%s: pattern: %s\n", prog, spare_strerror(rc));
        goto out;
    }
    out = stdout;
    if (csv && strcmp(csv, "-") != 0 && !(out = fopen(csv, "w"))) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, csv,
                strerror(errno));
        goto out;
    }
    if (rates && !(rout = fopen(rates, "w"))) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, rates,
                strerror(errno));
        goto out;
    }
    fprintf(out,
            "# spare-sim dims=%s alloc=%s pattern=%s%s mode=%s "
            "max_failures=%ld",
            dims, alloc, pattern, periodic ? " periodic" : "", mode_s, maxf);
    fprintf(out, " routing=%s count=%s qd_limit=", routing, count);
    if (spare_topo_qd_limit(topo) == SPARE_QD_UNLIMITED)
        fprintf(out, "none");
    else
        fprintf(out, "%ld", spare_topo_qd_limit(topo));
    if (mode == SPARE_STUDY_RANDOM)
        fprintf(out, " samples=%ld seed=%" PRIu64, samples, seed);
    fprintf(out, "\nmethod,failures,cases,unrecoverable,worst,average,best\n");
    if (rout) {
        fprintf(rout, "method,failures,cases");
        for (int k = 0; k <= nd; k++)
            fprintf(rout, ",rate_%dD", k);
        for (int k = 0; k <= nd; k++)
            fprintf(rout, ",acc_%dD", k);
        fputc('\n', rout);
    }
    long total_cases = 0;
    for (int i = 0; i < nmeth; i++) {
        char name[64];
        if (spare_method_format(&meth[i], name, sizeof(name)) < 0)
            snprintf(name, sizeof(name), "?");
        struct prog_state ps = {name, {0, 0}, isatty(2), -1};
        clock_gettime(CLOCK_MONOTONIC, &ps.t0);
        spare_study_config_t cfg = {
            .topo = topo,
            .pattern = pat,
            .method = meth[i],
            .mode = mode,
            .max_failures = (int)maxf,
            .samples = samples,
            .seed = seed,
            .threads = (int)threads,
            .progress = quiet ? NULL : progress,
            .progress_arg = &ps,
            .keep_worst = export_worst && i == 0,
        };
        rc = spare_study_run(&cfg, &res[i]);
        if (rc < 0) {
            fprintf(stderr, "%s: study failed: %s\n", prog, spare_strerror(rc));
            goto out;
        }
        spare_study_result_t *r = res[i];
        long cases = 0;
        for (int f = 0; f <= maxf; f++) {
            if (f > 0)
                cases += r->cases[f];
            fprintf(out, "%s,%d,%ld,%ld,%d,%.4f,%d\n", name, f, r->cases[f],
                    r->unrecoverable[f], r->worst[f],
                    r->cases[f] ? r->sum[f] / (double)r->cases[f] : 0.0,
                    r->best[f]);
        }
        total_cases += cases;
        if (!quiet)
            fprintf(stderr,
                    "%s: %s: %ld evaluated cases (failure sets x failure "
                    "counts) in %.1f s on %ld threads\n",
                    prog, name, cases, elapsed(&ps.t0), threads);
        if (rout) {
            long acc[NDEG] = {0}, acc_all = 0;
            for (int f = 1; f <= maxf; f++) {
                long tot = 0;
                for (int k = 0; k <= nd; k++)
                    tot += r->used[f * NDEG + k];
                fprintf(rout, "%s,%d,%ld", name, f, tot);
                for (int k = 0; k <= nd; k++)
                    fprintf(rout, ",%.6f",
                            tot ? (double)r->used[f * NDEG + k] / tot : 0.0);
                for (int k = 0; k <= nd; k++) {
                    acc[k] += r->used[f * NDEG + k];
                }
                acc_all += tot;
                for (int k = 0; k <= nd; k++)
                    fprintf(rout, ",%.6f",
                            acc_all ? (double)acc[k] / acc_all : 0.0);
                fputc('\n', rout);
            }
        }
    }
    if (!quiet && nmeth > 1)
        fprintf(stderr, "%s: %ld evaluated cases in all\n", prog, total_cases);
    if (export_worst) {
        struct sim_export ex = {dims,    alloc, methods[0], pattern, periodic,
                                routing, count, mode_s,     seed};
        if (sim_export_worst(export_worst, topo, res[0], (int)export_f, &ex) <
            0)
            goto out;
    }
    FILE *o = out;
    out = NULL;
    if (o != stdout && fclose(o) != 0) {
        fprintf(stderr, "%s: writing %s: %s\n", prog, csv, strerror(errno));
        goto out;
    }
    FILE *ro = rout;
    rout = NULL;
    if (ro && fclose(ro) != 0) {
        fprintf(stderr, "%s: writing %s: %s\n", prog, rates, strerror(errno));
        goto out;
    }
    char deftitle[256];
    snprintf(deftitle, sizeof(deftitle), "%s %s %s", dims, alloc, pattern);
    if (!title)
        title = deftitle;
    int n = (int)maxf + 1;
    x = malloc(sizeof(double) * (size_t)n);
    ys = malloc(sizeof(double) * (size_t)n * 3 * MAXM +
                sizeof(double) * (size_t)n * 2 * NDEG);
    if (!x || !ys) {
        fprintf(stderr, "%s: out of memory\n", prog);
        goto out;
    }
    if (svg) {
        struct svg_series s[3 * MAXM];
        char names[3 * MAXM][80];
        int ns = 0;
        for (int i = 0; i < nmeth; i++) {
            char name[64];
            if (spare_method_format(&meth[i], name, sizeof(name)) < 0)
                snprintf(name, sizeof(name), "?");
            static const char *what[] = {"worst", "average", "best"};
            for (int w = 0; w < 3; w++) {
                double *y = ys + (size_t)n * (size_t)(3 * i + w);
                int m = 0;
                for (int f = 0; f <= maxf; f++) {
                    if (!res[i]->cases[f])
                        continue;
                    x[f] = f;
                    y[m] = w == 0   ? res[i]->worst[f]
                           : w == 1 ? res[i]->sum[f] / res[i]->cases[f]
                                    : res[i]->best[f];
                    m++;
                }
                double *xx = malloc(sizeof(double) * (size_t)(m ? m : 1));
                if (!xx) {
                    for (int k = 0; k < ns; k++)
                        free((void *)s[k].x);
                    goto out;
                }
                m = 0;
                for (int f = 0; f <= maxf; f++)
                    if (res[i]->cases[f])
                        xx[m++] = f;
                snprintf(names[ns], sizeof(names[ns]), "%s %s", name, what[w]);
                s[ns] = (struct svg_series){
                    names[ns], xx,           y, m, i == 0 ? 3.0 : 1.5,
                    w == 1,    colors[i % 8]};
                ns++;
            }
        }
        rc = svg_chart_write(svg, title, "number of failed nodes",
                             "max. message collisions", logx, s, ns);
        for (int k = 0; k < ns; k++)
            free((void *)s[k].x);
        if (rc < 0) {
            fprintf(stderr, "%s: cannot write %s: %s\n", prog, svg,
                    strerror(-rc));
            goto out;
        }
    }
    for (int which = 0; which < 2; which++) {
        const char *path = which == 0 ? rates_svg : acc_svg;
        if (!path)
            continue;
        spare_study_result_t *r = res[0];
        struct svg_series s[NDEG];
        char names[NDEG][32];
        long acc[NDEG] = {0}, acc_all = 0;
        for (int f = 1; f <= maxf; f++) {
            long tot = 0;
            for (int k = 0; k <= nd; k++) {
                tot += r->used[f * NDEG + k];
                acc[k] += r->used[f * NDEG + k];
            }
            acc_all += tot;
            x[f - 1] = f;
            for (int k = 0; k <= nd; k++) {
                double *y = ys + (size_t)n * (size_t)k;
                y[f - 1] = which == 0
                               ? (tot ? 100.0 * r->used[f * NDEG + k] / tot : 0)
                               : (acc_all ? 100.0 * acc[k] / acc_all : 0);
            }
        }
        for (int k = 0; k <= nd; k++) {
            snprintf(names[k], sizeof(names[k]), "%dD sliding", k);
            s[k] =
                (struct svg_series){names[k], x, ys + (size_t)n * k, (int)maxf,
                                    2.0,      0, colors[(k + 2) % 8]};
        }
        rc = svg_chart_write(path, title, "number of failed nodes",
                             which == 0 ? "selection rate (%)"
                                        : "accumulated selection rate (%)",
                             logx, s, nd + 1);
        if (rc < 0) {
            fprintf(stderr, "%s: cannot write %s: %s\n", prog, path,
                    strerror(-rc));
            goto out;
        }
    }
    status = 0;
out:
    if (out && out != stdout)
        fclose(out);
    if (rout)
        fclose(rout);
    free(x);
    free(ys);
    for (int i = 0; i < nmeth; i++)
        spare_study_result_free(res[i]);
    spare_pattern_destroy(pat);
    spare_topo_destroy(topo);
    return status;
}
