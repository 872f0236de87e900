/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_start.h: main's address from glibc's _start (a stripped program),
 * shared by libpip (pip_entry.c) and pip-check.
 *
 * glibc's _start passes main's address to __libc_start_main in the first
 * argument register.  On x86-64 it loads it with one rip-relative
 * `lea disp32(%rip),%rdi` (48 8d 3d disp32) within its first 48 bytes
 * (both the old _start with __libc_csu_init and the one of glibc 2.34+,
 * whose `mov main@GOTPCREL(%rip),%rdi` the linker relaxes into that lea).
 * On aarch64 it loads it from the GOT: `adrp x0, page` and
 * `ldr x0, [x0, #lo12]`; in a PIE that GOT slot is filled by an
 * R_AARCH64_RELATIVE relocation whose addend is main's address
 * (pip_start_got); `adrp` and `add x0, x0, #lo12` (a relaxed load) give
 * main directly.  A _start of another shape (main through the GOT on
 * x86-64, another machine) is not understood.
 */
#ifndef PIP_START_H
#define PIP_START_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Bytes of _start looked at. */
#define PIP_START_BYTES 48

/* What pip_start_main found. */
enum {
    PIP_START_NONE = 0, /* nothing understood */
    PIP_START_MAIN = 1, /* *va: main's unrelocated address */
    PIP_START_GOT = 2   /* *va: the GOT slot holding it (pip_start_got) */
};

#if defined(__aarch64__)
static inline uint32_t pip_start_insn(const unsigned char *code)
{
    uint32_t v;
    memcpy(&v, code, sizeof(v));
    return v; /* little-endian file, little-endian host */
}
#endif

/* `code`: the `len` bytes at vaddr `entry`.  PIP_START_MAIN or
 * PIP_START_GOT and *va (still to be checked against the executable
 * segments), or PIP_START_NONE. */
static inline int pip_start_main(const unsigned char *code, size_t len,
                                 uint64_t entry, uint64_t *va)
{
#if defined(__x86_64__)
    for (size_t i = 0; i + 7 <= len; i++) {
        if (code[i] != 0x48 || code[i + 1] != 0x8d || code[i + 2] != 0x3d)
            continue;
        int32_t disp;
        memcpy(&disp, code + i + 3, sizeof(disp));
        *va = entry + i + 7 + (uint64_t)(int64_t)disp;
        return PIP_START_MAIN;
    }
#elif defined(__aarch64__)
    for (size_t i = 0; i + 8 <= len; i += 4) {
        uint32_t adrp = pip_start_insn(code + i);
        uint32_t next = pip_start_insn(code + i + 4);
        if ((adrp & 0x9f00001fu) != 0x90000000u) /* adrp x0, ... */
            continue;
        /* immhi:immlo, 21 bits signed, in 4 KiB pages */
        int64_t imm =
            (int64_t)((((adrp >> 5) & 0x7ffffu) << 2) | ((adrp >> 29) & 3u));
        if (imm & (1 << 20))
            imm -= 1 << 21;
        uint64_t page =
            ((entry + i) & ~(uint64_t)0xfff) + (uint64_t)(imm << 12);
        uint64_t lo12 = (next >> 10) & 0xfffu;
        if ((next & 0xffc003ffu) == 0xf9400000u) { /* ldr x0, [x0, #8*lo12] */
            *va = page + lo12 * 8;
            return PIP_START_GOT;
        }
        if ((next & 0xffc003ffu) == 0x91000000u) { /* add x0, x0, #lo12 */
            *va = page + lo12;
            return PIP_START_MAIN;
        }
        return PIP_START_NONE;
    }
#else
    (void)code;
    (void)len;
    (void)entry;
    (void)va;
#endif
    return PIP_START_NONE;
}

/* Reads len bytes at file offset off into buf: 0, or -1. */
typedef int (*pip_start_read_t)(void *ctx, void *buf, size_t len, uint64_t off);

/* The file offset of vaddr va (in a PT_LOAD segment's file image), or -1. */
static inline int64_t pip_start_offset(const Elf64_Phdr *ph, int n, uint64_t va,
                                       uint64_t len)
{
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
            va - ph[i].p_vaddr + len <= ph[i].p_filesz)
            return (int64_t)(va - ph[i].p_vaddr + ph[i].p_offset);
    return -1;
}

/* main from the GOT slot at vaddr `slot`: the addend of the RELATIVE
 * relocation (R_AARCH64_RELATIVE) of that slot in DT_RELA.  1 and *va, or
 * 0 (no such relocation: main exported and bound by symbol, or DT_RELR). */
static inline int pip_start_got(const Elf64_Phdr *ph, int n, uint64_t slot,
                                pip_start_read_t rd, void *ctx, uint64_t *va)
{
    const Elf64_Phdr *dyn = NULL;
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = &ph[i];
    if (dyn == NULL)
        return 0;
    uint64_t rela = 0, relasz = 0, relaent = sizeof(Elf64_Rela);
    for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= dyn->p_filesz;
         off += sizeof(Elf64_Dyn)) {
        Elf64_Dyn d;
        if (rd(ctx, &d, sizeof(d), dyn->p_offset + off) != 0 ||
            d.d_tag == DT_NULL)
            break;
        if (d.d_tag == DT_RELA)
            rela = d.d_un.d_ptr;
        else if (d.d_tag == DT_RELASZ)
            relasz = d.d_un.d_val;
        else if (d.d_tag == DT_RELAENT)
            relaent = d.d_un.d_val;
    }
    int64_t at = pip_start_offset(ph, n, rela, relasz);
    if (rela == 0 || at < 0 || relaent < sizeof(Elf64_Rela))
        return 0;
    for (uint64_t off = 0; off + sizeof(Elf64_Rela) <= relasz; off += relaent) {
        Elf64_Rela r;
        if (rd(ctx, &r, sizeof(r), (uint64_t)at + off) != 0)
            return 0;
        if (r.r_offset == slot &&
            ELF64_R_TYPE(r.r_info) == R_AARCH64_RELATIVE) {
            *va = (uint64_t)r.r_addend;
            return 1;
        }
    }
    return 0;
}

/* main's unrelocated address from the `len` bytes `code` of _start at
 * vaddr `entry`, through the GOT where _start loads it from there (rd
 * reads the file, whose program headers are ph[n]).  1 and *va (still to
 * be checked against the executable segments), or 0. */
static inline int pip_start_find(const unsigned char *code, size_t len,
                                 uint64_t entry, const Elf64_Phdr *ph, int n,
                                 pip_start_read_t rd, void *ctx, uint64_t *va)
{
    switch (pip_start_main(code, len, entry, va)) {
    case PIP_START_MAIN:
        return 1;
    case PIP_START_GOT:
        return pip_start_got(ph, n, *va, rd, ctx, va);
    default:
        return 0;
    }
}

#endif /* PIP_START_H */
