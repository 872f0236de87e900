/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_member.h: how a stand-in of the preloaded PiP form (nm_form.c) hands
 * its rank over to the group's root: rank, program, argv and environment,
 * and (SCM_RIGHTS) its launcher connection, stdin, stdout and stderr.
 */
#ifndef NM_MEMBER_H
#define NM_MEMBER_H

#include <stddef.h>
#include <stdint.h>

#define BLOB_MAX (4 << 20) /* bytes of argv and environment */
#define NFDS     4         /* a member's descriptors: PMI, stdin, out, err */

/* A member as the root received it. */
struct member {
    int sock;         /* its stand-in's connection (-1: the root itself) */
    int pmi_fd;       /* its launcher connection, in the root's table */
    int in, out, err; /* its stdin, stdout, stderr, in the root's table */
    char *blob;       /* exe, argv, environment */
    char **argv, **envv;
    char *exe;
};

/* All len bytes to (out) or from fd, through short transfers; 0 or -1. */
int nm_mb_xfer(int fd, void *buf, size_t len, int out);

/* Send rank, program, argv, environment and (SCM_RIGHTS) the PMI
 * connection, stdin (/dev/null when closed), stdout and stderr; 0 or -1. */
int nm_mb_send(int fd, long rank, int pmi_fd, int argc, char **argv);

/* Take one stand-in's message; 0 (filled in mbs[rank - first]) or -1. */
int nm_mb_take(int fd, long first, long last, struct member *mbs);

#endif
