/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_loader.c: checks a task program (ELF class, PIE, exported start
 * function), copies it to a memfd with DF_1_PIE cleared (glibc >= 2.30
 * refuses to dlopen PIE executables; the user's file is never modified), and
 * loads the copy into a private dlmopen() namespace.
 *
 * Error codes (the first five also those of pip_check_pie, which only reads
 * the file; EAGAIN and ELIBACC come from dlmopen at spawn):
 *   ENOENT   no such file, or not a path
 *   EACCES   not a regular executable file (a directory gives EACCES too)
 *   ELIBBAD  not ELF, or not ELFCLASS64 / the host machine
 *   ELIBEXEC not ET_DYN (position dependent)
 *   ENOEXEC  `main` (or the start function) is not an exported symbol
 *   EAGAIN   no dlmopen namespace or static TLS left (stock glibc limit)
 *   ELIBACC  a library the program needs cannot be loaded
 */
#include "pip_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define PIP_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define PIP_ELF_MACHINE EM_AARCH64
#else
#define PIP_ELF_MACHINE EM_NONE
#endif

static int pip_pread_all(int fd, void *buf, size_t len, off_t off)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = pread(fd, p, len, off);
        if (n <= 0)
            return EIO;
        p += n;
        len -= (size_t)n;
        off += n;
    }
    return 0;
}

/* Is `name` a defined, exported function or object in the file's .dynsym? */
static int pip_elf_exports(int fd, const Elf64_Ehdr *eh, off_t fsize,
                           const char *name)
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
        if (sh[i].sh_type != SHT_DYNSYM)
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
            for (size_t k = 1; k < n; k++) {
                Elf64_Sym *s = &syms[k];
                if (s->st_name >= strh->sh_size || s->st_shndx == SHN_UNDEF)
                    continue;
                int bind = ELF64_ST_BIND(s->st_info);
                int vis = ELF64_ST_VISIBILITY(s->st_other);
                if ((bind == STB_GLOBAL || bind == STB_WEAK) &&
                    (vis == STV_DEFAULT || vis == STV_PROTECTED) &&
                    strcmp(strs + s->st_name, name) == 0) {
                    found = 1;
                    break;
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
        }
    }
    free(dyn);
    const char *sym = func != NULL ? func : "main";
    if (pip_elf_exports(fd, &eh, st.st_size, sym) == 0) {
        if (func == NULL)
            pip_msg(
                verbose,
                "%s: 'main' is not exported: link the program with -rdynamic",
                path);
        else
            pip_msg(verbose,
                    "%s: start function '%s' is not an exported symbol", path,
                    func);
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

/* A private copy of the file in a memfd, with DF_1_PIE cleared. */
static int pip_make_image(const char *path, const struct pip_elf_info *info,
                          int *fdp)
{
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    char name[64];
    snprintf(name, sizeof(name), "pip:%s", base);
    int src = open(path, O_RDONLY | O_CLOEXEC);
    if (src < 0)
        return errno == ENOENT ? ENOENT : EACCES;
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        close(src);
        return e == EMFILE || e == ENFILE ? EAGAIN : ENOMEM;
    }
    char buf[65536];
    ssize_t n;
    int rc = 0;
    while ((n = read(src, buf, sizeof(buf))) > 0) {
        if (write(fd, buf, (size_t)n) != n) {
            rc = ENOMEM;
            break;
        }
    }
    if (n < 0)
        rc = EIO;
    close(src);
    if (rc == 0) {
        size_t ndyn = info->dyn_size / sizeof(Elf64_Dyn);
        for (size_t i = 0; i < ndyn; i++) {
            Elf64_Dyn d;
            off_t off = (off_t)(info->dyn_offset + i * sizeof(d));
            if (pip_pread_all(fd, &d, sizeof(d), off) != 0 ||
                d.d_tag == DT_NULL)
                break;
            if (d.d_tag == DT_FLAGS_1 && (d.d_un.d_val & DF_1_PIE)) {
                d.d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
                if (pwrite(fd, &d, sizeof(d), off) != (ssize_t)sizeof(d))
                    rc = EIO;
            }
        }
    }
    if (rc != 0) {
        close(fd);
        return rc;
    }
    *fdp = fd;
    return 0;
}

static int pip_ns_resolve(struct pip_ns *ns)
{
#define PIP_NS_SYM(field, name)                                                \
    do {                                                                       \
        *(void **)&ns->field = dlsym(ns->libc, name);                          \
        if (ns->field == NULL) {                                               \
            pip_msg(0, "namespace libc lacks %s", name);                       \
            return ELIBBAD;                                                    \
        }                                                                      \
    } while (0)
    PIP_NS_SYM(pthread_create, "pthread_create");
    PIP_NS_SYM(attr_init, "pthread_attr_init");
    PIP_NS_SYM(attr_setstack, "pthread_attr_setstack");
    PIP_NS_SYM(attr_setdetachstate, "pthread_attr_setdetachstate");
    PIP_NS_SYM(attr_setsigmask, "pthread_attr_setsigmask_np");
    PIP_NS_SYM(attr_destroy, "pthread_attr_destroy");
    PIP_NS_SYM(exit, "exit");
    PIP_NS_SYM(_exit, "_exit");
    PIP_NS_SYM(fflush, "fflush");
    PIP_NS_SYM(on_exit, "on_exit");
    PIP_NS_SYM(environ, "environ");
    PIP_NS_SYM(progname, "__progname");
    PIP_NS_SYM(progname_full, "__progname_full");
#undef PIP_NS_SYM
    return 0;
}

/*
 * Copy relocations.  A PIE program that refers to a library's data
 * (stderr, environ, optind, __progname) has its own copy of it, filled by
 * an R_*_COPY relocation from the library's definition.  ld.so looks the
 * source up skipping only objects loaded as *the executable*; our program
 * is loaded as a library, so the lookup finds the program's own (empty) copy.
 * Redo these copies from the first definition after the program.
 */
static void pip_fix_copy_relocs(struct pip_task *t, struct link_map *lm)
{
#if defined(__x86_64__)
    const struct pip_elf_info *e = &t->elf;
    if (e->rela == 0 || e->relasz == 0 || e->symtab == 0 || e->strtab == 0)
        return;
    size_t ent = e->relaent ? e->relaent : sizeof(Elf64_Rela);
    const char *strtab = (const char *)(t->l_addr + e->strtab);
    const Elf64_Sym *symtab = (const Elf64_Sym *)(t->l_addr + e->symtab);
    for (uint64_t off = 0; off + ent <= e->relasz; off += ent) {
        const Elf64_Rela *r = (const Elf64_Rela *)(t->l_addr + e->rela + off);
        if (ELF64_R_TYPE(r->r_info) != R_X86_64_COPY)
            continue;
        const Elf64_Sym *sym = &symtab[ELF64_R_SYM(r->r_info)];
        const char *name = strtab + sym->st_name;
        void *dest = (void *)(t->l_addr + r->r_offset);
        for (struct link_map *m = lm->l_next; m != NULL; m = m->l_next) {
            void *h = dlmopen(t->ns->lmid, m->l_name, RTLD_LAZY | RTLD_NOLOAD);
            if (h == NULL)
                continue;
            void *src = dlsym(h, name);
            dlclose(h);
            if (src != NULL && src != dest) {
                memcpy(dest, src, sym->st_size);
                pip_dbg("copy relocation %s: %zu bytes", name,
                        (size_t)sym->st_size);
                break;
            }
        }
    }
#else
    (void)t;
    (void)lm;
#endif
}

/* Map a dlerror() text to an error code of the contract. */
static int pip_dlerror_code(const char *msg)
{
    if (msg == NULL)
        return ELIBBAD;
    if (strstr(msg, "namespace") != NULL || strstr(msg, "static TLS") != NULL ||
        strstr(msg, "Cannot allocate memory") != NULL)
        return EAGAIN;
    if (strstr(msg, "cannot open shared object") != NULL)
        return ELIBACC;
    if (strstr(msg, "undefined symbol") != NULL)
        return ELIBACC;
    return ELIBBAD;
}

/*
 * Load task `t`'s program.  Today: a new namespace per task.  Later: pick a
 * namespace slot that already holds this libc and load another memfd image.
 */
int pip_load(struct pip_task *t, const char *path, const char *func)
{
    struct pip_root *r = pip_root_;
    int rc, fd = -1;

    rc = pip_elf_check(path, func, 0, &t->elf);
    if (rc != 0)
        return rc;
    if (t->elf.has_tls && t->elf.tls_memsz > 0) {
        uint64_t need =
            (t->elf.tls_memsz + t->elf.tls_align - 1) & ~(t->elf.tls_align - 1);
        uint64_t tpalign = r->tls_align > 64 ? r->tls_align : 64;
        if (need > r->tls_reserve || t->elf.tls_align > tpalign) {
            pip_msg(0,
                    "%s: its thread-local storage (%llu bytes, align %llu) "
                    "does not fit "
                    "the root's TLS reserve (%zu bytes): run it with pip-exec",
                    path, (unsigned long long)need,
                    (unsigned long long)t->elf.tls_align, r->tls_reserve);
            return ELIBEXEC;
        }
    }
    rc = pip_make_image(path, &t->elf, &fd);
    if (rc != 0) {
        pip_msg(0, "%s: cannot copy to memory (%s)", path, strerror(rc));
        return rc;
    }

    struct pip_ns *ns = &r->nss[t->pipid];
    memset(ns, 0, sizeof(*ns));
    char fdpath[64];
    snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);

    pip_glibc_lock();
    (void)dlerror();
    t->handle = dlmopen(LM_ID_NEWLM, fdpath, RTLD_LAZY | RTLD_LOCAL);
    if (t->handle == NULL) {
        const char *m = dlerror();
        rc = pip_dlerror_code(m);
        pip_msg(
            0, "%s: cannot load: %s%s", path, m != NULL ? m : "unknown error",
            rc == EAGAIN
                ? " (no dlmopen namespace left; stock glibc allows about 11, "
                  "or 15 with GLIBC_TUNABLES=glibc.rtld.nns=16)"
                : "");
        pip_glibc_unlock();
        close(fd);
        return rc;
    }
    /* The mapping stays; the descriptor must not leak into tasks. */
    close(fd);
    if (dlinfo(t->handle, RTLD_DI_LMID, &ns->lmid) != 0) {
        rc = ELIBBAD;
        goto fail;
    }
    ns->libc = dlmopen(ns->lmid, "libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (ns->libc == NULL) {
        pip_msg(0, "%s: is not linked with libc.so.6", path);
        rc = ELIBBAD;
        goto fail;
    }
    if ((rc = pip_ns_resolve(ns)) != 0)
        goto fail;
    struct link_map *lm = NULL;
    if (dlinfo(t->handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL) {
        rc = ELIBBAD;
        goto fail;
    }
    t->l_addr = lm->l_addr;
    t->ns = ns;
    pip_fix_copy_relocs(t, lm);
    if (func != NULL) {
        *(void **)&t->funcf = dlsym(t->handle, func);
        if (t->funcf == NULL) {
            pip_msg(0, "%s: start function '%s' not found (not exported?)",
                    path, func);
            rc = ENOEXEC;
            goto fail;
        }
    } else {
        *(void **)&t->mainf = dlsym(t->handle, "main");
        if (t->mainf == NULL) {
            pip_msg(
                0,
                "%s: 'main' is not exported: link the program with -rdynamic",
                path);
            rc = ENOEXEC;
            goto fail;
        }
    }
    /* Tell the namespace's libpip copy (if the program uses libpip) who it is.
     */
    struct pip_ns_link *link = dlsym(t->handle, "pip_ns_link_");
    if (link != NULL && link != &pip_ns_link_) {
        link->root = r;
        link->task = t;
    }
    ns->users = 1;
    t->ns = ns;
    pip_glibc_unlock();
    return 0;
fail:
    /* A half-set-up namespace cannot be reused reliably; leave it loaded. */
    pip_glibc_unlock();
    t->handle = NULL;
    t->ns = NULL;
    return rc;
}

void pip_unload(struct pip_task *t)
{
    /*
     * dlclose() would run the program's destructors again in the root and
     * glibc cannot unload a namespace's libc anyway: keep it mapped.
     */
    if (t->ns != NULL)
        t->ns->users--;
    t->ns = NULL;
    t->handle = NULL;
}
