/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_demo.c: what Process-in-Process gives, in one small program.
 *
 *   pip-exec -n 8 ./pip_demo
 *
 * Every task runs this same program, yet each has its own copy of the
 * globals below (a private counter and array), and any task can read any
 * other task's memory with a plain pointer.  Each task:
 *   1. increments its private counter pipid+1 times,
 *   2. fills its array and exports it by name (pip_named_export),
 *   3. imports its neighbour's ((pipid+1) % ntasks) array, which waits
 *      until the neighbour has exported it, and checks it through the
 *      pointer, as if it were its own memory,
 *   4. tells the neighbour it is done reading (a flag in the neighbour's
 *      memory), waits for its own reader to say the same, and reports.
 * Exit status 0 when every check held.
 */
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <pip/pip.h>

#define ARRAY_LEN    1024
#define WAIT_SECONDS 30

/* Private per task: every task has its own copy of these. */
static int counter;
static int array[ARRAY_LEN];
static volatile int reader_done; /* set by the task that reads our array */

/* Ours to export: the array and the flag our reader sets. */
struct shared {
    int *array;
    volatile int *reader_done;
    int pipid;
};
static struct shared mine;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Reports and errors all go to stdout, one printf per line, so the lines of
 * different tasks never tear and keep their order within a task.
 */
int main(void)
{
    int pipid = 0, ntasks = 0, rc;
    struct shared *peer = NULL;

    if ((rc = pip_init(&pipid, &ntasks, NULL, 0)) != 0) {
        printf("pip_demo: pip_init failed: error %d\n", rc);
        return 1;
    }
    if (pipid == PIP_PIPID_ROOT) {
        printf("pip_demo: run me as tasks, e.g.: pip-exec -n 8 pip_demo\n");
        pip_fin();
        return 2;
    }

    /* 1. A private counter: the same global, a different value per task. */
    for (int i = 0; i <= pipid; i++)
        counter++;

    /* 2. Fill and export the array. */
    for (int i = 0; i < ARRAY_LEN; i++)
        array[i] = pipid * 1000 + i;
    mine.array = array;
    mine.reader_done = &reader_done;
    mine.pipid = pipid;
    if ((rc = pip_named_export(&mine, "demo-shared")) != 0) {
        printf("task %d: pip_named_export failed: error %d\n", pipid, rc);
        return 1;
    }

    /* 3. Import the neighbour's (blocks until it has exported) and check. */
    int next = (pipid + 1) % ntasks;
    if ((rc = pip_named_import(next, (void **)&peer, "demo-shared")) != 0) {
        printf("task %d: pip_named_import of task %d failed: error %d\n", pipid,
               next, rc);
        return 1;
    }
    int bad = 0;
    if (peer->pipid != next)
        bad++;
    for (int i = 0; i < ARRAY_LEN; i++)
        if (peer->array[i] != next * 1000 + i)
            bad++;
    int a0 = peer->array[0], a1 = peer->array[1], a2 = peer->array[2],
        a3 = peer->array[3];
    /* A task alone is its own neighbour; another task's array is elsewhere. */
    int counter_ok =
        counter == pipid + 1 && (next == pipid) == (peer->array == array);

    /*
     * 4. The neighbour's memory goes away when it ends, so it must not end
     * before we are done reading: tell it, then wait until our own reader
     * (pipid - 1) has told us.
     */
    *peer->reader_done = 1;
    double deadline = now() + WAIT_SECONDS;
    while (!reader_done && now() < deadline)
        sched_yield();

    int ok = bad == 0 && counter_ok && reader_done;
    printf("task %d/%d pid %d: counter=%d (private), neighbour %d "
           "array[0..3]=%d,%d,%d,%d %s\n",
           pipid, ntasks, (int)getpid(), counter, next, a0, a1, a2, a3,
           ok ? "OK" : "FAILED");
    if (!reader_done)
        printf("task %d: reader %d never finished\n", pipid,
               (pipid + ntasks - 1) % ntasks);
    fflush(NULL);
    return ok ? 0 : 1;
}
