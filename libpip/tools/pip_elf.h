/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_elf.h: the small ELF reader shared by pip-check and pip-unpie.
 *
 * The whole file is mapped read-only; every offset and size taken from it
 * is checked against the file size before use, so a truncated or hostile
 * file gives an error, never a crash.
 */
#ifndef PIP_ELF_H
#define PIP_ELF_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Result of pe_open(). */
enum pe_status {
    PE_OK = 0,
    PE_NOENT,    /* no such file */
    PE_NOTREG,   /* a directory or not a regular file */
    PE_NOACCESS, /* cannot be read */
    PE_NOTELF,   /* not an ELF file */
    PE_FOREIGN,  /* ELF for another class or machine */
    PE_NOTPROG,  /* ELF, but not a program (an object file, a core) */
    PE_BROKEN,   /* headers point outside the file */
};

struct pe_file {
    const char *path;
    const unsigned char *data;
    size_t size;
    int executable; /* the x bit is set for the caller */
    const Elf64_Ehdr *eh;
    const Elf64_Phdr *ph;
    int phnum;
    int has_interp;       /* PT_INTERP: started by the dynamic linker */
    const Elf64_Dyn *dyn; /* PT_DYNAMIC, NULL in a static program */
    size_t ndyn;          /* entries up to DT_NULL */
    size_t dyn_offset;    /* file offset of dyn[0] */
    int flags_1_index;    /* index of DT_FLAGS_1 in dyn, -1 if none */
    uint64_t flags_1;     /* its value (0 if none) */
    int has_tls;          /* PT_TLS */
    uint64_t tls_memsz, tls_filesz, tls_align;
};

/* Open and check `path`; on failure `msg` (may be NULL) gets a reason. */
enum pe_status pe_open(struct pe_file *f, const char *path, char *msg,
                       size_t msglen);
void pe_close(struct pe_file *f);

/* round_up(tls_memsz, tls_align): what the program's TLS block needs. */
uint64_t pe_tls_need(const struct pe_file *f);

/*
 * Is `name` a defined, exported (default or protected visibility, global or
 * weak) symbol in the dynamic symbol table?  1 yes, 0 no, -1 cannot tell
 * (no section headers).
 */
int pe_exports(const struct pe_file *f, const char *name);

/*
 * Is `name` a defined function in the full symbol table (.symtab), at any
 * binding or visibility (a static function, or main of a program linked
 * without -rdynamic)?  1 yes, 0 no (or stripped), -1 cannot tell.  libpip
 * starts tasks at such symbols too, as PiP 2.4 does.
 */
int pe_defines(const struct pe_file *f, const char *name);

/* Does a DT_NEEDED entry start with `prefix`?  1 yes, 0 no. */
int pe_needs(const struct pe_file *f, const char *prefix);

#endif /* PIP_ELF_H */
