/*
 * convert.cu -- psl_dmatrix_convert (extern "C"): a device CSR matrix to a
 * device SELL / PackSELL / CSR matrix built on the device, bit-identical to
 * psl_matrix_convert + psl_dmatrix_upload. Checks the arguments, runs the
 * passes of convert_count.cu, convert_sort.cu and convert_encode.cu on the
 * caller's stream, synchronizes twice (the output size after the layout
 * pass, the final status after encoding), turns the device's first-error
 * records into the CPU's messages, and wraps the arrays in a psl_dmatrix
 * whose statistics come from psl_matrix_get_info of an array-less host
 * shell with the CPU builders' fields.
 */
#include "convert.cuh"

#include "format/build.h"

#include <stdio.h>
#include <string.h>

/* Everything one conversion holds (device pointers unless said). */
typedef struct psl_conv_state {
    psl_dconv c;
    psl_dconv_sum h; /* host copy of *c.sum */
    int64_t *len;    /* temporaries (stream-ordered) */
    int32_t *order;
    /* the result's arrays (cudaMalloc, owned by the psl_dmatrix at the end) */
    void *slice_ptr, *perm, *words, *col, *val, *crp, *cci, *cval;
} psl_conv_state;

/* A result array of n elements of size bytes (NULL when n == 0). */
static psl_status psl_conv_alloc(void **p, int64_t n, size_t size, const char *what)
{
    *p = NULL;
    if (n <= 0)
        return PSL_OK;
    if ((uint64_t)n > SIZE_MAX / size)
        return psl_error(PSL_ERR_SIZE_OVERFLOW, "device %s: %lld elements of %zu bytes", what,
                         (long long)n, size);
    cudaError_t err = cudaMalloc(p, (size_t)n * size);
    if (err != cudaSuccess) {
        *p = NULL;
        (void)cudaGetLastError();
        return psl_error(PSL_ERR_CUDA,
                         "cudaMalloc of %zu bytes for the device %s failed: %s (%s)",
                         (size_t)n * size, what, cudaGetErrorString(err), cudaGetErrorName(err));
    }
    return PSL_OK;
}

/* Copy the device records into st->h and wait for the stream. */
static psl_status psl_conv_sync(psl_conv_state *st)
{
    PSL_TRY(PSL_CUDA_OK(
        cudaMemcpyAsync(&st->h, st->c.sum, sizeof st->h, cudaMemcpyDeviceToHost, st->c.s)));
    return PSL_CUDA_OK(cudaStreamSynchronize(st->c.s));
}

/* The error of the first row_ptr problem (key as in psl_dconv_sum). */
static psl_status psl_conv_rp_error(psl_conv_state *st, unsigned long long key)
{
    const psl_dconv *c = &st->c;
    int64_t v[2] = {0, 0};
    const int64_t i = key == 0 ? 0 : (int64_t)key - 1;
    const int64_t cnt = key == 0 || key == (unsigned long long)c->nrows + 1 ? 1 : 2;
    PSL_TRY(PSL_CUDA_OK(cudaMemcpyAsync(v, c->rp + i, (size_t)cnt * sizeof(int64_t),
                                        cudaMemcpyDeviceToHost, c->s)));
    PSL_TRY(PSL_CUDA_OK(cudaStreamSynchronize(c->s)));
    if (key == 0)
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, -1, -1,
                            "device CSR: row_ptr[0] is %lld but must be 0", (long long)v[0]);
    if (cnt == 1)
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, -1, -1,
                            "device CSR: row_ptr[%lld] (the last entry) is %lld but must equal "
                            "nnz = %lld",
                            (long long)c->nrows, (long long)v[0], (long long)c->nnz);
    return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, i, -1,
                        "device CSR: row_ptr decreases at row %lld (0-based): row_ptr[%lld] = "
                        "%lld < row_ptr[%lld] = %lld",
                        (long long)i, (long long)i + 1, (long long)v[1], (long long)i,
                        (long long)v[0]);
}

/* The error of the first row with a column problem. */
static psl_status psl_conv_col_error(psl_conv_state *st, int64_t row)
{
    PSL_TRY(psl_conv_describe_row(&st->c, row));
    PSL_TRY(psl_conv_sync(st));
    const psl_dconv_sum *h = &st->h;
    const long long col = h->err_col, prev = h->err_prev;
    switch (h->err_kind) {
    case PSL_CONV_ERR_RANGE:
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, row, col,
                            "device CSR: column index %lld out of range [0, %lld] in row %lld "
                            "(0-based)",
                            col, (long long)st->c.ncols - 1, (long long)row);
    case PSL_CONV_ERR_UNSORTED:
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, row, col,
                            "device CSR: columns of row %lld are not sorted: column %lld follows "
                            "column %lld (0-based; psl_dmatrix_convert needs strictly ascending "
                            "columns)",
                            (long long)row, col, prev);
    case PSL_CONV_ERR_DUPLICATE:
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, row, col,
                            "device CSR: duplicate column %lld in row %lld (0-based; "
                            "psl_dmatrix_convert needs strictly ascending columns)",
                            col, (long long)row);
    }
    return psl_error_at(PSL_ERR_INTERNAL, -1, row, -1,
                        "negative column delta in row %lld of the device conversion",
                        (long long)row);
}

/* The error of the first entry whose value could not be stored: the CPU's
 * message (psl_round_error) with the status its own rounding gives. */
static psl_status psl_conv_value_error(psl_conv_state *st, int64_t k)
{
    const psl_dconv *c = &st->c;
    PSL_TRY(psl_conv_describe_entry(c, k));
    PSL_TRY(psl_conv_sync(st));
    const double v = st->h.err_val;
    char name[16];
    psl_status why;
    if (c->format == PSL_FORMAT_PACKSELL) {
        uint32_t b;
        PSL_TRY(psl_codec_name(c->codec, name, sizeof name));
        why = psl_exmy_encode(c->codec.exp_bits, c->codec.man_bits, c->policy, v, &b);
    } else {
        uint64_t b;
        int uf;
        snprintf(name, sizeof name, "%s", psl_scalar_display(c->out_type));
        why = psl_round_scalar(c->out_type, c->policy, v, &b, &uf);
    }
    return psl_round_error(why, st->h.err_row, st->h.err_col, v, name);
}

/* Row_ptr and column errors found by the first passes (st->h current). */
static psl_status psl_conv_structure_error(psl_conv_state *st)
{
    if (st->h.rp_bad != PSL_CONV_NONE)
        return psl_conv_rp_error(st, st->h.rp_bad);
    if (st->h.col_bad != PSL_CONV_NONE)
        return psl_conv_col_error(st, (int64_t)st->h.col_bad);
    return PSL_OK;
}

/* SELL / PackSELL on the device; fills the shell's fields. */
static psl_status psl_conv_sliced(psl_conv_state *st, psl_matrix *A,
                                  const psl_convert_options *opt)
{
    psl_dconv *c = &st->c;
    const bool pack = c->format == PSL_FORMAT_PACKSELL;
    const int64_t n = c->nrows;
    const int pb = c->sigma > 0 ? psl_perm_bytes_for_sigma(c->sigma) : 0;
    int64_t total = 0;
    psl_status s;

    PSL_TRY(psl_conv_row_lengths(c, pack, st->len));
    PSL_TRY(psl_conv_rsd(c));
    if (c->sigma > 0)
        PSL_TRY(psl_conv_order(c, st->len, st->order));
    const int32_t *order = c->sigma > 0 ? st->order : NULL;
    PSL_TRY(psl_conv_alloc(&st->slice_ptr, (int64_t)c->nslices + 1, sizeof(int64_t),
                           "slice offsets"));
    PSL_TRY(psl_conv_slices(c, st->len, order, (int64_t *)st->slice_ptr, &c->sum->max_width));
    PSL_TRY(PSL_CUDA_OK(cudaMemcpyAsync(&total, (int64_t *)st->slice_ptr + c->nslices,
                                        sizeof total, cudaMemcpyDeviceToHost, c->s)));
    PSL_TRY(psl_conv_sync(st)); /* the output size */
    PSL_TRY(psl_conv_structure_error(st));
    if ((unsigned __int128)st->h.max_width * (unsigned)c->C * (unsigned)c->nslices >
        (unsigned __int128)INT64_MAX)
        return psl_error(PSL_ERR_SIZE_OVERFLOW,
                         "the stored entries of %lld slices exceed int64 (widest slice %llu)",
                         (long long)c->nslices, st->h.max_width);

    if (c->sigma > 0 && n > 0) {
        PSL_TRY(psl_conv_alloc(&st->perm, n, (size_t)pb, "permutation"));
        PSL_TRY(psl_conv_perm(c, st->order, st->perm, pb));
    }
    if (pack) {
        PSL_TRY(psl_conv_alloc(&st->words, total, sizeof(uint32_t), "PackSELL words"));
        PSL_TRY(psl_conv_encode_packsell(c, order, (const int64_t *)st->slice_ptr,
                                         (uint32_t *)st->words));
        /* the equivalent SELL: the slicing of the entry counts (without
         * dummies, words == entries in every row: the same slicing) */
        if (st->h.dummies > 0) {
            int64_t *sp = NULL;
            PSL_TRY(psl_conv_entry_lengths(c, st->len)); /* stream order: after the encode */
            if (c->sigma > 0)
                PSL_TRY(psl_conv_order(c, st->len, st->order));
            PSL_TRY(PSL_CUDA_OK(cudaMallocAsync((void **)&sp,
                                                ((size_t)c->nslices + 1) * sizeof *sp, c->s)));
            s = psl_conv_slices(c, st->len, order, sp, NULL);
            if (s == PSL_OK)
                s = PSL_CUDA_OK(cudaMemcpyAsync(&c->sum->sell_stored, sp + c->nslices,
                                                sizeof *sp, cudaMemcpyDeviceToDevice, c->s));
            psl_status fr = PSL_CUDA_OK(cudaFreeAsync(sp, c->s));
            PSL_TRY(s);
            PSL_TRY(fr);
        }
    } else {
        PSL_TRY(psl_conv_alloc(&st->col, total, sizeof(int32_t), "SELL columns"));
        PSL_TRY(psl_conv_alloc(&st->val, total, psl_scalar_size(c->out_type), "SELL values"));
        PSL_TRY(psl_conv_encode_sell(c, order, (const int64_t *)st->slice_ptr,
                                     (int32_t *)st->col, st->val));
    }
    PSL_TRY(psl_conv_sync(st)); /* the final status */
    if (st->h.val_bad != PSL_CONV_NONE)
        return psl_conv_value_error(st, (int64_t)st->h.val_bad);

    /* the fields psl_sell_build / psl_packsell_build set */
    const int64_t vsize = pack ? (31 - c->D <= 16 ? 2 : 4) : (int64_t)psl_scalar_size(c->out_type);
    A->C = c->C;
    A->sigma = c->sigma;
    A->permute = opt->permute;
    A->nslices = c->nslices;
    A->perm_bytes = pb;
    A->stored = total;
    A->underflows = (int64_t)st->h.underflows;
    A->csr_equiv_bytes = (n + 1) * 8 + c->nnz * (4 + vsize);
    const int64_t ptr_bytes = ((int64_t)c->nslices + 1) * 8 +
                              (opt->permute == PSL_PERMUTE_IMPLICIT ? n * pb : 0);
    if (pack) {
        A->codec = c->codec;
        A->delta_bits = c->D;
        A->dummies = (int64_t)st->h.dummies;
        A->padding = total - c->nnz - A->dummies;
        A->sell_equiv_bytes = (st->h.dummies == 0 ? total : st->h.sell_stored) * (vsize + 4) +
                              ptr_bytes;
    } else {
        A->value_type = c->out_type;
        A->padding = total - c->nnz;
        A->sell_equiv_bytes = total * (4 + vsize) + ptr_bytes;
    }
    return PSL_OK;
}

/* CSR on the device (the arrays cuSPARSE gets from an upload). */
static psl_status psl_conv_csr(psl_conv_state *st, psl_matrix *A, bool *index64)
{
    psl_dconv *c = &st->c;
    PSL_TRY(psl_conv_row_lengths(c, false, st->len));
    PSL_TRY(psl_conv_rsd(c));
    *index64 = c->nnz > INT32_MAX;
    if (c->nrows > 0 && c->ncols > 0 && c->nnz > 0) {
        const size_t iw = *index64 ? 8 : 4;
        PSL_TRY(psl_conv_alloc(&st->crp, (int64_t)c->nrows + 1, iw, "CSR row pointers"));
        PSL_TRY(psl_conv_alloc(&st->cci, c->nnz, iw, "CSR columns"));
        PSL_TRY(psl_conv_alloc(&st->cval, c->nnz, psl_scalar_size(c->out_type), "CSR values"));
        PSL_TRY(psl_conv_encode_csr(c, *index64, st->crp, st->cci, st->cval));
    }
    PSL_TRY(psl_conv_sync(st));
    PSL_TRY(psl_conv_structure_error(st));
    if (st->h.val_bad != PSL_CONV_NONE)
        return psl_conv_value_error(st, (int64_t)st->h.val_bad);
    A->value_type = c->out_type;
    A->stored = c->nnz;
    A->underflows = (int64_t)st->h.underflows;
    return PSL_OK;
}

/* Argument checks that need no device work. */
static psl_status psl_conv_check_args(const psl_dcsr *A, const psl_convert_options *opt)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "device CSR matrix A is NULL");
    if (!opt)
        return psl_error(PSL_ERR_NULL_POINTER, "conversion options are NULL");
    if (A->nrows < 0 || A->ncols < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "matrix dimensions %ld x %ld must be >= 0",
                         (long)A->nrows, (long)A->ncols);
    if (A->nnz < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "device CSR: nnz = %lld must be >= 0",
                         (long long)A->nnz);
    if (A->value_type != PSL_FP64 && A->value_type != PSL_FP32)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "device CSR values must be PSL_FP64 or PSL_FP32 (got %d)",
                         (int)A->value_type);
    PSL_TRY(psl_convert_check_options(opt));
    if (opt->format != PSL_FORMAT_CSR && opt->format != PSL_FORMAT_SELL &&
        opt->format != PSL_FORMAT_PACKSELL) /* the device builds below; other formats: none */
        return psl_error(PSL_ERR_NOT_SUPPORTED,
                         "psl_dmatrix_convert builds CSR, SELL and PackSELL matrices only (not %s)",
                         psl_format_display(opt->format));
    if (!A->row_ptr && A->nrows > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "device CSR: row_ptr is NULL for %ld rows",
                         (long)A->nrows);
    if (A->nnz > 0 && (!A->col_idx || !A->values))
        return psl_error(PSL_ERR_NULL_POINTER, "device CSR: %s is NULL with %lld entries",
                         A->col_idx ? "values" : "col_idx", (long long)A->nnz);
    if (!A->row_ptr && A->nnz != 0)
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, -1, -1,
                            "device CSR: a matrix without rows has nnz = %lld, must be 0",
                            (long long)A->nnz);
    return PSL_OK;
}

extern "C" psl_status psl_dmatrix_convert(psl_dmatrix **dA, const psl_dcsr *A,
                                          const psl_convert_options *opt, void *stream)
{
    if (!dA)
        return psl_error(PSL_ERR_NULL_POINTER, "device matrix output pointer dA is NULL");
    *dA = NULL;
    PSL_TRY(psl_conv_check_args(A, opt));
    int dev = 0;
    PSL_TRY(PSL_CUDA_OK(cudaGetDevice(&dev)));
    if (A->row_ptr)
        PSL_TRY(psl_cuda_check_ptr(dev, A->row_ptr, "device CSR", "row_ptr"));
    if (A->nnz > 0) {
        PSL_TRY(psl_cuda_check_ptr(dev, A->col_idx, "device CSR", "col_idx"));
        PSL_TRY(psl_cuda_check_ptr(dev, A->values, "device CSR", "values"));
    }

    psl_status st = PSL_OK;
    psl_conv_state S;
    memset(&S, 0, sizeof S);
    psl_dconv *c = &S.c;
    psl_matrix *shell = NULL;
    psl_dmatrix *d = NULL;
    bool index64 = false;
    const bool sliced = opt->format != PSL_FORMAT_CSR;
    c->nrows = A->nrows;
    c->ncols = A->ncols;
    c->nnz = A->nnz;
    c->rp = A->row_ptr;
    c->ci = A->col_idx;
    c->val = A->values;
    c->in_type = A->value_type;
    c->format = opt->format;
    c->out_type = opt->format == PSL_FORMAT_PACKSELL ? PSL_FP64 : opt->value_type;
    c->codec = opt->codec;
    c->D = opt->format == PSL_FORMAT_PACKSELL ? psl_codec_delta_bits(opt->codec) : 0;
    c->policy = opt->overflow;
    c->C = sliced ? opt->slice_height : 0;
    c->sigma = sliced ? opt->sigma : 0;
    c->dblock = sliced ? (opt->sigma ? opt->sigma : opt->slice_height) : 1;
    c->nslices = sliced ? (int32_t)(((int64_t)A->nrows + c->C - 1) / c->C) : 0;
    c->s = (cudaStream_t)stream;

    shell = psl_matrix_new(opt->format, A->nrows, A->ncols);
    if (!shell) {
        st = psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating the matrix handle");
        goto fail;
    }
    /* device records: errors none, kleft none, the rest 0 */
    S.h.rp_bad = S.h.col_bad = S.h.val_bad = PSL_CONV_NONE;
    S.h.kleft = LLONG_MIN;
    PSL_CUDA_GO(cudaMallocAsync((void **)&c->sum, sizeof S.h, c->s));
    PSL_CUDA_GO(cudaMemcpyAsync(c->sum, &S.h, sizeof S.h, cudaMemcpyHostToDevice, c->s));
    if (A->nrows > 0) {
        PSL_CUDA_GO(cudaMallocAsync((void **)&S.len, (size_t)A->nrows * sizeof *S.len, c->s));
        if (c->sigma > 0)
            PSL_CUDA_GO(
                cudaMallocAsync((void **)&S.order, (size_t)A->nrows * sizeof *S.order, c->s));
    }
    if (A->row_ptr && (st = psl_conv_scan_rows(c)) != PSL_OK)
        goto fail;
    st = sliced ? psl_conv_sliced(&S, shell, opt) : psl_conv_csr(&S, shell, &index64);
    if (st != PSL_OK)
        goto fail;

    /* the statistics every builder copies from its CSR source */
    shell->nnz = A->nnz;
    shell->kleft = S.h.kleft == LLONG_MIN ? 0 : S.h.kleft;
    shell->max_row_nnz = S.h.max_len > INT32_MAX ? INT32_MAX : (int32_t)S.h.max_len;
    shell->rsd = S.h.rsd;
    if ((st = psl_dmatrix_new(&d, shell)) != PSL_OK)
        goto fail;
    if (sliced) {
        d->d_slice_ptr = S.slice_ptr;
        d->d_perm = S.perm;
        d->d_words = S.words;
        d->d_col = S.col;
        d->d_val = S.val;
        S.slice_ptr = S.perm = S.words = S.col = S.val = NULL;
        psl_dmatrix_set_sliced(d, shell);
        /* long rows: only a matrix with a wide slice reads its offsets back */
        if ((st = psl_dmatrix_setup_wide(d, NULL, (int64_t)S.h.max_width, c->s)) != PSL_OK ||
            (st = psl_dmatrix_setup_tiny(d, NULL, c->s)) != PSL_OK)
            goto fail;
    } else if (S.crp) {
        d->d_row_ptr = S.crp;
        d->d_csr_col = S.cci;
        d->d_csr_val = S.cval;
        d->csr_index64 = index64;
        S.crp = S.cci = S.cval = NULL;
        if ((st = psl_cuda_csr_setup(d)) != PSL_OK)
            goto fail;
    }
fail:
    /* temporaries are stream-ordered; a failed call waits for its kernels
     * before freeing the result arrays they may still write */
    if (S.len)
        (void)cudaFreeAsync(S.len, c->s);
    if (S.order)
        (void)cudaFreeAsync(S.order, c->s);
    if (c->sum)
        (void)cudaFreeAsync(c->sum, c->s);
    if (st != PSL_OK) {
        void *res[] = {S.slice_ptr, S.perm, S.words, S.col, S.val, S.crp, S.cci, S.cval};
        (void)cudaStreamSynchronize(c->s);
        for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
            if (res[i])
                (void)cudaFree(res[i]);
        if (d)
            psl_dmatrix_free(d);
        d = NULL;
    }
    (void)cudaGetLastError();
    psl_matrix_destroy(&shell);
    *dA = d;
    return st;
}
