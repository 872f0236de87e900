/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_elfcheck.c: the checks of a task program that need only its file:
 * ELF class and machine, position independence, an exported (or at least
 * present) start function, and the facts the loader needs (TLS segment,
 * destructors, dynamic section).  Error codes: see pip_loader.c.
 */
#include "pip_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define PIP_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define PIP_ELF_MACHINE EM_AARCH64
#else
#define PIP_ELF_MACHINE EM_NONE
#endif

/*
 * Look `name` up in the file's symbol table of section type `type`
 * (SHT_DYNSYM: exported symbols only; SHT_SYMTAB: the full table, local
 * symbols included).  Returns 1 (found, *vaddr its unrelocated address),
 * 0 (not there), -1 (no such table, or unreadable).
 */
static int pip_elf_find_sym(int fd, const Elf64_Ehdr *eh, off_t fsize,
                            const char *name, uint32_t type, uint64_t *vaddr)
{
    if (eh->e_shoff == 0 || eh->e_shnum == 0 ||
        eh->e_shentsize != sizeof(Elf64_Shdr))
        return -1; /* no section headers: cannot tell here */
    if ((off_t)(eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) >
        fsize)
        return -1;
    size_t shsz = (size_t)eh->e_shnum * sizeof(Elf64_Shdr);
    Elf64_Shdr *sh = malloc(shsz);
    if (sh == NULL)
        return -1;
    int found = -1;
    if (pip_pread_all(fd, sh, shsz, (off_t)eh->e_shoff) != 0)
        goto out;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != type)
            continue;
        found = 0;
        if (sh[i].sh_link >= eh->e_shnum ||
            sh[i].sh_entsize != sizeof(Elf64_Sym))
            break;
        Elf64_Shdr *strh = &sh[sh[i].sh_link];
        if ((off_t)(sh[i].sh_offset + sh[i].sh_size) > fsize ||
            (off_t)(strh->sh_offset + strh->sh_size) > fsize)
            break;
        Elf64_Sym *syms = malloc(sh[i].sh_size);
        char *strs = malloc(strh->sh_size + 1);
        if (syms != NULL && strs != NULL &&
            pip_pread_all(fd, syms, sh[i].sh_size, (off_t)sh[i].sh_offset) ==
                0 &&
            pip_pread_all(fd, strs, strh->sh_size, (off_t)strh->sh_offset) ==
                0) {
            strs[strh->sh_size] = '\0';
            size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
            int best = 0; /* 2: global function, 1: local function */
            for (size_t k = 1; k < n; k++) {
                Elf64_Sym *s = &syms[k];
                if (s->st_name >= strh->sh_size || s->st_shndx == SHN_UNDEF ||
                    s->st_shndx >= SHN_LORESERVE ||
                    strcmp(strs + s->st_name, name) != 0)
                    continue;
                int bind = ELF64_ST_BIND(s->st_info);
                int vis = ELF64_ST_VISIBILITY(s->st_other);
                if (type == SHT_DYNSYM) {
                    if ((bind == STB_GLOBAL || bind == STB_WEAK) &&
                        (vis == STV_DEFAULT || vis == STV_PROTECTED)) {
                        found = 1;
                        *vaddr = s->st_value;
                        break;
                    }
                    continue;
                }
                /* .symtab: a function, a global one rather than a static. */
                if (ELF64_ST_TYPE(s->st_info) != STT_FUNC)
                    continue;
                int rank = bind == STB_LOCAL ? 1 : 2;
                if (rank > best) {
                    best = rank;
                    found = 1;
                    *vaddr = s->st_value;
                }
            }
        } else {
            found = -1;
        }
        free(syms);
        free(strs);
        break;
    }
out:
    free(sh);
    return found;
}

/*
 * The start symbol (`func`, NULL: main) of the program at `path`, from the
 * file's full symbol table: a static function, or main of a program linked
 * without -rdynamic, is not in the dynamic symbol table.  0 and *vaddr its
 * unrelocated address, or ENOEXEC.
 */
int pip_elf_local_start(const char *path, const char *func, uint64_t *vaddr)
{
    Elf64_Ehdr eh;
    struct stat st;
    int rc = ENOEXEC;
    memset(&eh, 0, sizeof(eh));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ENOEXEC;
    if (fstat(fd, &st) == 0 && pip_pread_all(fd, &eh, sizeof(eh), 0) == 0 &&
        pip_elf_find_sym(fd, &eh, st.st_size, func != NULL ? func : "main",
                         SHT_SYMTAB, vaddr) == 1 &&
        *vaddr != 0)
        rc = 0;
    else if (func == NULL && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
             pip_elf_entry_main(fd, &eh, vaddr) == 0)
        rc = 0; /* stripped: main from _start (pip_entry.c) */
    close(fd);
    return rc;
}

/*
 * All the checks that can be made on the file.  `func` NULL means main.
 * On success fills `info` (TLS segment, destructors, dynamic section).
 */
int pip_elf_check(const char *path, const char *func, int verbose,
                  struct pip_elf_info *info)
{
    struct stat st;
    Elf64_Ehdr eh;
    Elf64_Phdr *ph = NULL;
    int fd = -1, rc;

    memset(info, 0, sizeof(*info));
    if (path == NULL || *path == '\0') {
        pip_msg(verbose, "no program given");
        return ENOENT;
    }
    if (stat(path, &st) != 0) {
        rc = errno == ENOTDIR ? ENOENT : errno;
        pip_msg(verbose, "%s: %s", path, strerror(rc));
        return rc == EACCES ? EACCES : ENOENT;
    }
    if (S_ISDIR(st.st_mode)) {
        pip_msg(verbose, "%s: is a directory", path);
        return EACCES;
    }
    if (!S_ISREG(st.st_mode)) {
        pip_msg(verbose, "%s: not a regular file", path);
        return EACCES;
    }
    if (access(path, X_OK) != 0) {
        pip_msg(verbose, "%s: not executable", path);
        return EACCES;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        pip_msg(verbose, "%s: %s", path, strerror(errno));
        return EACCES;
    }
    if (st.st_size < (off_t)sizeof(eh) ||
        pip_pread_all(fd, &eh, sizeof(eh), 0) != 0 ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        pip_msg(verbose, "%s: not an ELF file", path);
        rc = ELIBBAD;
        goto out;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != PIP_ELF_MACHINE) {
        pip_msg(verbose, "%s: ELF file for another class or machine", path);
        rc = ELIBBAD;
        goto out;
    }
    if (eh.e_type != ET_DYN) {
        pip_msg(verbose,
                "%s: not position-independent (ET_EXEC): rebuild with -fPIE "
                "-pie -rdynamic",
                path);
        rc = ELIBEXEC;
        goto out;
    }
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
        (off_t)(eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr)) >
            st.st_size) {
        pip_msg(verbose, "%s: broken ELF program headers", path);
        rc = ELIBBAD;
        goto out;
    }
    ph = malloc(sizeof(Elf64_Phdr) * eh.e_phnum);
    if (ph == NULL) {
        rc = ENOMEM;
        goto out;
    }
    if (pip_pread_all(fd, ph, sizeof(Elf64_Phdr) * eh.e_phnum,
                      (off_t)eh.e_phoff) != 0) {
        pip_msg(verbose, "%s: cannot read program headers", path);
        rc = ELIBBAD;
        goto out;
    }
    for (int i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type == PT_TLS) {
            info->has_tls = 1;
            info->tls_vaddr = ph[i].p_vaddr;
            info->tls_filesz = ph[i].p_filesz;
            info->tls_memsz = ph[i].p_memsz;
            info->tls_align = ph[i].p_align ? ph[i].p_align : 1;
        } else if (ph[i].p_type == PT_DYNAMIC) {
            info->dyn_offset = ph[i].p_offset;
            info->dyn_size = ph[i].p_filesz;
        } else if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W) &&
                   ph[i].p_memsz > 0) {
            if (info->nrw == PIP_ELF_MAX_RW) {
                pip_msg(verbose, "%s: more than %d writable segments", path,
                        PIP_ELF_MAX_RW);
                rc = ELIBBAD;
                goto out;
            }
            info->rw_vaddr[info->nrw] = ph[i].p_vaddr;
            info->rw_memsz[info->nrw] = ph[i].p_memsz;
            info->nrw++;
        } else if (ph[i].p_type == PT_GNU_RELRO) {
            info->relro_vaddr = ph[i].p_vaddr;
            info->relro_memsz = ph[i].p_memsz;
        }
    }
    if (info->dyn_size == 0 ||
        (off_t)(info->dyn_offset + info->dyn_size) > st.st_size) {
        pip_msg(verbose, "%s: no dynamic section (static program?)", path);
        rc = ELIBEXEC;
        goto out;
    }
    size_t ndyn = info->dyn_size / sizeof(Elf64_Dyn);
    Elf64_Dyn *dyn = malloc(info->dyn_size);
    if (dyn == NULL) {
        rc = ENOMEM;
        goto out;
    }
    if (pip_pread_all(fd, dyn, info->dyn_size, (off_t)info->dyn_offset) == 0) {
        for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
            if (dyn[i].d_tag == DT_FINI_ARRAY)
                info->fini_array = dyn[i].d_un.d_ptr;
            else if (dyn[i].d_tag == DT_FINI_ARRAYSZ)
                info->fini_arraysz = dyn[i].d_un.d_val;
            else if (dyn[i].d_tag == DT_FINI)
                info->fini = dyn[i].d_un.d_ptr;
            else if (dyn[i].d_tag == DT_INIT_ARRAY)
                info->init_array = dyn[i].d_un.d_ptr;
            else if (dyn[i].d_tag == DT_INIT_ARRAYSZ)
                info->init_arraysz = dyn[i].d_un.d_val;
            else if (dyn[i].d_tag == DT_INIT)
                info->init = dyn[i].d_un.d_ptr;
            else if (dyn[i].d_tag == DT_RELA)
                info->rela = dyn[i].d_un.d_ptr;
            else if (dyn[i].d_tag == DT_RELASZ)
                info->relasz = dyn[i].d_un.d_val;
            else if (dyn[i].d_tag == DT_RELAENT)
                info->relaent = dyn[i].d_un.d_val;
            else if (dyn[i].d_tag == DT_SYMTAB)
                info->symtab = dyn[i].d_un.d_ptr;
            else if (dyn[i].d_tag == DT_STRTAB)
                info->strtab = dyn[i].d_un.d_ptr;
            else if (dyn[i].d_tag == DT_JMPREL)
                info->jmprel = dyn[i].d_un.d_ptr;
            else if (dyn[i].d_tag == DT_PLTRELSZ)
                info->pltrelsz = dyn[i].d_un.d_val;
        }
    }
    free(dyn);
    /*
     * The start function: exported, or (as PiP 2.4 does) found in the
     * file's own symbol table: a static function, or main of a program
     * linked without -rdynamic.  A stripped file has only the former.
     */
    const char *sym = func != NULL ? func : "main";
    uint64_t vaddr = 0;
    if (pip_elf_find_sym(fd, &eh, st.st_size, sym, SHT_DYNSYM, &vaddr) == 0 &&
        pip_elf_find_sym(fd, &eh, st.st_size, sym, SHT_SYMTAB, &vaddr) != 1 &&
        (func != NULL || pip_elf_entry_main(fd, &eh, &vaddr) != 0)) {
        if (func == NULL)
            pip_msg(verbose,
                    "%s: no 'main' in its symbol tables (stripped?) nor "
                    "found from its entry point: link the program with "
                    "-rdynamic",
                    path);
        else
            pip_msg(verbose,
                    "%s: no start function '%s' in its symbol tables "
                    "(exported or not)",
                    path, func);
        rc = ENOEXEC;
        goto out;
    }
    rc = 0;
out:
    free(ph);
    if (fd >= 0)
        close(fd);
    return rc;
}

int pip_check_pie(const char *path, int verbose)
{
    struct pip_elf_info info;
    return pip_elf_check(path, NULL, verbose, &info);
}

/*
 * The unrelocated address of `name` in the file at `path`: its full symbol
 * table, else its dynamic one.  0, or ENOENT.
 */
int pip_elf_file_sym(const char *path, const char *name, uint64_t *vaddr)
{
    Elf64_Ehdr eh;
    struct stat st;
    int rc = ENOENT;
    memset(&eh, 0, sizeof(eh));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ENOENT;
    if (fstat(fd, &st) == 0 && pip_pread_all(fd, &eh, sizeof(eh), 0) == 0 &&
        memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        (pip_elf_find_sym(fd, &eh, st.st_size, name, SHT_SYMTAB, vaddr) == 1 ||
         pip_elf_find_sym(fd, &eh, st.st_size, name, SHT_DYNSYM, vaddr) == 1) &&
        *vaddr != 0)
        rc = 0;
    close(fd);
    return rc;
}
