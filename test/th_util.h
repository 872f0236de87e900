/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * th_util.h: helpers shared by the project's test programs.
 *
 * Test programs and the helper programs they start are built into the same
 * directory, so tests find their helpers next to their own executable.
 */
#ifndef TH_UTIL_H
#define TH_UTIL_H

/* Automake's exit codes for a skipped test and a broken setup. */
#define TH_EXIT_SKIP       77
#define TH_EXIT_HARD_ERROR 99

/*
 * Absolute path of the program `name` in the running test's own directory
 * (resolved from /proc/self/exe).  `name` may contain '/' to go to a
 * neighbouring directory ("../src/prog").  Returns a malloc'ed string, or
 * NULL with errno set.
 */
char *th_sibling_path(const char *name);

/*
 * Run argv[0] (searched in PATH if it has no '/') with the caller's
 * environment plus the NAME=value entries of env_add (NULL-terminated; may be
 * NULL).  Standard input is /dev/null.  Standard output and error are
 * captured into malloc'ed NUL-terminated strings stored in *out and *err
 * (either pointer may be NULL to discard that stream).  The child runs in its
 * own process group; after timeout_s seconds (<= 0: no limit) the whole group
 * is sent SIGKILL and -ETIMEDOUT is returned (the status is still stored).
 * *status receives the waitpid() status.  Returns 0 when the command ran to
 * completion, or a negative errno value.  TH_EXEC_WRAPPER, when set, is a
 * command (words split at blanks) put in front of argv: an emulator such
 * as `qemu-aarch64 -L /usr/aarch64-linux-gnu` that runs the test's helper
 * programs where the kernel cannot (make check-aarch64).
 */
int th_run(char *const argv[], char *const env_add[], int timeout_s,
           int *status, char **out, char **err);

/* Number of occurrences of `needle` in `haystack` (0 if either is NULL). */
int th_count(const char *haystack, const char *needle);

/*
 * May a process copy another's memory with process_vm_readv/writev (cross
 * memory attach: refused by Yama ptrace_scope >= 2, seccomp, missing
 * CAP_SYS_PTRACE across users)?  child_writes_parent = 0: the parent reads
 * a forked child; 1: a forked child writes into the parent, which first
 * allows any tracer (PR_SET_PTRACER).  Returns 0 when permitted, else the
 * errno of the refusal.  TH_TEST_NO_CMA=1 makes it answer EPERM (to try a
 * test's skip path on a machine that permits it).
 */
/*
 * Does the kernel release a robust mutex whose owner thread ended
 * (pthread_mutex_trylock gives EOWNERDEAD)?  Returns 0 if so, else a
 * positive errno: qemu-user, for one, has no set_robust_list, and dead
 * owners then stay owners.
 */
int th_robust_refused(void);

/*
 * Can this process clone(CLONE_VM) a child that is not a thread (libpip's
 * process mode)?  Returns 0 if so, else a positive errno: qemu-user
 * refuses it with EINVAL.
 */
int th_clone_vm_refused(void);
int th_cma_refused(int child_writes_parent);

#endif /* TH_UTIL_H */
