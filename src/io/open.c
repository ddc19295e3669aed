/*
 * open.c -- psl_matrix_open: one entry point for every matrix source the
 * command line accepts ("gen:" specs, packsell binary files, Matrix Market
 * files plain or gzip-compressed, and Matrix Market from a stream: "-", a
 * pipe or a FIFO), chosen by prefix and magic bytes.
 */
#define _POSIX_C_SOURCE 200809L /* stat */
#include "internal.h"
#include "io/mm_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Whether source is read as a stream: "-" (standard input), a pipe, a
 * FIFO or a character device such as /dev/stdin: it cannot be opened twice,
 * so it is read once, whole, and must be Matrix Market (plain or gzip). */
static bool is_stream(const char *source)
{
    if (strcmp(source, "-") == 0)
        return true;
    struct stat sb;
    return stat(source, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode));
}

static psl_status open_stream(psl_matrix **A, const char *source)
{
    const char *path = strcmp(source, "-") == 0 ? "/dev/stdin" : source;
    const char *name = strcmp(source, "-") == 0 ? "standard input" : source;
    char *text = NULL;
    size_t len = 0;
    PSL_TRY(psl_mm_load_file(path, &text, &len)); /* gzip inflated */
    psl_status st;
    if (len >= 14 && strncasecmp(text, "%%MatrixMarket", 14) == 0)
        st = psl_mm_read_buffer(A, text, len);
    else
        st = psl_error(PSL_ERR_PARSE,
                       "line 1: not a Matrix Market stream (a packsell binary file is read "
                       "from a file, not a stream)");
    free(text);
    if (st != PSL_OK) {
        psl_error_info info;
        psl_last_error(&info);
        return psl_error_at(st, info.line, info.row, info.col, "%s: %s", name, info.message);
    }
    return PSL_OK;
}

psl_status psl_matrix_open(psl_matrix **A, const char *source)
{
    if (!A || !source)
        return psl_error(PSL_ERR_NULL_POINTER, "matrix output or source is NULL");
    *A = NULL;
    if (strncmp(source, "gen:", 4) == 0)
        return psl_generate(A, source);
    if (is_stream(source))
        return open_stream(A, source);

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
