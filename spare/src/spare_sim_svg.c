/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spare_sim_svg.c: a small SVG line-chart writer, so that spare-sim can
 * plot without gnuplot.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

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
