/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_mode: PiP 2.4.1's mode names and values.  Its pip.h has no
 * PIP_MODE_PROCESS_GOT (only PIP_MODE_PROCESS_GOT_OBS), and
 * PIP_MODE_PROCESS is PRELOAD | PIPCLONE.  PIP_MODE=process:preload is
 * accepted (PiP prints and accepts it on stock glibc), and a root and its
 * tasks report the variant that runs: pip_get_mode gives
 * PIP_MODE_PROCESS_PRELOAD and pip_get_mode_str "process:preload" in
 * process mode, PIP_MODE_PTHREAD and "pthread" in thread mode.
 */
#include "pc.h"

#include <string.h>

#ifdef PIP_MODE_PROCESS_GOT
#error "PiP 2.4.1's pip.h has no PIP_MODE_PROCESS_GOT"
#endif

static int check_mode(int threaded)
{
    int mode = -1;
    PC_RV(pip_get_mode(&mode), 0);
    const char *s = pip_get_mode_str();
    PC_CHECK(s != NULL, 2);
    if (threaded) {
        PC_CHECK(mode == PIP_MODE_PTHREAD, 3);
        PC_CHECK(strcmp(s, PIP_ENV_MODE_PTHREAD) == 0, 4);
    } else {
        PC_CHECK(mode == PIP_MODE_PROCESS_PRELOAD, 5);
        PC_CHECK((mode & PIP_MODE_PROCESS) != 0, 6);
        PC_CHECK(strcmp(s, PIP_ENV_MODE_PROCESS_PRELOAD) == 0, 7);
    }
    int flag = -1;
    PC_RV(pip_is_threaded(&flag), 0);
    PC_CHECK(flag == threaded, 8);
    return 0;
}

int main(int argc, char **argv)
{
    int pipid, ntasks = 1;
    (void)argc;
    PC_CHECK(PIP_MODE_PROCESS ==
                 (PIP_MODE_PROCESS_PRELOAD | PIP_MODE_PROCESS_PIPCLONE),
             1);
    PC_CHECK((PIP_MODE_PROCESS_GOT_OBS & PIP_MODE_MASK) != 0, 1);
    PC_CHECK((PIP_VALID_OPTS & PIP_MODE_PROCESS_GOT_OBS) != 0, 1);

    /* Process mode under PiP's own name for it on stock glibc. */
    const char *env = getenv(PIP_ENV_MODE);
    int threaded = env != NULL && (strcmp(env, PIP_ENV_MODE_THREAD) == 0 ||
                                   strcmp(env, PIP_ENV_MODE_PTHREAD) == 0);
    if (!threaded && getenv("PC_MODE_TASK") == NULL)
        setenv(PIP_ENV_MODE, PIP_ENV_MODE_PROCESS_PRELOAD, 1);

    PC_RV(pip_init(&pipid, &ntasks, NULL, 0), 0);
    if (pipid != PIP_PIPID_ROOT)
        return check_mode(threaded);
    check_mode(threaded);
    pip_spawn_program_t prog;
    int id = 0, status = -1;
    setenv("PC_MODE_TASK", "1", 1);
    pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL);
    PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
    PC_RV(pip_wait(0, &status), 0);
    PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, 9);
    PC_RV(pip_fin(), 0);
    printf("root and task: the mode as PiP 2.4.1 reports it\n");
    return 0;
}
