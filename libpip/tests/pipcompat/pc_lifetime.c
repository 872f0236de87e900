/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_lifetime: an ended task's state stays valid until pip_fin (PiP 2.4.1:
 * its task finalisation neither unmaps the stack nor closes the namespace,
 * and a root that reaps a task before another has read from it is the
 * ordinary case).
 *
 * Part 1 (pipids 0 and 1): task 0 exports a variable on its stack and a
 * static one, imports "got" from task 1 and returns.  Task 1 imports both,
 * exports "got", waits until the root has reaped task 0 (a flag in the
 * root's export) and then reads both through the pointers, and imports
 * task 0's static once more.
 *
 * Part 2: tasks 2..5 each export a stack variable and a static one and
 * end, tasks 2 and 3 by returning from main, tasks 4 and 5 by pip_exit()
 * from main; the root reaps them all; a late task (pipid 6, spawned after
 * that) imports every export of tasks 0 and 2..5 and reads them.  An
 * ended task's stack frames are gone (its value is whatever its exit path
 * left there), so for stack variables the check is that the memory is
 * still mapped (msync) and readable (it used to fault); the static
 * variables keep their values.
 */
#include "pc.h"

#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>

#define NEXP   4 /* part 2's exporting tasks: pipids 2 .. 2+NEXP-1 */
#define LATE   (2 + NEXP)
#define NTASKS (LATE + 1)

struct shared {
    volatile int reaped0; /* the root has reaped task 0 */
};

static int svar; /* one per task: its own copy of the program */

/* Tasks 4 and 5 end with pip_exit() from main, the others return. */
#define ENDS_WITH_PIP_EXIT(id) ((id) >= 4 && (id) < LATE)

/* Is the page of `p` still mapped? */
static int mapped(const void *p)
{
    uintptr_t page = (uintptr_t)p & ~(uintptr_t)4095;
    return msync((void *)page, 4096, MS_ASYNC) == 0;
}

static int exporter(int pipid, int *stackvar)
{
    *stackvar = 1000 + pipid;
    svar = 2000 + pipid;
    PC_RV(pip_named_export(stackvar, "stack-%d", pipid), 0);
    PC_RV(pip_named_export(&svar, "static-%d", pipid), 0);
    if (pipid == 0) {
        void *got = NULL;
        /* Returns once task 1 has the addresses. */
        PC_RV(pip_named_import(1, &got, "got"), 0);
    }
    return 0;
}

static volatile int sink;

static int reader(struct shared *sh)
{
    int *xp = NULL, *sp = NULL, *sp2 = NULL;
    PC_RV(pip_named_import(0, (void **)&xp, "stack-0"), 0);
    PC_RV(pip_named_import(0, (void **)&sp, "static-0"), 0);
    PC_CHECK(sp != &svar, 2);
    static int got = 1;
    PC_RV(pip_named_export(&got, "got"), 0);
    while (!sh->reaped0)
        sched_yield();
    PC_CHECK(mapped(xp), 3);
    sink = *(volatile int *)xp; /* its frame is gone: readable, any value */
    PC_CHECK(*sp == 2000, 4);
    PC_RV(pip_named_import(0, (void **)&sp2, "static-0"), 0);
    PC_CHECK(sp2 == sp, 5);
    printf("task 1: read task 0's stack and static variables after the "
           "root reaped it\n");
    return 0;
}

static int late(void)
{
    int ids[NEXP + 1] = {0};
    for (int i = 0; i < NEXP; i++)
        ids[i + 1] = 2 + i;
    for (int k = 0; k <= NEXP; k++) {
        int id = ids[k], *xp = NULL, *sp = NULL;
        PC_RV(pip_named_import(id, (void **)&xp, "stack-%d", id), 0);
        PC_RV(pip_named_import(id, (void **)&sp, "static-%d", id), 0);
        PC_CHECK(sp != &svar, 6);
        PC_CHECK(mapped(xp), 7);
        sink = *(volatile int *)xp;
        PC_CHECK(*sp == 2000 + id, 8);
    }
    PC_CHECK(svar == 0, 9); /* its own copy, untouched */
    printf("late task: read %d reaped tasks' stack and static variables\n",
           NEXP + 1);
    return 0;
}

static void spawn(char **argv, int pipid)
{
    pip_spawn_program_t prog;
    int id = pipid;
    pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL);
    PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
    PC_CHECK(id == pipid, 1);
}

static void reap(int pipid)
{
    int status = -1;
    PC_RV(pip_wait(pipid, &status), 0);
    PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, 1);
}

int main(int argc, char **argv)
{
    static struct shared sh;
    void *exp = &sh;
    int pipid, ntasks = NTASKS;
    (void)argc;

    PC_RV(pip_init(&pipid, &ntasks, &exp, 0), 0);
    if (pipid == PIP_PIPID_ROOT) {
        spawn(argv, 0);
        spawn(argv, 1);
        reap(0);
        sh.reaped0 = 1;
        reap(1);
        for (int i = 2; i < LATE; i++)
            spawn(argv, i);
        for (int i = 2; i < LATE; i++)
            reap(i);
        spawn(argv, LATE);
        reap(LATE);
        PC_RV(pip_fin(), 0);
        printf("root: done\n");
        return 0;
    }
    if (pipid == 1)
        return reader(exp);
    if (pipid == LATE)
        return late();
    int stackvar = 0;
    exporter(pipid, &stackvar);
    if (ENDS_WITH_PIP_EXIT(pipid))
        pip_exit(0);
    return 0;
}
