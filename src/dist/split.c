/*
 * split.c -- one rank's rows into the diagonal block A_d (owned columns,
 * local indices) and the off-diagonal block A_o (ghost columns renumbered
 * 0..nghost-1 through garray, the sorted unique ghost columns), each built
 * with psl_matrix_create_csr and converted to the format asked for.
 */
#include "dist/dist_internal.h"

#include <stdlib.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Index of g in the sorted garray[0..n) (present by construction). */
static int32_t ghost_index(const int64_t *garray, int32_t n, int64_t g)
{
    int32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (garray[mid] < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A CSR matrix from the arrays, converted by opt (NULL or FP64 CSR: kept). */
static psl_status build_block(psl_matrix **out, int32_t nrows, int32_t ncols,
                              const int64_t *rp, const int32_t *ci, const double *v,
                              const psl_convert_options *opt)
{
    psl_matrix *csr = NULL;
    PSL_TRY(psl_matrix_create_csr(&csr, nrows, ncols, rp, ci, v, PSL_FP64, 0, 0));
    if (!opt || (opt->format == PSL_FORMAT_CSR && opt->value_type == PSL_FP64)) {
        *out = csr;
        return PSL_OK;
    }
    psl_status st = psl_matrix_convert(out, csr, opt);
    psl_matrix_destroy(&csr);
    return st;
}

psl_status psl_dist_split(psl_dist_matrix *A, const int64_t *row_ptr, const int64_t *col_idx,
                          const double *values, const psl_convert_options *diag_opt,
                          const psl_convert_options *offd_opt)
{
    psl_status st = PSL_OK;
    const int32_t n = A->nrows;
    const int64_t lo = A->first_row, hi = A->first_row + n;
    const int64_t nnz = row_ptr[n];
    int64_t *rp_d = NULL, *rp_o = NULL, *ghosts = NULL;
    int32_t *ci_d = NULL, *ci_o = NULL;
    double *v_d = NULL, *v_o = NULL;

    int64_t nd = 0, no = 0;
    for (int64_t k = 0; k < nnz; k++) {
        if (col_idx[k] >= lo && col_idx[k] < hi)
            nd++;
        else
            no++;
    }
    if ((st = psl_alloc((void **)&rp_d, (size_t)n + 1, sizeof *rp_d, "A_d row pointers")) ||
        (st = psl_alloc((void **)&rp_o, (size_t)n + 1, sizeof *rp_o, "A_o row pointers")) ||
        (st = psl_alloc((void **)&ci_d, nd ? (size_t)nd : 1, sizeof *ci_d, "A_d columns")) ||
        (st = psl_alloc((void **)&v_d, nd ? (size_t)nd : 1, sizeof *v_d, "A_d values")) ||
        (st = psl_alloc((void **)&ci_o, no ? (size_t)no : 1, sizeof *ci_o, "A_o columns")) ||
        (st = psl_alloc((void **)&v_o, no ? (size_t)no : 1, sizeof *v_o, "A_o values")) ||
        (st = psl_alloc((void **)&ghosts, no ? (size_t)no : 1, sizeof *ghosts, "ghost list")) ||
        (st = psl_alloc_zero((void **)&A->diag, n ? (size_t)n : 1, sizeof *A->diag, "diagonal")))
        goto fail;

    /* the ghost columns, sorted and unique: garray */
    int64_t ng = 0;
    for (int64_t k = 0; k < nnz; k++)
        if (col_idx[k] < lo || col_idx[k] >= hi)
            ghosts[ng++] = col_idx[k];
    qsort(ghosts, (size_t)ng, sizeof *ghosts, cmp_i64);
    int64_t u = 0;
    for (int64_t k = 0; k < ng; k++)
        if (u == 0 || ghosts[k] != ghosts[u - 1])
            ghosts[u++] = ghosts[k];
    if (u > INT32_MAX) {
        st = psl_error(PSL_ERR_SIZE_OVERFLOW, "psl_dist_matrix_create_csr: %lld ghost columns "
                       "on one rank, beyond int32", (long long)u);
        goto fail;
    }
    A->nghost = (int32_t)u;
    if ((st = psl_alloc((void **)&A->garray, u ? (size_t)u : 1, sizeof *A->garray, "garray")))
        goto fail;
    for (int64_t k = 0; k < u; k++)
        A->garray[k] = ghosts[k];

    /* the two blocks' arrays, and the diagonal (duplicates summed) */
    rp_d[0] = rp_o[0] = 0;
    nd = no = 0;
    for (int32_t i = 0; i < n; i++) {
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
            int64_t c = col_idx[k];
            if (c >= lo && c < hi) {
                ci_d[nd] = (int32_t)(c - lo);
                v_d[nd++] = values[k];
                if (c == lo + i)
                    A->diag[i] += values[k];
            } else {
                ci_o[no] = ghost_index(A->garray, A->nghost, c);
                v_o[no++] = values[k];
            }
        }
        rp_d[i + 1] = nd;
        rp_o[i + 1] = no;
    }
    if ((st = build_block(&A->A_d, n, n, rp_d, ci_d, v_d, diag_opt)) ||
        (st = build_block(&A->A_o, n, A->nghost, rp_o, ci_o, v_o, offd_opt)))
        goto fail;
    psl_matrix_info info;
    if ((st = psl_matrix_get_info(A->A_d, &info)))
        goto fail;
    A->nnz_d = info.nnz;
    if ((st = psl_matrix_get_info(A->A_o, &info)))
        goto fail;
    A->nnz_o = info.nnz;
fail:
    free(rp_d);
    free(rp_o);
    free(ci_d);
    free(ci_o);
    free(v_d);
    free(v_o);
    free(ghosts);
    return st;
}
