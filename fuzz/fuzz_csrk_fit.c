/*
 * fuzz_csrk_fit.c -- libFuzzer target for the reader of CSR-k fit files
 * (src/format/csrk/csrk_fit_file.c): any bytes go to psl_csrk_fit_parse,
 * which must either fail with a message naming a line, or give tables
 * that pass the checks the library applies before using a table.
 */
#include "packsell.h"
#include "format/csrk/csrk.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    psl_csrk_fit_tables t;
    psl_status st = psl_csrk_fit_parse("input", (const char *)data, size, &t);
    if (st != PSL_OK) {
        psl_error_info e;
        psl_last_error(&e);
        if (e.line < 1 || !e.message[0])
            abort(); /* every error names its line */
        return 0;
    }
    for (int d = 0; d < PSL_CSRK_DEVICES; d++)
        if (t.n[d] > 0 && psl_csrk_fit_check((psl_csrk_device)d, t.rows[d], t.n[d], "fuzz") != PSL_OK)
            abort();
    return 0;
}
