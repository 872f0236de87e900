/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rp_thrtls.c: threads the program creates start with its initial
 * thread-local data (`static __thread int tl = 7` reads 7 in every thread).
 */
#include <pthread.h>
#include <stdio.h>

static __thread int tl = 7;
static __thread char tname[16] = "initial";
static __thread long tzero;

static void *worker(void *arg)
{
    long id = (long)arg;
    int ok = tl == 7 && tname[0] == 'i' && tzero == 0;
    tl = 100 + (int)id; /* private to this thread */
    tzero = id;
    return (void *)(long)(ok && tl == 100 + id);
}

int main(void)
{
    tl = 9; /* the main thread's change is not a new thread's start value */
    pthread_t th[4];
    int good = 0;
    for (long i = 0; i < 4; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)i) != 0)
            return 2;
    for (int i = 0; i < 4; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        good += rv != NULL;
    }
    printf("threads with the initial tls: %d of 4, main tl %d\n", good, tl);
    return good == 4 && tl == 9 ? 0 : 1;
}
