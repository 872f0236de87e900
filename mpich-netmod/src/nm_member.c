/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_member.c: a PiP-form group member's hand-over (nm_member.h).
 */
#include "nm_member.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

extern char **environ;

struct si_hdr {
    int32_t rank, argc, envc;
    uint32_t len;
};

static size_t strs_len(char **v, int n)
{
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    return len;
}

static char *strs_put(char *p, char **v, int n)
{
    for (int i = 0; i < n; i++) {
        size_t k = strlen(v[i]) + 1;
        memcpy(p, v[i], k);
        p += k;
    }
    return p;
}

/* All len bytes to (out) or from fd, through short transfers; 0 or -1. */
int nm_mb_xfer(int fd, void *buf, size_t len, int out)
{
    char *p = buf;
    while (len > 0) {
        /* a peer that hung up (a root falling back closes at once) is an
         * error here, not a SIGPIPE that ends the rank */
        ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) : read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Send rank, program, argv, environment and (SCM_RIGHTS) the PMI
 * connection, stdin (/dev/null when closed), stdout and stderr; 0 or -1. */
int nm_mb_send(int fd, long rank, int pmi_fd, int argc, char **argv)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    int envc = 0;
    while (environ[envc])
        envc++;
    char *ex[1] = {exe};
    size_t len =
        strs_len(ex, 1) + strs_len(argv, argc) + strs_len(environ, envc);
    if (len > BLOB_MAX)
        return -1;
    char *blob = malloc(len);
    if (!blob)
        return -1;
    char *p = strs_put(blob, ex, 1);
    p = strs_put(p, argv, argc);
    strs_put(p, environ, envc);
    struct si_hdr h = {(int32_t)rank, argc, envc, (uint32_t)len};
    struct iovec iov = {&h, sizeof h};
    union {
        struct cmsghdr c;
        char b[CMSG_SPACE(NFDS * sizeof(int))];
    } u;
    memset(&u, 0, sizeof u);
    struct msghdr m = {0};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = u.b;
    m.msg_controllen = sizeof u.b;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(NFDS * sizeof(int));
    int in =
        fcntl(0, F_GETFD) >= 0 ? 0 : open("/dev/null", O_RDONLY | O_CLOEXEC);
    /* the launcher, stdin, stdout, stderr */
    int fds[NFDS] = {pmi_fd, in, 1, 2};
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    int rc = in >= 0 && sendmsg(fd, &m, MSG_NOSIGNAL) == (ssize_t)sizeof h &&
                     nm_mb_xfer(fd, blob, len, 1) == 0
                 ? 0
                 : -1;
    if (in > 0)
        close(in);
    free(blob);
    return rc;
}

/* Split a member's blob into its vectors, replacing PMI_FD and adding
 * MPIDELEG_PIP=1; 0 or -1. */
static int member_vectors(struct member *mb, const struct si_hdr *h)
{
    if (h->argc < 1 || h->envc < 0 || h->argc > (1 << 16) ||
        h->envc > (1 << 20))
        return -1;
    mb->argv = calloc((size_t)h->argc + 1, sizeof(char *));
    mb->envv = calloc((size_t)h->envc + 3, sizeof(char *));
    if (!mb->argv || !mb->envv)
        return -1;
    char *p = mb->blob, *end = mb->blob + h->len;
    int want = 1 + h->argc + h->envc, k = 0, e = 0;
    for (int i = 0; i < want; i++) {
        char *z = memchr(p, '\0', (size_t)(end - p));
        if (!z)
            return -1;
        if (i == 0)
            mb->exe = p;
        else if (i <= h->argc)
            mb->argv[k++] = p;
        else if (strncmp(p, "PMI_FD=", 7) && strncmp(p, "MPIDELEG_PIP=", 13))
            mb->envv[e++] = p;
        p = z + 1;
    }
    char fdv[32];
    snprintf(fdv, sizeof fdv, "PMI_FD=%d", mb->pmi_fd);
    if (!(mb->envv[e++] = strdup(fdv)))
        return -1;
    mb->envv[e++] = (char *)"MPIDELEG_PIP=1";
    return 0;
}

/* Take one stand-in's message; 0 (filled in mbs[rank - first]) or -1. */
int nm_mb_take(int fd, long first, long last, struct member *mbs)
{
    struct si_hdr h;
    union {
        struct cmsghdr c;
        char b[CMSG_SPACE(NFDS * sizeof(int))];
    } u;
    struct iovec iov = {&h, sizeof h};
    struct msghdr m = {0};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = u.b;
    m.msg_controllen = sizeof u.b;
    ssize_t n = recvmsg(fd, &m, MSG_WAITALL);
    struct cmsghdr *c = n == (ssize_t)sizeof h ? CMSG_FIRSTHDR(&m) : NULL;
    if (!c || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(NFDS * sizeof(int)))
        return -1;
    int fds[NFDS];
    memcpy(fds, CMSG_DATA(c), sizeof fds);
    struct member *mb =
        h.rank > first && h.rank < last ? &mbs[h.rank - first] : NULL;
    int ok = mb && mb->sock < 0 && h.len <= BLOB_MAX;
    if (ok) {
        free(mb->blob);
        mb->blob = malloc(h.len ? h.len : 1);
        mb->pmi_fd = fds[0];
        ok = mb->blob && nm_mb_xfer(fd, mb->blob, h.len, 0) == 0 &&
             member_vectors(mb, &h) == 0;
    }
    if (!ok) {
        for (int i = 0; i < NFDS; i++)
            close(fds[i]);
        return -1;
    }
    mb->sock = fd;
    mb->in = fds[1];
    mb->out = fds[2];
    mb->err = fds[3];
    return 0;
}
