/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip-check: can a program be a PiP root and/or a PiP task, and if not,
 * why not.  Reads the ELF file only; never runs or loads it.
 *
 *   pip-check [-r] [-t] [-b] [--libpip] [-f FUNC] [--reserve BYTES] [-q]
 *             [-v] PROG...
 *   pip-check --ldlinux
 *
 * The verdicts follow PiP 2.4.1's rules: a root is a dynamically linked
 * program linked with libpip; a task is a dynamically linked PIE whose
 * `main` is in its dynamic symbol table (-rdynamic).  What libpip cannot
 * run at all (a static PIE, __thread data beyond the reserve) is refused
 * too.  --libpip judges by libpip's wider rules instead: a task's `main`
 * may also be found in .symtab or from _start (a plain `cc -pie` program),
 * and a root must also reserve static TLS for tasks' __thread data.
 *
 * PiP's long names are accepted: --root/--piproot (-r), --task/--piptask
 * (-t), --both/--pipboth (-b: both roles), --verbose (-v), --usage;
 * --ldlinux (--ldso) prints the dynamic linker roots run under.
 *
 * One line per verdict ("PROG: task: yes") or per reason against it
 * ("PROG: root: no: REASON").  Exit status, as PiP 2.4's: 0 every program
 * can take the role(s) asked for, 1 some cannot or a usage error.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pip_elf.h"
#include "pip_start.h"
#include "pip_tools.h"

static const char *prog_name = "pip-check";

struct opts {
    int root, task, quiet, verbose, wide;
    const char *func;
    unsigned long long reserve;
};

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: %s [-r] [-t] [-b] [--libpip] [-f FUNC] [--reserve BYTES] "
        "[-q] [-v] PROG...\n"
        "       %s --ldlinux\n"
        "  -r, --root, --piproot   check that PROG can be a root\n"
        "  -t, --task, --piptask   check that PROG can be a task\n"
        "  -b, --both, --pipboth   check that PROG can be both\n"
        "                   (none: report both; PROG must be one)\n"
        "  --libpip         libpip's rules: a task's main may be unexported\n"
        "                   (found in .symtab or from _start); a root needs\n"
        "                   a TLS reserve (default: PiP 2.4.1's rules)\n"
        "  -f FUNC          a task starts at FUNC instead of main\n"
        "  --reserve BYTES  the root's TLS reserve (default %d, "
        "pip-exec's)\n"
        "  -q               no output, exit status only\n"
        "  -v, --verbose    also print the facts the verdict rests on\n"
        "  --ldlinux, --ldso  print the dynamic linker and exit\n"
        "  -h, --usage      this help on stderr, exit 1 (--help: on "
        "stdout, exit 0)\n"
        "exit status: 0 yes, 1 some program cannot or a usage error\n",
        prog_name, prog_name, PIP_TOOLS_TLS_RESERVE);
}

static void die_usage(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
static void die_usage(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see %s --help)\n", prog_name);
    exit(1);
}

/* Print "PROG: ROLE: no: REASON"; counts reasons. */
struct verdict {
    const struct opts *o;
    const char *path;
    const char *role;
    int nreasons;
};

static void no(struct verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void no(struct verdict *v, const char *fmt, ...)
{
    v->nreasons++;
    if (v->o->quiet)
        return;
    va_list ap;
    printf("%s: %s: no: ", v->path, v->role);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* Reasons shared by both roles; returns 0 when the ELF checks can go on. */
static int check_common(struct verdict *v, enum pe_status st,
                        const struct pe_file *f, const char *msg)
{
    if (st != PE_OK) {
        no(v, "%s", msg);
        return -1;
    }
    if (!f->executable)
        no(v, "not executable (no x permission)");
    return 0;
}

/* pip_start_read_t over the mapped file. */
static int entry_read(void *ctx, void *buf, size_t len, uint64_t off)
{
    const struct pe_file *f = ctx;
    if (off > f->size || len > f->size - off)
        return -1;
    memcpy(buf, f->data + off, len);
    return 0;
}

/* A stripped program: main from glibc's _start (pip_start.h), as libpip
 * finds it.  1 found, 0 not. */
static int entry_main(const struct pe_file *f)
{
    for (int i = 0; i < f->phnum; i++) {
        const Elf64_Phdr *p = &f->ph[i];
        uint64_t e = f->eh->e_entry, va;
        if (p->p_type != PT_LOAD || !(p->p_flags & PF_X) || e < p->p_vaddr ||
            e >= p->p_vaddr + p->p_filesz ||
            p->p_offset + p->p_filesz > f->size)
            continue;
        size_t len = (size_t)(p->p_vaddr + p->p_filesz - e);
        if (len > PIP_START_BYTES)
            len = PIP_START_BYTES;
        if (!pip_start_find(f->data + p->p_offset + (e - p->p_vaddr), len, e,
                            f->ph, f->phnum, entry_read, (void *)f, &va))
            return 0;
        return va >= p->p_vaddr && va < p->p_vaddr + p->p_filesz;
    }
    return 0;
}

static int check_task(const struct opts *o, const char *path, enum pe_status st,
                      const struct pe_file *f, const char *msg)
{
    struct verdict v = {o, path, "task", 0};
    if (check_common(&v, st, f, msg) != 0)
        return 1;
    const char *sym = o->func != NULL ? o->func : "main";
    if (f->eh->e_type == ET_EXEC)
        no(&v, "not position-independent (ET_EXEC): rebuild with -fPIE -pie "
               "-rdynamic (pipcc does)");
    if (f->dyn == NULL) {
        no(&v, "statically linked: a task must be a dynamically linked PIE");
    } else if (f->eh->e_type == ET_EXEC) {
        /* nothing more to say about a position-dependent program */
    } else if (!f->has_interp && (f->flags_1 & DF_1_PIE)) {
        no(&v, "a static PIE (no program interpreter): link it dynamically");
    } else {
        /* Exported, or in the full symbol table (libpip finds a static
         * start function or an unexported main there, as PiP 2.4). */
        int exported = pe_exports(f, sym);
        if (o->func == NULL && !o->wide && exported == 0) {
            /* PiP 2.4.1's rule: main in the dynamic symbol table. */
            no(&v, "'main' is not exported (not in the dynamic symbol table): "
                   "link with -rdynamic (pipcc does; libpip can still start "
                   "it: pip-check --libpip)");
        } else if (exported == 0 && pe_defines(f, sym) != 1 &&
                   (o->func != NULL || !entry_main(f))) {
            if (o->func == NULL)
                no(&v, "'main' is neither exported nor in the symbol table "
                       "(stripped, no -rdynamic) nor found from _start: link "
                       "with -rdynamic (pipcc does)");
            else
                no(&v,
                   "start function '%s' is neither exported nor in the "
                   "symbol table",
                   sym);
        }
        uint64_t need = pe_tls_need(f);
        if (need > o->reserve)
            no(&v,
               "its __thread data needs %llu bytes of TLS, more than the "
               "root's reserve of %llu bytes",
               (unsigned long long)need, o->reserve);
        if (f->has_tls && f->tls_align > 64)
            no(&v,
               "its TLS alignment (%llu) is above the 64 bytes libpip "
               "supports",
               (unsigned long long)f->tls_align);
    }
    if (v.nreasons == 0 && !o->quiet)
        printf("%s: task: yes\n", path);
    return v.nreasons != 0;
}

static int check_root(const struct opts *o, const char *path, enum pe_status st,
                      const struct pe_file *f, const char *msg)
{
    struct verdict v = {o, path, "root", 0};
    if (check_common(&v, st, f, msg) != 0)
        return 1;
    if (f->dyn == NULL) {
        no(&v, "statically linked: a root needs the dynamic linker (dlmopen)");
    } else if (!f->has_interp) {
        no(&v, "no program interpreter (a shared library or a static PIE): a "
               "root must be a dynamically linked program");
    } else {
        /* libpip_task.so: the build tree's uninstrumented copy (tests of
         * sanitizer builds). */
        if (!pe_needs(f, "libpip.so") && !pe_needs(f, "libpip_task.so"))
            no(&v, "not linked with libpip: link with -lpip (pipcc "
                   "--piproot does)");
        uint64_t have = pe_tls_need(f);
        if (have < o->reserve && !o->wide) {
            /* Not PiP's rule: only tasks with __thread data need it. */
            if (o->verbose && !o->quiet)
                printf("%s: root: note: TLS reserve of %llu bytes: tasks "
                       "whose __thread data needs more are refused (pipcc "
                       "--piproot reserves %llu)\n",
                       path, (unsigned long long)have, o->reserve);
        } else if (have < o->reserve) {
            if (!f->has_tls || have == 0)
                no(&v,
                   "no TLS reserve of its own: tasks with __thread variables "
                   "would be refused (build with pipcc --piproot, or "
                   "PIP_ROOT_TLS_RESERVE(%llu) in its source)",
                   o->reserve);
            else
                no(&v,
                   "its TLS reserve of %llu bytes is below the %llu bytes "
                   "tasks may need (pipcc --piproot, or "
                   "PIP_ROOT_TLS_RESERVE(%llu) in its source)",
                   (unsigned long long)have, o->reserve, o->reserve);
        }
    }
    if (v.nreasons == 0 && !o->quiet)
        printf("%s: root: yes\n", path);
    return v.nreasons != 0;
}

static void facts(const char *path, const struct pe_file *f)
{
    const char *type = f->eh->e_type == ET_DYN    ? "ET_DYN"
                       : f->eh->e_type == ET_EXEC ? "ET_EXEC"
                                                  : "other";
    int ex = pe_exports(f, "main");
    if (ex == 0 && pe_defines(f, "main") == 1)
        ex = 2;
    printf("%s: info: type %s, %s, %s, DF_1_PIE %s, main %s, libpip %s, "
           "TLS %llu bytes (align %llu)\n",
           path, type, f->dyn != NULL ? "dynamic" : "static",
           f->has_interp ? "interpreter" : "no interpreter",
           (f->flags_1 & DF_1_PIE) ? "set" : "clear",
           ex == 1   ? "exported"
           : ex == 2 ? "in .symtab only"
           : ex == 0 ? "absent"
                     : "unknown",
           pe_needs(f, "libpip.so") ? "linked" : "not linked",
           (unsigned long long)pe_tls_need(f),
           (unsigned long long)(f->has_tls ? f->tls_align : 0));
}

int main(int argc, char **argv)
{
    struct opts o = {0, 0, 0, 0, 0, NULL, PIP_TOOLS_TLS_RESERVE};
    int i = 1;

    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        const char *a = argv[i];
        if (pip_tool_version("pip-check", a))
            return 0;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--usage") == 0) {
            usage(stderr);
            return 1;
        } else if (strcmp(a, "--ldlinux") == 0 || strcmp(a, "--ldso") == 0) {
            puts(PIP_TOOLS_LDSO);
            return 0;
        } else if (strcmp(a, "-r") == 0 || strcmp(a, "--root") == 0 ||
                   strcmp(a, "--piproot") == 0) {
            o.root = 1;
        } else if (strcmp(a, "-t") == 0 || strcmp(a, "--task") == 0 ||
                   strcmp(a, "--piptask") == 0) {
            o.task = 1;
        } else if (strcmp(a, "-b") == 0 || strcmp(a, "--both") == 0 ||
                   strcmp(a, "--pipboth") == 0) {
            o.root = o.task = 1;
        } else if (strcmp(a, "--libpip") == 0) {
            o.wide = 1;
        } else if (strcmp(a, "-q") == 0) {
            o.quiet = 1;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o.verbose = 1;
        } else if (strcmp(a, "-f") == 0) {
            if (++i >= argc || argv[i][0] == '\0')
                die_usage("-f needs a function name");
            o.func = argv[i];
        } else if (strcmp(a, "--reserve") == 0 ||
                   strncmp(a, "--reserve=", 10) == 0) {
            const char *val = a[9] == '=' ? a + 10 : NULL;
            if (val == NULL) {
                if (++i >= argc)
                    die_usage("--reserve needs a number of bytes");
                val = argv[i];
            }
            char *end;
            errno = 0;
            unsigned long long n = strtoull(val, &end, 10);
            if (errno != 0 || end == val || *end != '\0' || val[0] == '-')
                die_usage("--reserve '%s': not a number of bytes", val);
            o.reserve = n;
        } else {
            die_usage("unknown option '%s'", a);
        }
    }
    if (i >= argc)
        die_usage("no program given");
    if (o.quiet && o.verbose)
        die_usage("-q and -v exclude each other");

    int bad = 0;
    for (; i < argc; i++) {
        struct pe_file f;
        char msg[256];
        enum pe_status st = pe_open(&f, argv[i], msg, sizeof(msg));
        if (o.verbose && st == PE_OK)
            facts(argv[i], &f);
        int troot = 0, ttask = 0;
        if (o.root || !o.task)
            troot = check_root(&o, argv[i], st, &f, msg);
        if (o.task || !o.root)
            ttask = check_task(&o, argv[i], st, &f, msg);
        if (o.root || o.task)
            bad |= (o.root && troot) || (o.task && ttask);
        else
            bad |= troot && ttask; /* neither asked: one role is enough */
        pe_close(&f);
    }
    return bad ? 1 : 0;
}
