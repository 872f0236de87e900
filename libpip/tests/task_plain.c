/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_plain.c: a task program that does not use libpip at all, as most
 * programs run by pip-exec do.  Its arguments are a script of actions run
 * in order; a failed check exits with 10 + the index of the failing action
 * so the root can tell which one failed.
 *
 *   ret N        return N from main          exit N       exit(N)
 *   segv         die of SIGSEGV              kill9        raise(SIGKILL)
 *   sleep MS     sleep MS milliseconds       print TEXT   printf TEXT, no
 * newline waitfd FD    block until one byte can be read from FD (bounded)
 *   fdopen FD    check FD is open            fdclosed FD  check FD is closed
 *   close FD     close FD                    envis N V    getenv(N) is V ("-":
 * unset) progname     __progname and program_invocation_short_name are
 * argv[0]'s basename ctype        ctype functions work        argc N       argc
 * is N atexit FILE  atexit handler appends "atexit\n" to FILE dtor FILE    the
 * destructor appends "dtor\n" to FILE touch FILE   create FILE affinity exit
 * with the CPU mask code
 *
 * affinity: exits 1 + cpu when the mask holds exactly one CPU, else 100 +
 * count.
 *
 * It deliberately never names stdout/stderr/stdin (printf only), so that it
 * has no copy relocations of libc's stdio variables; task_stdio covers those.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char *__progname;

static const char *dtor_file;

static void append_line(const char *path, const char *line)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
        ssize_t rc = write(fd, line, strlen(line));
        (void)rc;
        close(fd);
    }
}

static const char *atexit_file;

static void on_exit_handler(void)
{
    if (atexit_file != NULL)
        append_line(atexit_file, "atexit\n");
}

/* Runs when this task's copy of the program is finalised. */
__attribute__((destructor)) static void task_plain_dtor(void)
{
    if (dtor_file != NULL)
        append_line(dtor_file, "dtor\n");
}

static int affinity_code(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 99;
    int n = CPU_COUNT(&set);
    if (n != 1)
        return 100 + n;
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &set))
            return 1 + i;
    return 99;
}

static int check_ctype(void)
{
    return isalpha('a') && isalpha('Z') && !isalpha('1') && isdigit('7') &&
           isspace(' ') && !isspace('x') && toupper('a') == 'A' &&
           tolower('Q') == 'q' && isupper('K') && islower('k') && ispunct('!');
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s != NULL ? s + 1 : p;
}

int main(int argc, char **argv)
{
    int i = 1;

    while (i < argc) {
        const char *op = argv[i];
        const char *arg = (i + 1 < argc) ? argv[i + 1] : "";
        int fail = 10 + i;

        if (strcmp(op, "ret") == 0) {
            return atoi(arg);
        } else if (strcmp(op, "exit") == 0) {
            exit(atoi(arg));
        } else if (strcmp(op, "segv") == 0) {
            /* A real fault, not raise(); volatile so the store is not elided.
             */
            volatile int *volatile bad = NULL;
            *bad = 1;
            return 98;
        } else if (strcmp(op, "kill9") == 0) {
            raise(SIGKILL);
            return 98;
        } else if (strcmp(op, "sleep") == 0) {
            struct timespec ts = {atoi(arg) / 1000,
                                  (atoi(arg) % 1000) * 1000000L};
            nanosleep(&ts, NULL);
            i += 2;
        } else if (strcmp(op, "print") == 0) {
            printf("%s", arg);
            i += 2;
        } else if (strcmp(op, "waitfd") == 0) {
            struct pollfd pfd = {atoi(arg), POLLIN, 0};
            char c;
            /* Bounded: a root that forgot to open the gate must not hang us. */
            if (poll(&pfd, 1, 30000) != 1 || read(pfd.fd, &c, 1) != 1)
                return fail;
            i += 2;
        } else if (strcmp(op, "fdopen") == 0) {
            if (fcntl(atoi(arg), F_GETFD) < 0)
                return fail;
            i += 2;
        } else if (strcmp(op, "fdclosed") == 0) {
            if (fcntl(atoi(arg), F_GETFD) >= 0 || errno != EBADF)
                return fail;
            i += 2;
        } else if (strcmp(op, "close") == 0) {
            if (close(atoi(arg)) != 0)
                return fail;
            i += 2;
        } else if (strcmp(op, "envis") == 0) {
            const char *want = (i + 2 < argc) ? argv[i + 2] : "-";
            const char *v = getenv(arg);
            if (strcmp(want, "-") == 0 ? v != NULL
                                       : (v == NULL || strcmp(v, want) != 0))
                return fail;
            i += 3;
        } else if (strcmp(op, "progname") == 0) {
            const char *want = base_name(argv[0]);
            if (__progname == NULL || strcmp(__progname, want) != 0 ||
                program_invocation_short_name == NULL ||
                strcmp(program_invocation_short_name, want) != 0 ||
                program_invocation_name == NULL ||
                strcmp(program_invocation_name, argv[0]) != 0)
                return fail;
            i += 1;
        } else if (strcmp(op, "ctype") == 0) {
            if (!check_ctype())
                return fail;
            i += 1;
        } else if (strcmp(op, "argc") == 0) {
            if (argc != atoi(arg))
                return fail;
            i += 2;
        } else if (strcmp(op, "atexit") == 0) {
            atexit_file = arg;
            if (atexit(on_exit_handler) != 0)
                return fail;
            i += 2;
        } else if (strcmp(op, "dtor") == 0) {
            dtor_file = arg;
            i += 2;
        } else if (strcmp(op, "touch") == 0) {
            append_line(arg, "");
            i += 2;
        } else if (strcmp(op, "affinity") == 0) {
            return affinity_code();
        } else {
            /* printf only: see task_stdio.c for why this file avoids stderr. */
            printf("task_plain: unknown action '%s'\n", op);
            return 97;
        }
    }
    return 0;
}
