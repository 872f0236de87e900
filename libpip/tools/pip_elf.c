/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_elf.c: the small ELF reader shared by pip-check and pip-unpie.
 */
#include "pip_elf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define PE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define PE_MACHINE EM_AARCH64
#else
#define PE_MACHINE EM_NONE
#endif

/* Is [off, off+len) inside the file? */
static int pe_in(const struct pe_file *f, uint64_t off, uint64_t len)
{
    return off <= f->size && len <= f->size - off;
}

static enum pe_status pe_fail(char *msg, size_t msglen, enum pe_status st,
                              const char *text)
{
    if (msg != NULL && msglen > 0)
        snprintf(msg, msglen, "%s", text);
    return st;
}

/* File offset of virtual address `va` (in a PT_LOAD's file part), or -1. */
static int64_t pe_va_to_off(const struct pe_file *f, uint64_t va)
{
    for (int i = 0; i < f->phnum; i++) {
        const Elf64_Phdr *p = &f->ph[i];
        if (p->p_type == PT_LOAD && va >= p->p_vaddr &&
            va - p->p_vaddr < p->p_filesz)
            return (int64_t)(p->p_offset + (va - p->p_vaddr));
    }
    return -1;
}

enum pe_status pe_open(struct pe_file *f, const char *path, char *msg,
                       size_t msglen)
{
    struct stat st;
    memset(f, 0, sizeof(*f));
    f->path = path;
    f->flags_1_index = -1;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return pe_fail(msg, msglen, PE_NOENT, "no such file");
        return pe_fail(msg, msglen, PE_NOACCESS, strerror(errno));
    }
    if (S_ISDIR(st.st_mode))
        return pe_fail(msg, msglen, PE_NOTREG, "is a directory");
    if (!S_ISREG(st.st_mode))
        return pe_fail(msg, msglen, PE_NOTREG, "not a regular file");
    f->executable = access(path, X_OK) == 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pe_fail(msg, msglen, PE_NOACCESS, strerror(errno));
    if ((size_t)st.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        return pe_fail(msg, msglen, PE_NOTELF, "not an ELF file");
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return pe_fail(msg, msglen, PE_NOACCESS, strerror(errno));
    f->data = p;
    f->size = (size_t)st.st_size;
    f->eh = (const Elf64_Ehdr *)f->data;
    if (memcmp(f->eh->e_ident, ELFMAG, SELFMAG) != 0)
        return pe_fail(msg, msglen, PE_NOTELF, "not an ELF file");
    if (f->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        f->eh->e_ident[EI_DATA] != ELFDATA2LSB ||
        f->eh->e_machine != PE_MACHINE)
        return pe_fail(msg, msglen, PE_FOREIGN,
                       "ELF file for another class or machine");
    if (f->eh->e_type != ET_EXEC && f->eh->e_type != ET_DYN) {
        if (msg != NULL && msglen > 0)
            snprintf(msg, msglen, "not an executable program (ELF type %u: %s)",
                     (unsigned)f->eh->e_type,
                     f->eh->e_type == ET_REL    ? "an object file"
                     : f->eh->e_type == ET_CORE ? "a core dump"
                                                : "unknown");
        return PE_NOTPROG;
    }
    if (f->eh->e_phnum == 0 || f->eh->e_phentsize != sizeof(Elf64_Phdr) ||
        !pe_in(f, f->eh->e_phoff,
               (uint64_t)f->eh->e_phnum * sizeof(Elf64_Phdr)) ||
        f->eh->e_phoff % 8 != 0)
        return pe_fail(msg, msglen, PE_BROKEN,
                       "broken ELF file (no or bad program headers)");
    f->ph = (const Elf64_Phdr *)(f->data + f->eh->e_phoff);
    f->phnum = f->eh->e_phnum;
    for (int i = 0; i < f->phnum; i++) {
        const Elf64_Phdr *ph = &f->ph[i];
        if (ph->p_type == PT_INTERP) {
            f->has_interp = 1;
        } else if (ph->p_type == PT_TLS) {
            f->has_tls = 1;
            f->tls_memsz = ph->p_memsz;
            f->tls_filesz = ph->p_filesz;
            f->tls_align = ph->p_align ? ph->p_align : 1;
        } else if (ph->p_type == PT_DYNAMIC) {
            if (!pe_in(f, ph->p_offset, ph->p_filesz) || ph->p_offset % 8)
                return pe_fail(msg, msglen, PE_BROKEN,
                               "broken ELF file (bad dynamic section)");
            f->dyn = (const Elf64_Dyn *)(f->data + ph->p_offset);
            f->dyn_offset = ph->p_offset;
            size_t n = ph->p_filesz / sizeof(Elf64_Dyn);
            f->ndyn = 0;
            while (f->ndyn < n && f->dyn[f->ndyn].d_tag != DT_NULL)
                f->ndyn++;
        }
    }
    for (size_t i = 0; f->dyn != NULL && i < f->ndyn; i++) {
        if (f->dyn[i].d_tag == DT_FLAGS_1) {
            f->flags_1_index = (int)i;
            f->flags_1 = f->dyn[i].d_un.d_val;
        }
    }
    return PE_OK;
}

void pe_close(struct pe_file *f)
{
    if (f->data != NULL)
        munmap((void *)(uintptr_t)f->data, f->size);
    memset(f, 0, sizeof(*f));
}

uint64_t pe_tls_need(const struct pe_file *f)
{
    if (!f->has_tls)
        return 0;
    uint64_t a = f->tls_align;
    if ((a & (a - 1)) != 0) /* not a power of two: as written */
        return f->tls_memsz;
    return (f->tls_memsz + a - 1) & ~(a - 1);
}

/* Look `name` up in the first section of type `type` (SHT_DYNSYM or
 * SHT_SYMTAB); `exported`: only global or weak symbols of default or
 * protected visibility count.  1 found, 0 not, -1 cannot tell; -2 no such
 * section. */
static int pe_lookup(const struct pe_file *f, const char *name, uint32_t type,
                     int exported)
{
    const Elf64_Ehdr *eh = f->eh;
    if (eh->e_shoff == 0 || eh->e_shnum == 0 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff % 8 != 0 ||
        !pe_in(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return -1;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(f->data + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != type)
            continue;
        if (sh[i].sh_link >= eh->e_shnum ||
            sh[i].sh_entsize != sizeof(Elf64_Sym) ||
            !pe_in(f, sh[i].sh_offset, sh[i].sh_size) ||
            sh[i].sh_offset % 8 != 0)
            return -1;
        const Elf64_Shdr *strh = &sh[sh[i].sh_link];
        if (!pe_in(f, strh->sh_offset, strh->sh_size))
            return -1;
        const Elf64_Sym *syms = (const Elf64_Sym *)(f->data + sh[i].sh_offset);
        const char *strs = (const char *)f->data + strh->sh_offset;
        size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
        size_t nl = strlen(name);
        for (size_t k = 1; k < n; k++) {
            const Elf64_Sym *s = &syms[k];
            if (s->st_shndx == SHN_UNDEF || s->st_name >= strh->sh_size ||
                strh->sh_size - s->st_name <= nl)
                continue;
            int bind = ELF64_ST_BIND(s->st_info);
            int vis = ELF64_ST_VISIBILITY(s->st_other);
            if (exported && !((bind == STB_GLOBAL || bind == STB_WEAK) &&
                              (vis == STV_DEFAULT || vis == STV_PROTECTED)))
                continue;
            if (!exported && ELF64_ST_TYPE(s->st_info) != STT_FUNC)
                continue;
            if (memcmp(strs + s->st_name, name, nl + 1) == 0)
                return 1;
        }
        return 0;
    }
    return -2;
}

int pe_exports(const struct pe_file *f, const char *name)
{
    int rc = pe_lookup(f, name, SHT_DYNSYM, 1);
    return rc == -2 ? 0 : rc; /* no .dynsym: nothing is exported */
}

int pe_defines(const struct pe_file *f, const char *name)
{
    int rc = pe_lookup(f, name, SHT_SYMTAB, 0);
    return rc == -2 ? 0 : rc; /* no .symtab: stripped */
}

int pe_needs(const struct pe_file *f, const char *prefix)
{
    uint64_t strtab = 0, strsz = 0;
    for (size_t i = 0; f->dyn != NULL && i < f->ndyn; i++) {
        if (f->dyn[i].d_tag == DT_STRTAB)
            strtab = f->dyn[i].d_un.d_ptr;
        else if (f->dyn[i].d_tag == DT_STRSZ)
            strsz = f->dyn[i].d_un.d_val;
    }
    int64_t off = pe_va_to_off(f, strtab);
    if (off < 0 || !pe_in(f, (uint64_t)off, strsz))
        return 0;
    const char *strs = (const char *)f->data + off;
    size_t pl = strlen(prefix);
    for (size_t i = 0; i < f->ndyn; i++) {
        if (f->dyn[i].d_tag != DT_NEEDED)
            continue;
        uint64_t o = f->dyn[i].d_un.d_val;
        if (o < strsz && strsz - o > pl && strncmp(strs + o, prefix, pl) == 0)
            return 1;
    }
    return 0;
}
