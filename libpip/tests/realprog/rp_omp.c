/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rp_omp.c: an OpenMP program (4 threads, a reduction, a threadprivate
 * counter) that writes its results to the file named by argv[1]; used by
 * test_pip_corpus.sh.
 */
#include <omp.h>
#include <stdio.h>

static int tp_count;
#pragma omp threadprivate(tp_count)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: rp_omp OUTFILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "w");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    omp_set_num_threads(4);
    for (int round = 0; round < 20; round++) {
        long sum = 0;
        int per[4] = {0, 0, 0, 0};
#pragma omp parallel reduction(+ : sum)
        {
            tp_count = 0;
#pragma omp for schedule(static)
            for (long i = 0; i < 100000; i++) {
                sum += (i * (round + 1)) % 97;
                tp_count++;
            }
            per[omp_get_thread_num() & 3] = tp_count;
        }
        fprintf(f, "round %d sum %ld split %d %d %d %d\n", round, sum, per[0],
                per[1], per[2], per[3]);
    }
    return fclose(f) == 0 ? 0 : 1;
}
