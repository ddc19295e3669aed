/*
 * sdainv_dump.c -- writes the SD-AINV factors of psl_sdainv_build as text
 * triplets, to compare them entry by entry with another implementation
 * (bench/sdainv_ref_compare.sh compares them with the reference code's).
 *
 *   sdainv_dump SOURCE OUT [--scale] [--tol T] [--acc A] [--sym S]
 *       SOURCE: a matrix file or "gen:..." spec; --scale applies the
 *       symmetric diagonal scaling first; T, A, S as sdainv_build_bench.
 * OUT gets one line per entry: "Z i j v" for ZDinv = Z D^-1 (row i,
 * column j) and "W i j v" for Wt = W^T (row i, column j), v as %.17g,
 * rows in order, columns as stored.
 */
#include "packsell.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what)
{
    fprintf(stderr, "sdainv_dump: %s: %s\n", what, psl_last_error_message());
    return 1;
}

static int write_factor(FILE *f, const char *tag, const psl_matrix *M)
{
    const int64_t *rp = NULL;
    const int32_t *ci = NULL;
    const double *v = NULL;
    psl_matrix_info info;
    if (psl_matrix_csr_view(M, &rp, &ci, &v) != PSL_OK || psl_matrix_get_info(M, &info) != PSL_OK)
        return fail(tag);
    for (int32_t i = 0; i < info.nrows; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            fprintf(f, "%s %d %d %.17g\n", tag, (int)i, (int)ci[k], v[k]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sdainv_dump SOURCE OUT [--scale] [--tol T] [--acc A] [--sym S]\n");
        return 2;
    }
    psl_sdainv_options o;
    psl_sdainv_options_init(&o);
    int scale = 0;
    for (int a = 3; a < argc; a++) {
        if (!strcmp(argv[a], "--scale"))
            scale = 1;
        else if (!strcmp(argv[a], "--tol") && a + 1 < argc)
            o.drop_tol = atof(argv[++a]);
        else if (!strcmp(argv[a], "--acc") && a + 1 < argc)
            o.acc = atof(argv[++a]);
        else if (!strcmp(argv[a], "--sym") && a + 1 < argc)
            o.symmetric = atoi(argv[++a]);
        else {
            fprintf(stderr, "sdainv_dump: unknown argument '%s'\n", argv[a]);
            return 2;
        }
    }
    psl_matrix *A = NULL;
    if (psl_matrix_open(&A, argv[1]) != PSL_OK)
        return fail(argv[1]);
    if (scale) {
        psl_matrix *S = NULL;
        if (psl_matrix_scale_symmetric(&S, A, NULL) != PSL_OK)
            return fail("scale");
        psl_matrix_destroy(&A);
        A = S;
    }
    psl_matrix *Wt = NULL, *ZD = NULL;
    if (psl_sdainv_build(A, &o, &Wt, &ZD) != PSL_OK)
        return fail("psl_sdainv_build");
    FILE *f = fopen(argv[2], "w");
    if (!f) {
        fprintf(stderr, "sdainv_dump: cannot write %s\n", argv[2]);
        return 1;
    }
    int rc = write_factor(f, "Z", ZD) || write_factor(f, "W", Wt);
    if (fclose(f) != 0)
        rc = 1;
    psl_matrix_destroy(&Wt);
    psl_matrix_destroy(&ZD);
    psl_matrix_destroy(&A);
    return rc;
}
