/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_stdio.c: writes argv[1] with fprintf(stdout), argv[2] with
 * fprintf(stderr) and argv[3] with fputs(stderr), no newlines, and returns.
 *
 * Naming stdout/stderr/stdin in a PIE gives the program its own copies of
 * those libc variables (R_X86_64_COPY relocations), which the namespace's
 * libc then uses too: the loader must fill them in, or every stdio call of
 * the task (printf included) sees a NULL stream.
 */
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    if (stdin == NULL || stdout == NULL || stderr == NULL)
        return 3;
    fprintf(stdout, "%s", argv[1]);
    fprintf(stderr, "%s", argv[2]);
    fputs(argv[3], stderr);
    return 0;
}
