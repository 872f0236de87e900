/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pipcc_root.c: a root built by pipcc in the tests (and by `make
 * installcheck`).  It spawns N tasks of PROG with the argument 2 and
 * prints "root ok N" when all of them exit 0; otherwise "root spawn
 * failed: ERROR" or "root task P status S" and exit 1.
 *
 *   pipcc_root N PROG
 */
#include <pip/pip.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: pipcc_root N PROG\n");
        return 2;
    }
    int n = atoi(argv[1]);
    int rc = pip_init(NULL, &n, NULL, 0);
    if (rc != 0) {
        printf("root init failed: %s\n", strerror(rc));
        return 1;
    }
    char *targv[] = {argv[2], "2", NULL};
    for (int i = 0; i < n; i++) {
        pip_spawn_program_t p;
        int pipid = i;
        pip_spawn_from_main(&p, argv[2], targv, NULL, NULL, NULL);
        rc = pip_task_spawn(&p, PIP_CPUCORE_ASIS, 0, &pipid, NULL);
        if (rc != 0) {
            printf("root spawn failed: %s\n",
                   rc == ELIBEXEC ? "ELIBEXEC" : strerror(rc));
            fflush(stdout);
            pip_kill_all_tasks();
            for (int k = 0; k < i; k++)
                (void)pip_wait(k, NULL);
            return 1;
        }
    }
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int st = -1;
        rc = pip_wait(i, &st);
        if (rc != 0 || st != 0) {
            printf("root task %d status %d\n", i, rc != 0 ? -rc : st);
            bad = 1;
        }
    }
    (void)pip_fin();
    if (bad)
        return 1;
    printf("root ok %d\n", n);
    return 0;
}
