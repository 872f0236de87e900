/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_preload.c: exits 30 + pt_preload_probe() when a library of its
 * namespace defines it (PIP_NS_PRELOAD=libpt_preload.so: 37), else 30.
 * It is not linked with that library.
 */
#include <stdio.h>

int pt_preload_probe(void) __attribute__((weak));

int main(void)
{
    int v = pt_preload_probe ? pt_preload_probe() : 0;
    printf("probe %d\n", v);
    return 30 + v;
}
