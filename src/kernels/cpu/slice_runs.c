/*
 * slice_runs.c -- which SIMD blocks of a SELL or PackSELL matrix have
 * consecutive columns at every position of their slice (stencil rows side by
 * side). Built once per matrix, at its first SIMD product on the CPU, and kept
 * with it (psl_matrix.cpu_runs, freed by psl_matrix_destroy): the sliced
 * kernels then load x of such a block in one unaligned load without testing
 * its columns word by word (87.5% of hpcg's blocks of 16; the FP16 and
 * E8M21 kernels 1.04-1.22x faster on the 16-core Xeon, bench/NOTES.md, CPU
 * against MKL). The table costs C/16 + C/8 bytes a slice.
 */
#include "cpu_common.h"

#include "core/internal.h"

#include <string.h>

/* Whether c[0..m-1] are c[0], c[0]+1, ...; a SELL block also needs c[0] >= 0
 * (no padding lane), as the kernels' own test. */
static bool consecutive(const uint32_t *c, int m, bool sell)
{
    if (sell && (int32_t)c[0] < 0)
        return false;
    for (int l = 1; l < m; l++)
        if (c[l] != c[0] + (uint32_t)l)
            return false;
    return true;
}

/* Whether the 16 columns c lie in the 32 from c[0] (c[0] >= 0), that window
 * inside x (c[0] + 31 < ncols); SELL padding lanes (< 0) aside, which the
 * kernels mask. */
static bool in_window(const uint32_t *c, bool sell, int32_t ncols)
{
    if ((int32_t)c[0] < 0 || (int64_t)c[0] + 31 >= ncols)
        return false;
    for (int l = 1; l < 16; l++)
        if (!(sell && (int32_t)c[l] < 0) && c[l] - c[0] >= 32u)
            return false;
    return true;
}

/* The n (8 or 16) lanes from l0 of slice k: *whole16 (n == 16) = consecutive
 * at every position as one block of 16 (1), else in the window of lane 0's
 * at every position (2, in_window), else 0; half8[h] = consecutive at every
 * position for its h-th block of 8 (1 or 0). PackSELL columns are the
 * kernels' running columns: the slice's start column plus every delta so far
 * (dummy and padding words included). */
static void group_runs(const psl_matrix *A, int32_t k, int32_t l0, int n, uint8_t *whole16,
                       uint8_t *half8)
{
    const int32_t C = A->C;
    const bool sell = A->format == PSL_FORMAT_SELL;
    const int64_t base = A->slice_ptr[k], width = (A->slice_ptr[k + 1] - base) / C;
    uint32_t cc[16] = {0};
    bool half[2] = {true, true}, all = n == 16, win = n == 16;
    const int nh = n / 8;
    if (!sell) {
        uint32_t c0 = (uint32_t)psl_spmv_start_col(A, (int64_t)k * C);
        for (int l = 0; l < n; l++)
            cc[l] = c0;
    }
    for (int64_t j = 0; j < width && (all || win || half[0] || (nh > 1 && half[1])); j++) {
        const int64_t off = base + j * C + l0;
        for (int l = 0; l < n; l++)
            cc[l] = sell ? (uint32_t)A->sell_col[off + l]
                         : cc[l] + psl_word_delta(A->words[off + l], A->delta_bits);
        for (int h = 0; h < nh; h++)
            half[h] = half[h] && consecutive(cc + 8 * h, 8, sell);
        all = all && half[0] && half[1] && cc[8] == cc[0] + 8u;
        win = win && in_window(cc, sell, A->ncols);
    }
    if (whole16)
        *whole16 = all ? 1 : win ? 2 : 0;
    for (int h = 0; h < nh; h++)
        half8[h] = half[h];
}

/* The table of a matrix: slice k's blocks of 16 at [k * (C / 16)], then its
 * blocks of 8 at [nslices * (C / 16) + k * (C / 8)]; NULL without memory. */
static uint8_t *build(const psl_matrix *A)
{
    const int32_t C = A->C, per16 = C / 16, per8 = C / 8;
    const int64_t n16 = (int64_t)A->nslices * per16, n8 = (int64_t)A->nslices * per8;
    uint8_t *r = psl_malloc((size_t)(n16 + n8 > 0 ? n16 + n8 : 1), 1);
    if (!r)
        return NULL;
    memset(r, 0, (size_t)(n16 + n8 > 0 ? n16 + n8 : 1));
    uint8_t *r16 = r, *r8 = r + n16;
#pragma omp parallel for schedule(dynamic, 64) if (A->stored > PSL_OMP_MIN_WORK)
    for (int32_t k = 0; k < A->nslices; k++) {
        const int64_t row0 = (int64_t)k * C;
        const int32_t lanes = (int32_t)(A->nrows - row0 < C ? A->nrows - row0 : C);
        int32_t b = 0;
        for (; b < per16 && (b + 1) * 16 <= lanes; b++)
            group_runs(A, k, b * 16, 16, &r16[(int64_t)k * per16 + b],
                       &r8[(int64_t)k * per8 + 2 * b]);
        for (int32_t g = 2 * b; g < per8 && (g + 1) * 8 <= lanes; g++)
            group_runs(A, k, g * 8, 8, NULL, &r8[(int64_t)k * per8 + g]);
    }
    return r;
}

const uint8_t *psl_cpu_slice_runs(const psl_matrix *A, int vl)
{
    if ((vl != 8 && vl != 16) ||
        (A->format != PSL_FORMAT_SELL && A->format != PSL_FORMAT_PACKSELL))
        return NULL;
    /* a cache of a const matrix: built once, published with a compare and
     * swap (a thread that loses frees its copy) */
    uint8_t **slot = &((psl_matrix *)A)->cpu_runs;
    uint8_t *r = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!r) {
        uint8_t *mine = build(A);
        if (!mine)
            return NULL;
        uint8_t *expected = NULL;
        if (__atomic_compare_exchange_n(slot, &expected, mine, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            r = mine;
        else {
            psl_free(mine);
            r = expected;
        }
    }
    return vl == 16 ? r : r + (int64_t)A->nslices * (A->C / 16);
}
