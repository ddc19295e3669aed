/*
 * test_binfile.c -- the binary matrix file (psl_matrix_save / _load /
 * _load_buffer): round trips of every format compared field by field and
 * array by array, and every kind of damage (byte flips with and without
 * repaired checksums, truncation, lying lengths, targeted violations of each
 * structural invariant, versions) giving a clean error.
 *
 * The test walks and repairs files with its own reader of the documented
 * layout (binfile_format.h) and zlib's crc32, independent of the library's.
 */
#define _POSIX_C_SOURCE 200809L /* getpid, setrlimit, signal, opendir */

#include "packsell.h"
#include "internal.h"
#include "harness.h"

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ------------------------------------------------------------ layout (spec) */

enum { PRE = 24, H = 24 }; /* preamble size; the header block starts at H */
enum {
    H_FORMAT = H + 0, H_VTYPE = H + 4, H_NROWS = H + 8, H_NCOLS = H + 12, H_NNZ = H + 16,
    H_C = H + 24, H_SIGMA = H + 28, H_PERMUTE = H + 32, H_NSLICES = H + 36, H_PERMB = H + 40,
    H_EXP = H + 44, H_MAN = H + 48, H_D = H + 52, H_KLEFT = H + 56, H_STORED = H + 64,
    H_PADDING = H + 72, H_DUMMIES = H + 80, H_UNDERFLOWS = H + 88, H_MAXROW = H + 112,
    H_NARRAYS = H + 116, H_RSD = H + 120
};
enum { A_ROW_PTR = 1, A_COL_IDX, A_VALUES, A_SLICE_PTR, A_PERM, A_SELL_COL, A_SELL_VAL, A_WORDS };

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const unsigned char *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }
static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* Position of one array record in a file image. */
typedef struct {
    uint32_t id, es;
    size_t rec, data;
    uint64_t count, bytes;
} rec_pos;

/* Walk the records of an image (stops at the end of a damaged one). */
static int walk(const unsigned char *b, size_t len, rec_pos *r, int max)
{
    if (len < PRE + 128)
        return 0;
    size_t off = PRE + (size_t)get32(b + 16);
    int n = 0, want = (int)get32(b + H_NARRAYS);
    for (; n < want && n < max && off <= len && len - off >= 24; n++) {
        r[n].rec = off;
        r[n].id = get32(b + off);
        r[n].es = get32(b + off + 4);
        r[n].count = get64(b + off + 8);
        r[n].data = off + 24;
        if (r[n].es == 0 || r[n].count > (len - r[n].data) / r[n].es)
            return n; /* past the end: not repairable */
        r[n].bytes = r[n].count * r[n].es;
        off += 24 + r[n].bytes + ((8 - r[n].bytes % 8) % 8);
    }
    return n;
}

/* Byte offset of array `id` in an image (0 if absent). */
static size_t array_at(const unsigned char *b, size_t len, uint32_t id)
{
    rec_pos r[8];
    int n = walk(b, len, r, 8);
    for (int i = 0; i < n; i++)
        if (r[i].id == id)
            return r[i].data;
    return 0;
}

/* Recompute the header CRC and every array CRC of an image. */
static void fix_crcs(unsigned char *b, size_t len)
{
    uint32_t hb = get32(b + 16);
    if (len < PRE || hb > len - PRE)
        return;
    uLong c = crc32(0, b, 20);
    put32(b + 20, (uint32_t)crc32(c, b + PRE, hb));
    rec_pos r[8];
    int n = walk(b, len, r, 8);
    for (int i = 0; i < n; i++)
        put32(b + r[i].rec + 16, (uint32_t)crc32(0, b + r[i].data, (uInt)r[i].bytes));
}

/* ------------------------------------------------------------ helpers */

static char tmp_path[256];
static const char *tmp_file(const char *tag)
{
    snprintf(tmp_path, sizeof tmp_path, "test_binfile_%ld_%s.psl", (long)getpid(), tag);
    return tmp_path;
}

/* Save A and read the file back into a malloc'd image. */
static unsigned char *save_image(const psl_matrix *A, size_t *len)
{
    const char *p = tmp_file("img");
    if (psl_matrix_save(A, p) != PSL_OK) {
        fprintf(stderr, "save failed: %s\n", psl_last_error_message());
        return NULL;
    }
    FILE *f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n);
    if (fread(b, 1, (size_t)n, f) != (size_t)n)
        abort();
    fclose(f);
    remove(p);
    *len = (size_t)n;
    return b;
}

/* Load from an exact-size heap copy (so that ASan sees any over-read). */
static psl_status load_copy(psl_matrix **A, const unsigned char *b, size_t len)
{
    unsigned char *c = malloc(len ? len : 1);
    memcpy(c, b, len);
    psl_status st = psl_matrix_load_buffer(A, c, len);
    free(c);
    return st;
}

/* A random FP64 CSR matrix: row lengths 0..maxlen (about 1 in 6 rows
 * empty, but never the last 8, so that the last slice is not empty),
 * distinct sorted columns, values in [-2, 2) with some zeros. */
static psl_matrix *random_csr(unsigned long long seed, int32_t nrows, int32_t ncols,
                              int32_t maxlen)
{
    int64_t *rp = malloc(sizeof *rp * ((size_t)nrows + 1));
    int32_t *ci = malloc(sizeof *ci * ((size_t)nrows * maxlen + 1));
    double *va = malloc(sizeof *va * ((size_t)nrows * maxlen + 1));
    char *used = calloc((size_t)ncols + 1, 1);
    int64_t nnz = 0;
    rp[0] = 0;
    for (int32_t i = 0; i < nrows; i++) {
        int32_t len = (int32_t)(psl_test_rand(&seed) % (uint64_t)(maxlen + 1));
        if (psl_test_rand(&seed) % 6 == 0 && i < nrows - 8)
            len = 0;
        if (len == 0 && i >= nrows - 8)
            len = 1;
        if (len > ncols)
            len = ncols;
        int32_t got = 0;
        while (got < len) {
            int32_t c = (int32_t)(psl_test_rand(&seed) % (uint64_t)ncols);
            if (!used[c]) {
                used[c] = 1;
                got++;
            }
        }
        for (int32_t c = 0; c < ncols && got > 0; c++)
            if (used[c]) {
                used[c] = 0;
                got--;
                ci[nnz] = c;
                double v = 4 * psl_test_uniform(&seed) - 2;
                va[nnz++] = psl_test_rand(&seed) % 10 == 0 ? 0.0 : v;
            }
        rp[i + 1] = nnz;
    }
    psl_matrix *A = NULL;
    if (psl_matrix_create_csr(&A, nrows, ncols, rp, ci, va, PSL_FP64, 0, 0) != PSL_OK)
        fprintf(stderr, "create_csr: %s\n", psl_last_error_message());
    free(rp);
    free(ci);
    free(va);
    free(used);
    return A;
}

/* Convert src with the given options (NULL on failure, reported). */
static psl_matrix *convert(const psl_matrix *src, psl_format f, psl_scalar vt, psl_codec codec,
                           int32_t C, int32_t sigma, psl_permute perm)
{
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = f;
    o.value_type = vt;
    o.codec = codec;
    o.slice_height = C;
    o.sigma = sigma;
    o.permute = perm;
    o.overflow = PSL_OVERFLOW_SATURATE;
    psl_matrix *B = NULL;
    if (psl_matrix_convert(&B, src, &o) != PSL_OK)
        fprintf(stderr, "convert: %s\n", psl_last_error_message());
    return B;
}

/* Bitwise equality of n bytes, both pointers may be NULL when n == 0. */
static int same_bytes(const void *a, const void *b, size_t n)
{
    return n == 0 || (a && b && memcmp(a, b, n) == 0);
}

/* SpMV of A with a fixed x, into a new array of nrows entries of vt. */
static void *spmv_of(const psl_matrix *A, psl_scalar vt)
{
    size_t es = psl_scalar_size(vt);
    void *x = calloc((size_t)A->ncols + 1, es), *y = calloc((size_t)A->nrows + 1, es);
    for (int32_t j = 0; j < A->ncols; j++) {
        double v = 1.0 + (j % 13) * 0.25;
        if (vt == PSL_FP64)
            ((double *)x)[j] = v;
        else
            ((float *)x)[j] = (float)v;
    }
    psl_status st = psl_spmv(1.0, A, x, 0.0, y, vt);
    if (st != PSL_OK)
        fprintf(stderr, "spmv: %s\n", psl_last_error_message());
    free(x);
    return y;
}

/* Loaded B must equal saved A: every field, every array, info, decode,
 * row order and SpMV bits. */
static void check_same(const psl_matrix *A, const psl_matrix *B)
{
    CHECK(A->format == B->format && A->value_type == B->value_type);
    CHECK(A->nrows == B->nrows && A->ncols == B->ncols && A->nnz == B->nnz);
    CHECK(A->C == B->C && A->sigma == B->sigma && A->permute == B->permute);
    CHECK(A->nslices == B->nslices && A->perm_bytes == B->perm_bytes);
    CHECK(A->codec.exp_bits == B->codec.exp_bits && A->codec.man_bits == B->codec.man_bits);
    CHECK(A->delta_bits == B->delta_bits && A->kleft == B->kleft);
    CHECK(A->stored == B->stored && A->padding == B->padding && A->dummies == B->dummies);
    CHECK(A->underflows == B->underflows && A->max_row_nnz == B->max_row_nnz);
    CHECK(A->sell_equiv_bytes == B->sell_equiv_bytes && A->csr_equiv_bytes == B->csr_equiv_bytes);
    CHECK(memcmp(&A->rsd, &B->rsd, sizeof A->rsd) == 0);
    size_t vs = psl_scalar_size(A->value_type);
    if (A->format == PSL_FORMAT_CSR) {
        CHECK(same_bytes(A->row_ptr, B->row_ptr, 8 * ((size_t)A->nrows + 1)));
        CHECK(same_bytes(A->col_idx, B->col_idx, 4 * (size_t)A->nnz));
        CHECK(same_bytes(A->values, B->values, vs * (size_t)A->nnz));
    } else {
        CHECK(same_bytes(A->slice_ptr, B->slice_ptr, 8 * ((size_t)A->nslices + 1)));
        CHECK(same_bytes(A->perm, B->perm, (size_t)A->perm_bytes * (size_t)A->nrows));
        CHECK((A->perm == NULL) == (B->perm == NULL));
        if (A->format == PSL_FORMAT_SELL) {
            CHECK(same_bytes(A->sell_col, B->sell_col, 4 * (size_t)A->stored));
            CHECK(same_bytes(A->sell_val, B->sell_val, vs * (size_t)A->stored));
        } else {
            CHECK(same_bytes(A->words, B->words, 4 * (size_t)A->stored));
        }
    }
    psl_matrix_info ia, ib;
    CHECK_OK(psl_matrix_get_info(A, &ia));
    CHECK_OK(psl_matrix_get_info(B, &ib));
    CHECK(memcmp(&ia, &ib, sizeof ia) == 0);
    psl_matrix *ca = NULL, *cb = NULL;
    CHECK_OK(psl_matrix_to_csr(&ca, A));
    CHECK_OK(psl_matrix_to_csr(&cb, B));
    if (ca && cb) {
        CHECK(ca->nnz == cb->nnz);
        CHECK(same_bytes(ca->row_ptr, cb->row_ptr, 8 * ((size_t)ca->nrows + 1)));
        CHECK(same_bytes(ca->col_idx, cb->col_idx, 4 * (size_t)ca->nnz));
        CHECK(same_bytes(ca->values, cb->values, 8 * (size_t)ca->nnz));
    }
    psl_matrix_destroy(&ca);
    psl_matrix_destroy(&cb);
    int32_t *oa = calloc((size_t)A->nrows + 1, 4), *ob = calloc((size_t)A->nrows + 1, 4);
    CHECK_OK(psl_matrix_row_order(A, oa));
    CHECK_OK(psl_matrix_row_order(B, ob));
    CHECK(memcmp(oa, ob, 4 * (size_t)A->nrows) == 0);
    free(oa);
    free(ob);
    psl_scalar vts[2] = {PSL_FP64, PSL_FP32};
    for (int t = 0; t < 2; t++) {
        void *ya = spmv_of(A, vts[t]), *yb = spmv_of(B, vts[t]);
        CHECK(memcmp(ya, yb, psl_scalar_size(vts[t]) * (size_t)A->nrows) == 0);
        free(ya);
        free(yb);
    }
}

/* y = A x from the decoded FP64 CSR by the plainest loop, against the
 * handle's SpMV (FP64 vectors): an oracle independent of the file code. */
static void check_against_reference(const psl_matrix *B)
{
    psl_matrix *c = NULL;
    CHECK_OK(psl_matrix_to_csr(&c, B));
    if (!c)
        return;
    double *y = spmv_of(B, PSL_FP64);
    int32_t *order = calloc((size_t)B->nrows + 1, 4);
    CHECK_OK(psl_matrix_row_order(B, order));
    int explicit_perm = B->format != PSL_FORMAT_CSR && B->permute == PSL_PERMUTE_EXPLICIT;
    for (int32_t i = 0; i < B->nrows; i++) {
        int32_t r = explicit_perm ? order[i] : i; /* original row of y[i] */
        double t = 0, mag = 0;
        for (int64_t k = c->row_ptr[r]; k < c->row_ptr[r + 1]; k++) {
            double xv = 1.0 + (c->col_idx[k] % 13) * 0.25;
            t += ((double *)c->values)[k] * xv;
            mag += fabs(((double *)c->values)[k] * xv);
        }
        CHECK_MSG(fabs(y[i] - t) <= 1e-12 * mag, "row %d: %g vs %g", (int)i, y[i], t);
    }
    free(order);
    free(y);
    psl_matrix_destroy(&c);
}

/* Save A to a file, load it back by path and from the image, compare. */
static void round_trip(const psl_matrix *A)
{
    CHECK(A != NULL);
    if (!A)
        return;
    const char *p = tmp_file("rt");
    CHECK_OK(psl_matrix_save(A, p));
    psl_matrix *B = NULL;
    CHECK_OK(psl_matrix_load(&B, p));
    if (B) {
        check_same(A, B);
        check_against_reference(B);
    }
    psl_matrix_destroy(&B);
    remove(p);
    size_t len = 0;
    unsigned char *img = save_image(A, &len);
    CHECK(img != NULL);
    if (img) {
        CHECK_OK(load_copy(&B, img, len));
        if (B)
            check_same(A, B);
        psl_matrix_destroy(&B);
    }
    free(img);
}

static const psl_codec FP16 = {5, 10}, E8M10 = {8, 10}, E8M0 = {8, 0}, E8M20 = {8, 20};

/* ------------------------------------------------------------ round trips */

TEST(round_trip_csr)
{
    psl_matrix *A = random_csr(1, 57, 43, 9);
    round_trip(A);
    psl_matrix *F = convert(A, PSL_FORMAT_CSR, PSL_FP32, FP16, 32, 0, PSL_PERMUTE_IMPLICIT);
    round_trip(F);
    psl_matrix_destroy(&F);
    psl_matrix_destroy(&A);
}

TEST(round_trip_sell)
{
    psl_matrix *A = random_csr(2, 1100, 300, 17);
    const psl_scalar vts[4] = {PSL_FP64, PSL_FP32, PSL_FP16, PSL_BF16};
    const int32_t sigmas[4] = {0, 32, 256, 512};
    for (int t = 0; t < 4; t++)
        for (int s = 0; s < 4; s++)
            for (int p = 0; p < 2; p++) {
                psl_matrix *S = convert(A, PSL_FORMAT_SELL, vts[t], FP16, 32, sigmas[s],
                                        (psl_permute)p);
                round_trip(S);
                psl_matrix_destroy(&S);
            }
    /* odd slice height, last slice partly past nrows */
    psl_matrix *S = convert(A, PSL_FORMAT_SELL, PSL_FP16, FP16, 3, 9, PSL_PERMUTE_IMPLICIT);
    round_trip(S);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&A);
}

TEST(round_trip_packsell)
{
    psl_matrix *A = random_csr(3, 1000, 70000, 12); /* gaps > 2^12 give e8m10 dummies */
    const psl_codec codecs[3] = {FP16, E8M10, E8M20};
    const int32_t sigmas[2] = {0, 256};
    for (int c = 0; c < 3; c++)
        for (int s = 0; s < 2; s++)
            for (int p = 0; p < 2; p++) {
                psl_matrix *P = convert(A, PSL_FORMAT_PACKSELL, PSL_FP64, codecs[c], 32,
                                        sigmas[s], (psl_permute)p);
                if (P && c > 0)
                    CHECK(P->dummies > 0);
                round_trip(P);
                psl_matrix_destroy(&P);
            }
    psl_matrix_destroy(&A);
}

TEST(round_trip_packsell_e8m0_dummies)
{
    /* D = 22: a dummy needs a column gap >= 2^22, so 5M columns. */
    const int32_t n = 40, ncols = 5000000;
    int64_t rp[41];
    int32_t ci[120];
    double va[120];
    int64_t nnz = 0;
    rp[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        ci[nnz] = i;
        va[nnz++] = 1.0 + i;
        if (i % 3 != 2) {
            ci[nnz] = 4500000 + i;
            va[nnz++] = -0.5 * i;
        }
        if (i % 4 == 0) {
            ci[nnz] = ncols - 1 - i;
            va[nnz++] = 3.0;
        }
        rp[i + 1] = nnz;
    }
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, n, ncols, rp, ci, va, PSL_FP64, 0, 0));
    for (int s = 0; s < 2; s++) {
        psl_matrix *P = convert(A, PSL_FORMAT_PACKSELL, PSL_FP64, E8M0, 8, s ? 256 : 0,
                                PSL_PERMUTE_IMPLICIT);
        CHECK(P && P->dummies > 0);
        round_trip(P);
        psl_matrix_destroy(&P);
    }
    psl_matrix_destroy(&A);
}

TEST(round_trip_empty)
{
    const int32_t shapes[4][2] = {{0, 0}, {0, 5}, {5, 0}, {7, 9}};
    for (int k = 0; k < 4; k++) {
        int64_t rp[8] = {0};
        psl_matrix *A = NULL;
        CHECK_OK(psl_matrix_create_csr(&A, shapes[k][0], shapes[k][1], rp, NULL, NULL,
                                       PSL_FP64, 0, 0));
        if (!A)
            continue;
        round_trip(A);
        psl_matrix *S = convert(A, PSL_FORMAT_SELL, PSL_FP32, FP16, 4, 8, PSL_PERMUTE_IMPLICIT);
        round_trip(S);
        psl_matrix *P =
            convert(A, PSL_FORMAT_PACKSELL, PSL_FP64, FP16, 4, 0, PSL_PERMUTE_EXPLICIT);
        round_trip(P);
        psl_matrix_destroy(&S);
        psl_matrix_destroy(&P);
        psl_matrix_destroy(&A);
    }
}

/* ------------------------------------------------------------ damage */

/* The small matrices of the damage tests, one per format. */
static psl_matrix *small_matrix(int which)
{
    psl_matrix *A = random_csr(10 + (unsigned)which, 37, 29, 7);
    psl_matrix *B = NULL;
    switch (which) {
    case 0: B = convert(A, PSL_FORMAT_CSR, PSL_FP32, FP16, 4, 0, PSL_PERMUTE_IMPLICIT); break;
    case 1: B = convert(A, PSL_FORMAT_SELL, PSL_FP16, FP16, 4, 8, PSL_PERMUTE_IMPLICIT); break;
    case 2: B = convert(A, PSL_FORMAT_PACKSELL, PSL_FP64, FP16, 4, 8, PSL_PERMUTE_IMPLICIT);
        break;
    default: {
        /* D = 2: dummies everywhere */
        B = convert(A, PSL_FORMAT_PACKSELL, PSL_FP64, E8M20, 4, 0, PSL_PERMUTE_EXPLICIT);
        break;
    }
    }
    psl_matrix_destroy(&A);
    return B;
}

/* Load must fail with a damage status, or succeed with a usable handle. */
static int load_clean(const unsigned char *img, size_t len, const psl_matrix *orig,
                      int must_equal)
{
    psl_matrix *B = NULL;
    psl_status st = load_copy(&B, img, len);
    if (st == PSL_OK) {
        if (must_equal)
            check_same(orig, B);
        else { /* a consistent but different matrix: every consumer is safe */
            void *y = spmv_of(B, PSL_FP32);
            free(y);
            psl_matrix *c = NULL;
            CHECK_OK(psl_matrix_to_csr(&c, B));
            psl_matrix_destroy(&c);
        }
        psl_matrix_destroy(&B);
        return 1;
    }
    CHECK(B == NULL);
    CHECK_MSG(st == PSL_ERR_FILE_CORRUPT || st == PSL_ERR_FILE_VERSION, "status %d: %s",
              (int)st, psl_last_error_message());
    return 0;
}

TEST(flip_every_byte)
{
    for (int which = 0; which < 4; which++) {
        psl_matrix *A = small_matrix(which);
        size_t len = 0;
        unsigned char *img = A ? save_image(A, &len) : NULL;
        CHECK(img != NULL);
        if (!img)
            continue;
        int loaded = 0;
        for (size_t i = 0; i < len; i++) {
            img[i] ^= 0xff;
            loaded += load_clean(img, len, A, 1); /* checksums catch every flip */
            img[i] ^= 0xff;
        }
        CHECK_MSG(loaded == 0, "%d of %zu flips loaded", loaded, len);
        psl_matrix_destroy(&A);
        free(img);
    }
}

TEST(flip_every_byte_repaired_crc)
{
    /* With repaired checksums only the structural validation stands
     * between a flipped byte and the kernels. */
    const unsigned char masks[3] = {0xff, 0x01, 0x80};
    for (int which = 0; which < 4; which++) {
        psl_matrix *A = small_matrix(which);
        size_t len = 0;
        unsigned char *img = A ? save_image(A, &len) : NULL;
        CHECK(img != NULL);
        if (!img)
            continue;
        unsigned char *work = malloc(len);
        int loaded = 0, failed = 0;
        for (int m = 0; m < 3; m++)
            for (size_t i = 0; i < len; i++) {
                memcpy(work, img, len);
                work[i] ^= masks[m];
                if (i >= 24) /* keep the preamble's own damage visible */
                    fix_crcs(work, len);
                if (load_clean(work, len, A, 0))
                    loaded++;
                else
                    failed++;
            }
        CHECK(failed > 0 && loaded > 0); /* value bytes may change; structure may not */
        free(work);
        free(img);
        psl_matrix_destroy(&A);
    }
}

TEST(truncate_every_length)
{
    for (int which = 0; which < 4; which++) {
        psl_matrix *A = small_matrix(which);
        size_t len = 0;
        unsigned char *img = A ? save_image(A, &len) : NULL;
        if (!img)
            continue;
        for (size_t n = 0; n < len; n++) {
            psl_matrix *B = NULL;
            CHECK_ST(load_copy(&B, img, n), PSL_ERR_FILE_CORRUPT);
            CHECK(B == NULL);
        }
        /* and an extra byte at the end */
        unsigned char *big = malloc(len + 8);
        memcpy(big, img, len);
        memset(big + len, 0, 8);
        psl_matrix *B = NULL;
        CHECK_ST(load_copy(&B, big, len + 8), PSL_ERR_FILE_CORRUPT);
        CHECK(strstr(psl_last_error_message(), "unexpected bytes") != NULL);
        free(big);
        free(img);
        psl_matrix_destroy(&A);
    }
}

/* Apply an edit to a fresh image of small_matrix(which), repair the CRCs,
 * load, and expect PSL_ERR_FILE_CORRUPT with `expect` in the message. */
typedef void (*edit_fn)(unsigned char *img, size_t len, const psl_matrix *A);

static void expect_corrupt(int which, edit_fn edit, const char *expect, const char *label)
{
    psl_matrix *A = small_matrix(which);
    size_t len = 0;
    unsigned char *img = A ? save_image(A, &len) : NULL;
    CHECK(img != NULL);
    if (img) {
        edit(img, len, A);
        fix_crcs(img, len);
        psl_matrix *B = NULL;
        psl_status st = load_copy(&B, img, len);
        CHECK_MSG(st == PSL_ERR_FILE_CORRUPT, "%s: status %d (%s)", label, (int)st,
                  psl_last_error_message());
        CHECK_MSG(strstr(psl_last_error_message(), expect) != NULL,
                  "%s: message '%s' lacks '%s'", label, psl_last_error_message(), expect);
        CHECK(B == NULL);
        psl_matrix_destroy(&B);
    }
    free(img);
    psl_matrix_destroy(&A);
}

/* Entry index of lane l, position j of slice k. */
static int64_t sell_idx(const psl_matrix *A, int64_t k, int64_t j, int64_t l)
{
    return A->slice_ptr[k] + j * A->C + l;
}
/* Width of slice k. */
static int64_t width_of(const psl_matrix *A, int64_t k)
{
    return (A->slice_ptr[k + 1] - A->slice_ptr[k]) / A->C;
}

/* A lane (of a row < nrows) with at least two entries followed by at least
 * two padding entries (SELL) / words: *k, *l, *first_pad. */
static int find_lane(const psl_matrix *A, int64_t *kk, int64_t *ll, int64_t *pad0)
{
    for (int64_t k = 0; k < A->nslices; k++)
        for (int64_t l = 0; l < A->C && k * A->C + l < A->nrows; l++) {
            int64_t w = width_of(A, k), npad = 0, first = -1;
            for (int64_t j = 0; j < w; j++) {
                int64_t e = sell_idx(A, k, j, l);
                int pad = A->format == PSL_FORMAT_SELL ? A->sell_col[e] < 0 : A->words[e] == 0;
                if (pad && first < 0)
                    first = j;
                npad += pad;
            }
            if (first >= 2 && npad >= 2) {
                *kk = k;
                *ll = l;
                *pad0 = first;
                return 1;
            }
        }
    return 0;
}

/* --- CSR edits (small_matrix 0: FP32 values) */
static void e_rowptr0(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + array_at(b, n, A_ROW_PTR), 1);
}
static void e_rowptr_big(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + array_at(b, n, A_ROW_PTR) + 8 * 5, (uint64_t)A->nnz + 3);
}
static void e_col_range(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + array_at(b, n, A_COL_IDX) + 4 * (size_t)(A->nnz / 2), (uint32_t)A->ncols);
}
static void e_col_order(unsigned char *b, size_t n, const psl_matrix *A)
{
    for (int32_t i = 0; i < A->nrows; i++)
        if (A->row_ptr[i + 1] - A->row_ptr[i] >= 2) {
            size_t at = array_at(b, n, A_COL_IDX) + 4 * (size_t)A->row_ptr[i];
            put32(b + at, (uint32_t)A->col_idx[A->row_ptr[i] + 1]);
            return;
        }
}
static void e_csr_nan(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + array_at(b, n, A_VALUES) + 4, 0x7fc00000u);
}
static void e_csr_inf(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + array_at(b, n, A_VALUES), 0xff800000u);
}
static void e_maxrow(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + H_MAXROW, (uint32_t)A->max_row_nnz + 1);
}
static void e_nnz(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + H_NNZ, (uint64_t)A->nnz - 1);
}
static void e_vtype(unsigned char *b, size_t n, const psl_matrix *A) { put32(b + H_VTYPE, 9); }
static void e_vtype16(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + H_VTYPE, PSL_FP16);
}
static void e_format(unsigned char *b, size_t n, const psl_matrix *A) { put32(b + H_FORMAT, PSL_FORMAT_CSRK + 1); }
static void e_permute(unsigned char *b, size_t n, const psl_matrix *A) { put32(b + H_PERMUTE, 2); }
static void e_nrows_neg(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + H_NROWS, 0xffffffffu);
}
static void e_reserved(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + array_at(b, n, A_COL_IDX) - 4, 1);
}
static void e_pad(unsigned char *b, size_t n, const psl_matrix *A)
{
    b[array_at(b, n, A_PERM) + 37] = 7; /* 37 one-byte perm entries, 3 padding bytes */
}
static void e_rsd(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + H_RSD, 0x7ff8000000000000ull);
}
static void e_underflows(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + H_UNDERFLOWS, (uint64_t)A->nnz + 1);
}
static void e_narrays(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + H_NARRAYS, 4);
}
static void e_hsize(unsigned char *b, size_t n, const psl_matrix *A) { put32(b + 16, 120); }

TEST(corrupt_csr)
{
    expect_corrupt(0, e_rowptr0, "row_ptr runs from 1", "row_ptr[0]");
    expect_corrupt(0, e_rowptr_big, "row_ptr[5]", "row_ptr > nnz");
    expect_corrupt(0, e_col_range, "outside [0, ncols 29)", "column range");
    expect_corrupt(0, e_col_order, "ascending", "column order");
    expect_corrupt(0, e_csr_nan, "Inf or NaN", "NaN value");
    expect_corrupt(0, e_csr_inf, "row 0", "Inf value");
    expect_corrupt(0, e_maxrow, "max_row_nnz", "max_row_nnz");
    expect_corrupt(0, e_nnz, "expected col_idx", "nnz vs array length");
    expect_corrupt(0, e_vtype, "unknown value type 9", "value type");
    expect_corrupt(0, e_vtype16, "CSR value type", "CSR fp16");
    expect_corrupt(0, e_format, "unknown matrix format 4", "format");
    expect_corrupt(0, e_permute, "unknown permutation", "permute");
    expect_corrupt(0, e_nrows_neg, "negative size", "nrows < 0");
    expect_corrupt(0, e_reserved, "array record 1", "reserved");
    expect_corrupt(0, e_rsd, "rsd", "rsd NaN");
    expect_corrupt(0, e_underflows, "underflows", "underflows");
    expect_corrupt(0, e_narrays, "4 array records", "narrays");
    expect_corrupt(0, e_hsize, "header size 120", "header size");
}

/* --- SELL edits (small_matrix 1: FP16, C = 4, sigma = 8, 37 rows) */
static void e_sell_col(unsigned char *b, size_t n, const psl_matrix *A, int32_t v)
{
    int64_t k, l, p;
    if (find_lane(A, &k, &l, &p))
        put32(b + array_at(b, n, A_SELL_COL) + 4 * (size_t)sell_idx(A, k, 0, l), (uint32_t)v);
}
static void e_sell_big(unsigned char *b, size_t n, const psl_matrix *A)
{
    e_sell_col(b, n, A, A->ncols);
}
static void e_sell_neg(unsigned char *b, size_t n, const psl_matrix *A) { e_sell_col(b, n, A, -2); }
static void e_sell_order(unsigned char *b, size_t n, const psl_matrix *A)
{
    int64_t k, l, p;
    if (find_lane(A, &k, &l, &p))
        put32(b + array_at(b, n, A_SELL_COL) + 4 * (size_t)sell_idx(A, k, 1, l),
              (uint32_t)A->sell_col[sell_idx(A, k, 0, l)]);
}
static void e_sell_padval(unsigned char *b, size_t n, const psl_matrix *A)
{
    int64_t k, l, p;
    if (find_lane(A, &k, &l, &p))
        b[array_at(b, n, A_SELL_VAL) + 2 * (size_t)sell_idx(A, k, p, l)] = 1;
}
static void e_sell_after_pad(unsigned char *b, size_t n, const psl_matrix *A)
{
    int64_t k, l, p;
    if (find_lane(A, &k, &l, &p)) { /* the last padding entry becomes an entry 1.0 */
        int64_t e = sell_idx(A, k, width_of(A, k) - 1, l);
        put32(b + array_at(b, n, A_SELL_COL) + 4 * (size_t)e, (uint32_t)A->ncols - 1);
        unsigned char *v = b + array_at(b, n, A_SELL_VAL) + 2 * (size_t)e;
        v[0] = 0x00;
        v[1] = 0x3c;
    }
}
static void e_sell_inf(unsigned char *b, size_t n, const psl_matrix *A)
{
    int64_t k, l, p;
    if (find_lane(A, &k, &l, &p)) {
        unsigned char *v = b + array_at(b, n, A_SELL_VAL) + 2 * (size_t)sell_idx(A, k, 0, l);
        v[0] = 0x00;
        v[1] = 0x7c;
    }
}
static void e_sell_past_rows(unsigned char *b, size_t n, const psl_matrix *A)
{
    /* 37 rows, C = 4: lane 3 of the last slice is past nrows */
    int64_t k = A->nslices - 1;
    CHECK(width_of(A, k) > 0);
    if (width_of(A, k) > 0)
        put32(b + array_at(b, n, A_SELL_COL) + 4 * (size_t)sell_idx(A, k, 0, 3), 0);
}
static void e_slice_mod(unsigned char *b, size_t n, const psl_matrix *A)
{
    size_t at = array_at(b, n, A_SLICE_PTR) + 8 * 2;
    put64(b + at, get64(b + at) + 1);
}
static void e_slice_dec(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + array_at(b, n, A_SLICE_PTR) + 8 * 3, (uint64_t)A->slice_ptr[1]);
}
static void e_slice_last(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + array_at(b, n, A_SLICE_PTR) + 8 * (size_t)A->nslices, (uint64_t)A->stored - 4);
}
static void e_perm_range(unsigned char *b, size_t n, const psl_matrix *A)
{
    b[array_at(b, n, A_PERM) + 3] = 8; /* sigma = 8: perm values 0..7 */
}
static void e_perm_last_block(unsigned char *b, size_t n, const psl_matrix *A)
{
    b[array_at(b, n, A_PERM) + 36] = 5; /* the last block holds 37 - 32 = 5 rows */
}
static void e_perm_dup(unsigned char *b, size_t n, const psl_matrix *A)
{
    size_t at = array_at(b, n, A_PERM);
    b[at + 9] = b[at + 10];
}
static void e_sigma(unsigned char *b, size_t n, const psl_matrix *A) { put32(b + H_SIGMA, 6); }
static void e_sigma_neg(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + H_SIGMA, (uint32_t)-8);
}
static void e_permb(unsigned char *b, size_t n, const psl_matrix *A) { put32(b + H_PERMB, 2); }
static void e_nslices(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + H_NSLICES, (uint32_t)A->nslices - 1);
}
static void e_c0(unsigned char *b, size_t n, const psl_matrix *A) { put32(b + H_C, 0); }
static void e_sell_counts(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + H_NNZ, (uint64_t)A->nnz + 1);
    put64(b + H_PADDING, (uint64_t)A->padding - 1);
}
static void e_sell_dummies(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + H_DUMMIES, 1);
    put64(b + H_PADDING, (uint64_t)A->padding - 1);
}
static void e_kleft(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + H_KLEFT, 1ull << 62);
}

TEST(corrupt_sell)
{
    expect_corrupt(1, e_sell_big, "outside [-1, ncols 29)", "column >= ncols");
    expect_corrupt(1, e_sell_neg, "column -2", "column -2");
    expect_corrupt(1, e_sell_order, "ascending", "lane order");
    expect_corrupt(1, e_sell_padval, "nonzero value bits", "padding value");
    expect_corrupt(1, e_sell_after_pad, "after padding", "entry after padding");
    expect_corrupt(1, e_sell_inf, "Inf or NaN", "fp16 inf");
    expect_corrupt(1, e_sell_past_rows, "past the last row", "lane past nrows");
    expect_corrupt(1, e_slice_mod, "not a multiple of C = 4", "slice length");
    expect_corrupt(1, e_slice_dec, "slice_ptr[2]", "slice_ptr decreasing");
    expect_corrupt(1, e_slice_last, "slice_ptr runs from 0", "slice_ptr end");
    expect_corrupt(1, e_perm_range, "perm[3] = 8", "perm range");
    expect_corrupt(1, e_perm_last_block, "perm[36] = 5 is outside its sigma block of 5 rows",
                   "perm last block");
    expect_corrupt(1, e_perm_dup, "perm[10]", "perm repeat");
    expect_corrupt(1, e_sigma, "sigma 6", "sigma multiple");
    expect_corrupt(1, e_sigma_neg, "sigma -8", "sigma negative");
    expect_corrupt(1, e_permb, "perm_bytes 2", "perm bytes");
    expect_corrupt(1, e_nslices, "slices", "nslices");
    expect_corrupt(1, e_c0, "C = 0", "C = 0");
    expect_corrupt(1, e_sell_counts, "header says nnz", "nnz count");
    expect_corrupt(1, e_pad, "nonzero padding byte after array perm", "padding");
    expect_corrupt(1, e_sell_dummies, "SELL matrix with 1 dummies", "dummies in SELL");
    expect_corrupt(1, e_kleft, "kleft", "kleft");
}

/* --- PackSELL edits (small_matrix 2: FP16, D = 15, C = 4, sigma = 8;
 *     small_matrix 3: e8m20, D = 2, C = 4, explicit, sigma 0) */
static size_t word_at(const unsigned char *b, size_t n, int64_t idx)
{
    return array_at(b, n, A_WORDS) + 4 * (size_t)idx;
}
static void e_pk_reach(unsigned char *b, size_t n, const psl_matrix *A)
{
    int64_t k, l, p;
    if (find_lane(A, &k, &l, &p)) { /* max delta on the last entry */
        size_t at = word_at(b, n, sell_idx(A, k, p - 1, l));
        put32(b + at, get32(b + at) | (((1u << A->delta_bits) - 1u) << 1));
    }
}
static void e_pk_repeat(unsigned char *b, size_t n, const psl_matrix *A)
{
    int64_t k, l, p;
    if (find_lane(A, &k, &l, &p)) { /* delta 0 on the second entry (no dummies: fp16) */
        size_t at = word_at(b, n, sell_idx(A, k, 1, l));
        put32(b + at, get32(b + at) & ~(((1u << A->delta_bits) - 1u) << 1));
    }
}
static void e_pk_inf(unsigned char *b, size_t n, const psl_matrix *A)
{
    int64_t k, l, p;
    if (find_lane(A, &k, &l, &p)) { /* fp16 exponent all ones in the value bits */
        size_t at = word_at(b, n, sell_idx(A, k, 0, l));
        put32(b + at, get32(b + at) | (0x7c00u << 16));
    }
}
static void e_pk_hole(unsigned char *b, size_t n, const psl_matrix *A)
{
    int64_t k, l, p;
    if (find_lane(A, &k, &l, &p)) /* the first entry becomes padding */
        put32(b + word_at(b, n, sell_idx(A, k, 0, l)), 0);
}
static void e_pk_past_rows(unsigned char *b, size_t n, const psl_matrix *A)
{
    CHECK(width_of(A, A->nslices - 1) > 0);
    if (width_of(A, A->nslices - 1) > 0)
        put32(b + word_at(b, n, sell_idx(A, A->nslices - 1, 0, 3)), 2); /* a dummy of delta 1 */
}
static void e_pk_counts(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + H_DUMMIES, (uint64_t)A->dummies + 1);
    put64(b + H_PADDING, (uint64_t)A->padding - 1);
}
static void e_pk_codec(unsigned char *b, size_t n, const psl_matrix *A) { put32(b + H_EXP, 9); }
static void e_pk_codec_wide(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + H_EXP, 8);
    put32(b + H_MAN, 22);
}
static void e_pk_d(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + H_D, (uint32_t)A->delta_bits + 1);
}
/* first (k, j, l) of a dummy word in a row < nrows */
static int find_dummy(const psl_matrix *A, int64_t *kk, int64_t *jj, int64_t *ll)
{
    for (int64_t k = 0; k < A->nslices; k++)
        for (int64_t j = 0; j < width_of(A, k); j++)
            for (int64_t l = 0; l < A->C && k * A->C + l < A->nrows; l++) {
                uint32_t w = A->words[sell_idx(A, k, j, l)];
                if (!(w & 1) && w) {
                    *kk = k, *jj = j, *ll = l;
                    return 1;
                }
            }
    return 0;
}
static void e_pk_dummy_pad(unsigned char *b, size_t n, const psl_matrix *A)
{
    int64_t k, j, l;
    if (find_dummy(A, &k, &j, &l)) {
        for (int64_t q = j + 1; q < width_of(A, k); q++)
            put32(b + word_at(b, n, sell_idx(A, k, q, l)), 0);
    }
}
static void e_pk_dummy_dummy(unsigned char *b, size_t n, const psl_matrix *A)
{
    int64_t k, j, l;
    if (find_dummy(A, &k, &j, &l))
        put32(b + word_at(b, n, sell_idx(A, k, j + 1, l)), 2);
}
static void e_pk_dummy_end(unsigned char *b, size_t n, const psl_matrix *A)
{
    /* the last word of a full lane becomes a dummy */
    for (int64_t k = 0; k < A->nslices; k++) {
        int64_t w = width_of(A, k);
        for (int64_t l = 0; w > 0 && l < A->C && k * A->C + l < A->nrows; l++)
            if (A->words[sell_idx(A, k, w - 1, l)] & 1) {
                put32(b + word_at(b, n, sell_idx(A, k, w - 1, l)), 2);
                return;
            }
    }
}

TEST(corrupt_packsell)
{
    expect_corrupt(2, e_pk_reach, ">= ncols 29", "column reach");
    expect_corrupt(2, e_pk_repeat, "repeats column", "delta 0");
    expect_corrupt(2, e_pk_inf, "Inf/NaN pattern of codec e5m10", "inf bits");
    expect_corrupt(2, e_pk_hole, "follows padding", "padding hole");
    expect_corrupt(2, e_pk_past_rows, "past the last row", "lane past nrows");
    expect_corrupt(2, e_pk_counts, "the arrays hold", "dummy count");
    expect_corrupt(2, e_pk_codec, "codec exponent bits 9", "codec");
    expect_corrupt(2, e_pk_codec_wide, "no delta bits", "codec too wide");
    expect_corrupt(2, e_pk_d, "delta bits 16", "delta bits");
    expect_corrupt(2, e_perm_dup, "perm[10]", "perm repeat");
    expect_corrupt(2, e_slice_mod, "not a multiple of C = 4", "slice length");
    expect_corrupt(3, e_pk_dummy_pad, "followed by padding", "dummy then padding");
    expect_corrupt(3, e_pk_dummy_dummy, "two dummy words", "dummy dummy");
    expect_corrupt(3, e_pk_dummy_end, "", "dummy at the end");
}

/* --- lying lengths: a header claiming a huge array over a tiny file must
 * fail on the size check, before allocating (an attempt to allocate
 * terabytes would give PSL_ERR_OUT_OF_MEMORY or abort under ASan). */
static void e_lie_nnz(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + H_NNZ, 1ull << 40);
    put32(b + H_NCOLS, 0x7fffffff);
    put32(b + H_NROWS, 0x7fffffff);
}
static void e_lie_nrows(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + H_NROWS, 0x7fffffff);
}
static void e_lie_stored(unsigned char *b, size_t n, const psl_matrix *A)
{
    put64(b + H_STORED, (1ull << 40) + (uint64_t)A->nnz);
    put64(b + H_PADDING, (1ull << 40));
    put64(b + H_DUMMIES, 0);
}
static void e_lie_rows_c(unsigned char *b, size_t n, const psl_matrix *A)
{
    put32(b + H_NROWS, 0x7fffffff);
    put32(b + H_C, 0x40000000);
    put32(b + H_SIGMA, 0);
    put32(b + H_PERMB, 0);
    put32(b + H_NSLICES, 2);
}

TEST(lying_lengths)
{
    expect_corrupt(0, e_lie_nnz, "exceeds", "csr nnz 2^40");
    expect_corrupt(0, e_lie_nrows, "exceeds", "csr nrows 2^31-1");
    expect_corrupt(1, e_lie_stored, "exceeds", "sell stored 2^40");
    expect_corrupt(2, e_lie_stored, "exceeds", "packsell stored 2^40");
    expect_corrupt(2, e_lie_rows_c, "", "packsell 2^31 rows, C 2^30");
}

TEST(huge_empty_matrix_loads_fast)
{
    /* 2^31-1 rows in 2 slices of C = 2^30, no entries: valid, and the
     * checks must not walk 2^31 empty lanes. Built from a real image by
     * rewriting its header and arrays. */
    psl_matrix *A = small_matrix(2);
    size_t len = 0;
    unsigned char *img = A ? save_image(A, &len) : NULL;
    if (!img)
        return;
    size_t hb = get32(img + 16), n = PRE + hb + 24 + 24 + 24;
    unsigned char *b = calloc(n, 1);
    memcpy(b, img, PRE + hb);
    put32(b + H_NROWS, 0x7fffffff);
    put32(b + H_C, 0x40000000);
    put32(b + H_SIGMA, 0);
    put32(b + H_PERMB, 0);
    put32(b + H_NSLICES, 2);
    put64(b + H_NNZ, 0);
    put64(b + H_STORED, 0);
    put64(b + H_PADDING, 0);
    put64(b + H_DUMMIES, 0);
    put64(b + H_KLEFT, 0);
    put32(b + H_MAXROW, 0);
    put32(b + H_NARRAYS, 2);
    unsigned char *r = b + PRE + hb;
    put32(r, A_SLICE_PTR);
    put32(r + 4, 8);
    put64(r + 8, 3); /* three zeros follow */
    put32(r + 48, A_WORDS);
    put32(r + 52, 4);
    put64(r + 56, 0);
    fix_crcs(b, n);
    clock_t t0 = clock();
    psl_matrix *B = NULL;
    CHECK_OK(load_copy(&B, b, n));
    CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
    if (B)
        CHECK(B->nrows == 0x7fffffff && B->nslices == 2 && B->nnz == 0);
    psl_matrix_destroy(&B);
    free(b);
    free(img);
    psl_matrix_destroy(&A);
}

TEST(parallel_checks_report_first_error)
{
    /* Large enough for the parallel checks; two damaged slices: every
     * thread count names the first one, with the same message. */
    psl_matrix *A = random_csr(21, 6000, 300, 24);
    psl_matrix *P = convert(A, PSL_FORMAT_PACKSELL, PSL_FP64, FP16, 32, 0, PSL_PERMUTE_IMPLICIT);
    size_t len = 0;
    unsigned char *img = P ? save_image(P, &len) : NULL;
    CHECK(img && P->stored > 100000);
    if (img) {
        const int64_t bad_slices[2] = {150, 20};
        for (int b = 0; b < 2; b++) {
            int64_t k = bad_slices[b];
            CHECK(width_of(P, k) > 0);
            size_t at = word_at(img, len, sell_idx(P, k, 0, 0));
            put32(img + at, get32(img + at) | (((1u << P->delta_bits) - 1u) << 1));
        }
        fix_crcs(img, len);
        char first[512] = "";
        const int threads[4] = {1, 2, 3, 8};
        for (int t = 0; t < 4; t++) {
#ifdef _OPENMP
            omp_set_num_threads(threads[t]);
#endif
            psl_matrix *B = NULL;
            CHECK_ST(load_copy(&B, img, len), PSL_ERR_FILE_CORRUPT);
            CHECK(strstr(psl_last_error_message(), "slice 20: word 0 of lane 0") != NULL);
            if (t == 0)
                snprintf(first, sizeof first, "%s", psl_last_error_message());
            CHECK(strcmp(first, psl_last_error_message()) == 0);
        }
#ifdef _OPENMP
        omp_set_num_threads(omp_get_num_procs());
#endif
    }
    free(img);
    psl_matrix_destroy(&P);
    psl_matrix_destroy(&A);
}

/* ------------------------------------------------------------ versions */

TEST(magic_version_byte_order)
{
    psl_matrix *A = small_matrix(2);
    size_t len = 0;
    unsigned char *img = A ? save_image(A, &len) : NULL;
    if (!img)
        return;
    psl_matrix *B = NULL;
    /* wrong magic */
    img[1] = 'Q';
    CHECK_ST(load_copy(&B, img, len), PSL_ERR_FILE_CORRUPT);
    CHECK(strstr(psl_last_error_message(), "not a packsell binary file") != NULL);
    img[1] = 'P';
    CHECK_ST(load_copy(&B, (const unsigned char *)"%%MatrixMarket matrix", 21),
             PSL_ERR_FILE_CORRUPT);
    CHECK(strstr(psl_last_error_message(), "not a packsell binary file") != NULL);
    /* newer major version */
    img[8] = 2;
    CHECK_ST(load_copy(&B, img, len), PSL_ERR_FILE_VERSION);
    CHECK(strstr(psl_last_error_message(), "version 2.0") != NULL);
    CHECK(strstr(psl_last_error_message(), "1.x") != NULL);
    img[8] = 0;
    CHECK_ST(load_copy(&B, img, len), PSL_ERR_FILE_VERSION);
    img[8] = 1;
    /* big-endian marker, and garbage marker */
    put32(img + 12, 0x04030201u);
    CHECK_ST(load_copy(&B, img, len), PSL_ERR_FILE_CORRUPT);
    CHECK(strstr(psl_last_error_message(), "big-endian") != NULL);
    put32(img + 12, 0x01020305u);
    CHECK_ST(load_copy(&B, img, len), PSL_ERR_FILE_CORRUPT);
    CHECK(strstr(psl_last_error_message(), "byte-order") != NULL);
    put32(img + 12, 0x01020304u);
    /* checksums */
    img[H_NCOLS] ^= 1;
    CHECK_ST(load_copy(&B, img, len), PSL_ERR_FILE_CORRUPT);
    CHECK(strstr(psl_last_error_message(), "header checksum") != NULL);
    img[H_NCOLS] ^= 1;
    img[len - 1] ^= 0x10;
    CHECK_ST(load_copy(&B, img, len), PSL_ERR_FILE_CORRUPT);
    CHECK(strstr(psl_last_error_message(), "checksum mismatch in array words") != NULL);
    img[len - 1] ^= 0x10;
    CHECK_OK(load_copy(&B, img, len));
    psl_matrix_destroy(&B);
    free(img);
    psl_matrix_destroy(&A);
}

TEST(newer_minor_version_is_read)
{
    /* version 1.1 with 8 more header bytes and one more array record: an
     * older reader ignores both */
    psl_matrix *A = small_matrix(1);
    size_t len = 0;
    unsigned char *img = A ? save_image(A, &len) : NULL;
    if (!img)
        return;
    uint32_t hb = get32(img + 16);
    size_t nlen = len + 8 + 24 + 16;
    unsigned char *n = calloc(nlen, 1);
    memcpy(n, img, PRE + hb);
    memset(n + PRE + hb, 0xab, 8); /* future header field */
    memcpy(n + PRE + hb + 8, img + PRE + hb, len - PRE - hb);
    n[10] = 1;
    put32(n + 16, hb + 8);
    put32(n + H_NARRAYS, get32(n + H_NARRAYS) + 1);
    unsigned char *rec = n + len + 8;
    put32(rec, 99);
    put32(rec + 4, 2);
    put64(rec + 8, 7); /* 14 bytes + 2 padding */
    fix_crcs(n, nlen);
    psl_matrix *B = NULL;
    CHECK_OK(load_copy(&B, n, nlen));
    if (B)
        check_same(A, B);
    psl_matrix_destroy(&B);
    /* the same extension with minor 0 is damage */
    n[10] = 0;
    fix_crcs(n, nlen);
    CHECK_ST(load_copy(&B, n, nlen), PSL_ERR_FILE_CORRUPT);
    /* an extra record that runs past the end */
    n[10] = 1;
    put64(rec + 8, 9);
    fix_crcs(n, nlen);
    CHECK_ST(load_copy(&B, n, nlen), PSL_ERR_FILE_CORRUPT);
    free(n);
    free(img);
    psl_matrix_destroy(&A);
}

/* ------------------------------------------------------------ files, errors */

/* Number of entries of the current directory whose name contains s. */
static int count_files_with(const char *s)
{
    int n = 0;
    DIR *d = opendir(".");
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, s) != NULL;
    closedir(d);
    return n;
}

TEST(io_errors)
{
    psl_matrix *A = small_matrix(0), *B = (psl_matrix *)1;
    CHECK_ST(psl_matrix_load(&B, "no/such/dir/file.psl"), PSL_ERR_IO);
    CHECK(B == NULL);
    CHECK(strstr(psl_last_error_message(), "No such file") != NULL);
    CHECK_ST(psl_matrix_load(&B, "."), PSL_ERR_IO);
    CHECK_ST(psl_matrix_save(A, "no/such/dir/file.psl"), PSL_ERR_IO);
    CHECK(strstr(psl_last_error_message(), "no/such/dir/file.psl") != NULL);
    CHECK(strstr(psl_last_error_message(), "No such file") != NULL);
    CHECK_ST(psl_matrix_save(A, "."), PSL_ERR_IO); /* rename over a directory */
    CHECK(count_files_with(".tmp") == 0);
    CHECK_ST(psl_matrix_save(NULL, "x.psl"), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_save(A, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_load(NULL, "x.psl"), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_load(&B, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_load_buffer(&B, NULL, 5), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_load_buffer(&B, NULL, 0), PSL_ERR_FILE_CORRUPT);
    /* an empty file */
    const char *p = tmp_file("empty");
    FILE *f = fopen(p, "wb");
    fclose(f);
    CHECK_ST(psl_matrix_load(&B, p), PSL_ERR_FILE_CORRUPT);
    CHECK(strstr(psl_last_error_message(), p) != NULL);
    remove(p);
    psl_matrix_destroy(&A);
}

TEST(failed_save_keeps_old_file)
{
    /* A file-size limit makes the write fail half way (EFBIG): the target
     * keeps its previous content and no temporary file is left. */
    psl_matrix *A = small_matrix(1);
    psl_matrix *big = random_csr(99, 3000, 3000, 30);
    const char *p = tmp_file("keep");
    char path[256];
    snprintf(path, sizeof path, "%s", p);
    CHECK_OK(psl_matrix_save(A, path));
    struct rlimit old;
    getrlimit(RLIMIT_FSIZE, &old);
    struct rlimit lim = old;
    lim.rlim_cur = 64 * 1024;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &lim) == 0) {
        psl_status st = psl_matrix_save(big, path);
        setrlimit(RLIMIT_FSIZE, &old);
        CHECK_ST(st, PSL_ERR_IO);
        CHECK(strstr(psl_last_error_message(), "large") != NULL); /* strerror(EFBIG) */
        psl_matrix *B = NULL;
        CHECK_OK(psl_matrix_load(&B, path));
        if (B)
            check_same(A, B);
        psl_matrix_destroy(&B);
        CHECK(count_files_with(".tmp") == 0);
    }
    signal(SIGXFSZ, prev);
    /* a successful save replaces it */
    CHECK_OK(psl_matrix_save(big, path));
    psl_matrix *B = NULL;
    CHECK_OK(psl_matrix_load(&B, path));
    if (B)
        check_same(big, B);
    psl_matrix_destroy(&B);
    remove(path);
    psl_matrix_destroy(&big);
    psl_matrix_destroy(&A);
}

TEST(fuzz_seeds)
{
    /* The seed corpus of fuzz/fuzz_binary.c: one small file per format and
     * kind. With PSL_WRITE_FUZZ_SEEDS=dir they are written there, e.g.
     *   PSL_WRITE_FUZZ_SEEDS=fuzz/seeds/binary build/tests/test_binfile fuzz_seeds */
    const char *dir = getenv("PSL_WRITE_FUZZ_SEEDS");
    psl_matrix *A = random_csr(7, 13, 11, 4);
    psl_matrix *seeds[8] = {
        NULL,
        convert(A, PSL_FORMAT_CSR, PSL_FP32, FP16, 4, 0, PSL_PERMUTE_IMPLICIT),
        convert(A, PSL_FORMAT_SELL, PSL_FP16, FP16, 4, 8, PSL_PERMUTE_IMPLICIT),
        convert(A, PSL_FORMAT_SELL, PSL_BF16, FP16, 2, 0, PSL_PERMUTE_EXPLICIT),
        convert(A, PSL_FORMAT_SELL, PSL_FP64, FP16, 3, 6, PSL_PERMUTE_EXPLICIT),
        convert(A, PSL_FORMAT_PACKSELL, PSL_FP64, FP16, 4, 8, PSL_PERMUTE_IMPLICIT),
        convert(A, PSL_FORMAT_PACKSELL, PSL_FP64, E8M20, 4, 0, PSL_PERMUTE_EXPLICIT),
        convert(A, PSL_FORMAT_PACKSELL, PSL_FP64, (psl_codec){3, 2}, 2, 4, PSL_PERMUTE_IMPLICIT),
    };
    const char *names[8] = {"csr_fp64",      "csr_fp32",       "sell_fp16_s8",  "sell_bf16_expl",
                            "sell_fp64_c3",  "packsell_fp16",  "packsell_e8m20", "packsell_e3m2"};
    seeds[0] = A;
    for (int i = 0; i < 8; i++) {
        CHECK(seeds[i] != NULL);
        if (!seeds[i])
            continue;
        size_t len = 0;
        unsigned char *img = save_image(seeds[i], &len);
        CHECK(img && len < 2048);
        psl_matrix *B = NULL;
        if (img)
            CHECK_OK(load_copy(&B, img, len));
        psl_matrix_destroy(&B);
        if (img && dir && *dir) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s.seed", dir, names[i]);
            FILE *f = fopen(path, "wb");
            CHECK(f && fwrite(img, 1, len, f) == len);
            if (f)
                fclose(f);
        }
        free(img);
        if (i > 0)
            psl_matrix_destroy(&seeds[i]);
    }
    psl_matrix_destroy(&A);
}

/* ------------------------------------------------------------ out of memory */

/* Child of out_of_memory: save and load every kind of small matrix until the
 * allocation after the first nalloc fails (psl_debug_fail_alloc_after); exit
 * 10 when the failing call returned PSL_ERR_OUT_OF_MEMORY with a NULL
 * handle, 0 when no failure was hit, 1 on anything else. LeakSanitizer
 * (ASan builds) fails the child on a leak. */
static int oom_child(long nalloc)
{
    int rc = 0;
    psl_matrix *A = NULL, *B = NULL;
    unsigned char *img = NULL;
    if (psl_debug_fail_alloc_after(nalloc) != PSL_OK)
        return 1;
    for (int which = 0; which < 4 && rc == 0; which++) {
        psl_status st = PSL_OK;
        A = small_matrix(which);
        if (!A) { /* the injected failure hit the builders (tested elsewhere) */
            rc = 10;
            break;
        }
        const char *p = tmp_file("oom");
        st = psl_matrix_save(A, p);
        if (st == PSL_OK)
            st = psl_matrix_load(&B, p);
        if (st == PSL_OK) {
            psl_matrix_destroy(&B);
            FILE *f = fopen(p, "rb");
            img = malloc(1 << 16);
            size_t len = fread(img, 1, 1 << 16, f);
            fclose(f);
            st = psl_matrix_load_buffer(&B, img, len);
        }
        remove(p);
        if (st == PSL_ERR_OUT_OF_MEMORY)
            rc = B == NULL && count_files_with(".tmp") == 0 ? 10 : 1;
        else if (st != PSL_OK)
            rc = 1;
        if (rc == 1)
            fprintf(stderr, "status %d: %s\n", (int)st, psl_last_error_message());
        psl_matrix_destroy(&B);
        psl_matrix_destroy(&A);
        free(img);
        img = NULL;
    }
    return rc;
}

TEST(out_of_memory)
{
    if (getenv("PSL_BINFILE_OOM_CHILD"))
        exit(oom_child(atol(getenv("PSL_BINFILE_OOM_CHILD"))));
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(len > 0);
    if (len <= 0)
        return;
    exe[len] = '\0';
    int ooms = 0, done = 0;
    for (int n = 0; n < 600 && !done; n++) {
        char cmd[4400];
        snprintf(cmd, sizeof cmd,
                 "OMP_NUM_THREADS=1 PSL_BINFILE_OOM_CHILD=%d '%s' "
                 "out_of_memory >/dev/null",
                 n, exe);
        int ws = system(cmd);
        int rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
        CHECK_MSG(rc == 10 || rc == 0, "failing allocation %d: child exit %d", n, rc);
        if (rc != 10 && rc != 0)
            break;
        ooms += rc == 10;
        done = rc == 0;
    }
    printf("  %d injected failures handled\n", ooms);
    CHECK(done && ooms > 20);
}

static const psl_test_case tests[] = {
    {"round_trip_csr", round_trip_csr},
    {"round_trip_sell", round_trip_sell},
    {"round_trip_packsell", round_trip_packsell},
    {"round_trip_packsell_e8m0_dummies", round_trip_packsell_e8m0_dummies},
    {"round_trip_empty", round_trip_empty},
    {"flip_every_byte", flip_every_byte},
    {"flip_every_byte_repaired_crc", flip_every_byte_repaired_crc},
    {"truncate_every_length", truncate_every_length},
    {"corrupt_csr", corrupt_csr},
    {"corrupt_sell", corrupt_sell},
    {"corrupt_packsell", corrupt_packsell},
    {"lying_lengths", lying_lengths},
    {"huge_empty_matrix_loads_fast", huge_empty_matrix_loads_fast},
    {"parallel_checks_report_first_error", parallel_checks_report_first_error},
    {"magic_version_byte_order", magic_version_byte_order},
    {"newer_minor_version_is_read", newer_minor_version_is_read},
    {"io_errors", io_errors},
    {"failed_save_keeps_old_file", failed_save_keeps_old_file},
    {"fuzz_seeds", fuzz_seeds},
    {"out_of_memory", out_of_memory},
};
PSL_TEST_MAIN(tests)
