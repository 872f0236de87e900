/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_bench: collective write/read bandwidth of ROMIO against EARTH at
 * several throttles, for four access patterns, in one run.
 *
 *   ior   contiguous block per rank (IOR's segment layout)
 *   hpio  non-contiguous in memory and in file (HPIO's region/spacing)
 *   btio  3-D subarray views of a global array of doubles (BT-IO)
 *   tile  2-D tiles of a global array (mpi-tile-io)
 *
 * Every mode uses the same hints (all ranks aggregators, cb_buffer_size,
 * striping_unit/factor); ROMIO runs with romio_cb_write/read=enable on a
 * file opened through PMPI (so EARTH stays out), EARTH with earth_req = 1,
 * 2, 4 and unlimited.  Each measurement is the median of REPS runs; the
 * ratio is against ROMIO measured in the same run.  Read data is checked
 * against what was written.
 *
 * usage: earth_bench -d DIR -l LABEL [-s MiB per rank] [-r REPS]
 *                    [-p PATTERNS] [-c CSV] [-f earth_fd_stripes]
 *                    [-m MODES]
 * MODES: a comma list of earth-req1, earth-req2, earth-req4 and
 * earth-unlimited (default: all); ROMIO, the baseline, always runs.
 * Output: a table on stdout, rows appended to CSV, progress on stderr.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "earth.h"

static int me, np;

typedef struct {
    const char *name;
    int earth; /* 0 = ROMIO */
    const char *req;
} mode_t_;

static const mode_t_ modes[] = {{"romio", 0, "-"},
                                {"earth-req1", 1, "1"},
                                {"earth-req2", 1, "2"},
                                {"earth-req4", 1, "4"},
                                {"earth-unlim", 1, "unlimited"}};
#define NMODES (int)(sizeof(modes) / sizeof(modes[0]))

/* A pattern: file view, memory type and count for this rank. */
typedef struct {
    MPI_Datatype ftype, mtype;
    MPI_Offset disp;
    int count;
    size_t membytes; /* buffer size */
    size_t bytes;    /* data bytes */
} layout_t;

static void grid2(int n, int *a, int *b)
{
    *a = 1;
    for (int i = 1; i * i <= n; i++)
        if (n % i == 0)
            *a = i;
    *b = n / *a;
}

static int make_layout(const char *pat, size_t per_rank, layout_t *L)
{
    memset(L, 0, sizeof(*L));
    L->ftype = MPI_BYTE;
    L->mtype = MPI_BYTE;
    if (!strcmp(pat, "ior")) {
        L->disp = (MPI_Offset)me * (MPI_Offset)per_rank;
        L->count = (int)per_rank;
        L->membytes = L->bytes = per_rank;
    } else if (!strcmp(pat, "hpio")) {
        /* regions of 32 KiB, interleaved between ranks in the file, with
         * 512 bytes of spacing between them in memory */
        int R = 32768, gap = 512, nreg = (int)(per_rank / (size_t)R);
        MPI_Type_create_hvector(nreg, R, (MPI_Aint)R * np, MPI_BYTE, &L->ftype);
        MPI_Type_commit(&L->ftype);
        MPI_Type_create_hvector(nreg, R, (MPI_Aint)(R + gap), MPI_BYTE,
                                &L->mtype);
        MPI_Type_commit(&L->mtype);
        L->disp = (MPI_Offset)me * R;
        L->count = 1;
        L->bytes = (size_t)nreg * (size_t)R;
        L->membytes = (size_t)nreg * (size_t)(R + gap);
    } else if (!strcmp(pat, "btio") || !strcmp(pat, "tile")) {
        int three = !strcmp(pat, "btio");
        int gs[3], ss[3], st[3], p[3] = {1, 1, 1}, c[3];
        MPI_Datatype el = three ? MPI_DOUBLE : MPI_INT;
        int esz = three ? 8 : 4;
        size_t elems = per_rank / (size_t)esz;
        if (three) {
            /* cube-ish local block: nz x ny x nx with nx*ny*nz = elems */
            int a, b;
            grid2(np, &a, &b);
            int a2, b2;
            grid2(b, &a2, &b2);
            p[0] = a;
            p[1] = a2;
            p[2] = b2;
            ss[2] = 128;
            ss[1] = 64;
            ss[0] = (int)(elems / (128 * 64));
        } else {
            grid2(np, &p[0], &p[1]);
            ss[1] = 1024;
            ss[0] = (int)(elems / 1024);
            ss[2] = 1;
        }
        int nd = three ? 3 : 2;
        c[0] = me / (p[1] * p[2]);
        c[1] = (me / p[2]) % p[1];
        c[2] = me % p[2];
        if (!three) {
            c[0] = me / p[1];
            c[1] = me % p[1];
        }
        for (int i = 0; i < nd; i++) {
            gs[i] = ss[i] * p[i];
            st[i] = ss[i] * c[i];
        }
        MPI_Type_create_subarray(nd, gs, ss, st, MPI_ORDER_C, el, &L->ftype);
        MPI_Type_commit(&L->ftype);
        L->count = 1;
        for (int i = 0; i < nd; i++)
            L->count *= ss[i];
        L->mtype = el;
        L->bytes = L->membytes = (size_t)L->count * (size_t)esz;
    } else {
        return -1;
    }
    return 0;
}

static void free_layout(layout_t *L)
{
    if (L->ftype != MPI_BYTE)
        MPI_Type_free(&L->ftype);
    if (L->mtype != MPI_BYTE && L->mtype != MPI_DOUBLE && L->mtype != MPI_INT)
        MPI_Type_free(&L->mtype);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    double wbw, rbw; /* MiB/s, medians */
    long long max_reqs_step, max_inflight, fs_load, fs_reqs;
    int verified;
} result_t;

static void run_mode(const char *path, const layout_t *L, const mode_t_ *m,
                     MPI_Info base, int reps, char *wbuf, char *rbuf,
                     result_t *res)
{
    double tw[16], tr[16];
    long long loc[2] = {0, 0}, glob[2];
    int ok = 1;
    MPI_Info info;
    struct earth_fsemu_stats fs;
    MPI_Info_dup(base, &info);
    if (m->earth)
        MPI_Info_set(info, "earth_req", m->req);
    res->fs_load = res->fs_reqs = 0;
    for (int r = 0; r < reps; r++) {
        for (int phase = 0; phase < 2; phase++) {
            MPI_File fh;
            MPI_Status st;
            int am = phase ? MPI_MODE_RDONLY : MPI_MODE_RDWR | MPI_MODE_CREATE;
            if (m->earth)
                MPI_File_open(MPI_COMM_WORLD, path, am, info, &fh);
            else
                PMPI_File_open(MPI_COMM_WORLD, path, am, info, &fh);
            MPI_File_set_view(fh, L->disp, MPI_BYTE, L->ftype, "native", info);
            if (phase)
                memset(rbuf, 0, L->membytes);
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 0)
                earth_fsemu_stats(&fs, 1);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (phase)
                MPI_File_read_all(fh, rbuf, L->count, L->mtype, &st);
            else
                MPI_File_write_all(fh, wbuf, L->count, L->mtype, &st);
            double dt = MPI_Wtime() - t0, mx;
            MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (me == 0 && earth_fsemu_stats(&fs, 1) == 0 && !phase) {
                if (fs.max_load > res->fs_load)
                    res->fs_load = fs.max_load;
                res->fs_reqs = (long long)fs.requests;
            }
            (phase ? tr : tw)[r] = (double)L->bytes * np / mx / 1048576.0;
            if (m->earth && !phase) {
                struct earth_stats es;
                if (earth_file_stats(fh, &es) == 0) {
                    if ((long long)es.max_reqs_step > loc[0])
                        loc[0] = (long long)es.max_reqs_step;
                    if ((long long)es.max_inflight > loc[1])
                        loc[1] = (long long)es.max_inflight;
                }
            }
            MPI_File_close(&fh);
            if (phase) {
                /* the bytes of the data, wherever the memory type puts them */
                int pos = 0, pos2 = 0, sz = (int)L->bytes;
                char *a = malloc(L->bytes), *b = malloc(L->bytes);
                MPI_Pack(wbuf, L->count, L->mtype, a, sz, &pos, MPI_COMM_WORLD);
                MPI_Pack(rbuf, L->count, L->mtype, b, sz, &pos2,
                         MPI_COMM_WORLD);
                ok &= !memcmp(a, b, L->bytes);
                free(a);
                free(b);
            }
        }
        if (me == 0)
            fprintf(stderr, ".");
    }
    MPI_Allreduce(loc, glob, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    qsort(tw, (size_t)reps, sizeof(double), cmp_d);
    qsort(tr, (size_t)reps, sizeof(double), cmp_d);
    res->wbw = tw[reps / 2];
    res->rbw = tr[reps / 2];
    res->max_reqs_step = glob[0];
    res->max_inflight = glob[1];
    res->verified = ok;
    MPI_Info_free(&info);
}

/* 1 when the comma list `list` names `name` */
static int selected(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;
         p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == 0))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = "/tmp", *label = "run", *csv = NULL;
    char pats[256] = "ior,hpio,btio,tile", path[600];
    const char *fds = "auto", *only = NULL;
    int reps = 3, mib = 4, opt;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    while ((opt = getopt(argc, argv, "d:l:s:r:p:c:f:m:")) != -1) {
        switch (opt) {
        case 'd':
            dir = optarg;
            break;
        case 'l':
            label = optarg;
            break;
        case 's':
            mib = atoi(optarg);
            break;
        case 'r':
            reps = atoi(optarg);
            break;
        case 'p':
            snprintf(pats, sizeof(pats), "%s", optarg);
            break;
        case 'c':
            csv = optarg;
            break;
        case 'f':
            fds = optarg;
            break;
        case 'm':
            only = optarg;
            break;
        default:
            if (me == 0)
                fprintf(stderr, "usage: earth_bench -d DIR -l LABEL [-s MiB] "
                                "[-r REPS] [-p ior,hpio,btio,tile] [-c CSV] "
                                "[-f FD_STRIPES] [-m MODES]\n");
            MPI_Finalize();
            return 2;
        }
    }
    int use[NMODES], nsel = 0;
    for (int m = 0; m < NMODES; m++) {
        use[m] = !only || m == 0 || selected(only, modes[m].name);
        nsel += m > 0 && use[m];
    }
    if (only && !nsel) {
        if (me == 0)
            fprintf(stderr, "earth_bench: -m names no mode (earth-req1, "
                            "earth-req2, earth-req4, earth-unlimited)\n");
        MPI_Finalize();
        return 2;
    }
    if (reps < 1 || reps > 15 || mib < 1 || mib > 1024) {
        if (me == 0)
            fprintf(stderr, "earth_bench: -r must be 1..15, -s 1..1024\n");
        MPI_Finalize();
        return 2;
    }
    long long id = getpid();
    MPI_Bcast(&id, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof(path), "%s/earth-bench-%lld", dir, id);
    MPI_Info base;
    char v[32];
    MPI_Info_create(&base);
    MPI_Info_set(base, "cb_config_list", "*:*");
    snprintf(v, sizeof(v), "%d", np);
    MPI_Info_set(base, "cb_nodes", v);
    MPI_Info_set(base, "cb_buffer_size", "4194304");
    MPI_Info_set(base, "striping_unit", "1048576");
    MPI_Info_set(base, "striping_factor", "4");
    MPI_Info_set(base, "romio_cb_write", "enable");
    MPI_Info_set(base, "romio_cb_read", "enable");
    MPI_Info_set(base, "earth_steps", "2");
    MPI_Info_set(base, "earth_fd_stripes", fds);
    FILE *out = NULL;
    if (me == 0 && csv) {
        out = fopen(csv, "a");
        if (!out)
            fprintf(stderr, "earth_bench: cannot append to %s\n", csv);
    }
    if (me == 0)
        printf("\n%-8s %2s %-5s %-12s %10s %10s %7s %7s %9s %9s %8s %6s\n",
               "env", "np", "pat", "mode", "write", "read", "w/romio",
               "r/romio", "reqs/step", "inflight", "srv-load", "check");
    int bad = 0;
    for (char *save = NULL, *pat = strtok_r(pats, ",", &save); pat;
         pat = strtok_r(NULL, ",", &save)) {
        layout_t L;
        if (make_layout(pat, (size_t)mib << 20, &L)) {
            if (me == 0)
                fprintf(stderr, "earth_bench: unknown pattern '%s'\n", pat);
            bad = 1;
            break;
        }
        char *wbuf = malloc(L.membytes), *rbuf = malloc(L.membytes);
        for (size_t i = 0; i < L.membytes; i++)
            wbuf[i] = (char)(me * 31 + (int)(i % 253));
        result_t res[NMODES];
        for (int m = 0; m < NMODES; m++) {
            if (!use[m])
                continue;
            if (me == 0)
                fprintf(stderr, "[%s np=%d] %s %s ", label, np, pat,
                        modes[m].name);
            run_mode(path, &L, &modes[m], base, reps, wbuf, rbuf, &res[m]);
            if (me == 0)
                fprintf(stderr, "\n");
            bad |= !res[m].verified;
        }
        if (me == 0)
            for (int m = 0; m < NMODES; m++) {
                if (!use[m])
                    continue;
                result_t *r = &res[m];
                double wr = r->wbw / res[0].wbw, rr = r->rbw / res[0].rbw;
                char reqs[16] = "-", infl[16] = "-", load[16] = "-";
                if (modes[m].earth) {
                    snprintf(reqs, sizeof(reqs), "%lld", r->max_reqs_step);
                    snprintf(infl, sizeof(infl), "%lld", r->max_inflight);
                }
                if (r->fs_load)
                    snprintf(load, sizeof(load), "%lld", r->fs_load);
                printf("%-8s %2d %-5s %-12s %10.1f %10.1f %7.2f %7.2f %9s "
                       "%9s %8s %6s\n",
                       label, np, pat, modes[m].name, r->wbw, r->rbw, wr, rr,
                       reqs, infl, load, r->verified ? "ok" : "BAD");
                if (out)
                    fprintf(out,
                            "%s,%d,%s,%s,%s,%.2f,%.2f,%.3f,%.3f,%lld,%lld,"
                            "%lld,%s\n",
                            label, np, pat, modes[m].name, modes[m].req, r->wbw,
                            r->rbw, wr, rr,
                            modes[m].earth ? r->max_reqs_step : -1,
                            modes[m].earth ? r->max_inflight : -1, r->fs_load,
                            r->verified ? "ok" : "BAD");
            }
        fflush(stdout);
        free(wbuf);
        free(rbuf);
        free_layout(&L);
    }
    if (out)
        fclose(out);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        unlink(path);
    MPI_Info_free(&base);
    MPI_Finalize();
    return bad;
}
