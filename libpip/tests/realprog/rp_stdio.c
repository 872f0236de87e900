/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rp_stdio.c: a program that ends as GNU programs do (gnulib's
 * close_stdout: fclose stdout and stderr at exit, and fail if that fails)
 * and then closes its descriptors 1 and 2.  Other tasks must not lose
 * their output because one task closed its streams or descriptors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void close_stdout(void)
{
    int pending_error = ferror(stdout);
    if (fclose(stdout) != 0 || pending_error) {
        /* As gnulib: report on stderr, exit with a failure. */
        fprintf(stderr, "write error: %s\n", strerror(errno));
        _exit(1);
    }
    if (fclose(stderr) != 0)
        _exit(1);
    close(1);
    close(2);
}

int main(int argc, char **argv)
{
    if (atexit(close_stdout) != 0)
        return 2;
    printf("hello, world\n");
    fflush(stdout);
    /* Let the other tasks close theirs before the second half. */
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    fputs("second line through stdout\n", stdout);
    printf("argc %d first %s\n", argc, argc > 1 ? argv[1] : "-");
    fprintf(stderr, "a line on stderr\n");
    return 0;
}
