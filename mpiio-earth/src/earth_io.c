/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_io.c: issue an aggregator's file requests of one step with at most
 * `inflight` of them outstanding at a time (the EARTH throttle).  With more
 * than one allowed, helper threads each take the next request, so that a
 * file system sees that many requests from this aggregator at once; with
 * one, the requests go one after the other from the calling thread.  No MPI
 * call is made here.
 */
#include "earth_internal.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int fd, is_write, n;
    earth_ioreq_t *req;
    int next; /* guarded by mu */
    int err;
    pthread_mutex_t mu;
} io_job_t;

/* Whole request, retrying short transfers; reads past EOF give zeros. */
static int io_one(int fd, int is_write, const earth_ioreq_t *r)
{
    int64_t done = 0;
    while (done < r->len) {
        ssize_t k = is_write
                        ? pwrite(fd, r->buf + done, (size_t)(r->len - done),
                                 (off_t)(r->off + done))
                        : pread(fd, r->buf + done, (size_t)(r->len - done),
                                (off_t)(r->off + done));
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (k == 0) {
            if (is_write)
                return -EIO;
            memset(r->buf + done, 0, (size_t)(r->len - done));
            break;
        }
        done += k;
    }
    return 0;
}

static void *io_worker(void *arg)
{
    io_job_t *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        int i = j->next < j->n && !j->err ? j->next++ : -1;
        pthread_mutex_unlock(&j->mu);
        if (i < 0)
            break;
        int rc = io_one(j->fd, j->is_write, &j->req[i]);
        if (rc) {
            pthread_mutex_lock(&j->mu);
            if (!j->err)
                j->err = rc;
            pthread_mutex_unlock(&j->mu);
        }
    }
    return NULL;
}

int earth_io_run(int fd, int is_write, earth_ioreq_t *req, int n, int inflight)
{
    int rc = 0;
    if (n <= 0)
        return 0;
    if (inflight <= 0 || inflight > n)
        inflight = n;
    if (inflight == 1) {
        for (int i = 0; i < n && !rc; i++)
            rc = io_one(fd, is_write, &req[i]);
        return rc;
    }
    io_job_t j = {.fd = fd, .is_write = is_write, .n = n, .req = req};
    pthread_t th[64];
    int nth = 0;
    pthread_mutex_init(&j.mu, NULL);
    if (inflight > 65)
        inflight = 65;
    for (int i = 0; i < inflight - 1; i++)
        if (pthread_create(&th[nth], NULL, io_worker, &j) == 0)
            nth++;
    io_worker(&j);
    for (int i = 0; i < nth; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&j.mu);
    return j.err;
}
