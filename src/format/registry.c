/*
 * registry.c -- the table of formats: one line per format in
 * PSL_FORMAT_LIST (its psl_format value and the psl_format_ops its folder
 * defines). How to add a format: see format/format_ops.h.
 */
#include "format/format_ops.h"

#define PSL_FORMAT_LIST(X)                  \
    X(PSL_FORMAT_CSR, psl_csr_ops)           \
    X(PSL_FORMAT_SELL, psl_sell_ops)         \
    X(PSL_FORMAT_PACKSELL, psl_packsell_ops) \
    X(PSL_FORMAT_CSRK, psl_csrk_ops)

#define PSL_FORMAT_DECLARE(value, ops) extern const psl_format_ops ops;
PSL_FORMAT_LIST(PSL_FORMAT_DECLARE)

#define PSL_FORMAT_ENTRY(value, ops) [value] = &ops,
static const psl_format_ops *const formats[] = {PSL_FORMAT_LIST(PSL_FORMAT_ENTRY)};

const psl_format_ops *psl_format_ops_of(psl_format f)
{
    if ((unsigned)f >= sizeof formats / sizeof formats[0])
        return NULL;
    return formats[f];
}

int psl_format_count(void) { return (int)(sizeof formats / sizeof formats[0]); }

const int32_t *psl_format_reorder_perm(const psl_matrix *A)
{
    const psl_format_ops *ops = psl_format_ops_of(A->format);
    return ops && ops->reorder_perm ? ops->reorder_perm(A) : NULL;
}
