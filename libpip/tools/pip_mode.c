/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip-mode: run a command under a PiP execution mode, or print the mode a
 * root would get from the current environment.
 *
 *   pip-mode -p|-t|-P COMMAND [ARGS...]   run COMMAND with PIP_MODE set
 *   pip-mode                              print "process" or "thread"
 *
 * Without a command, pip-mode asks libpip itself: it initialises a root
 * for one task, reads the mode and finalises, so the answer is exactly
 * what pip_init() decides (PIP_MODE, or process by default).
 * Exit status: as COMMAND's; 127 (not found) or 126 (cannot run) when it
 * cannot be started; without a command 0, or 1 when the environment gives
 * no mode; 2 usage error.
 */
#include <pip/pip.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pip_tools.h"

static const char *prog_name = "pip-mode";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [-p | -t | -P] COMMAND [ARGS...]\n"
            "       %s\n"
            "  -p          run COMMAND with PIP_MODE=process\n"
            "  -t          run COMMAND with PIP_MODE=thread\n"
            "  -P          run COMMAND with PIP_MODE=pthread (same as -t)\n"
            "  -h, --help  this help\n"
            "Without a command: print the mode a PiP root gets from the "
            "current\n"
            "environment (process or thread).\n",
            prog_name, prog_name);
}

/* One line on stderr, then exit(code). */
#define die(code, ...) pip_tool_die(prog_name, (code), __VA_ARGS__)

static int print_mode(void)
{
    const char *env = getenv(PIP_ENV_MODE);
    int one = 1, mode = 0;
    int rc = pip_init(NULL, &one, NULL, 0);
    if (rc == 0) {
        rc = pip_get_mode(&mode);
        (void)pip_fin();
    }
    if (rc == 0) {
        puts(mode == PIP_MODE_PTHREAD ? "thread" : "process");
        return 0;
    }
    if (rc == EPERM)
        die(1,
            "PIP_MODE='%s' names a process-mode variant this libpip does "
            "not provide (use process or thread)",
            env != NULL ? env : "");
    if (rc == EINVAL && env != NULL && *env != '\0' &&
        strcasecmp(env, PIP_ENV_MODE_THREAD) != 0 &&
        strcasecmp(env, PIP_ENV_MODE_PTHREAD) != 0 &&
        strcasecmp(env, PIP_ENV_MODE_PROCESS) != 0)
        die(1, "bad PIP_MODE value '%s' (use process, thread or pthread)", env);
    if (rc == EINVAL)
        die(1, "libpip refuses the environment (check PIP_STACKSZ, "
               "KMP_STACKSIZE, OMP_STACKSIZE)");
    die(1, "cannot initialise libpip: %s", strerror(rc));
}

int main(int argc, char **argv)
{
    const char *mode = NULL;
    char opt = 0;
    int i = 1;

    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        const char *m = strcmp(a, "-p") == 0   ? PIP_ENV_MODE_PROCESS
                        : strcmp(a, "-t") == 0 ? PIP_ENV_MODE_THREAD
                        : strcmp(a, "-P") == 0 ? PIP_ENV_MODE_PTHREAD
                                               : NULL;
        if (m == NULL)
            die(2, "unknown option '%s' (see %s -h)", a, prog_name);
        if (mode != NULL && opt != a[1])
            die(2, "-%c and %s exclude each other (see %s -h)", opt, a,
                prog_name);
        mode = m;
        opt = a[1];
    }
    if (i >= argc) {
        if (mode != NULL)
            die(2, "-%c: no command given (see %s -h)", opt, prog_name);
        return print_mode();
    }
    if (mode == NULL)
        die(2, "give the mode to run %s under: -p, -t or -P (see %s -h)",
            argv[i], prog_name);
    if (setenv(PIP_ENV_MODE, mode, 1) != 0)
        die(1, "setenv: %s", strerror(errno));
    fflush(NULL);
    execvp(argv[i], &argv[i]);
    int e = errno;
    die(e == ENOENT ? 127 : 126, "%s: %s", argv[i], strerror(e));
}
