/*
 * alloc.c -- allocation with overflow-checked sizes. Every allocation of the
 * library goes through here, so that failures become PSL_ERR_OUT_OF_MEMORY.
 * psl_debug_fail_alloc_after(N) (tests) makes the N+1-th allocation from
 * then on fail, to exercise every cleanup path.
 */
#include "internal.h"

#include <stdatomic.h>
#include <stdlib.h>

static atomic_llong fail_countdown = -1; /* -1: disabled */

psl_status psl_debug_fail_alloc_after(int64_t n)
{
    if (n < -1)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_debug_fail_alloc_after: n = %lld (use -1 for off or n >= 0)",
                         (long long)n);
    atomic_store(&fail_countdown, (long long)n);
    return PSL_OK;
}

/* True for the one allocation the countdown reaches 0 at (the count then
 * stays negative: off). */
static bool injected_failure(void)
{
    if (atomic_load(&fail_countdown) < 0)
        return false;
    return atomic_fetch_sub(&fail_countdown, 1) == 0;
}

void *psl_malloc(size_t nmemb, size_t size)
{
    if (size && nmemb > SIZE_MAX / size)
        return NULL;
    if (injected_failure())
        return NULL;
    size_t bytes = nmemb * size;
    return malloc(bytes ? bytes : 1);
}

void *psl_calloc(size_t nmemb, size_t size)
{
    if (size && nmemb > SIZE_MAX / size)
        return NULL;
    if (injected_failure())
        return NULL;
    return calloc(nmemb ? nmemb : 1, size ? size : 1);
}

psl_status psl_alloc(void **out, size_t nmemb, size_t size, const char *what)
{
    *out = psl_malloc(nmemb, size);
    if (!*out)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating %s (%zu x %zu bytes)",
                         what, nmemb, size);
    return PSL_OK;
}

psl_status psl_alloc_zero(void **out, size_t nmemb, size_t size, const char *what)
{
    *out = psl_calloc(nmemb, size);
    if (!*out)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating %s (%zu x %zu bytes)",
                         what, nmemb, size);
    return PSL_OK;
}

void psl_free(void *ptr) { free(ptr); }
