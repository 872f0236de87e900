/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_imgend.c: the end of a private-image task (pip_image.c): its "after"
 * hook at reaping, its memory returned, and pip_get_addr in its link map;
 * PIP_IMAGE.
 */
#include "pip_internal.h"

#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/wait.h>

#if defined(__x86_64__) || defined(__aarch64__)

/* ---- reclaim ---- */

/*
 * A private-image task was reaped with waitpid status `st`: its "after"
 * hook runs now, in the root (the task's process is gone), when the task
 * exited; as in PiP, its non-zero value replaces a zero exit status.
 */
int pip_image_reaped(struct pip_task *t, int st)
{
    if (!t->priv || t->hook.after == NULL || !WIFEXITED(st))
        return st;
    int rv = t->hook.after(t->hook.hookarg);
    t->hook.after = NULL;
    if (rv != 0 && WEXITSTATUS(st) == 0)
        st = W_EXITCODE(rv & 0xff, 0);
    return st;
}

/*
 * pip_get_addr in a private-image task: `symbol` in the objects of its
 * link map (the program first), from their files' symbol tables.
 */
int pip_image_get_addr(struct pip_task *t, const char *symbol, void **addrp)
{
    if (!t->priv || t->priv_rdebug == 0)
        return ESRCH;
    struct r_debug *rd = (struct r_debug *)t->priv_rdebug;
    struct link_map *l = __atomic_load_n(&rd->r_map, __ATOMIC_ACQUIRE);
    if (l == NULL)
        return ENOENT; /* its loader has not started yet */
    for (int guard = 0; l != NULL && guard < 4096; guard++) {
        const char *name = l == rd->r_map ? t->priv_prog : l->l_name;
        uint64_t v;
        if (name != NULL && name[0] == '/' &&
            pip_elf_file_sym(name, symbol, &v) == 0) {
            *addrp = (void *)((uintptr_t)l->l_addr + v);
            t->priv_keep = 1; /* the caller may use it after t ended */
            return 0;
        }
        l = l->l_next;
    }
    return ENOENT;
}

/* Unmap the PT_LOAD span of the object `name` loaded at l_addr, unless
 * it lies in the range `g` (which goes as a whole). */
static void pip_unmap_object(const struct pip_region *g, const char *name,
                             uintptr_t l_addr)
{
    uintptr_t lo, hi;
    if (pip_elf_load_span(name, &lo, &hi) == 0 &&
        !pip_region_holds(g, l_addr + lo))
        munmap((void *)(l_addr + lo), hi - lo);
}

/*
 * Return the memory of a reaped private-image task: its address range
 * (pip_region.c: its loader copy, stack, libraries, and whatever it mapped
 * and left), and the objects of its link map outside the range.  Kept
 * until pip_fin when another task may still use it: when the task ran
 * libpip (it could export, or hand out addresses through memory of other
 * tasks), exported something, or pip_get_addr looked into it.
 */
void pip_image_reclaim(struct pip_task *t)
{
    struct pip_region *g = t->region;
    t->region = NULL;
    if (!t->priv) {
        pip_region_release(g, 0); /* the spawn failed early */
        return;
    }
    int keep = t->exp_set || t->named != NULL || t->priv_keep;
    uintptr_t ld_lo = (uintptr_t)t->ld_start, ld_hi = ld_lo + t->ld_span;
    if (!keep && t->priv_rdebug != 0) {
        /* Objects outside the range (the placer could not put them there,
         * or a non-PIE program's fixed addresses). */
        struct r_debug *rd = (struct r_debug *)t->priv_rdebug;
        struct link_map *l = rd->r_map;
        for (int guard = 0; l != NULL && guard < 4096; guard++) {
            struct link_map *next = l->l_next;
            const char *name = l == rd->r_map ? t->priv_prog : l->l_name;
            uintptr_t a = (uintptr_t)l->l_addr;
            /* Files only (not the vDSO), not the loader copy (below). */
            if (name != NULL && name[0] == '/' && !(a >= ld_lo && a < ld_hi))
                pip_unmap_object(g, name, a);
            l = next;
        }
    }
    if (!keep) {
        /* A non-PIE program's fixed range, mapped or not yet in its link
         * map (a task killed while its loader ran): free for a new copy. */
        if (t->fixed_hi > t->fixed_lo)
            munmap((void *)t->fixed_lo, t->fixed_hi - t->fixed_lo);
        if (!pip_region_holds(g, ld_lo))
            munmap(t->ld_start, t->ld_span);
        if (t->stack != NULL && !pip_region_holds(g, (uintptr_t)t->stack))
            munmap(t->stack, t->stack_size);
    }
    pip_region_release(g, keep);
    t->stack = NULL;
    free(t->interp);
    free(t->priv_prog);
    t->interp = NULL;
    t->priv_prog = NULL;
    t->priv = 0;
    t->priv_keep = 0;
    t->fixed_lo = t->fixed_hi = 0;
}

#else /* no private image on this architecture */

void pip_image_reclaim(struct pip_task *t)
{
    (void)t;
}

int pip_image_reaped(struct pip_task *t, int st)
{
    (void)t;
    return st;
}

int pip_image_get_addr(struct pip_task *t, const char *symbol, void **addrp)
{
    (void)t;
    (void)symbol;
    (void)addrp;
    return ESRCH;
}

#endif

/*
 * PIP_IMAGE: "private" (or unset, empty): process-mode tasks started at
 * main run their own loader copy; "namespace": they share dlmopen
 * namespaces as start-function tasks do (programs that free each other's
 * malloc memory with free() need one libc per namespace's arenas).  Read
 * at each spawn (pip_init has refused a bad value; one set since then is
 * a warning and the default).
 */
int pip_image_wanted(void)
{
    const char *v = getenv("PIP_IMAGE");
    if (v == NULL || *v == '\0' || strcasecmp(v, "private") == 0)
        return 1;
    if (strcasecmp(v, "namespace") == 0)
        return 0;
    pip_msg(1, "PIP_IMAGE='%s' is neither private nor namespace: private", v);
    return 1;
}
