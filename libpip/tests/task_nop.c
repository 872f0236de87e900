/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_nop.c: the smallest task: returns 0.  Built three ways: as a normal
 * task (-fPIE -pie -rdynamic), as task_nopie (-fno-pie -no-pie: libpip must
 * refuse it with ELIBEXEC) and as task_static.
 */
int main(void)
{
    return 0;
}
