/*
 * fuzz_mm.c -- libFuzzer target for the Matrix Market reader: any bytes
 * (plain text or gzip) go to psl_mm_read_buffer, which must either fail
 * with a parse-type status and a message, or return a CSR matrix whose
 * arrays are consistent.
 *
 * A legitimately declared huge matrix ("700000000 5 1": valid, but its CSR
 * row pointers take gigabytes) is not a reader bug; the harness skips plain
 * inputs whose size line declares more than 2^22 rows so that such
 * allocations do not trip libFuzzer's malloc limit. Size-line validation
 * itself is covered by tests/test_mm.c.
 */
#include "packsell.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rows declared by the first line after the banner that is not a comment or
 * blank (0 when there is none or it does not start with a number). */
static long long declared_rows(const uint8_t *data, size_t size)
{
    size_t p = 0;
    int line = 0;
    while (p < size) {
        size_t e = p;
        while (e < size && data[e] != '\n')
            e++;
        size_t q = p;
        while (q < e && (data[q] == ' ' || data[q] == '\t' || data[q] == '\r'))
            q++;
        if (line > 0 && q < e && data[q] != '%') {
            long long r = 0;
            while (q < e && data[q] >= '0' && data[q] <= '9' && r < (1LL << 40))
                r = r * 10 + (data[q++] - '0');
            return r;
        }
        line++;
        p = e + 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!(size >= 2 && data[0] == 0x1f && data[1] == 0x8b) && declared_rows(data, size) > (1 << 22))
        return 0;
    psl_matrix *A = NULL;
    psl_status st = psl_mm_read_buffer(&A, (const char *)data, size);
    if (st != PSL_OK) {
        if (A != NULL)
            abort(); /* handle must be NULL on failure */
        if (st != PSL_ERR_PARSE && st != PSL_ERR_UNSUPPORTED && st != PSL_ERR_NONFINITE &&
            st != PSL_ERR_IO && st != PSL_ERR_OUT_OF_MEMORY && st != PSL_ERR_INVALID_MATRIX)
            abort();
        if (psl_last_error_message()[0] == '\0')
            abort();
        return 0;
    }
    psl_matrix_info info;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    if (psl_matrix_get_info(A, &info) || psl_matrix_csr_view(A, &rp, &ci, &v))
        abort();
    if (rp[0] != 0 || rp[info.nrows] != info.nnz)
        abort();
    for (int32_t i = 0; i < info.nrows; i++) {
        if (rp[i + 1] < rp[i])
            abort();
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            if (ci[k] < 0 || ci[k] >= info.ncols || (k > rp[i] && ci[k] <= ci[k - 1]))
                abort();
            if (v[k] - v[k] != 0)
                abort(); /* NaN/Inf got through */
        }
    }
    psl_matrix_destroy(&A);
    return 0;
}
