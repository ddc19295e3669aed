/*
 * alloc.c -- allocation with overflow-checked sizes. Every allocation of the
 * library goes through here, so that failures become PSL_ERR_OUT_OF_MEMORY.
 * Setting PSL_FAIL_ALLOC_AFTER=N in the environment (tests only) makes the
 * N+1-th allocation fail, to exercise every cleanup path.
 */
#include "internal.h"

#include <stdatomic.h>
#include <stdlib.h>

static atomic_llong fail_countdown = -2; /* -2: not read yet; -1: disabled */

static bool injected_failure(void)
{
    long long c = atomic_load(&fail_countdown);
    if (c == -2) {
        const char *v = getenv("PSL_FAIL_ALLOC_AFTER");
        long long init = v && *v ? atoll(v) : -1;
        long long expect = -2;
        atomic_compare_exchange_strong(&fail_countdown, &expect, init);
        c = atomic_load(&fail_countdown);
    }
    if (c < 0)
        return false;
    return atomic_fetch_sub(&fail_countdown, 1) <= 0;
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

void psl_free(void *ptr) { free(ptr); }
