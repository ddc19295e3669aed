/*
 * alloc.c -- allocation with overflow-checked sizes. Every allocation of the
 * library goes through here, so that failures become PSL_ERR_OUT_OF_MEMORY.
 * psl_debug_fail_alloc_after(N) (tests) makes the N+1-th allocation from
 * then on fail, to exercise every cleanup path. On Linux a block of at
 * least twice the transparent huge page size is aligned to it and advised
 * for huge pages (option PSL_HUGEPAGES): the kernels stream these arrays,
 * and on 4 KiB pages a stream misses the TLB every 4 KiB (dear in a virtual
 * machine, whose page walks are nested).
 */
#define _GNU_SOURCE /* madvise, MADV_HUGEPAGE */
#include "internal.h"
#include "options.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

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

/* The transparent huge page size when the kernel offers them to a region
 * that asks (/sys/kernel/mm/transparent_hugepage/enabled "always" or
 * "madvise"), else 0; read once. */
static size_t huge_page_bytes(void)
{
    static atomic_llong cached = -1;
    long long v = atomic_load(&cached);
    if (v >= 0)
        return (size_t)v;
    v = 0;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f) {
        char text[128] = "";
        if (fgets(text, sizeof text, f) && !strstr(text, "[never]")) {
            FILE *g = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
            long long size = 0;
            if (g) {
                if (fscanf(g, "%lld", &size) != 1)
                    size = 0;
                fclose(g);
            }
            /* a power of two of at least 64 KiB, else not a size to align to */
            if (size >= (64LL << 10) && size <= (1LL << 30) && (size & (size - 1)) == 0)
                v = size;
        }
        fclose(f);
    }
#endif
    atomic_store(&cached, v);
    return (size_t)v;
}

/* The huge page size when a block of `bytes` goes on huge pages (at least
 * two of them, the OS offers them and the option allows; an invalid
 * PSL_HUGEPAGES counts as 0 here: an allocation has no error to give it,
 * psl_option_get and the tool's option check report it), else 0. */
static size_t huge_for(size_t bytes)
{
    size_t hp = huge_page_bytes();
    return hp && bytes >= 2 * hp && psl_opt_get_or(PSL_OPT_HUGEPAGES, 0) ? hp : 0;
}

/* bytes (> 0) from malloc (hp 0), or aligned to hp = huge_for(bytes) and
 * advised for huge pages. */
static void *block_alloc(size_t bytes, size_t hp)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (hp) {
        void *p = NULL;
        if (posix_memalign(&p, hp, bytes) != 0)
            return NULL;
        /* whole huge pages only: the tail stays on small pages. A refusal
         * leaves small pages, which is still correct memory. */
        (void)madvise(p, bytes / hp * hp, MADV_HUGEPAGE);
        return p;
    }
#else
    (void)hp; /* huge_page_bytes() is 0 here */
#endif
    return malloc(bytes);
}

void *psl_malloc(size_t nmemb, size_t size)
{
    if (size && nmemb > SIZE_MAX / size)
        return NULL;
    if (injected_failure())
        return NULL;
    size_t bytes = nmemb * size;
    if (bytes == 0)
        bytes = 1;
    return block_alloc(bytes, huge_for(bytes));
}

void *psl_calloc(size_t nmemb, size_t size)
{
    if (size && nmemb > SIZE_MAX / size)
        return NULL;
    if (injected_failure())
        return NULL;
    size_t bytes = nmemb * size, hp = huge_for(bytes);
    if (!hp)
        return calloc(nmemb ? nmemb : 1, size ? size : 1); /* lazily zeroed pages */
    void *p = block_alloc(bytes, hp);
    if (p)
        memset(p, 0, bytes);
    return p;
}

void *psl_host_alloc(size_t bytes)
{
    if (bytes == 0 || injected_failure())
        return NULL;
    return block_alloc(bytes, huge_for(bytes));
}

void psl_host_free(void *ptr) { free(ptr); }

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
