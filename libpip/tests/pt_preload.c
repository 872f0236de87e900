/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pt_preload.c: libpt_preload.so, loaded into a task's namespace by
 * PIP_NS_PRELOAD in test_pip_spawn: it defines pt_preload_probe, which
 * task_preload refers to (weakly) and finds only when the library comes
 * first in the namespace.
 */
int pt_preload_probe(void);

int pt_preload_probe(void)
{
    return 7;
}
