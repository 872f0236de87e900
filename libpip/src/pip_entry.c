/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_entry.c: main of a stripped program, from its entry point: a PIE
 * linked without -rdynamic and stripped has main in no symbol table, but
 * glibc's _start names it (pip_start.h): directly (x86-64) or through a GOT
 * slot and its relocation (aarch64).
 */
#include "pip_internal.h"
#include "pip_start.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>

/* The executable PT_LOAD segment holding vaddr `va`, or NULL. */
static const Elf64_Phdr *pip_exec_seg(const Elf64_Phdr *ph, int n, uint64_t va)
{
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
            va >= ph[i].p_vaddr && va < ph[i].p_vaddr + ph[i].p_filesz)
            return &ph[i];
    return NULL;
}

static int pip_entry_read(void *ctx, void *buf, size_t len, uint64_t off)
{
    return pip_pread_all(*(int *)ctx, buf, len, (off_t)off) == 0 ? 0 : -1;
}

int pip_elf_entry_main(int fd, const Elf64_Ehdr *eh, uint64_t *vaddr)
{
    if (eh->e_entry == 0 || eh->e_phnum == 0 ||
        eh->e_phentsize != sizeof(Elf64_Phdr))
        return ENOEXEC;
    size_t phsz = (size_t)eh->e_phnum * sizeof(Elf64_Phdr);
    Elf64_Phdr *ph = malloc(phsz);
    if (ph == NULL)
        return ENOMEM;
    int rc = ENOEXEC;
    unsigned char code[PIP_START_BYTES];
    const Elf64_Phdr *seg;
    uint64_t va;
    if (pip_pread_all(fd, ph, phsz, (off_t)eh->e_phoff) != 0 ||
        (seg = pip_exec_seg(ph, eh->e_phnum, eh->e_entry)) == NULL)
        goto out;
    size_t len = sizeof(code);
    uint64_t left = seg->p_vaddr + seg->p_filesz - eh->e_entry;
    if (left < len)
        len = (size_t)left;
    if (pip_pread_all(fd, code, len,
                      (off_t)(eh->e_entry - seg->p_vaddr + seg->p_offset)) ==
            0 &&
        pip_start_find(code, len, eh->e_entry, ph, eh->e_phnum, pip_entry_read,
                       &fd, &va) &&
        pip_exec_seg(ph, eh->e_phnum, va) != NULL) {
        *vaddr = va;
        rc = 0;
    }
out:
    free(ph);
    return rc;
}
