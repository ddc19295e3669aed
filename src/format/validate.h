/*
 * validate.h -- the machinery the formats' checks of a loaded matrix share
 * (psl_format_ops.validate, called by the binary reader): a parallel run of
 * one check per item (row, slice, sigma block) whose error is the same
 * whatever the number of threads, the totals the items add up, and the
 * value-bit tests of stored scalars.
 */
#ifndef PSL_FORMAT_VALIDATE_H
#define PSL_FORMAT_VALIDATE_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Fail with PSL_ERR_FILE_CORRUPT and a printf-style message. */
#define PSL_CORRUPT(...) psl_error(PSL_ERR_FILE_CORRUPT, __VA_ARGS__)

/* Totals gathered by the item checks. */
typedef struct psl_check_counts {
    int64_t nnz, padding, dummies;
    int32_t max_row;
} psl_check_counts;

/* Checker of one item (row, slice, sigma block); returns 0 when fine, else
 * 1 after writing a message into msg (when msg is not NULL). */
typedef int (*psl_item_check)(const psl_matrix *A, int64_t item, psl_check_counts *acc,
                              unsigned char *aux, char *msg, size_t msglen);

/* 1 after writing the message into msg when msg is not NULL (for checkers). */
int psl_check_fail(char *msg, size_t msglen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Run check over items 0..n-1 in parallel (when `work`, the elements they
 * cover, is large), grain items per task, summing counts into *total. On
 * failure, re-check the smallest failing item serially for its message:
 * PSL_ERR_FILE_CORRUPT "<file>: <message>". */
psl_status psl_check_items(const char *file, const psl_matrix *A, int64_t n, int64_t grain,
                           int64_t work, psl_item_check check, unsigned char *aux,
                           psl_check_counts *total);

/* Compare a count recomputed from the arrays with the header's. */
psl_status psl_check_same(const char *file, const char *what, int64_t header, int64_t found);

/* True when the raw value bits of stored value i of type t are Inf or NaN
 * (inline: called once per stored entry). */
static inline int psl_value_nonfinite(psl_scalar t, const void *vals, int64_t i)
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

/* True when stored value i of type t is all zero bits (SELL padding). */
static inline int psl_value_is_zero_bits(psl_scalar t, const void *vals, int64_t i)
{
    size_t es = psl_scalar_size(t);
    const unsigned char *p = (const unsigned char *)vals + es * (size_t)i;
    for (size_t k = 0; k < es; k++)
        if (p[k])
            return 0;
    return 1;
}

#endif /* PSL_FORMAT_VALIDATE_H */
