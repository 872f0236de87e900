/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_tls.c: the copy method, for CPUs or kernels without FSGSBASE, where
 * loading the fs base costs a system call (arch_prctl; microseconds under
 * a hypervisor that traps the MSR write).
 *
 * A decoupled ULP runs on its carrier's thread pointer (the scheduler's
 * thread block; its own when coupled).  What makes it private is copied:
 * - the static TLS blocks of its namespace's modules (libc's errno, malloc's
 *   thread cache, uselocale, the program's and libraries' __thread data)
 *   are saved from the carrier's block when the ULP stops and loaded back
 *   when it runs (ulp_switch_copy).  A ULP of the root namespace copies the
 *   root's static TLS; a PiP task's ULP copies the root's as well (the
 *   task program's local-exec __thread data lives in the root executable's
 *   block, and the root's code it calls through libulp must not see another
 *   ULP's libc state) plus its own namespace's modules.
 * - glibc's thread descriptor is not copied (it is large and the kernel
 *   knows its tid and robust list): tcbhead_t.self is set to the ULP's own
 *   descriptor, so that pthread_self() and what libc reaches through it
 *   (cancellation state, the first pthread keys, stdio lock owners, the
 *   stack of pthread_getattr_np) are the ULP's.  Fields libc reads at a
 *   fixed %fs offset (the cached tid, the dtv, the canary) stay the
 *   carrier's.
 * The ranges are offsets below the thread pointer, which are the same in
 * every thread (static TLS), so one map serves every carrier.  The root
 * program's PIP_ROOT_TLS_RESERVE array (room for tasks' __thread data) is
 * left out of the root's map when the symbol table shows where it is: root
 * code never touches it, and each task ULP copies its own part.
 */
#include "ulp_internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)

#define ULP_TLS_MAX_BLOCKS 64
#define ULP_TLS_GAP        4096 /* largest padding between two blocks */

struct ulp_tls_block {
    uintptr_t lo, hi;
};

/* Sort blocks by address (a handful: insertion sort). */
static void ulp_tls_sort(struct ulp_tls_block *b, int n)
{
    for (int i = 1; i < n; i++) {
        struct ulp_tls_block x = b[i];
        int j = i - 1;
        while (j >= 0 && b[j].lo > x.lo) {
            b[j + 1] = b[j];
            j--;
        }
        b[j + 1] = x;
    }
}

/* Merge blocks into at most ULP_TLS_RANGES ranges below tp. */
static int ulp_tls_build(struct ulp_tls_map *m, uintptr_t tp,
                         struct ulp_tls_block *b, int n)
{
    memset(m, 0, sizeof(*m));
    ulp_tls_sort(b, n);
    for (int i = 0; i < n; i++) {
        if (m->n > 0) {
            uintptr_t lo = tp - m->r[m->n - 1].off;
            uintptr_t hi = lo + m->r[m->n - 1].len;
            if (b[i].lo <= hi + 64) { /* overlapping or alignment padding */
                if (b[i].hi > hi)
                    m->r[m->n - 1].len = b[i].hi - lo;
                continue;
            }
        }
        if (m->n == ULP_TLS_RANGES)
            return -ENOTSUP;
        m->r[m->n].off = tp - b[i].lo;
        m->r[m->n].len = b[i].hi - b[i].lo;
        m->n++;
    }
    m->total = 0;
    for (int i = 0; i < m->n; i++)
        m->total += m->r[i].len;
    return 0;
}

struct ulp_tls_probe {
    uintptr_t tp;
    uintptr_t exe_block; /* the root program's TLS block (module 1) */
    int n;
    struct ulp_tls_block b[ULP_TLS_MAX_BLOCKS];
};

static int ulp_tls_root_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct ulp_tls_probe *p = arg;
    (void)size;
    if (info->dlpi_tls_modid == 0 || info->dlpi_tls_data == NULL)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_TLS || ph->p_memsz == 0)
            continue;
        uintptr_t lo = (uintptr_t)info->dlpi_tls_data;
        if (info->dlpi_tls_modid == 1)
            p->exe_block = lo;
        if (lo < p->tp && p->n < ULP_TLS_MAX_BLOCKS) {
            p->b[p->n].lo = lo;
            p->b[p->n].hi = lo + ph->p_memsz;
            p->n++;
        }
    }
    return 0;
}

/*
 * Where the root program's PIP_ROOT_TLS_RESERVE array lies in its TLS
 * block (offset and size, from the symbol table of /proc/self/exe): room
 * for tasks' local-exec TLS that root code never touches, so a root ULP
 * need not copy it (a task ULP copies its own part of it).  -1: unknown
 * (stripped program, or none).
 */
static int ulp_tls_reserve(size_t *off, size_t *size)
{
    static const char want[] = "pip_root_tls_reserve_";
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    ElfW(Ehdr) eh;
    ElfW(Shdr) *sh = NULL;
    ElfW(Sym) *sym = NULL;
    char *strs = NULL;
    int rc = -1;
    if (fd < 0)
        return -1;
    if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_shentsize != sizeof(ElfW(Shdr)) || eh.e_shnum == 0)
        goto out;
    size_t shsz = (size_t)eh.e_shnum * sizeof(ElfW(Shdr));
    if ((sh = malloc(shsz)) == NULL ||
        pread(fd, sh, shsz, (off_t)eh.e_shoff) != (ssize_t)shsz)
        goto out;
    for (int i = 0; i < eh.e_shnum && rc != 0; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh.e_shnum ||
            sh[i].sh_entsize != sizeof(ElfW(Sym)))
            continue;
        const ElfW(Shdr) *ss = &sh[sh[i].sh_link];
        free(sym);
        free(strs);
        sym = malloc(sh[i].sh_size);
        strs = malloc(ss->sh_size + 1);
        if (sym == NULL || strs == NULL ||
            pread(fd, sym, sh[i].sh_size, (off_t)sh[i].sh_offset) !=
                (ssize_t)sh[i].sh_size ||
            pread(fd, strs, ss->sh_size, (off_t)ss->sh_offset) !=
                (ssize_t)ss->sh_size)
            goto out;
        strs[ss->sh_size] = '\0';
        size_t n = sh[i].sh_size / sizeof(ElfW(Sym));
        for (size_t k = 0; k < n; k++) {
            if (ELF64_ST_TYPE(sym[k].st_info) == STT_TLS &&
                sym[k].st_name < ss->sh_size &&
                strcmp(strs + sym[k].st_name, want) == 0) {
                *off = sym[k].st_value;
                *size = sym[k].st_size;
                rc = 0;
                break;
            }
        }
    }
out:
    free(sh);
    free(sym);
    free(strs);
    close(fd);
    return rc;
}

/*
 * The root namespace's static TLS, seen from the calling thread: the chain
 * of TLS blocks that ends at the thread pointer with no gap larger than
 * alignment padding.  Blocks further away (dynamic TLS in the heap, modules
 * of other namespaces) are not part of it; nor is the root program's
 * PIP_ROOT_TLS_RESERVE array (see ulp_tls_reserve).
 */
int ulp_tls_map_root(struct ulp_tls_map *m)
{
    struct ulp_tls_probe p;
    p.tp = ulp_arch_tp();
    p.n = 0;
    p.exe_block = 0;
    dl_iterate_phdr(ulp_tls_root_cb, &p);
    ulp_tls_sort(p.b, p.n);
    uintptr_t low = p.tp;
    int first = p.n;
    for (int i = p.n - 1; i >= 0; i--) {
        if (p.b[i].hi > p.tp || p.b[i].hi + ULP_TLS_GAP < low)
            break;
        if (p.b[i].lo < low)
            low = p.b[i].lo;
        first = i;
    }
    if (first == p.n) {
        /* No static TLS at all: an empty map copies nothing. */
        memset(m, 0, sizeof(*m));
        return 0;
    }
    /* tp - low .. tp (padding included), less the reserve. */
    struct ulp_tls_block b[2] = {{low, p.tp}, {0, 0}};
    int n = 1;
    size_t roff = 0, rsize = 0;
    if (p.exe_block != 0 && ulp_tls_reserve(&roff, &rsize) == 0 && rsize > 0) {
        uintptr_t rlo = p.exe_block + roff, rhi = rlo + rsize;
        if (rlo >= low && rhi <= p.tp) {
            b[0].hi = rlo;
            b[1].lo = rhi;
            b[1].hi = p.tp;
            n = 2;
            if (b[1].lo == b[1].hi)
                n = 1;
            if (b[0].lo == b[0].hi) {
                b[0] = b[1];
                n--;
            }
        }
    }
    return ulp_tls_build(m, p.tp, b, n);
}

/* PT_TLS of the object mapped at `base` (its ELF header). */
static int ulp_elf_tls(const void *base, size_t *memsz, size_t *align)
{
    const ElfW(Ehdr) *eh = base;
    if (base == NULL || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_phentsize != sizeof(ElfW(Phdr)))
        return -ENOTSUP;
    const ElfW(Phdr) *ph =
        (const ElfW(Phdr) *)((const char *)base + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_TLS) {
            *memsz = ph[i].p_memsz;
            *align = ph[i].p_align != 0 ? ph[i].p_align : 1;
            return 0;
        }
    }
    *memsz = 0;
    *align = 1;
    return 0;
}

/*
 * A PiP task's map, on the task's own thread (its static TLS lies in
 * [stack_lo, tp)): the root's map, plus every module of the task's
 * namespace whose TLS block is static, found from the task's `main`.
 */
int ulp_tls_map_task(struct ulp_tls_map *m, void *ns_main, uintptr_t stack_lo)
{
    struct ulp_tls_probe p;
    const struct ulp_tls_map *root = &ulp_g_.root_tls;
    Dl_info info;
    struct link_map *exe = NULL, *l;
    size_t memsz, align;

    p.tp = ulp_arch_tp();
    p.n = 0;
    p.exe_block = 0;
    for (int i = 0; i < root->n && p.n < ULP_TLS_MAX_BLOCKS; i++) {
        p.b[p.n].lo = p.tp - root->r[i].off;
        p.b[p.n].hi = p.b[p.n].lo + root->r[i].len;
        p.n++;
    }
    if (ns_main == NULL ||
        dladdr1(ns_main, &info, (void **)&exe, RTLD_DL_LINKMAP) == 0 ||
        exe == NULL)
        return -ENOTSUP;
    /* The program's local-exec TLS: tp - round_up(memsz, align) (libpip
     * fills it in the root executable's block). */
    if (ulp_elf_tls(info.dli_fbase, &memsz, &align) != 0)
        return -ENOTSUP;
    if (memsz > 0 && p.n < ULP_TLS_MAX_BLOCKS) {
        size_t need = (memsz + align - 1) & ~(align - 1);
        p.b[p.n].lo = p.tp - need;
        p.b[p.n].hi = p.tp;
        p.n++;
    }
    for (l = exe; l->l_prev != NULL; l = l->l_prev)
        ;
    for (; l != NULL; l = l->l_next) {
        size_t modid = 0;
        void *data = NULL;
        Dl_info li;
        if (l == exe || dlinfo(l, RTLD_DI_TLS_MODID, &modid) != 0 || modid == 0)
            continue;
        if (dlinfo(l, RTLD_DI_TLS_DATA, &data) != 0 || data == NULL)
            continue; /* dynamic TLS not allocated here: the carrier's */
        uintptr_t lo = (uintptr_t)data;
        if (lo < stack_lo || lo >= p.tp)
            continue; /* not static TLS */
        if (dladdr1(l->l_ld, &li, NULL, 0) == 0 ||
            ulp_elf_tls(li.dli_fbase, &memsz, &align) != 0)
            return -ENOTSUP;
        if (memsz == 0)
            continue;
        if (p.n == ULP_TLS_MAX_BLOCKS)
            return -ENOTSUP;
        p.b[p.n].lo = lo;
        p.b[p.n].hi = lo + memsz;
        p.n++;
    }
    return ulp_tls_build(m, p.tp, p.b, p.n);
}

/* Is the descriptor where the copy method expects it (glibc x86-64)? */
int ulp_tls_self_ok(void)
{
    uintptr_t tp = ulp_arch_tp();
    return ulp_arch_get_self() == tp && (uintptr_t)pthread_self() == tp;
}

/*
 * Save what `from` keeps private from the carrier's block, load `to`'s,
 * show `to`'s descriptor, then switch stacks (fs stays).  Runs before the
 * switch clears from->busy, so nobody loads `from`'s copy half-saved.
 */
void ulp_switch_copy(struct ulp_ctx *from, struct ulp_ctx *to)
{
    char *tp = (char *)ulp_arch_tp();
    const struct ulp_tls_map *m = from->tls;
    if (m != NULL) {
        char *b = from->tls_buf;
        for (int i = 0; i < m->n; i++) {
            __builtin_memcpy(b, tp - m->r[i].off, m->r[i].len);
            b += m->r[i].len;
        }
    }
    m = to->tls;
    if (m != NULL) {
        const char *b = to->tls_buf;
        for (int i = 0; i < m->n; i++) {
            __builtin_memcpy(tp - m->r[i].off, b, m->r[i].len);
            b += m->r[i].len;
        }
    }
    ulp_arch_set_self(to->self != 0 ? to->self : (uintptr_t)tp);
    ulp_self_ = to->owner;
    ulp_arch_switch_nofs(from, to);
}

#else /* !__x86_64__ */

/*
 * aarch64 writes TPIDR_EL0 from user mode: a ULP always runs on its own
 * thread block and ulp_init() never selects the copy method (ulp_g_.copy
 * stays 0), so these are not reached.  They refuse, should that change.
 */
int ulp_tls_map_root(struct ulp_tls_map *m)
{
    (void)m;
    return -ENOTSUP;
}

int ulp_tls_map_task(struct ulp_tls_map *m, void *ns_main, uintptr_t stack_lo)
{
    (void)m;
    (void)ns_main;
    (void)stack_lo;
    return -ENOTSUP;
}

int ulp_tls_self_ok(void)
{
    return 0;
}

void ulp_switch_copy(struct ulp_ctx *from, struct ulp_ctx *to)
{
    ulp_arch_switch_nofs(from, to);
}

#endif /* __x86_64__ */
