/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_loader.c: copies a task program that pip_elf_check (pip_elfcheck.c)
 * accepted to a memfd with DF_1_PIE cleared (glibc >= 2.30 refuses to
 * dlopen PIE executables; the user's file is never modified), and loads the
 * copy into a private dlmopen() namespace.
 *
 * Error codes (the first five from pip_elfcheck.c, also those of
 * pip_check_pie, which only reads the file; EAGAIN and ELIBACC come from
 * dlmopen at spawn):
 *   ENOENT   no such file, or not a path
 *   EACCES   not a regular executable file (a directory gives EACCES too)
 *   ELIBBAD  not ELF, or not ELFCLASS64 / the host machine
 *   ELIBEXEC not ET_DYN (position dependent)
 *   ENOEXEC  `main` (or the start function) is neither exported nor in the
 *            file's symbol table (a stripped file without -rdynamic)
 *   EAGAIN   no dlmopen namespace or static TLS left (stock glibc limit)
 *   ELIBACC  a library the program needs cannot be loaded
 */
#include "pip_internal.h"

#include <elf.h>
#include <malloc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * A tag no loader knows (between DT_ADDRRNGHI and the version tags): an
 * entry rewritten to it is skipped.
 */
#define PIP_DT_IGNORED 0x6fffff00

/*
 * A private copy of the file in a memfd, with DF_1_PIE cleared and the
 * program's constructors (DT_INIT, DT_INIT_ARRAY) hidden from ld.so:
 * libpip runs them itself once the copy relocations are redone (stdout,
 * stderr, environ ...), see pip_image_init.
 */
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
            int patch = 0;
            if (d.d_tag == DT_FLAGS_1 && (d.d_un.d_val & DF_1_PIE)) {
                d.d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
                patch = 1;
            } else if (d.d_tag == DT_INIT_ARRAYSZ && d.d_un.d_val != 0) {
                d.d_un.d_val = 0;
                patch = 1;
            } else if (d.d_tag == DT_INIT) {
                d.d_tag = PIP_DT_IGNORED;
                patch = 1;
            }
            if (patch && pwrite(fd, &d, sizeof(d), off) != (ssize_t)sizeof(d))
                rc = EIO;
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
    PIP_NS_SYM(mallopt, "mallopt");
    PIP_NS_SYM(environ, "environ");
    PIP_NS_SYM(progname, "__progname");
    PIP_NS_SYM(progname_full, "__progname_full");
    PIP_NS_SYM(fclose, "fclose");
    PIP_NS_SYM(setvbuf, "setvbuf");
    PIP_NS_SYM(sigaction, "sigaction");
    PIP_NS_SYM(signal, "signal");
    PIP_NS_SYM(alarm, "alarm");
    PIP_NS_SYM(setitimer, "setitimer");
    PIP_NS_SYM(getitimer, "getitimer");
    PIP_NS_SYM(getopt, "getopt");
    PIP_NS_SYM(getopt_long, "getopt_long");
    PIP_NS_SYM(getopt_long_only, "getopt_long_only");
    PIP_NS_SYM(std[0], "_IO_2_1_stdin_");
    PIP_NS_SYM(std[1], "_IO_2_1_stdout_");
    PIP_NS_SYM(std[2], "_IO_2_1_stderr_");
#undef PIP_NS_SYM
    return 0;
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
 * The name an image is loaded under.  ld.so takes a name it already has in
 * the namespace for the object already loaded, and descriptor numbers are
 * reused: make every name distinct by spelling the path differently.  After
 * the leading '/', each of 32 bits of `seq` is "./" (1) or "/" (0): both
 * resolve to the same directory, and the spellings differ.  The path names
 * the root's PID, not /proc/self: a debugger reads the names in the link
 * maps and opens them in its own process, where /proc/self/fd/N is one of
 * its own descriptors (gdb blocked reading its own pipe on attach).
 */
static void pip_load_name(char *buf, size_t size, unsigned long seq, int fd)
{
    size_t n = 0;
    buf[n++] = '/';
    for (int b = 31; b >= 0; b--) {
        if ((seq >> b) & 1UL)
            buf[n++] = '.';
        buf[n++] = '/';
    }
    snprintf(buf + n, size - n, "proc/%d/fd/%d", (int)getpid(), fd);
}

static int pip_is_image_name(const char *name)
{
    if (name == NULL)
        return 0;
    const char *p = strstr(name, "proc/");
    int pid, fd, end = 0;
    return p != NULL && sscanf(p, "proc/%d/fd/%d%n", &pid, &fd, &end) == 2 &&
           p[end] == '\0';
}

static int pip_all_zero(const char *p, size_t len);

/* Copy `len` bytes to `dest`, which may lie in the image's RELRO part
 * (read-only once loaded: typeinfo objects, vtables). */
static void pip_copy_into(const struct pip_image *img, void *dest,
                          const void *src, size_t len)
{
    const struct pip_elf_info *e = &img->elf;
    uintptr_t d = (uintptr_t)dest;
    uintptr_t rlo = img->l_addr + e->relro_vaddr;
    uintptr_t rhi = rlo + e->relro_memsz;
    int ro = e->relro_memsz > 0 && d < rhi && d + len > rlo;
    uintptr_t plo = d & ~(uintptr_t)4095;
    size_t plen = ((d + len + 4095) & ~(uintptr_t)4095) - plo;
    if (ro && mprotect((void *)plo, plen, PROT_READ | PROT_WRITE) != 0) {
        pip_dbg("copy relocation at %p: cannot unprotect", dest);
        return;
    }
    memmove(dest, src, len);
    if (ro)
        (void)mprotect((void *)plo, plen, PROT_READ);
}

/*
 * Copy relocations.  A PIE program that refers to a library's data
 * (stderr, environ, optind, std::cout, typeinfo) has its own copy of it,
 * filled by an R_*_COPY relocation from the library's definition, and the
 * libraries use that copy.  ld.so looks the source up skipping only objects
 * loaded as *the executable*; our program is loaded as a library, so the
 * lookup finds the program's own copy and the copy is left as in the file.
 *
 * The namespace's first image heads its global scope: the libraries bind to
 * its copies, and their constructors have run on them by now (libstdc++
 * builds std::cout in place).  Such a copy (no longer as in the file, that
 * is all zero) is the live object and stays; the others are filled from
 * the first definition in a library, as ld.so would have.  A later image
 * of a shared namespace has copies no library uses: they are filled the
 * same way, except that an object the library left empty (built in place
 * in the first image's copy: std::cout) is taken from the first image.
 */
static void pip_fix_copy_relocs(struct pip_image *img, struct link_map *lm)
{
    const struct pip_elf_info *e = &img->elf;
    if (e->rela == 0 || e->relasz == 0 || e->symtab == 0 || e->strtab == 0)
        return;
    int first = img->ns->head == NULL || img->ns->head == img->handle;
    struct link_map *head = lm;
    while (head->l_prev != NULL)
        head = head->l_prev;
    size_t ent = e->relaent ? e->relaent : sizeof(Elf64_Rela);
    const char *strtab = (const char *)(img->l_addr + e->strtab);
    const Elf64_Sym *symtab = (const Elf64_Sym *)(img->l_addr + e->symtab);
    for (uint64_t off = 0; off + ent <= e->relasz; off += ent) {
        const Elf64_Rela *r = (const Elf64_Rela *)(img->l_addr + e->rela + off);
        if (ELF64_R_TYPE(r->r_info) != PIP_R_COPY)
            continue;
        const Elf64_Sym *sym = &symtab[ELF64_R_SYM(r->r_info)];
        const char *name = strtab + sym->st_name;
        void *dest = (void *)(img->l_addr + r->r_offset);
        size_t len = (size_t)sym->st_size;
        if (first && !pip_all_zero(dest, len)) {
            pip_dbg("copy relocation %s: built in place, kept", name);
            continue;
        }
        for (struct link_map *m = head; m != NULL; m = m->l_next) {
            if (m->l_name == NULL || m->l_name[0] == '\0' ||
                pip_is_image_name(m->l_name))
                continue;
            void *h =
                dlmopen(img->ns->lmid, m->l_name, RTLD_LAZY | RTLD_NOLOAD);
            if (h == NULL)
                continue;
            void *src = dlsym(h, name);
            dlclose(h);
            if (src != NULL && src != dest) {
                /* A later image: an object built in place (std::cout) is
                 * the first image's, the library's own is left empty. */
                void *live = NULL;
                if (!first && pip_all_zero(src, len) &&
                    (live = dlsym(img->ns->head, name)) != NULL && live != dest)
                    src = live;
                pip_copy_into(img, dest, src, len);
                pip_dbg("copy relocation %s: %zu bytes", name, len);
                break;
            }
        }
    }
}

/* Is this range all zero bytes? */
static int pip_all_zero(const char *p, size_t len)
{
    const uint64_t *w = (const uint64_t *)(uintptr_t)p;
    size_t i = 0;
    if (((uintptr_t)p & 7) == 0) {
        for (; i + 8 <= len; i += 8)
            if (w[i / 8] != 0)
                return 0;
    }
    for (; i < len; i++)
        if (p[i] != 0)
            return 0;
    return 1;
}

/*
 * Save the writable data of a freshly loaded image (after relocation and
 * constructors), page by page; all-zero pages are only recorded.  The
 * RELRO part is read-only by now and is not saved.
 */
static int pip_snapshot(struct pip_image *img)
{
    const struct pip_elf_info *e = &img->elf;
    size_t cap = 0;
    for (int i = 0; i < e->nrw; i++)
        cap += e->rw_memsz[i] / 4096 + 2;
    img->snap = calloc(cap > 0 ? cap : 1, sizeof(*img->snap));
    if (img->snap == NULL)
        return ENOMEM;
    img->nsnap = 0;
    for (int i = 0; i < e->nrw; i++) {
        uintptr_t lo = img->l_addr + e->rw_vaddr[i];
        uintptr_t hi = lo + e->rw_memsz[i];
        if (e->relro_memsz > 0) {
            uintptr_t rlo = img->l_addr + e->relro_vaddr;
            uintptr_t rhi = (rlo + e->relro_memsz + 4095) & ~(uintptr_t)4095;
            if (rlo <= lo && rhi > lo)
                lo = rhi < hi ? rhi : hi;
        }
        while (lo < hi) {
            uintptr_t end = (lo + 4096) & ~(uintptr_t)4095;
            if (end > hi)
                end = hi;
            struct pip_snap *sn = &img->snap[img->nsnap];
            sn->addr = lo;
            sn->len = end - lo;
            sn->data = NULL;
            if (!pip_all_zero((const char *)lo, sn->len)) {
                sn->data = malloc(sn->len);
                if (sn->data == NULL)
                    return ENOMEM;
                memcpy(sn->data, (const void *)lo, sn->len);
            }
            img->nsnap++;
            lo = end;
        }
    }
    return 0;
}

static void pip_restore(struct pip_image *img)
{
    for (int i = 0; i < img->nsnap; i++) {
        struct pip_snap *sn = &img->snap[i];
        if (sn->data != NULL)
            memcpy((void *)sn->addr, sn->data, sn->len);
        else if (!pip_all_zero((const char *)sn->addr, sn->len))
            memset((void *)sn->addr, 0, sn->len);
    }
}

/* Pick the namespace for a new image; NULL: create one. */
static struct pip_ns *pip_pick_ns(struct pip_root *r, const struct stat *st)
{
    if (r->nns < r->nns_max)
        return NULL;
    struct pip_ns *best = NULL;
    int best_same = 0;
    for (int i = 0; i < r->nns; i++) {
        struct pip_ns *ns = &r->nss[i];
        int same = 0;
        for (struct pip_image *im = r->images; im != NULL; im = im->next)
            if (im->ns == ns && im->dev == st->st_dev && im->ino == st->st_ino)
                same = 1;
        if (best == NULL || ns->busy < best->busy ||
            (ns->busy == best->busy && same && !best_same)) {
            best = ns;
            best_same = same;
        }
    }
    return best;
}

static int pip_ns_setup(struct pip_root *r, struct pip_ns *ns, void *handle,
                        const char *path)
{
    if (dlinfo(handle, RTLD_DI_LMID, &ns->lmid) != 0)
        return ELIBBAD;
    ns->libc = dlmopen(ns->lmid, "libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (ns->libc == NULL) {
        pip_msg(0, "%s: is not linked with libc.so.6", path);
        return ELIBBAD;
    }
    int rc = pip_ns_resolve(ns);
    if (rc != 0)
        return rc;
    /*
     * Cross-task free: a chunk of a namespace's main arena would be taken
     * for the freeing namespace's own main arena.  The root thread claims
     * the main arena here (malloc initialises on mallopt) and every task
     * thread gets an arena of its own, found from the chunk's address by
     * any libc.  Without a limit, glibc would hand out the main arena again
     * once 8 per core exist.
     */
    (void)ns->mallopt(M_ARENA_MAX, 1 << 20);
    pip_ns_setup_exit(ns);
    if (pip_ns_getopt_init(ns) != 0)
        pip_dbg("namespace %d: getopt's variables stay shared", ns->index);
    (void)r;
    return 0;
}

/*
 * Load task `t`'s program: reuse an idle image of the same file, or load
 * a new copy into a new namespace (while fewer than nns_max exist) or into
 * the least busy one.
 */
int pip_load(struct pip_task *t, const char *path, const char *func)
{
    struct pip_root *r = pip_root_;
    struct pip_image *img = NULL;
    struct stat st;
    int rc, fd = -1;

    if (path != NULL && stat(path, &st) == 0) {
        for (struct pip_image *im = r->images; im != NULL; im = im->next) {
            if (!im->busy && im->snapped == 1 && im->dev == st.st_dev &&
                im->ino == st.st_ino && im->size == st.st_size &&
                im->mtime.tv_sec == st.st_mtim.tv_sec &&
                im->mtime.tv_nsec == st.st_mtim.tv_nsec) {
                img = im;
                break;
            }
        }
    }
    if (img != NULL) {
        pip_restore(img);
        pip_dbg("task %d reuses an image of %s in namespace %d", t->pipid, path,
                img->ns->index);
        goto bind;
    }

    struct pip_elf_info elf;
    rc = pip_elf_check(path, func, 0, &elf);
    if (rc != 0)
        return rc;
    if (elf.has_tls && elf.tls_memsz > 0) {
        uint64_t need =
            (elf.tls_memsz + elf.tls_align - 1) & ~(elf.tls_align - 1);
        if (!pip_tls_fits(r, elf.tls_memsz, elf.tls_align)) {
            pip_msg(1,
                    "%s: its thread-local storage (%llu bytes, align %llu) "
                    "does not fit the root's TLS reserve (%zu bytes): link "
                    "the root with `pipcc --piproot`, or run the task with "
                    "pip-exec",
                    path, (unsigned long long)need,
                    (unsigned long long)elf.tls_align, r->tls_reserve);
            return ELIBEXEC;
        }
    }
    if (stat(path, &st) != 0)
        return ENOENT;
    img = calloc(1, sizeof(*img));
    if (img == NULL)
        return ENOMEM;
    img->elf = elf;
    img->dev = st.st_dev;
    img->ino = st.st_ino;
    img->size = st.st_size;
    img->mtime = st.st_mtim;
    if (img->elf.fini_array != 0 && img->elf.fini_arraysz >= sizeof(void *)) {
        img->nfini = img->elf.fini_arraysz / sizeof(void *);
        img->fini_saved = calloc(img->nfini, sizeof(void *));
        if (img->fini_saved == NULL) {
            free(img);
            return ENOMEM;
        }
    }
    rc = pip_make_image(path, &elf, &fd);
    if (rc != 0) {
        pip_msg(0, "%s: cannot copy to memory (%s)", path, strerror(rc));
        free(img->fini_saved);
        free(img);
        return rc;
    }

    pip_glibc_lock();
    struct pip_ns *ns;
    char name[128];
    for (;;) {
        ns = pip_pick_ns(r, &st);
        if (ns != NULL && ns->busy > 0 && r->mode == PIP_MODE_PTHREAD &&
            !r->share_ns) {
            /* Thread mode: no silent sharing of a live task's libc. */
            pip_msg(1,
                    "%s: thread mode: no dlmopen namespace left for task %d "
                    "(%d made, all in use): it would share a running task's "
                    "libc; use process mode, fewer tasks, or "
                    "PIP_SHARE_NAMESPACES=1",
                    path, t->pipid, r->nns);
            pip_glibc_unlock();
            close(fd);
            free(img->fini_saved);
            free(img);
            return EAGAIN;
        }
        pip_load_name(name, sizeof(name), r->image_seq++, fd);
        long lmid = ns == NULL ? (long)LM_ID_NEWLM : (long)ns->lmid;
        const char *m = NULL;
        (void)dlerror();
        img->handle = ns == NULL && pip_ns_preload(&lmid, &m) != 0
                          ? NULL
                          : dlmopen(lmid, name, RTLD_LAZY | RTLD_LOCAL);
        if (img->handle != NULL)
            break;
        if (m == NULL)
            m = dlerror();
        rc = pip_dlerror_code(m);
        if (rc == EAGAIN && ns == NULL && r->nns > 0) {
            /* glibc is out of namespaces or static TLS: share from now on. */
            pip_dbg("no new namespace (%s): sharing the %d there are",
                    m != NULL ? m : "?", r->nns);
            r->nns_max = r->nns;
            continue;
        }
        pip_msg(0, "%s: cannot load: %s%s", path,
                m != NULL ? m : "unknown error",
                rc == EAGAIN ? " (no dlmopen namespace left)" : "");
        pip_glibc_unlock();
        close(fd);
        free(img->fini_saved);
        free(img);
        return rc;
    }
    /* The mapping stays; the descriptor must not leak into tasks. */
    close(fd);
    if (ns == NULL) {
        ns = &r->nss[r->nns];
        memset(ns, 0, sizeof(*ns));
        ns->index = r->nns;
        if ((rc = pip_ns_setup(r, ns, img->handle, path)) != 0)
            goto fail; /* the slot is not counted: a half-set-up namespace */
        r->nns++;
        ns->head = img->handle;
        pip_dbg("namespace %d created (lmid %ld)", ns->index, (long)ns->lmid);
    }
    img->ns = ns;
    struct link_map *lm = NULL;
    if (dlinfo(img->handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL) {
        rc = ELIBBAD;
        goto fail;
    }
    img->l_addr = lm->l_addr;
    pip_fix_copy_relocs(img, lm);
    pip_hooks_install(img);
    if (img->fini_saved != NULL)
        memcpy(img->fini_saved, (void *)(img->l_addr + img->elf.fini_array),
               img->nfini * sizeof(void *));
    *(void **)&img->ns_enter = dlsym(img->handle, "pip_ns_enter_");
    /* Tell the namespace's libpip copy (if the program uses libpip) whose
     * state to use. */
    struct pip_ns_link *link = dlsym(img->handle, "pip_ns_link_");
    if (link != NULL && link != &pip_ns_link_) {
        link->root = r;
        link->ns = ns;
    } else {
        img->ns_enter = NULL;
    }
    /* The snapshot and the constructors: pip_image_init, at spawn. */
    img->next = r->images;
    r->images = img;
    pip_glibc_unlock();
    pip_dbg("task %d: %s loaded as image %lu in namespace %d%s", t->pipid, path,
            r->image_seq - 1, ns->index,
            ns->head == img->handle ? " (new)" : "");

bind:
    img->busy = 1;
    t->img = img;
    t->ns = img->ns;
    {
        /* Exported, else from the file's symbol table (not exported). */
        void *start = dlsym(img->handle, func != NULL ? func : "main");
        uint64_t vaddr = 0;
        if (start == NULL && pip_elf_local_start(path, func, &vaddr) == 0)
            start = (void *)(img->l_addr + vaddr);
        if (start == NULL) {
            if (func != NULL)
                pip_msg(0, "%s: no start function '%s' in the program", path,
                        func);
            else
                pip_msg(0,
                        "%s: no 'main' in the program: link it with "
                        "-rdynamic",
                        path);
            img->busy = 0;
            t->img = NULL;
            t->ns = NULL;
            return ENOEXEC;
        }
        if (func != NULL)
            *(void **)&t->funcf = start;
        else
            *(void **)&t->mainf = start;
    }
    /*
     * The namespace's stdout is about to serve two running tasks: make it
     * line buffered.  Any task may flush data another task left in a
     * shared buffer, through its own descriptor 1, which may be closed by
     * then (gnulib's close_stdout closes it before the task's end flushes).
     */
    if (t->ns->busy >= 1 && !t->ns->linebuf) {
        (void)t->ns->setvbuf(t->ns->std[1], NULL, _IOLBF, 0);
        t->ns->linebuf = 1;
    }
    t->ns->busy++;
    t->ns->single = t->ns->busy == 1 ? t : NULL;
    return 0;
fail:
    /* A half-set-up image cannot be reused reliably; leave it loaded. */
    pip_glibc_unlock();
    if (img->snap != NULL) {
        for (int i = 0; i < img->nsnap; i++)
            free(img->snap[i].data);
        free(img->snap);
    }
    free(img->fini_saved);
    free(img);
    t->ns = NULL;
    return rc;
}

/*
 * Run the program's constructors for task `t` (DT_INIT, then DT_INIT_ARRAY,
 * with the task's argc, argv, envp as ld.so would), once the image's copy
 * relocations are redone and its namespace's environ and program name are
 * the task's.  A fresh image first saves its writable data (pip_snapshot);
 * a reused one was put back to that state (pip_restore): so every task
 * starts from its constructors, as with a fresh copy of the program.  They
 * run in the spawning thread (the root's), as they would in dlmopen.
 */
int pip_image_init(struct pip_task *t)
{
    struct pip_image *img = t->img;
    if (img == NULL)
        return 0;
    if (img->snapped == 0) {
        int rc = pip_snapshot(img);
        img->snapped = rc == 0 ? 1 : -1;
        if (rc != 0)
            return rc;
    }
    typedef void (*pip_ctor_t)(int, char **, char **);
    if (img->elf.init != 0) {
        pip_ctor_t f = (pip_ctor_t)(img->l_addr + img->elf.init);
        f(t->argc, t->argv, t->envv);
    }
    if (img->elf.init_array != 0) {
        pip_ctor_t *fa = (pip_ctor_t *)(img->l_addr + img->elf.init_array);
        size_t n = img->elf.init_arraysz / sizeof(void *);
        for (size_t i = 0; i < n; i++)
            if (fa[i] != NULL && fa[i] != (pip_ctor_t)(intptr_t)-1)
                fa[i](t->argc, t->argv, t->envv);
    }
    return 0;
}

/* The task is reaped: its image becomes idle, reusable by a later task. */
void pip_image_release(struct pip_task *t)
{
    struct pip_ns *ns = t->ns;
    if (t->img != NULL)
        t->img->busy = 0;
    if (ns != NULL) {
        ns->busy--;
        ns->single = NULL;
        if (ns->busy == 1) {
            struct pip_root *r = pip_root_;
            for (int i = 0; i < r->ntasks; i++)
                if (&r->tasks[i] != t && r->tasks[i].ns == ns &&
                    r->tasks[i].state != PIP_TASK_FREE)
                    ns->single = &r->tasks[i];
        }
    }
    t->img = NULL;
    t->ns = NULL;
}
