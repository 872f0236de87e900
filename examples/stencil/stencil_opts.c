/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stencil_opts.c: command line, environment defaults and the list of
 * planned kills of the Jacobi demo.  Every process parses the same
 * arguments and draws the same random kills; only rank 0 complains.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stencil.h"
#include "pvas_env.h"

#define ERR0(...)                                                              \
    do {                                                                       \
        if (rank == 0)                                                         \
            fprintf(stderr, "stencil: " __VA_ARGS__);                          \
    } while (0)

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: mpiexec -n NODES stencil [options]\n"
        "  -d, --dims SPEC        node space incl. spares, e.g. 2x2, 3x3, "
        "2x2x2 [2x2]\n"
        "  -a, --alloc QD(R,S)    spare allocation [2D(1,1), 3D(1,1) in 3-D]\n"
        "  -m, --method NAME      sliding: 0D, 1D, 2D, ..., hybrid(all), "
        "hybrid(-1D) [hybrid(all)]\n"
        "  -b, --block SPEC       cells per block, e.g. 32x32 [32 per dim]\n"
        "  -i, --iters N          iterations [100]\n"
        "  -k, --ckpt-every K     checkpoint interval [10]\n"
        "  -K, --kill LIST        ITER:LRANK[,...]: the process computing "
        "logical rank LRANK\n"
        "                         kills itself before iteration ITER "
        "[$STENCIL_KILL]\n"
        "  -r, --random-kills N   N kills at random iterations and ranks "
        "[$STENCIL_RANDOM_KILLS]\n"
        "  -s, --seed S           seed of --random-kills [$STENCIL_SEED, 1]\n"
        "  -o, --output FILE      write the final field to FILE "
        "[$STENCIL_OUTPUT]\n"
        "  -c, --ckpt-dir DIR     checkpoint directory [$STENCIL_CKPT_DIR, "
        "a new one in $TMPDIR]\n"
        "      --keep-ckpt        leave the checkpoint files\n"
        "  -q, --quiet            only the final report\n"
        "  -h, --help\n");
}

static int parse_long(const char *s, long min, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min)
        return -1;
    *out = v;
    return 0;
}

/* "AxBxC" into up to 3 positive ints; returns the count or -1. */
int stencil_parse_sizes(const char *s, int *v)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (errno || end == p || x < 1 || x > 100000 || n == 3)
            return -1;
        v[n++] = (int)x;
        if (*end == 'x')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return n;
}

static unsigned long long splitmix(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int parse_kills(const char *s, kill_ev_t *k, int max)
{
    int n = 0;
    char *dup = strdup(s), *save = NULL;
    if (!dup)
        return -1;
    for (char *t = strtok_r(dup, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(t, ':');
        if (!colon || n == max) {
            free(dup);
            return -1;
        }
        *colon = 0;
        if (parse_long(t, 0, &k[n].iter) ||
            parse_long(colon + 1, 0, &k[n].lrank)) {
            free(dup);
            return -1;
        }
        n++;
    }
    free(dup);
    return n;
}

int stencil_opts_parse(int argc, char **argv, int rank, opts_t *o)
{
    static const struct option lo[] = {{"dims", 1, 0, 'd'},
                                       {"alloc", 1, 0, 'a'},
                                       {"method", 1, 0, 'm'},
                                       {"block", 1, 0, 'b'},
                                       {"iters", 1, 0, 'i'},
                                       {"ckpt-every", 1, 0, 'k'},
                                       {"kill", 1, 0, 'K'},
                                       {"random-kills", 1, 0, 'r'},
                                       {"seed", 1, 0, 's'},
                                       {"output", 1, 0, 'o'},
                                       {"ckpt-dir", 1, 0, 'c'},
                                       {"keep-ckpt", 0, 0, 'P'},
                                       {"quiet", 0, 0, 'q'},
                                       {"help", 0, 0, 'h'},
                                       {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->dims = "2x2";
    o->method = "hybrid(all)";
    o->iters = 100;
    o->every = 10;
    o->seed = 1;
    o->kills = getenv("STENCIL_KILL");
    o->outfile = getenv("STENCIL_OUTPUT");
    o->ckdir = getenv("STENCIL_CKPT_DIR");
    const char *e;
    long v;
    int on;
    if (pvas_env_bool("STENCIL_DEBUG", 0, 0, &on) != 0) {
        ERR0("bad STENCIL_DEBUG '%s' (%s)\n", getenv("STENCIL_DEBUG"),
             pvas_env_bool_expected(0));
        return 2;
    }
    if ((e = getenv("STENCIL_RANDOM_KILLS")) && *e) {
        if (parse_long(e, 0, &o->nrandom)) {
            ERR0("bad STENCIL_RANDOM_KILLS '%s'\n", e);
            return 2;
        }
    }
    if ((e = getenv("STENCIL_SEED")) && *e) {
        if (parse_long(e, 0, &v)) {
            ERR0("bad STENCIL_SEED '%s'\n", e);
            return 2;
        }
        o->seed = (unsigned long long)v;
    }
    int c;
    while ((c = getopt_long(argc, argv, "d:a:m:b:i:k:K:r:s:o:c:qh", lo,
                            NULL)) != -1) {
        switch (c) {
        case 'd':
            o->dims = optarg;
            break;
        case 'a':
            o->alloc = optarg;
            break;
        case 'm':
            o->method = optarg;
            break;
        case 'b':
            o->block = optarg;
            break;
        case 'K':
            o->kills = optarg;
            break;
        case 'o':
            o->outfile = optarg;
            break;
        case 'c':
            o->ckdir = optarg;
            break;
        case 'P':
            o->keep = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'h':
            if (rank == 0)
                usage(stdout);
            return 1;
        case 'i':
        case 'k':
        case 'r':
        case 's':
            if (parse_long(optarg, c == 'r' || c == 's' ? 0 : 1, &v)) {
                ERR0("bad value '%s' for -%c\n", optarg, c);
                return 2;
            }
            if (c == 'i')
                o->iters = v;
            else if (c == 'k')
                o->every = v;
            else if (c == 'r')
                o->nrandom = v;
            else
                o->seed = (unsigned long long)v;
            break;
        default:
            if (rank == 0)
                usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        ERR0("unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    return 0;
}

int stencil_kills_make(const opts_t *o, long iters, long nranks, long nspares,
                       int rank, kill_ev_t *k, int *n)
{
    int nk = 0;
    if (o->kills && *o->kills) {
        nk = parse_kills(o->kills, k, STENCIL_MAX_EVENTS);
        if (nk < 0) {
            ERR0("bad kill list '%s' (ITER:LRANK[,ITER:LRANK...])\n", o->kills);
            return 2;
        }
    }
    /* At most one kill per spare (and per bit of the fired mask), checked
     * before drawing: the draw below needs free (iteration, rank) pairs. */
    if (nk + o->nrandom > nspares || nk + o->nrandom > 52) {
        ERR0("%ld kills but only %ld spare nodes\n", nk + o->nrandom, nspares);
        return 2;
    }
    if (o->nrandom > 0 && o->nrandom + nk > (iters - 1) * nranks) {
        ERR0("%ld random kills do not fit in %ld iterations\n", o->nrandom,
             iters);
        return 2;
    }
    unsigned long long seed = o->seed;
    for (long i = 0; i < o->nrandom; i++) {
        kill_ev_t e;
        int dup;
        do {
            e.iter =
                1 + (long)(splitmix(&seed) % (unsigned long long)(iters - 1));
            e.lrank = (long)(splitmix(&seed) % (unsigned long long)nranks);
            dup = 0;
            for (int j = 0; j < nk; j++)
                dup |= k[j].iter == e.iter && k[j].lrank == e.lrank;
        } while (dup);
        k[nk++] = e;
    }
    for (int j = 0; j < nk; j++) {
        if (k[j].iter < 1 || k[j].iter >= iters || k[j].lrank >= nranks) {
            ERR0("kill %ld:%ld: the iteration must be in 1..%ld and the "
                 "logical rank below %ld\n",
                 k[j].iter, k[j].lrank, iters - 1, nranks);
            return 2;
        }
        for (int i = 0; i < j; i++)
            if (k[i].iter == k[j].iter && k[i].lrank == k[j].lrank) {
                ERR0("kill %ld:%ld listed twice\n", k[j].iter, k[j].lrank);
                return 2;
            }
    }
    *n = nk;
    return 0;
}
