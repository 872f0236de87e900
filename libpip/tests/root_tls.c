/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * root_tls.c: roots for pip-check's tests, built twice: with a TLS reserve
 * of ROOT_RESERVE bytes (65536: a good root; 1024: too small).  Linked
 * with libpip; never run by the tests.
 */
#include <pip/pip.h>

#ifndef ROOT_RESERVE
#define ROOT_RESERVE 65536
#endif

PIP_ROOT_TLS_RESERVE(ROOT_RESERVE);

int main(void)
{
    return pip_is_initialized();
}
