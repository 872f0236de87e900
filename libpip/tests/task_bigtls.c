/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_bigtls.c: a PIE whose __thread data (128 KiB) is larger than any
 * root's default TLS reserve (64 KiB): pip-check must say it cannot be a
 * task of such a root.
 */
static __thread char big_tls[128 * 1024];

int main(int argc, char **argv)
{
    (void)argv;
    big_tls[argc] = 1;
    return big_tls[1] - 1;
}
