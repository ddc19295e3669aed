/*
 * status.c -- status strings, the per-thread last-error record, version,
 * and the opt-in trace (option PSL_TRACE).
 */
#include "internal.h"
#include "options.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const status_text[] = {
    [0] = "success",
    [1] = "a required pointer argument is NULL",
    [2] = "an argument is outside its documented range",
    [3] = "invalid handle (freed, uninitialized or of another kind)",
    [4] = "operation not defined for this matrix format",
    [5] = "invalid CSR matrix",
    [6] = "NaN or Inf among the matrix values",
    [7] = "value exceeds the codec's largest finite value",
    [8] = "malformed input text",
    [9] = "valid input of an unsupported kind",
    [10] = "binary file damaged (truncated, inconsistent or bad checksum)",
    [11] = "binary file version not supported",
    [20] = "input/output error",
    [21] = "out of memory",
    [22] = "size exceeds the index types",
    [23] = "feature not compiled into this build",
    [24] = "CUDA error",
    [25] = "the solver reached its iteration limit before the tolerance",
    [26] = "the solver broke down (not positive definite, NaN or stagnation)",
    [27] = "an MPI call failed",
    [30] = "internal error in libpacksell (please report)",
};

const char *psl_status_string(psl_status status)
{
    int k = -(int)status;
    if (k >= 0 && k < (int)(sizeof status_text / sizeof status_text[0]) && status_text[k])
        return status_text[k];
    return "unknown status code";
}

static _Thread_local psl_error_info last_error = {PSL_OK, -1, -1, -1, ""};

static psl_status set_error(psl_status st, int64_t line, int64_t row, int64_t col,
                            const char *fmt, va_list ap)
{
    last_error.status = st;
    last_error.line = line;
    last_error.row = row;
    last_error.col = col;
    vsnprintf(last_error.message, sizeof last_error.message, fmt, ap);
    return st;
}

psl_status psl_error(psl_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(st, -1, -1, -1, fmt, ap);
    va_end(ap);
    return st;
}

psl_status psl_error_at(psl_status st, int64_t line, int64_t row, int64_t col,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(st, line, row, col, fmt, ap);
    va_end(ap);
    return st;
}

void psl_error_clear(void)
{
    last_error.status = PSL_OK;
    last_error.line = last_error.row = last_error.col = -1;
    last_error.message[0] = '\0';
}

void psl_last_error(psl_error_info *info)
{
    if (info)
        *info = last_error;
}

const char *psl_last_error_message(void) { return last_error.message; }

const char *psl_version(void)
{
    return "0.1.0 ("
#ifdef _OPENMP
           "openmp"
#else
           "serial"
#endif
#ifdef PSL_HAVE_CUDA
           ", cuda"
#endif
           ")";
}

void psl_trace(const char *fmt, ...)
{
    if (psl_opt_get_or(PSL_OPT_TRACE, 0) != 1) /* invalid: psl_spmv reports it */
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("[packsell] ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
