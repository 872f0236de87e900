/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rp_getopt.c: a program that parses its options as most do (getopt_long,
 * then getopt over a second vector) and prints them, its program name and
 * an environment variable.  Tasks sharing a namespace must each see their
 * own options.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"name", required_argument, NULL, 'n'},
                                       {"verbose", no_argument, NULL, 'v'},
                                       {NULL, 0, NULL, 0}};
    const char *name = "none";
    int verbose = 0, c;
    while ((c = getopt_long(argc, argv, "vn:", lo, NULL)) != -1) {
        switch (c) {
        case 'v':
            verbose++;
            break;
        case 'n':
            name = optarg;
            break;
        default:
            return 2;
        }
    }
    printf("verbose %d name %s optind %d of %d\n", verbose, name, optind,
           argc);
    for (int i = optind; i < argc; i++)
        printf("operand %s\n", argv[i]);
    /* A second loop over another vector (optind reset, as programs do). */
    char *v2[] = {argv[0], "-ab", "-c", "x", "rest", NULL};
    optind = 1;
    int a = 0, b = 0;
    const char *cv = "";
    while ((c = getopt(5, v2, "abc:")) != -1) {
        if (c == 'a')
            a = 1;
        else if (c == 'b')
            b = 1;
        else if (c == 'c')
            cv = optarg;
    }
    printf("second loop a %d b %d c %s optind %d\n", a, b, cv, optind);
    printf("program %s\n", program_invocation_short_name);
    errno = 0;
    if (fputs("last line\n", stdout) == EOF)
        return 3;
    return 0;
}
