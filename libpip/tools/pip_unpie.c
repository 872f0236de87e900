/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip-unpie: clear the DF_1_PIE flag of a PIE program, in a copy or, when
 * asked explicitly, in place.
 *
 *   pip-unpie PROG             clear it in PROG itself, as PiP's pip-unpie
 *   pip-unpie -c PROG          check: 0 when PROG is a PIE with the flag
 *                              clear, 1 when the flag is set or PROG is
 *                              not a PIE (a line on stderr says which)
 *   pip-unpie -o OUT PROG      write a copy with the flag cleared
 *   pip-unpie -i PROG          clear it in PROG itself, refusing when
 *                              there is nothing to clear
 *
 * glibc >= 2.30 refuses to dlopen() an object flagged DF_1_PIE.  libpip
 * never needs this (it loads a private copy with the flag cleared); the
 * tool is for other loaders and for experiments.  The program still runs
 * as an ordinary executable afterwards.  Exit status of -o and -i: 0
 * done, 1 refused (not ELF, not a PIE, flag already clear, I/O error), 2
 * usage error.  PROG alone follows PiP: 0 done or nothing to clear, 1 not
 * ELF, 2 cannot open or write, no dynamic section, or usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pip_elf.h"

#include "pip_tools.h"

static const char *prog_name = "pip-unpie";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s PROG          clear DF_1_PIE in PROG (PiP's way: "
            "quiet when clear)\n"
            "       %s -c PROG       check: 0 flag clear, 1 flag set or not "
            "a PIE\n"
            "       %s -o OUT PROG   write a copy of PROG with DF_1_PIE "
            "cleared\n"
            "       %s -i PROG       clear DF_1_PIE in PROG itself\n"
            "  -h, --help  this help\n"
            "exit status (-o, -i): 0 done, 1 refused or failed, 2 usage "
            "error\n",
            prog_name, prog_name, prog_name, prog_name);
}

/* One line on stderr, then exit(code). */
#define die(code, ...) pip_tool_die(prog_name, (code), __VA_ARGS__)

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/*
 * PiP's pip-unpie PROG (check == 0): clear the flag in place; a program
 * whose flag is already clear, or that is not a PIE, is left as it is
 * (exit 0).  -c PROG: say whether the flag is set.
 */
static int pip_way(const char *prog, int check)
{
    struct pe_file f;
    char msg[256];
    enum pe_status st = pe_open(&f, prog, msg, sizeof(msg));
    if (st != PE_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog_name, prog, msg);
        return st == PE_NOTELF ? 1 : 2;
    }
    if (f.dyn == NULL) {
        pe_close(&f);
        fprintf(stderr, "%s: %s: no dynamic section (statically linked?)\n",
                prog_name, prog);
        return 2;
    }
    int is_dyn = f.eh->e_type == ET_DYN;
    int flagged = f.flags_1_index >= 0 && (f.flags_1 & DF_1_PIE);
    size_t off = flagged ? f.dyn_offset +
                               (size_t)f.flags_1_index * sizeof(Elf64_Dyn) +
                               offsetof(Elf64_Dyn, d_un)
                         : 0;
    Elf64_Xword val = f.flags_1 & ~(Elf64_Xword)DF_1_PIE;
    pe_close(&f);
    if (check) {
        if (flagged)
            fprintf(stderr, "%s: '%s' is PIE (not 'unpie-ed' yet)\n", prog_name,
                    prog);
        else if (is_dyn)
            fprintf(stderr, "%s: '%s' is PIE (already 'unpie-ed' PIE)\n",
                    prog_name, prog);
        else
            fprintf(stderr, "%s: '%s' is NOT PIE\n", prog_name, prog);
        return flagged || !is_dyn ? 1 : 0;
    }
    if (!flagged)
        return 0;
    int fd = open(prog, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "%s: %s: cannot open for writing: %s\n", prog_name,
                prog, strerror(errno));
        return 2;
    }
    int ok = pwrite(fd, &val, sizeof(val), (off_t)off) == (ssize_t)sizeof(val);
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (!ok) {
        fprintf(stderr, "%s: %s: write failed: %s\n", prog_name, prog,
                strerror(err));
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *prog = NULL;
    int inplace = 0, check = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (pip_tool_version("pip-unpie", a))
            return 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-i") == 0) {
            inplace = 1;
        } else if (strcmp(a, "-c") == 0) {
            check = 1;
        } else if (strcmp(a, "-o") == 0) {
            if (++i >= argc || argv[i][0] == '\0')
                die(2, "-o needs an output file (see %s -h)", prog_name);
            if (out != NULL)
                die(2, "-o given twice (see %s -h)", prog_name);
            out = argv[i];
        } else if (strcmp(a, "--") == 0 && i + 1 < argc) {
            if (prog != NULL || i + 2 < argc)
                die(2, "one program at a time (see %s -h)", prog_name);
            prog = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            die(2, "unknown option '%s' (see %s -h)", a, prog_name);
        } else {
            if (prog != NULL)
                die(2, "one program at a time (see %s -h)", prog_name);
            prog = a;
        }
    }
    if (prog == NULL)
        die(2, "no program given (see %s -h)", prog_name);
    if (inplace + check + (out != NULL) > 1)
        die(2, "-c, -i and -o exclude each other (see %s -h)", prog_name);
    if (!inplace && out == NULL)
        return pip_way(prog, check);

    struct pe_file f;
    char msg[256];
    if (pe_open(&f, prog, msg, sizeof(msg)) != PE_OK)
        die(1, "%s: %s", prog, msg);
    if (f.eh->e_type != ET_DYN)
        die(1, "%s: not a PIE (ET_EXEC, position-dependent): nothing to clear",
            prog);
    if (f.dyn == NULL)
        die(1, "%s: no dynamic section (static program): nothing to clear",
            prog);
    if (f.flags_1_index < 0 || !(f.flags_1 & DF_1_PIE))
        die(1,
            "%s: DF_1_PIE is already clear (a shared object, or done "
            "before)",
            prog);
    size_t off = f.dyn_offset + (size_t)f.flags_1_index * sizeof(Elf64_Dyn) +
                 offsetof(Elf64_Dyn, d_un);
    Elf64_Xword val = f.flags_1 & ~(Elf64_Xword)DF_1_PIE;

    if (inplace) {
        pe_close(&f);
        int fd = open(prog, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            die(1, "%s: cannot open for writing: %s", prog, strerror(errno));
        if (pwrite(fd, &val, sizeof(val), (off_t)off) != (ssize_t)sizeof(val))
            die(1, "%s: write failed: %s", prog, strerror(errno));
        if (close(fd) != 0)
            die(1, "%s: %s", prog, strerror(errno));
        return 0;
    }

    struct stat sin, sout;
    if (stat(out, &sout) == 0 && stat(prog, &sin) == 0 &&
        sin.st_dev == sout.st_dev && sin.st_ino == sout.st_ino)
        die(2,
            "%s: output is the program itself: use -i to change it in "
            "place",
            out);
    if (stat(prog, &sin) != 0)
        die(1, "%s: %s", prog, strerror(errno));
    /* Write a temporary file next to OUT, then rename: no half-written OUT. */
    size_t tl = strlen(out) + sizeof(".unpie.XXXXXX");
    char *tmp = malloc(tl);
    if (tmp == NULL)
        die(1, "out of memory");
    snprintf(tmp, tl, "%s.unpie.XXXXXX", out);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        die(1, "%s: cannot create: %s", out, strerror(errno));
    int ok = write_all(fd, f.data, off) == 0 &&
             write_all(fd, &val, sizeof(val)) == 0 &&
             write_all(fd, f.data + off + sizeof(val),
                       f.size - off - sizeof(val)) == 0 &&
             fchmod(fd, sin.st_mode & 07777) == 0;
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (ok && rename(tmp, out) != 0) {
        ok = 0;
        err = errno;
    }
    if (!ok) {
        unlink(tmp);
        die(1, "%s: cannot write: %s", out, strerror(err));
    }
    free(tmp);
    pe_close(&f);
    return 0;
}
