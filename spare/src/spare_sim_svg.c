/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spare_sim_svg.c: a small SVG line-chart writer, so that spare-sim can
 * plot without gnuplot.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "spare.h"
#include "spare_sim.h"

#define W  800.0
#define H  520.0
#define ML 70.0
#define MR 200.0
#define MT 40.0
#define MB 60.0

static double nice_step(double range)
{
    double raw = range / 6.0;
    if (!(raw > 0))
        return 1.0;
    double p = pow(10.0, floor(log10(raw)));
    double f = raw / p;
    return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * p;
}

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

int svg_chart_write(const char *path, const char *title, const char *xlabel,
                    const char *ylabel, int logx, const struct svg_series *s,
                    int ns)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = 0, y1 = -INFINITY;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++) {
            double x = s[k].x[i], y = s[k].y[i];
            if (logx && x <= 0)
                continue;
            if (x < x0)
                x0 = x;
            if (x > x1)
                x1 = x;
            if (y > y1)
                y1 = y;
            if (y < y0)
                y0 = y;
        }
    if (!isfinite(x0) || !isfinite(x1)) {
        x0 = 0;
        x1 = 1;
    }
    if (x1 <= x0)
        x1 = x0 + 1;
    if (!isfinite(y1) || y1 <= y0)
        y1 = y0 + 1;
    double ystep = nice_step(y1 - y0);
    y1 = ceil(y1 / ystep) * ystep;
    double lx0 = logx ? log10(x0) : x0, lx1 = logx ? log10(x1) : x1;
    if (lx1 <= lx0)
        lx1 = lx0 + 1;
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    double pw = W - ML - MR, ph = H - MT - MB;
#define PX(x) (ML + ((logx ? log10(x) : (x)) - lx0) / (lx1 - lx0) * pw)
#define PY(y) (MT + ph - ((y)-y0) / (y1 - y0) * ph)
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H);
    fprintf(f, "<text x=\"%.1f\" y=\"22\" font-size=\"15\">", ML);
    xml_text(f, title);
    fputs("</text>\n", f);
    /* axes and ticks */
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"none\" stroke=\"black\"/>\n",
            ML, MT, pw, ph);
    for (double y = y0; y <= y1 + ystep / 2; y += ystep)
        fprintf(f,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                "text-anchor=\"end\">%g</text>\n",
                ML, ML + pw, PY(y), PY(y), ML - 6, PY(y) + 4, y);
    if (logx) {
        for (double d = pow(10, floor(lx0)); d <= x1 * 1.0001; d *= 10)
            for (int m = 1; m < 10; m++) {
                double x = d * m;
                if (x < x0 * 0.9999 || x > x1 * 1.0001)
                    continue;
                fprintf(f,
                        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#%s\"/>\n",
                        PX(x), PX(x), MT, MT + ph, m == 1 ? "bbb" : "eee");
                if (m == 1)
                    fprintf(f,
                            "<text x=\"%.1f\" y=\"%.1f\" "
                            "text-anchor=\"middle\">%g</text>\n",
                            PX(x), MT + ph + 18, x);
            }
    } else {
        double xs = nice_step(x1 - x0);
        if (xs < 1)
            xs = 1; /* the x axis counts failures */
        for (double x = ceil(x0 / xs) * xs; x <= x1 + xs / 1000; x += xs)
            fprintf(f,
                    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                    "stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                    "text-anchor=\"middle\">%g</text>\n",
                    PX(x), PX(x), MT, MT + ph, PX(x), MT + ph + 18, x);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            ML + pw / 2, H - 15);
    xml_text(f, xlabel);
    fprintf(f,
            "</text>\n<text transform=\"translate(18,%.1f) rotate(-90)\" "
            "text-anchor=\"middle\">",
            MT + ph / 2);
    xml_text(f, ylabel);
    fputs("</text>\n", f);
    for (int k = 0; k < ns; k++) {
        /* round joins: ImageMagick's renderer draws stray lines at wide
         * mitred joins */
        fprintf(f,
                "<path fill=\"none\" stroke-linejoin=\"round\" stroke=\"%s\" "
                "stroke-width=\"%.1f\"%s d=\"",
                s[k].color ? s[k].color : "black", s[k].width,
                s[k].dashed ? " stroke-dasharray=\"6,4\"" : "");
        int first = 1;
        for (int i = 0; i < s[k].n; i++) {
            if (logx && s[k].x[i] <= 0)
                continue;
            fprintf(f, "%c%.1f,%.1f ", first ? 'M' : 'L', PX(s[k].x[i]),
                    PY(s[k].y[i]));
            first = 0;
        }
        fputs("\"/>\n", f);
        double ly = MT + 10 + 20.0 * k;
        fprintf(f,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"%s\" stroke-width=\"%.1f\"%s/>"
                "<text x=\"%.1f\" y=\"%.1f\">",
                W - MR + 10, W - MR + 40, ly, ly,
                s[k].color ? s[k].color : "black", s[k].width,
                s[k].dashed ? " stroke-dasharray=\"6,4\"" : "", W - MR + 46,
                ly + 4);
        xml_text(f, s[k].name);
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
#undef PX
#undef PY
    if (fclose(f) != 0)
        return -errno;
    return 0;
}

/* Colour of a link load: grey up to 1 (no collision), then from orange to
 * red with the share of the largest load. */
static void load_color(int load, int max, char *buf, size_t len)
{
    if (load <= 0) {
        snprintf(buf, len, "#e4e4e4");
        return;
    }
    if (load == 1 || max <= 1) {
        snprintf(buf, len, "#9a9a9a");
        return;
    }
    double a = max > 2 ? (double)(load - 2) / (max - 2) : 1.0;
    int g = (int)(190 - 170 * a), b = (int)(60 - 40 * a);
    snprintf(buf, len, "#%02x%02x%02x", 240 - (int)(20 * a), g, b);
}

int svg_loadmap_write(const char *path, const char *title,
                      const spare_topo_t *t, const spare_map_t *m)
{
    spare_link_t busy;
    int max = spare_map_busiest_link(m, &busy, NULL);
    if (max < 0)
        return -EINVAL;
    int nx = spare_topo_size(t, 0), ny = spare_topo_size(t, 1);
    int nd = spare_topo_ndims(t);
    int base[SPARE_MAX_DIMS];
    spare_topo_node_coords(t, busy.node, base); /* the plane through it */
    double cell = 1000.0 / (nx > ny ? nx : ny);
    if (cell > 56)
        cell = 56;
    double ox = 50, oy = 70, w = ox * 2 + cell * nx + 150;
    double h = oy + cell * ny + 60;
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%.0f\" y=\"24\" font-size=\"15\">",
            w, h, ox);
    xml_text(f, title);
    fprintf(f, "</text>\n<text x=\"%.0f\" y=\"44\" font-size=\"12\">", ox);
    if (nd > 2) {
        fputs("plane of dimensions 0 and 1 through the busiest link at (x,y",
              f);
        for (int i = 2; i < nd; i++)
            fprintf(f, ",%d", base[i]);
        fputs("); ", f);
    }
    fprintf(f,
            "per directed link: messages in phase %d (right/down of a pair: "
            "+ direction); largest %d</text>\n",
            busy.phase, max);
    int c[SPARE_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        c[i] = base[i];
    double off = cell * 0.09;
    for (c[1] = 0; c[1] < ny; c[1]++)
        for (c[0] = 0; c[0] < nx; c[0]++) {
            long v = spare_topo_node_index(t, c);
            double cx = ox + cell * (c[0] + 0.5), cy = oy + cell * (c[1] + 0.5);
            for (int dim = 0; dim < 2; dim++)
                for (int dir = 0; dir < 2; dir++) {
                    int n = dim == 0 ? nx : ny, x = c[dim];
                    int wrap = dir == 0 ? x == n - 1 : x == 0;
                    if (wrap && !spare_topo_is_torus(t, dim))
                        continue;
                    int load = spare_map_link_load(m, busy.phase, v, dim, dir);
                    double len = wrap ? cell * 0.45 : cell;
                    double sg = dir == 0 ? 1 : -1;
                    /* the two directions side by side: + below/right */
                    double x0 = cx, y0 = cy, x1 = cx, y1 = cy;
                    if (dim == 0) {
                        y0 = y1 = cy + sg * off;
                        x0 = cx + sg * cell * 0.16;
                        x1 = cx + sg * (len - cell * 0.16);
                    } else {
                        x0 = x1 = cx - sg * off;
                        y0 = cy + sg * cell * 0.16;
                        y1 = cy + sg * (len - cell * 0.16);
                    }
                    char col[16];
                    load_color(load, max, col, sizeof(col));
                    double sw = load <= 1 ? 1.0 : 1.5 + 3.5 * load / max;
                    int hot = v == busy.node && dim == busy.dim &&
                              dir == busy.dir && c[0] == base[0] &&
                              c[1] == base[1];
                    if (hot)
                        fprintf(f,
                                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                                "y2=\"%.1f\" stroke=\"black\" "
                                "stroke-width=\"%.1f\"/>\n",
                                x0, y0, x1, y1, sw + 3);
                    fprintf(
                        f,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                        "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"/>\n",
                        x0, y0, x1, y1, col, sw);
                    if (load >= 2 && cell >= 18)
                        fprintf(
                            f,
                            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" "
                            "text-anchor=\"middle\">%d</text>\n",
                            (x0 + x1) / 2 + (dim == 1 ? -sg * off * 2.2 : 0),
                            (y0 + y1) / 2 + (dim == 0 ? sg * off * 2.8 : 3),
                            cell * 0.22 > 8 ? cell * 0.22 : 8, load);
                }
            long r = spare_map_node_rank(m, v);
            const char *fill =
                r == SPARE_NODE_FAILED ? "black"
                : r == SPARE_NODE_IDLE ? "white"
                : spare_map_rank_node(m, r) != spare_topo_rank_home(t, r)
                    ? "#6fa8dc"
                    : "#f2f2f2";
            double s = cell * 0.26;
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                    "height=\"%.1f\" fill=\"%s\" stroke=\"#555\"%s/>\n",
                    cx - s / 2, cy - s / 2, s, s, fill,
                    spare_topo_is_spare(t, v) ? " stroke-dasharray=\"2,2\""
                                              : "");
        }
    double lx = ox + cell * nx + 20, ly = oy + 10;
    static const char *lt[] = {"rank on its node", "moved rank", "idle node",
                               "failed node"};
    static const char *lf[] = {"#f2f2f2", "#6fa8dc", "white", "black"};
    for (int i = 0; i < 4; i++) {
        fprintf(f,
                "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" "
                "fill=\"%s\" stroke=\"#555\"/><text x=\"%.0f\" y=\"%.0f\" "
                "font-size=\"12\">%s</text>\n",
                lx, ly + 20 * i, lf[i], lx + 18, ly + 20 * i + 11, lt[i]);
    }
    fprintf(f,
            "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">dashed: spare of "
            "the</text><text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">"
            "allocation; black</text><text x=\"%.0f\" y=\"%.0f\" "
            "font-size=\"12\">outline: busiest link</text>\n",
            lx, ly + 95, lx, ly + 110, lx, ly + 125);
    fputs("</svg>\n", f);
    if (fclose(f) != 0)
        return -errno;
    return 0;
}
