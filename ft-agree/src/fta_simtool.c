/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta-sim: command-line front end of the ft-agree simulator.
 *
 *   fta-sim explore -P N [-i INSTANCES] [-c CRASHES] [-a] [-r] [-l LIMIT]
 *   fta-sim bench [-P N[,N...]] [-F MAXFAIL] [-k ARITY] [-R] [-o CSV]
 *   fta-sim detect -P N [-c CRASHES] [-k OBSERVERS]
 *   fta-sim detect-bench [-P N[,N...]] [-k OBSERVERS] [-o CSV]
 *
 * explore: exhaustive schedule exploration (-a every delivery order,
 * -r with a revoke); exits 1 when a property is violated.
 * bench: messages and rounds of one agreement and one revoke for each P
 * and f = 0..MAXFAIL failures, against sum_{j=0..f} log2(P-j).
 * detect: every reachable state of the failure detector's rules (P <= 8);
 * exits 1 when a property is violated.  detect-bench: per-rank messages
 * and the rounds of one failure notice's flood for each P.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fta_sim.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: fta-sim explore -P N [-i INSTANCES] [-c CRASHES] [-a] [-f] "
            "[-r] [-l LIMIT]\n"
            "       fta-sim bench [-P N[,N...]] [-F MAXFAIL] [-k ARITY] [-R] "
            "[-o CSV]\n"
            "       fta-sim detect -P N [-c CRASHES] [-k OBSERVERS]\n"
            "       fta-sim detect-bench [-P N[,N...]] [-k OBSERVERS] "
            "[-o CSV]\n");
    exit(2);
}

static unsigned long num(const char *s, const char *what, unsigned long max)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v > max || *s == '-') {
        fprintf(stderr, "fta-sim: bad %s '%s'\n", what, s);
        exit(2);
    }
    return v;
}

static int do_explore(int argc, char **argv)
{
    fta_sim_cfg_t c = {3, 2, 1, 0, 0, 0, 0, stderr, 0};
    int o;
    while ((o = getopt(argc, argv, "P:i:c:arfl:")) != -1) {
        switch (o) {
        case 'f':
            c.fast = 1;
            break;
        case 'P':
            c.P = (uint32_t)num(optarg, "process count", 31);
            break;
        case 'i':
            c.ninst = (uint32_t)num(optarg, "instance count", 3);
            break;
        case 'c':
            c.max_crash = (uint32_t)num(optarg, "crash count", 30);
            break;
        case 'a':
            c.all_orders = 1;
            break;
        case 'r':
            c.revoke = 1;
            break;
        case 'l':
            c.max_schedules = num(optarg, "limit", ~0ul);
            break;
        default:
            usage();
        }
    }
    fta_sim_result_t r;
    int rc = fta_sim_explore(&c, &r);
    if (rc < 0) {
        fprintf(stderr, "fta-sim: %s\n", strerror(-rc));
        return 2;
    }
    printf("P=%u instances=%u crashes<=%u order=%s%s: %llu schedules%s, "
           "%llu steps, %llu violations\n",
           c.P, c.ninst, c.max_crash, c.all_orders ? "all" : "oldest-first",
           c.revoke ? " +revoke" : "", (unsigned long long)r.schedules,
           r.truncated ? " (bounded)" : " (exhaustive)",
           (unsigned long long)r.steps, (unsigned long long)r.violations);
    if (r.violations)
        printf("%s\n", r.first);
    return r.violations ? 1 : 0;
}

static int do_bench(int argc, char **argv)
{
    char *plist = "16,1024,65536,1000000";
    uint32_t maxf = 3, arity = 2;
    int random = 0;
    const char *csv = NULL;
    int o;
    while ((o = getopt(argc, argv, "P:F:k:Ro:")) != -1) {
        switch (o) {
        case 'P':
            plist = optarg;
            break;
        case 'F':
            maxf = (uint32_t)num(optarg, "failure count", 64);
            break;
        case 'k':
            arity = (uint32_t)num(optarg, "arity", 64);
            if (arity < 2)
                usage();
            break;
        case 'R':
            random = 1;
            break;
        case 'o':
            csv = optarg;
            break;
        default:
            usage();
        }
    }
    FILE *out = NULL;
    if (csv && !(out = fopen(csv, "w"))) {
        fprintf(stderr, "fta-sim: cannot write %s: %s\n", csv, strerror(errno));
        return 2;
    }
    if (out)
        fprintf(out, "P,f,msgs,rounds,bound,rounds_over_bound,revoke_msgs,"
                     "revoke_rounds,ok\n");
    printf("%10s %3s %12s %7s %9s %7s %12s %7s %s\n", "P", "f", "msgs",
           "rounds", "sum_log2", "ratio", "revoke_msgs", "rv_rnds", "ok");
    int bad = 0;
    char *list = strdup(plist), *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        uint32_t P = (uint32_t)num(t, "process count", 100000000);
        for (uint32_t f = 0; f <= maxf && f + 1 < P; f++) {
            fta_sim_bench_t b = {P, arity, f, random, 12345 + f, 0, 0, 0, 0, 0};
            int rc = fta_sim_bench_run(&b);
            if (rc < 0) {
                fprintf(stderr, "fta-sim: P=%u f=%u: %s\n", P, f,
                        strerror(-rc));
                bad = 1;
                continue;
            }
            double bound = 0;
            for (uint32_t j = 0; j <= f; j++)
                bound += log2((double)(P - j));
            printf("%10u %3u %12llu %7llu %9.1f %7.2f %12llu %7llu %s\n", P, f,
                   (unsigned long long)b.msgs, (unsigned long long)b.rounds,
                   bound, b.rounds / bound, (unsigned long long)b.revoke_msgs,
                   (unsigned long long)b.revoke_rounds, b.ok ? "yes" : "NO");
            fflush(stdout);
            if (out)
                fprintf(out, "%u,%u,%llu,%llu,%.2f,%.3f,%llu,%llu,%d\n", P, f,
                        (unsigned long long)b.msgs,
                        (unsigned long long)b.rounds, bound, b.rounds / bound,
                        (unsigned long long)b.revoke_msgs,
                        (unsigned long long)b.revoke_rounds, b.ok);
            bad |= !b.ok;
        }
    }
    free(list);
    if (out)
        fclose(out);
    return bad;
}

static int do_detect(int argc, char **argv)
{
    fta_sim_fd_cfg_t c = {4, 1, 1};
    int o;
    while ((o = getopt(argc, argv, "P:c:k:")) != -1) {
        switch (o) {
        case 'P':
            c.P = (uint32_t)num(optarg, "process count", 8);
            break;
        case 'c':
            c.max_crash = (uint32_t)num(optarg, "crash count", 6);
            break;
        case 'k':
            c.K = (uint32_t)num(optarg, "observer count", 7);
            break;
        default:
            usage();
        }
    }
    fta_sim_fd_result_t r;
    int rc = fta_sim_fd_explore(&c, &r);
    if (rc < 0) {
        fprintf(stderr, "fta-sim: detect -P %u -k %u: %s\n", c.P, c.K,
                strerror(-rc));
        return 2;
    }
    printf("detector P=%u observers=%u crashes<=%u: %llu states, %llu final "
           "states (exhaustive), %llu violations\n",
           c.P, c.K, c.max_crash, (unsigned long long)r.states,
           (unsigned long long)r.finals, (unsigned long long)r.violations);
    if (r.violations)
        printf("P=%u: %s\n", c.P, r.first);
    return r.violations ? 1 : 0;
}

static int do_detect_bench(int argc, char **argv)
{
    char *plist = "4,8,16,32,64,256,1024,4096";
    uint32_t K = 1;
    const char *csv = NULL;
    int o;
    while ((o = getopt(argc, argv, "P:k:o:")) != -1) {
        switch (o) {
        case 'P':
            plist = optarg;
            break;
        case 'k':
            K = (uint32_t)num(optarg, "observer count", 1024);
            if (K < 1)
                usage();
            break;
        case 'o':
            csv = optarg;
            break;
        default:
            usage();
        }
    }
    FILE *out = NULL;
    if (csv && !(out = fopen(csv, "w"))) {
        fprintf(stderr, "fta-sim: cannot write %s: %s\n", csv, strerror(errno));
        return 2;
    }
    if (out)
        fprintf(out, "P,observers,hb_per_rank,alltoall_per_rank,notice_msgs,"
                     "notice_max_per_rank,rounds,log2P,ok\n");
    printf("%8s %9s %11s %13s %12s %14s %7s %6s %s\n", "P", "observers",
           "hb/rank/per", "all-to-all/rk", "notice_msgs", "max_per_rank",
           "rounds", "log2P", "ok");
    int bad = 0;
    char *list = strdup(plist), *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        uint32_t P = (uint32_t)num(t, "process count", 10000000);
        fta_sim_fd_bench_t b = {P, K, P / 2, 0, 0, 0, 0, 0};
        int rc = fta_sim_fd_bench(&b);
        if (rc < 0) {
            fprintf(stderr, "fta-sim: P=%u: %s\n", P, strerror(-rc));
            bad = 1;
            continue;
        }
        printf("%8u %9u %11llu %13u %12llu %14llu %7llu %6.1f %s\n", P, K,
               (unsigned long long)b.hb_per_rank, P - 1,
               (unsigned long long)b.notice_msgs,
               (unsigned long long)b.notice_max_per_rank,
               (unsigned long long)b.rounds, log2((double)P),
               b.ok ? "yes" : "NO");
        if (out)
            fprintf(out, "%u,%u,%llu,%u,%llu,%llu,%llu,%.2f,%d\n", P, K,
                    (unsigned long long)b.hb_per_rank, P - 1,
                    (unsigned long long)b.notice_msgs,
                    (unsigned long long)b.notice_max_per_rank,
                    (unsigned long long)b.rounds, log2((double)P), b.ok);
        bad |= !b.ok;
    }
    free(list);
    if (out)
        fclose(out);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        usage();
    if (!strcmp(argv[1], "explore"))
        return do_explore(argc - 1, argv + 1);
    if (!strcmp(argv[1], "bench"))
        return do_bench(argc - 1, argv + 1);
    if (!strcmp(argv[1], "detect"))
        return do_detect(argc - 1, argv + 1);
    if (!strcmp(argv[1], "detect-bench"))
        return do_detect_bench(argc - 1, argv + 1);
    usage();
    return 2;
}
