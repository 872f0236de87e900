/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * printpipmode: print the execution mode a PiP root gets from the current
 * environment, as pip_get_mode_str() names it ("process:preload",
 * "process:pipclone", "process:got" or "pthread", as PiP 2.4.1).
 *
 * It initialises a root for one task, asks the library and finalises, so
 * the answer is exactly what pip_init() decides.  Exit status: 0, or the
 * error number pip_init() returned (as PiP's printpipmode), with one line
 * on stderr saying why.
 */
#include <pip/pip.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pip_tools.h"

static const char *prog_name = "printpipmode";

static int known_mode(const char *env)
{
    return strcasecmp(env, PIP_ENV_MODE_THREAD) == 0 ||
           strcasecmp(env, PIP_ENV_MODE_PTHREAD) == 0 ||
           strcasecmp(env, PIP_ENV_MODE_PROCESS) == 0 ||
           strcasecmp(env, PIP_ENV_MODE_PROCESS_PRELOAD) == 0 ||
           strcasecmp(env, PIP_ENV_MODE_PROCESS_GOT) == 0 ||
           strcasecmp(env, PIP_ENV_MODE_PROCESS_PIPCLONE) == 0;
}

static const char *why(int rc)
{
    const char *env = getenv(PIP_ENV_MODE);
    if (rc == EPERM && env != NULL && *env != '\0' && !known_mode(env))
        return "bad PIP_MODE value (use process, thread or pthread)";
    return "cannot initialise libpip";
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        if (pip_tool_version("printpipmode", argv[1]))
            return 0;
        if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
            printf("usage: %s   print the PiP execution mode of this "
                   "environment\n",
                   prog_name);
            return 0;
        }
        fprintf(stderr, "%s: takes no arguments (see %s -h)\n", prog_name,
                prog_name);
        return 2;
    }
    int ntasks = 1;
    int err = pip_init(NULL, &ntasks, NULL, 0);
    if (err != 0) {
        const char *env = getenv(PIP_ENV_MODE);
        fprintf(stderr, "%s: pip_init() fails (%s): %s [PIP_MODE='%s']\n",
                prog_name, strerror(err), why(err), env != NULL ? env : "");
        return err;
    }
    printf("%s\n", pip_get_mode_str());
    (void)pip_fin();
    return 0;
}
