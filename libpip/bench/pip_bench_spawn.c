/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_bench_spawn.c: time to start and reap one task, libpip against the
 * usual baselines, all measured in one invocation:
 *
 *   libpip process   pip_task_spawn + pip_wait, PIP_MODE=process
 *   libpip thread    pip_task_spawn + pip_wait, PIP_MODE=thread
 *   posix_spawn      posix_spawn + waitpid of the same program
 *   pthread          pthread_create + pthread_join of an empty function
 *   dlmopen new ns   dlmopen(LM_ID_NEWLM) + dlclose of a loadable copy of
 *                    the program (the loader's share of a libpip spawn)
 *   dlopen base ns   dlopen + dlclose of the same copy in the base namespace
 *
 * Each round does M spawns of one method; the per-spawn time of a round is
 * its total over M.  The table gives the median, min and max of that over R
 * rounds and the ratio of the median to posix_spawn's.
 *
 * pip_init may be called once per process and a root loads only about a
 * dozen tasks on stock glibc, so the libpip methods run in child processes
 * (this program re-executed with PIP_MODE set and a hidden --child option);
 * a child that runs out of namespaces (EAGAIN) reports how many spawns it
 * did and the parent starts another for the rest.  Child start-up and
 * pip_init are not counted.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pip/pip.h>

extern char **environ;

#define CHILD_TIMEOUT_MS 120000

/*
 * Static TLS of our own: libpip places the TLS of plain-PIE tasks in the
 * root executable's TLS block (see pip.h), as pip-exec does.
 */
__attribute__((used)) static __thread char bench_tls_reserve[16384];

enum {
    M_PROCESS,
    M_THREAD,
    M_PROCESS_COLD,
    M_THREAD_COLD,
    M_POSIX_SPAWN,
    M_PTHREAD,
    M_DLMOPEN,
    M_DLOPEN,
    M_COUNT
};

static const char *method_name[M_COUNT] = {
    "libpip process",     "libpip thread",  "libpip process cold",
    "libpip thread cold", "posix_spawn",    "pthread",
    "dlmopen new ns",     "dlopen base ns",
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *fmt,
                                                                ...)
{
    va_list ap;
    fputs("pip_bench_spawn: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* ---- child side: one root ------------------------------------------- */

static double spawn_wait(const char *prog, char **argv)
{
    pip_spawn_program_t p;
    int id = 0, st, rc;
    pip_spawn_from_main(&p, (char *)prog, argv, NULL, NULL, NULL);
    double t0 = now_ns();
    if ((rc = pip_task_spawn(&p, PIP_CPUCORE_ASIS, 0, &id, NULL)) != 0)
        die("pip_task_spawn(%s): %s", prog, strerror(rc));
    if ((rc = pip_wait(id, &st)) != 0)
        die("pip_wait: %s", strerror(rc));
    double dt = now_ns() - t0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        die("task %s ended with status 0x%x", prog, st);
    return dt;
}

/*
 * Prints "COLD R1 ... Rn": the first spawn of a fresh root (a new namespace
 * and program image) in ns, then the total ns of each of `rounds` rounds of
 * m spawns after one untimed warm-up round (images reused).
 */
static int child_main(const char *prog, int m, int rounds)
{
    int pipid, ntasks = m, rc;
    if ((rc = pip_init(&pipid, &ntasks, NULL, 0)) != 0)
        die("pip_init: %s", strerror(rc));
    char *argv[] = {(char *)prog, NULL};
    printf("%.0f", spawn_wait(prog, argv));
    for (int r = -1; r < rounds; r++) {
        double total = 0;
        for (int i = 0; i < m; i++)
            total += spawn_wait(prog, argv);
        if (r >= 0)
            printf(" %.0f", total);
    }
    printf("\n");
    fflush(NULL);
    _exit(0); /* skip pip_fin and exit handlers: nothing left to time */
}

/* ---- parent side ------------------------------------------------------- */

/*
 * Run a child root; fills cold (ns) and per[] (us per spawn of each round).
 */
static void libpip_child(const char *self, const char *mode, const char *prog,
                         int m, int rounds, double *cold, double *per)
{
    int fds[2];
    if (pipe(fds) != 0)
        die("pipe: %s", strerror(errno));
    char nbuf[32], rbuf[32];
    snprintf(nbuf, sizeof(nbuf), "%d", m);
    snprintf(rbuf, sizeof(rbuf), "%d", rounds);
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        setenv("PIP_MODE", mode, 1);
        execl(self, self, "--child", nbuf, "--child-rounds", rbuf, "--prog",
              prog, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    /* Never hang on a stuck child: give up after CHILD_TIMEOUT_MS. */
    char buf[8192] = "";
    ssize_t n = 0, r = 0;
    struct pollfd pfd = {fds[0], POLLIN, 0};
    while (n < (ssize_t)sizeof(buf) - 1 &&
           poll(&pfd, 1, CHILD_TIMEOUT_MS) == 1 &&
           (r = read(fds[0], buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
        n += r;
    if (r != 0) {
        kill(pid, SIGKILL);
        fprintf(stderr, "\npip_bench_spawn: libpip %s child timed out\n", mode);
    }
    close(fds[0]);
    buf[n > 0 ? n : 0] = '\0';
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        die("libpip %s child failed (status 0x%x)", mode, st);
    char *p = buf, *end;
    *cold = strtod(p, &end);
    if (end == p)
        die("libpip %s child: no result", mode);
    for (int i = 0; i < rounds; i++) {
        p = end;
        double v = strtod(p, &end);
        if (end == p)
            die("libpip %s child: %d of %d rounds reported", mode, i, rounds);
        per[i] = v / m / 1000.0;
    }
}

static double posix_spawn_round(const char *prog, int m)
{
    char *argv[] = {(char *)prog, NULL};
    double t0 = now_ns();
    for (int i = 0; i < m; i++) {
        pid_t pid;
        int st, rc = posix_spawn(&pid, prog, NULL, NULL, argv, environ);
        if (rc != 0)
            die("posix_spawn(%s): %s", prog, strerror(rc));
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
            WEXITSTATUS(st) != 0)
            die("%s ended with status 0x%x", prog, st);
    }
    return now_ns() - t0;
}

static void *empty_thread(void *arg)
{
    return arg;
}

static double pthread_round(int m)
{
    double t0 = now_ns();
    for (int i = 0; i < m; i++) {
        pthread_t th;
        int rc = pthread_create(&th, NULL, empty_thread, NULL);
        if (rc != 0)
            die("pthread_create: %s", strerror(rc));
        pthread_join(th, NULL);
    }
    return now_ns() - t0;
}

/*
 * glibc refuses to dlopen an object flagged DF_1_PIE, so load a memfd copy
 * of the program with that flag cleared (the file itself is not touched),
 * as libpip does.  Returns "/proc/self/fd/N".
 */
static char *loadable_copy(const char *prog)
{
    int in = open(prog, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (in < 0 || fstat(in, &sb) != 0)
        die("%s: %s", prog, strerror(errno));
    size_t len = (size_t)sb.st_size;
    unsigned char *img = malloc(len);
    if (img == NULL || read(in, img, len) != (ssize_t)len)
        die("%s: cannot read", prog);
    close(in);
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_type != ET_DYN ||
        eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > len)
        die("%s: not a 64-bit PIE", prog);
    Elf64_Phdr *ph = (Elf64_Phdr *)(img + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_DYNAMIC || ph[i].p_offset + ph[i].p_filesz > len)
            continue;
        Elf64_Dyn *d = (Elf64_Dyn *)(img + ph[i].p_offset);
        for (size_t k = 0;
             k < ph[i].p_filesz / sizeof(*d) && d[k].d_tag != DT_NULL; k++)
            if (d[k].d_tag == DT_FLAGS_1)
                d[k].d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
    }
    int fd = memfd_create("pip_bench", 0);
    if (fd < 0 || write(fd, img, len) != (ssize_t)len)
        die("memfd: %s", strerror(errno));
    free(img);
    char *path = NULL;
    if (asprintf(&path, "/proc/self/fd/%d", fd) < 0)
        die("out of memory");
    return path;
}

static double dl_round(const char *copy, int new_ns, int m)
{
    double t0 = now_ns();
    for (int i = 0; i < m; i++) {
        void *h = new_ns ? dlmopen(LM_ID_NEWLM, copy, RTLD_NOW | RTLD_LOCAL)
                         : dlopen(copy, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL)
            die("%s: %s", new_ns ? "dlmopen" : "dlopen", dlerror());
        if (dlsym(h, "main") == NULL)
            die("no exported main in the program (link it with -rdynamic)");
        dlclose(h);
    }
    return now_ns() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Default program: task_nop next to us, or in ../tests (the build tree). */
static char *default_prog(const char *self)
{
    const char *cands[] = {"task_nop", "../tests/task_nop"};
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", self);
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
        char *p = NULL;
        if (asprintf(&p, "%s/%s", dir, cands[i]) > 0 && access(p, X_OK) == 0) {
            char *real = realpath(p, NULL);
            free(p);
            return real;
        }
        free(p);
    }
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: pip_bench_spawn [-n M] [-r R] [--csv FILE] [--prog PATH]\n"
        "  -n M         spawns per round (default 8)\n"
        "  -r R         rounds per method (default 10)\n"
        "  --csv FILE   also write the table as CSV\n"
        "  --prog PATH  program to spawn (default: task_nop; a PIE built with\n"
        "               -rdynamic that returns 0)\n");
}

static int parse_positive(const char *s, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *s == '\0' || *end != '\0' || v <= 0 || v > 100000)
        die("bad %s '%s' (a number from 1 to 100000)", what, s);
    return (int)v;
}

int main(int argc, char **argv)
{
    int m = 8, rounds = 10, child = 0, child_rounds = 0;
    const char *csv = NULL;
    char *prog = NULL;
    static const struct option opts[] = {
        {"csv", required_argument, NULL, 'c'},
        {"prog", required_argument, NULL, 'p'},
        {"child", required_argument, NULL, 'C'},
        {"child-rounds", required_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "n:r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            m = parse_positive(optarg, "-n");
            break;
        case 'r':
            rounds = parse_positive(optarg, "-r");
            break;
        case 'c':
            csv = optarg;
            break;
        case 'p':
            prog = optarg;
            break;
        case 'C':
            child = parse_positive(optarg, "--child");
            break;
        case 'R':
            child_rounds = atoi(optarg);
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "pip_bench_spawn: unexpected argument '%s'\n",
                argv[optind]);
        return 2;
    }
    if (child > 0)
        return child_main(prog, child, child_rounds);

    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n < 0)
        die("/proc/self/exe: %s", strerror(errno));
    self[n] = '\0';
    if (prog == NULL && (prog = default_prog(self)) == NULL)
        die("task_nop not found next to the benchmark; give --prog PATH");
    char *abs = realpath(prog, NULL);
    if (abs == NULL)
        die("%s: %s", prog, strerror(errno));
    prog = abs;
    /* On failure libpip itself says why, in one line. */
    if (pip_check_pie(prog, 1) != 0)
        return 1;
    char *copy = loadable_copy(prog);

    FILE *out = NULL;
    if (csv != NULL && (out = fopen(csv, "w")) == NULL)
        die("%s: %s", csv, strerror(errno));

    double *per = calloc((size_t)rounds + 1, sizeof(double));
    double med[M_COUNT], mn[M_COUNT], mx[M_COUNT];
    if (per == NULL)
        die("out of memory");
    fprintf(stderr, "pip_bench_spawn: %s, %d rounds x %d spawns\n", prog,
            rounds, m);
    for (int k = 0; k < M_COUNT; k++) {
        if (k == M_PROCESS || k == M_THREAD) {
            /* One root: a warm-up round, then the rounds (images reused). */
            double cold;
            fprintf(stderr, "  %-20s %d rounds in one root", method_name[k],
                    rounds);
            libpip_child(self, k == M_PROCESS ? "process" : "thread", prog, m,
                         rounds, &cold, per);
        } else if (k == M_PROCESS_COLD || k == M_THREAD_COLD) {
            /* The first spawn of a fresh root: a new namespace and image. */
            for (int r = 0; r < rounds; r++) {
                double cold, dummy[1];
                libpip_child(self, k == M_PROCESS_COLD ? "process" : "thread",
                             prog, 1, 0, &cold, dummy);
                per[r] = cold / 1000.0;
                fprintf(stderr, "\r  %-20s root %d/%d", method_name[k], r + 1,
                        rounds);
            }
        } else {
            /* One untimed warm-up round: page cache, lazy binding, mmaps. */
            for (int r = -1; r < rounds; r++) {
                double ns = 0;
                switch (k) {
                case M_POSIX_SPAWN:
                    ns = posix_spawn_round(prog, m);
                    break;
                case M_PTHREAD:
                    ns = pthread_round(m);
                    break;
                case M_DLMOPEN:
                    ns = dl_round(copy, 1, m);
                    break;
                case M_DLOPEN:
                    ns = dl_round(copy, 0, m);
                    break;
                }
                if (r >= 0)
                    per[r] = ns / m / 1000.0;
                if (r < 0)
                    fprintf(stderr, "  %-20s warm-up", method_name[k]);
                else
                    fprintf(stderr, "\r  %-20s round %d/%d", method_name[k],
                            r + 1, rounds);
            }
        }
        fputc('\n', stderr);
        qsort(per, (size_t)rounds, sizeof(double), cmp_double);
        med[k] = rounds % 2 ? per[rounds / 2]
                            : (per[rounds / 2 - 1] + per[rounds / 2]) / 2;
        mn[k] = per[0];
        mx[k] = per[rounds - 1];
    }

    double base = med[M_POSIX_SPAWN];
    printf("%-20s %12s %12s %12s %10s\n", "method", "median us", "min us",
           "max us", "vs spawn");
    if (out != NULL)
        fprintf(out, "method,median_us,min_us,max_us,ratio_vs_posix_spawn,"
                     "rounds,spawns\n");
    for (int k = 0; k < M_COUNT; k++) {
        printf("%-20s %12.1f %12.1f %12.1f %9.2fx\n", method_name[k], med[k],
               mn[k], mx[k], med[k] / base);
        if (out != NULL)
            fprintf(out, "%s,%.2f,%.2f,%.2f,%.4f,%d,%d\n", method_name[k],
                    med[k], mn[k], mx[k], med[k] / base, rounds, m);
    }
    if (out != NULL && fclose(out) != 0)
        die("%s: %s", csv, strerror(errno));
    free(per);
    return 0;
}
