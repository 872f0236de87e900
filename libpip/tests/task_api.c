/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_api.c: a task program that uses the libpip API from inside a task.
 *
 * main(): argv[1] is an action, argv[2] usually the "%p" address of the
 * root's pt_shared_t (same address space, so a pointer is enough).  The
 * task returns 0 when every check of the action held, else a code that
 * names the failed check.  Exported start functions (tf_*) serve the
 * funcname / pip-exec -f tests.
 *
 * Messages use dprintf(2, ...), not fprintf(stderr, ...): naming stderr
 * would give the program a copy relocation of it, which test_pip_stdio
 * checks on its own (task_stdio); failures here should not depend on it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <pip/pip.h>

#include "pt_task.h"

/* Each task has its own copy of these; pip_get_addr finds them. */
int pt_task_global = 1234;
int pt_task_array[PT_ARRAY_LEN];
static int sig_count;
static int private_counter;

#define CHECK(cond, code)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            dprintf(2, "task_api[%s]: check '%s' failed (%d)\n", action,       \
                    #cond, (code));                                            \
            return (code);                                                     \
        }                                                                      \
    } while (0)

static void msleep(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Start functions for pip_spawn_from_func / pip-exec -f (exported, hence
 * global). */
int tf_ret_arg(void *arg);
int tf_hello(void *arg);
int tf_pip_exit(void *arg);
int tf_exit(void *arg);

int tf_ret_arg(void *arg)
{
    return arg != NULL ? *(int *)arg : 55;
}

/* Not exported (static): libpip finds it in the file's symbol table. */
__attribute__((used)) static int tf_static_ret(void *arg)
{
    return arg != NULL ? *(int *)arg + 100 : 77;
}

int tf_hello(void *arg)
{
    int pipid = -1;
    (void)arg;
    pip_get_pipid(&pipid);
    printf("hello from tf_hello pipid=%d\n", pipid);
    return 0;
}

int tf_pip_exit(void *arg)
{
    pip_exit(arg != NULL ? *(int *)arg : 66);
}

int tf_exit(void *arg)
{
    exit(arg != NULL ? *(int *)arg : 67);
}

static void on_sigusr2(int sig)
{
    (void)sig;
    __atomic_add_fetch(&sig_count, 1, __ATOMIC_ACQ_REL);
}

int main(int argc, char **argv)
{
    const char *action = argc > 1 ? argv[1] : "";
    pt_shared_t *sh = argc > 2 ? pt_shared_from_arg(argv[2]) : NULL;
    int pipid = PIP_PIPID_NULL, ntasks = 0;
    void *root_exp = NULL;
    int rc;

    rc = pip_init(&pipid, &ntasks, &root_exp, 0);
    CHECK(rc == 0, 2);
    if (strcmp(action, "counter") == 0) {
        /* Any number of tasks (pip-exec -n 300): a private counter, once. */
        private_counter++;
        printf("pipid=%d counter=%d\n", pipid, private_counter);
        return private_counter == 1 ? 0 : 1;
    }
    CHECK(pipid >= 0 && pipid < ntasks && pipid < PT_MAXT, 3);

    if (strcmp(action, "info") == 0) {
        printf("pipid=%d ntasks=%d mode=%s\n", pipid, ntasks,
               pip_get_mode_str());
        return 0;
    }
    if (strcmp(action, "say") == 0) {
        printf("%s pipid=%d\n", argc > 2 ? argv[2] : "", pipid);
        return 0;
    }
    if (strcmp(action, "printexit") == 0) {
        /* Unterminated output, then pip_exit: the output must still arrive. */
        printf("%s", argc > 2 ? argv[2] : "");
        pip_exit(argc > 3 ? atoi(argv[3]) : 0);
    }
    if (strcmp(action, "pipexit") == 0) {
        pip_exit(argc > 2 ? atoi(argv[2]) : 0);
        return 99; /* not reached */
    }
    CHECK(sh != NULL, 4);

    if (strcmp(action, "query") == 0) {
        int mode = 0, flag = -1, id = -1, n = -1;
        pip_id_t sysid = 0;
        CHECK(pip_get_pipid(&id) == 0 && id == pipid, 10);
        CHECK(pip_get_ntasks(&n) == 0, 11);
        CHECK(pip_get_mode(&mode) == 0, 12);
        sh->pipid[pipid] = id;
        sh->ntasks_seen[pipid] = n;
        sh->mode[pipid] = mode;
        sh->isa_root[pipid] = pip_isa_root();
        sh->isa_task[pipid] = pip_isa_task();
        CHECK(pip_is_threaded(&flag) == 0, 13);
        sh->threaded[pipid] = flag;
        CHECK(pip_is_shared_fd(&flag) == 0, 14);
        sh->shared_fd[pipid] = flag;
        CHECK(pip_get_system_id(PIP_PIPID_MYSELF, &sysid) == 0, 15);
        sh->sysid[pipid] = sysid;
        sh->getpid_[pipid] = (uintptr_t)getpid();
        sh->self[pipid] = (uintptr_t)pthread_self();
        sh->gettid_[pipid] = (uintptr_t)syscall(SYS_gettid);
        CHECK(pip_gettid() == (pid_t)syscall(SYS_gettid), 16);
        sh->root_exp_seen[pipid] = root_exp;
        CHECK(pip_get_system_id(pipid, &sysid) == 0 &&
                  sysid == sh->sysid[pipid],
              17);
        CHECK(pip_get_mode_str() != NULL, 18);
        return 0;
    }

    if (strcmp(action, "noroot") == 0) {
        /* Root-only calls must refuse a task. */
        int st, id = PIP_PIPID_ANY;
        pip_spawn_program_t prog;
        char *av[] = {argv[0], "info", NULL};
        CHECK(pip_wait(0, &st) == EPERM, 20);
        CHECK(pip_trywait(0, &st) == EPERM, 21);
        CHECK(pip_wait_any(&id, &st) == EPERM, 22);
        pip_spawn_from_main(&prog, argv[0], av, NULL, NULL, NULL);
        id = PIP_PIPID_ANY;
        CHECK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL) == EPERM,
              23);
        CHECK(pip_fin() == 0, 24); /* as PiP: a task's pip_fin succeeds */
        CHECK(pip_kill_all_tasks() == EPERM, 25);
        return 0;
    }

    if (strcmp(action, "export") == 0) {
        /* Publish a private array, named and unnamed, then wait for "go". */
        for (int i = 0; i < PT_ARRAY_LEN; i++)
            pt_task_array[i] = pipid * 100000 + i;
        pt_task_global = 5000 + pipid;
        CHECK(pip_named_export(pt_task_array, "array-%d", pipid) == 0, 30);
        CHECK(pip_named_export(pt_task_array, "array-%d", pipid) == EBUSY, 31);
        CHECK(pip_named_export(&pt_task_global, "global") == 0, 32);
        CHECK(pip_export(pt_task_array) == 0, 33);
        /* As PiP: once only, and never NULL. */
        CHECK(pip_export(pt_task_array) == EBUSY, 36);
        CHECK(pip_export(NULL) == EINVAL, 37);
        pt_inc(&sh->ready);
        CHECK(pt_wait_ge(&sh->go, 1) == 0, 34);
        /* The root may have written into our array: report what we see. */
        sh->value[pipid] = pt_task_array[0];
        return 0;
    }

    if (strcmp(action, "exportmem") == 0) {
        /* Publish memory of each kind, then end: its stack, its malloc
         * memory (large: glibc maps it) and its globals must stay valid
         * after it was reaped, until pip_fin. */
        volatile unsigned char stk[65536];
        unsigned char *heap = malloc(256 * 1024);
        CHECK(heap != NULL, 40);
        for (int i = 0; i < 1024; i++)
            stk[i] = (unsigned char)(i * 7 + pipid);
        for (int i = 0; i < 256 * 1024; i++)
            heap[i] = (unsigned char)(i * 13 + pipid);
        for (int i = 0; i < PT_ARRAY_LEN; i++)
            pt_task_array[i] = pipid * 100000 + i;
        CHECK(pip_named_export((void *)stk, "stack-mem") == 0, 41);
        CHECK(pip_named_export(heap, "heap-mem") == 0, 42);
        CHECK(pip_named_export(pt_task_array, "global-mem") == 0, 43);
        return 0;
    }

    if (strcmp(action, "readmem") == 0) {
        /* Read what task argv[3] published, after it ended. */
        int from = atoi(argv[3]);
        unsigned char *stk = NULL, *heap = NULL;
        int *arr = NULL;
        CHECK(pip_named_import(from, (void **)&stk, "stack-mem") == 0, 50);
        CHECK(pip_named_import(from, (void **)&heap, "heap-mem") == 0, 51);
        CHECK(pip_named_import(from, (void **)&arr, "global-mem") == 0, 52);
        for (int i = 0; i < 1024; i++)
            CHECK(stk[i] == (unsigned char)(i * 7 + from), 53);
        for (int i = 0; i < 256 * 1024; i++)
            CHECK(heap[i] == (unsigned char)(i * 13 + from), 54);
        for (int i = 0; i < PT_ARRAY_LEN; i++)
            CHECK(arr[i] == from * 100000 + i, 55);
        return 0;
    }

    if (strcmp(action, "noexport") == 0) {
        /* End without exporting, after a delay so an importer is waiting. */
        msleep(argc > 3 ? atoi(argv[3]) : 0);
        return 0;
    }

    if (strcmp(action, "importself") == 0) {
        void *p = NULL;
        CHECK(pip_named_import(PIP_PIPID_MYSELF, &p, "x") == EDEADLK, 40);
        CHECK(pip_named_import(pipid, &p, "x") == EDEADLK, 41);
        return 0;
    }

    if (strcmp(action, "importroot") == 0) {
        /* The root exported "root-int" and passed its export to pip_init. */
        void *p = NULL, *q = NULL;
        CHECK(pip_named_import(PIP_PIPID_ROOT, &p, "root-int") == 0 &&
                  p != NULL,
              50);
        *(int *)p += 1000 + pipid;
        CHECK(pip_import(PIP_PIPID_ROOT, &q) == 0, 51);
        sh->root_exp_seen[pipid] = q;
        CHECK(q == root_exp, 52);
        CHECK(pip_named_tryimport(PIP_PIPID_ROOT, &p, "no-such-name") == EAGAIN,
              53);
        return 0;
    }

    if (strcmp(action, "aux") == 0) {
        void *aux = NULL;
        CHECK(pip_get_aux(&aux) == 0, 60);
        sh->aux_seen[pipid] = aux;
        CHECK(pip_set_aux((void *)&sh->value[pipid]) == 0, 61);
        CHECK(pip_get_aux(&aux) == 0 && aux == (void *)&sh->value[pipid], 62);
        sh->aux_after[pipid] = aux;
        return 0;
    }

    if (strcmp(action, "barrier") == 0) {
        /* Every round: count in, barrier, all must see the full count. */
        int n = sh->ntasks, rounds = sh->rounds;
        for (int r = 0; r < rounds; r++) {
            pip_atomic_fetch_and_add(&sh->atom, 1);
            CHECK(pip_barrier_wait(&sh->barrier) == 0, 70);
            CHECK(sh->atom == (intptr_t)n * (r + 1), 71);
            CHECK(pip_barrier_wait(&sh->barrier) == 0, 72);
        }
        return 0;
    }

    if (strcmp(action, "spin") == 0) {
        int iters = sh->rounds;
        for (int i = 0; i < iters; i++) {
            pip_spin_lock(&sh->lock);
            sh->counter++;
            pip_spin_unlock(&sh->lock);
            pip_atomic_fetch_and_add(&sh->atom, 2);
        }
        CHECK(pip_yield(PIP_YIELD_DEFAULT) == 0, 80);
        CHECK(pip_yield(PIP_YIELD_USER) == 0, 81);
        CHECK(pip_yield(PIP_YIELD_SYSTEM) == 0, 82);
        return 0;
    }

    if (strcmp(action, "sigwait") == 0) {
        /* Block SIGUSR1 and wait for the root's pip_kill. */
        sigset_t set, old;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        CHECK(pip_sigmask(SIG_BLOCK, &set, NULL) == 0, 90);
        CHECK(pip_sigmask(SIG_BLOCK, NULL, &old) == 0, 91);
        CHECK(sigismember(&old, SIGUSR1) == 1, 92);
        pt_inc(&sh->ready);
        CHECK(pip_signal_wait(SIGUSR1) == 0, 93);
        pt_inc(&sh->done);
        return 0;
    }

    if (strcmp(action, "handler") == 0) {
        /* Own handler: the root's handler must not run for our signal. */
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_sigusr2;
        sigemptyset(&sa.sa_mask);
        CHECK(sigaction(SIGUSR2, &sa, NULL) == 0, 100);
        pt_inc(&sh->ready);
        double end = pt_now() + PT_WAIT_SECONDS;
        while (__atomic_load_n(&sig_count, __ATOMIC_ACQUIRE) == 0) {
            CHECK(pt_now() < end, 101);
            msleep(1);
        }
        return 0;
    }

    if (strcmp(action, "mmaps") == 0) {
        /* sh->rounds of mmap, mremap, munmap and a large malloc (test_pip_
         * signal floods us with a handled signal): none may fail, and
         * with sh->value[0] (a private image: the root's first-fit placer
         * places them) the same few addresses must come back (a mapping
         * made for an interrupted call and lost would push them on). */
        void *seen[16];
        int nseen = 0;
        size_t k = 64 * 1024;
        for (int i = 0; i < sh->rounds; i++) {
            char *p = mmap(NULL, k, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            CHECK(p != MAP_FAILED, 160);
            p[0] = p[k - 1] = 1;
            int j = 0;
            while (j < nseen && seen[j] != p)
                j++;
            if (j == nseen && sh->value[0]) { /* the root placed it */
                CHECK(nseen < 16, 161);
                seen[nseen++] = p;
            }
            char *q = mremap(p, k, 3 * k, MREMAP_MAYMOVE);
            CHECK(q != MAP_FAILED, 162);
            CHECK(q[0] == 1 && q[k - 1] == 1, 163);
            q[3 * k - 1] = 1;
            CHECK(munmap(q, 3 * k) == 0, 164);
            char *m = malloc(300 * 1024);
            CHECK(m != NULL, 165);
            memset(m, 2, 300 * 1024);
            free(m);
        }
        pt_inc(&sh->done);
        return 0;
    }

    if (strcmp(action, "readintr") == 0) {
        /* Our own SIGUSR1 handler without SA_RESTART: read() of a pipe
         * nobody writes must fail with EINTR (the root sends SIGUSR1
         * until we are done). */
        struct sigaction sa, old;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_sigusr2;
        sigemptyset(&sa.sa_mask);
        CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, 170);
        CHECK(sigaction(SIGUSR1, NULL, &old) == 0, 171);
        CHECK(old.sa_handler == on_sigusr2, 172);
        CHECK(!(old.sa_flags & (SA_RESTART | SA_SIGINFO)), 173);
        int fds[2];
        char c;
        CHECK(pipe(fds) == 0, 174);
        pt_inc(&sh->ready);
        ssize_t n = read(fds[0], &c, 1);
        CHECK(n == -1 && errno == EINTR, 175);
        CHECK(__atomic_load_n(&sig_count, __ATOMIC_ACQUIRE) > 0, 176);
        pt_inc(&sh->done);
        return 0;
    }

    if (strcmp(action, "block") == 0) {
        /* Say we are running, then wait (bounded) for "go". */
        pt_inc(&sh->ready);
        CHECK(pt_wait_ge(&sh->go, 1) == 0, 110);
        return 0;
    }

    /*
     * The actions below synchronise with pt_sbar_wait, which gives up after
     * PT_WAIT_SECONDS: when one task fails a check and leaves, the others
     * fail too instead of waiting forever.  pip_barrier_wait itself is
     * tested by the "barrier" action above.
     */
    if (strcmp(action, "envpriv") == 0) {
        /* Each task sets its own value; nobody may see another's. */
        char mine[32];
        snprintf(mine, sizeof(mine), "task-%d", pipid);
        CHECK(getenv("PT_PRIV") == NULL, 120);
        CHECK(pt_sbar_wait(&sh->sbar) == 0, 121);
        CHECK(setenv("PT_PRIV", mine, 1) == 0, 122);
        CHECK(pt_sbar_wait(&sh->sbar) == 0, 123);
        const char *v = getenv("PT_PRIV");
        CHECK(v != NULL && strcmp(v, mine) == 0, 124);
        CHECK(pt_sbar_wait(&sh->sbar) == 0, 125);
        return 0;
    }

    if (strcmp(action, "globals") == 0) {
        /* A pipid-dependent number of increments of a private global. */
        CHECK(private_counter == 0 && pt_task_global == 1234, 130);
        for (int i = 0; i <= pipid; i++)
            private_counter++;
        CHECK(pt_sbar_wait(&sh->sbar) == 0, 131);
        CHECK(private_counter == pipid + 1, 132);
        sh->value[pipid] = private_counter;
        sh->ptr[pipid] = &private_counter;
        CHECK(pt_sbar_wait(&sh->sbar) == 0, 133);
        return 0;
    }

    if (strcmp(action, "xmem") == 0) {
        /* Read and write the neighbour's array through a plain pointer. */
        int n = sh->ntasks, peer = (pipid + 1) % n;
        int *theirs = NULL;
        for (int i = 0; i < PT_ARRAY_LEN; i++)
            pt_task_array[i] = pipid * 100000 + i;
        CHECK(pip_named_export(pt_task_array, "xarr") == 0, 140);
        CHECK(pip_named_import(peer, (void **)&theirs, "xarr") == 0, 141);
        CHECK(theirs != NULL && theirs != pt_task_array, 142);
        for (int i = 0; i < PT_ARRAY_LEN; i++)
            CHECK(theirs[i] == peer * 100000 + i, 143);
        CHECK(pt_sbar_wait(&sh->sbar) == 0, 144);
        /* Everyone has read; now write a mark into the neighbour's array. */
        theirs[0] = -1 - pipid;
        CHECK(pt_sbar_wait(&sh->sbar) == 0, 145);
        int writer = (pipid + n - 1) % n;
        CHECK(pt_task_array[0] == -1 - writer, 146);
        /* Heap: allocate here, let the neighbour free it, and vice versa. */
        char *mem = malloc(1000 + 10 * pipid);
        CHECK(mem != NULL, 147);
        memset(mem, pipid, 1000);
        sh->ptr[pipid] = mem;
        CHECK(pt_sbar_wait(&sh->sbar) == 0, 148);
        char *other = sh->ptr[peer];
        CHECK(other[0] == (char)peer && other[999] == (char)peer, 149);
        free(other);
        CHECK(pt_sbar_wait(&sh->sbar) == 0, 150);
        for (int i = 0; i < 100; i++) {
            void *p = malloc(64 + i * 32);
            CHECK(p != NULL, 151);
            memset(p, 0xab, 64 + i * 32);
            free(p);
        }
        return 0;
    }
    dprintf(2, "task_api: unknown action '%s'\n", action);
    return 1;
}
