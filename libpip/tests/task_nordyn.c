/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_nordyn.c: a PIE linked without -rdynamic, so nothing of it is in the
 * dynamic symbol table: libpip finds main and the start functions in the
 * file's own symbol table (.symtab), as PiP 2.4 does.  Built a second time
 * stripped (task_nordyn_stripped): then main is found from _start
 * (pip_entry.c), the start functions are really absent (ENOEXEC).
 *
 *   main: returns 30 + argc.
 *   nordyn_start(arg): returns *(int *)arg + 1 (global, not exported).
 *   nordyn_static(arg): returns *(int *)arg + 2 (static).
 */
int nordyn_start(void *arg);

int nordyn_start(void *arg)
{
    return *(int *)arg + 1;
}

__attribute__((used)) static int nordyn_static(void *arg)
{
    return *(int *)arg + 2;
}

int main(int argc, char **argv)
{
    (void)argv;
    return 30 + argc;
}
