/*
 * open.c -- psl_matrix_open: one entry point for every matrix source the
 * command line accepts ("gen:" specs, packsell binary files, Matrix Market
 * files plain or gzip-compressed), chosen by prefix and magic bytes.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

psl_status psl_matrix_open(psl_matrix **A, const char *source)
{
    if (!A || !source)
        return psl_error(PSL_ERR_NULL_POINTER, "matrix output or source is NULL");
    *A = NULL;
    if (strncmp(source, "gen:", 4) == 0)
        return psl_generate(A, source);

    FILE *f = fopen(source, "rb");
    if (!f)
        return psl_error(PSL_ERR_IO, "cannot open '%s': %s", source, strerror(errno));
    unsigned char head[16] = {0};
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);

    bool gzip = got >= 2 && head[0] == 0x1f && head[1] == 0x8b;
    bool mm = got >= 14 && strncasecmp((const char *)head, "%%MatrixMarket", 14) == 0;
    if (gzip || mm)
        return psl_mm_read(A, source);
    psl_status st = psl_matrix_load(A, source);
    if (st == PSL_ERR_FILE_CORRUPT && got >= 1 && head[0] == '%')
        return psl_error(PSL_ERR_PARSE,
                         "'%s': line 1: not a Matrix Market file (expected the banner "
                         "'%%%%MatrixMarket') nor a packsell binary file",
                         source);
    return st;
}
