/*
 * validate.c -- the shared machinery of the formats' checks of a loaded
 * matrix (validate.h): the parallel item runner, the header-versus-arrays
 * comparison and the value-bit tests.
 */
#include "format/validate.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

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

int psl_value_nonfinite(psl_scalar t, const void *vals, int64_t i)
{
    switch (t) {
    case PSL_FP64: {
        uint64_t u;
        memcpy(&u, (const unsigned char *)vals + 8 * i, 8);
        return (u & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000);
    }
    case PSL_FP32: {
        uint32_t u;
        memcpy(&u, (const unsigned char *)vals + 4 * i, 4);
        return (u & 0x7f800000u) == 0x7f800000u;
    }
    case PSL_FP16: return (((const uint16_t *)vals)[i] & 0x7c00u) == 0x7c00u;
    case PSL_BF16: return (((const uint16_t *)vals)[i] & 0x7f80u) == 0x7f80u;
    }
    return 1;
}

int psl_value_is_zero_bits(psl_scalar t, const void *vals, int64_t i)
{
    size_t es = psl_scalar_size(t);
    const unsigned char *p = (const unsigned char *)vals + es * (size_t)i;
    for (size_t k = 0; k < es; k++)
        if (p[k])
            return 0;
    return 1;
}
