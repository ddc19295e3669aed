/*
 * memory.c -- the check of a request (a generated or read matrix, SELL or
 * PackSELL storage, a growth of the SD-AINV factors) against the memory the
 * machine has free, made before the work, so that a matrix that cannot fit
 * fails at once with the estimate instead of after minutes of paging or at
 * the last allocation. Free memory is Linux's MemAvailable (/proc/meminfo), else the
 * available physical pages; where neither is known nothing is refused.
 * PSL_MEMORY_CHECK=0 turns the check off (a machine with swap to spare).
 * PSL_MEMORY_LIMIT (bytes) is a ceiling of the user's on top, applied to
 * every request, small ones too, whatever PSL_MEMORY_CHECK says.
 */
#define _DEFAULT_SOURCE
#include "internal.h"
#include "options.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Bytes of memory available now, or 0 when unknown. */
static double available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        double kb = 0.0;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
                break;
        fclose(f);
        if (kb > 0.0)
            return kb * 1024.0;
    }
#if defined(_SC_AVPHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0)
        return (double)pages * (double)size;
#endif
    return 0.0;
}

psl_status psl_memory_check(double bytes, const char *what)
{
    int on = 1;
    long long limit = 0;
    PSL_TRY(psl_opt_get(PSL_OPT_MEMORY_CHECK, &on));
    PSL_TRY(psl_opt_get_size(PSL_OPT_MEMORY_LIMIT, &limit));
    if (limit > 0 && bytes > (double)limit)
        return psl_error(PSL_ERR_OUT_OF_MEMORY,
                         "%s needs about %.3g MB of memory, above PSL_MEMORY_LIMIT=%lld bytes",
                         what, bytes / 1e6, limit);
    if (!on || bytes < 64.0 * 1024 * 1024) /* small requests: not worth a file read */
        return PSL_OK;
    double avail = available_bytes();
    if (avail > 0.0 && bytes > avail)
        return psl_error(PSL_ERR_OUT_OF_MEMORY,
                         "%s needs about %.3g GB of memory and %.3g GB are available "
                         "(PSL_MEMORY_CHECK=0 tries anyway)",
                         what, bytes / 1e9, avail / 1e9);
    return PSL_OK;
}
