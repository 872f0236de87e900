/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip-mode: run a command under a PiP execution mode (PiP 2.4's flags).
 *
 *   pip-mode [-P | -T | -L | -G | -C] COMMAND [ARGS...]
 *   pip-mode [-P | -T | -L | -G | -C]     print PIP_MODE=<mode>
 *
 * -p/-P/--process: process mode; -t/-T/--thread/--pthread: thread mode
 * (PIP_MODE=pthread, PiP's spelling).  -l/-L/--process:preload,
 * -g/-G/--process:got and -c/-C/--process:pipclone set PIP_MODE to PiP's
 * names of its process-mode variants: libpip runs its one process mode
 * under each name and reports that name (printpipmode), as PiP does.
 * Exit status: COMMAND's; 127 (not found) or 126 (cannot run) when it
 * cannot be started; 0 when only printing; 1 unknown option; 2 after the
 * usage (-u, --help), as PiP's pip-mode.  The mode a root really gets is
 * printed by printpipmode(1).
 */
#include <pip/pip.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pip_tools.h"

static const char *prog_name = "pip-mode";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [-P | -T | -L | -G | -C] [COMMAND [ARGS...]]\n"
            "  -P, -p, --process     process mode\n"
            "  -T, -t, --thread, --pthread  thread mode (PIP_MODE=pthread)\n"
            "  -L, -l, --process:preload   PiP's names of its process-mode\n"
            "  -G, -g, --process:got       variants: process mode, reported\n"
            "  -C, -c, --process:pipclone  under that name\n"
            "  -u, --help            this usage on stderr (exit 2)\n"
            "  -h                    this usage on stdout\n"
            "Without COMMAND: print PIP_MODE=<mode>.  printpipmode prints the "
            "mode a\nroot gets from the environment.\n",
            prog_name);
}

#define die(code, ...) pip_tool_die(prog_name, (code), __VA_ARGS__)

/* PiP's process-mode variants: the PIP_MODE value, or NULL. */
static const char *variant(const char *opt)
{
    static const char *const tab[][4] = {
        {"-l", "-L", "--process:preload", PIP_ENV_MODE_PROCESS_PRELOAD},
        {"-g", "-G", "--process:got", PIP_ENV_MODE_PROCESS_GOT},
        {"-c", "-C", "--process:pipclone", PIP_ENV_MODE_PROCESS_PIPCLONE},
    };
    for (size_t k = 0; k < sizeof(tab) / sizeof(tab[0]); k++)
        for (int j = 0; j < 3; j++)
            if (strcmp(opt, tab[k][j]) == 0)
                return tab[k][3];
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = "";
    int i = 1;

    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (pip_tool_version("pip-mode", a))
            return 0;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "-u") == 0 || strcmp(a, "--help") == 0) {
            usage(stderr);
            return 2;
        }
        if (strcmp(a, "-p") == 0 || strcmp(a, "-P") == 0 ||
            strcmp(a, "--process") == 0) {
            mode = PIP_ENV_MODE_PROCESS;
        } else if (strcmp(a, "-t") == 0 || strcmp(a, "-T") == 0 ||
                   strcmp(a, "--thread") == 0 || strcmp(a, "--pthread") == 0) {
            mode = PIP_ENV_MODE_PTHREAD;
        } else if (variant(a) != NULL) {
            mode = variant(a);
        } else {
            die(1, "unknown option '%s' (see %s -h)", a, prog_name);
        }
    }
    if (i >= argc) {
        printf("PIP_MODE=%s\n", mode);
        return 0;
    }
    /* As PiP's: PIP_MODE=<mode> COMMAND, empty without an option (the
     * default, process mode). */
    if (setenv(PIP_ENV_MODE, mode, 1) != 0)
        die(1, "setenv: %s", strerror(errno));
    fflush(NULL);
    execvp(argv[i], &argv[i]);
    int e = errno;
    die(e == ENOENT ? 127 : 126, "%s: %s", argv[i], strerror(e));
}
