/*
 * validate.c -- the shared machinery of the formats' checks of a loaded
 * matrix (validate.h): the parallel item runner and the header-versus-arrays
 * comparison.
 */
#include "format/validate.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

int psl_check_fail(char *msg, size_t msglen, const char *fmt, ...)
{
    if (msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msglen, fmt, ap);
        va_end(ap);
    }
    return 1;
}

/* Below this many array elements the checks run on one thread (waking a
 * team costs more than it saves). */
#define PSL_BIN_PAR_MIN 32768

psl_status psl_check_items(const char *file, const psl_matrix *A, int64_t n, int64_t grain,
                           int64_t work, psl_item_check check, unsigned char *aux,
                           psl_check_counts *total)
{
    atomic_llong first_bad = n;
    psl_check_counts sum = {0, 0, 0, 0};
#pragma omp parallel if (work > PSL_BIN_PAR_MIN)
    {
        psl_check_counts mine = {0, 0, 0, 0};
#pragma omp for schedule(dynamic, 1) nowait
        for (int64_t b = 0; b < (n + grain - 1) / grain; b++) {
            for (int64_t i = b * grain; i < n && i < (b + 1) * grain; i++) {
                if (i > atomic_load_explicit(&first_bad, memory_order_relaxed))
                    break;
                if (check(A, i, &mine, aux, NULL, 0)) {
                    long long cur = atomic_load(&first_bad);
                    while (i < cur && !atomic_compare_exchange_weak(&first_bad, &cur, i))
                        ;
                    break;
                }
            }
        }
#pragma omp critical(psl_binfile_counts)
        {
            sum.nnz += mine.nnz;
            sum.padding += mine.padding;
            sum.dummies += mine.dummies;
            if (mine.max_row > sum.max_row)
                sum.max_row = mine.max_row;
        }
    }
    long long bad = atomic_load(&first_bad);
    if (bad < n) {
        char msg[400];
        psl_check_counts scratch = {0, 0, 0, 0};
        msg[0] = '\0';
        check(A, bad, &scratch, aux, msg, sizeof msg);
        return PSL_CORRUPT("%s: %s", file, msg);
    }
    *total = sum;
    return PSL_OK;
}

psl_status psl_check_same(const char *file, const char *what, int64_t header, int64_t found)
{
    if (header != found)
        return PSL_CORRUPT("%s: header says %s = %lld, the arrays hold %lld", file, what,
                           (long long)header, (long long)found);
    return PSL_OK;
}
