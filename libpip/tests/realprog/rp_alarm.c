/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rp_alarm.c: a program that waits for its own timer signals, as
 * programs with timeouts do: a SIGALRM handler, setitimer (one shot, then
 * periodic), sigsuspend() with the signal blocked between waits,
 * sigtimedwait(), alarm(), and a SIGUSR1 handler for raise().  Every task
 * must get its own signals and handlers (thread mode included).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t ticks, usr1;

static void on_alarm(int sig)
{
    (void)sig;
    ticks++;
}

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    usr1 += sig == SIGUSR1 && si != NULL;
}

/* Sleep until the handler has counted `want` ticks.  SIGALRM stays blocked
 * outside sigsuspend, so one wait takes one tick and the count cannot run
 * past `want` however late this program gets the CPU. */
static void wait_ticks(int want, const sigset_t *open_mask)
{
    while (ticks < want)
        sigsuspend(open_mask);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    if (sigaction(SIGALRM, &sa, NULL) != 0)
        return 2;
    sigset_t alrm, open_mask;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    if (sigprocmask(SIG_BLOCK, &alrm, &open_mask) != 0)
        return 5;
    sigdelset(&open_mask, SIGALRM);
    /* One shot of 20 ms. */
    struct itimerval it = {{0, 0}, {0, 20000}};
    if (setitimer(ITIMER_REAL, &it, NULL) != 0)
        return 3;
    wait_ticks(1, &open_mask);
    /* Periodic, 5 ms, three ticks, then off. */
    struct itimerval per = {{0, 5000}, {0, 5000}}, off = {{0, 0}, {0, 0}};
    if (setitimer(ITIMER_REAL, &per, NULL) != 0)
        return 4;
    wait_ticks(4, &open_mask);
    setitimer(ITIMER_REAL, &off, NULL);
    struct itimerval cur;
    getitimer(ITIMER_REAL, &cur);
    /* A tick that came after the fourth is pending: take it unhandled. */
    struct timespec now = {0, 0};
    while (sigtimedwait(&alrm, NULL, &now) == SIGALRM)
        ;
    sigprocmask(SIG_UNBLOCK, &alrm, NULL);
    /* alarm: set, read back, cancel. */
    alarm(100);
    unsigned left = alarm(0);
    /* signal() and raise() with an SA_SIGINFO handler. */
    struct sigaction su;
    memset(&su, 0, sizeof(su));
    su.sa_sigaction = on_usr1;
    su.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &su, NULL);
    raise(SIGUSR1);
    printf("ticks %d timer off %d alarm left %u usr1 %d\n", (int)ticks,
           cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0, left,
           (int)usr1);
    return 0;
}
