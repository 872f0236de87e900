/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rp_pth.c: a pthread program (4 threads, __thread data, a mutex, malloc in
 * every thread) that writes its results to the file named by argv[1]; used
 * by test_pip_corpus.sh.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __thread long tl_sum;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *worker(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < 20000; i++) {
        char *p = malloc(16 + (size_t)(i % 200));
        if (p == NULL)
            return (void *)1;
        memset(p, (int)id, 16);
        tl_sum += p[0] + i % 7;
        free(p);
    }
    pthread_mutex_lock(&mu);
    total += tl_sum;
    pthread_mutex_unlock(&mu);
    return (void *)tl_sum;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: rp_pth OUTFILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "w");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    pthread_t th[4];
    for (long i = 0; i < 4; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)i) != 0)
            return 1;
    for (int i = 0; i < 4; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        fprintf(f, "thread %d sum %ld\n", i, (long)rv);
    }
    fprintf(f, "total %ld main tls %ld\n", total, tl_sum);
    return fclose(f) == 0 ? 0 : 1;
}
