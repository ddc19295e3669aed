/*
 * rng.h -- the counter-based random numbers of the generators.
 *
 * Every random draw is a pure function of (seed, row, stream, j): a stream is
 * a splitmix64 sequence whose start is a hash of (seed, row, stream), so the
 * numbers a row receives never depend on which thread builds it or on how
 * many threads there are. Streams separate the purposes within a row (row
 * length, near columns, far columns, values) so that changing one use does
 * not shift the others.
 */
#ifndef PSL_GEN_RNG_H
#define PSL_GEN_RNG_H

#include <stdint.h>

#define PSL_RNG_GOLDEN 0x9e3779b97f4a7c15ULL

/* Stream identifiers within a row. */
enum { PSL_RNG_LENGTH = 1, PSL_RNG_NEAR = 2, PSL_RNG_COLS = 3, PSL_RNG_VALUES = 4 };

typedef struct psl_rng {
    uint64_t state;
} psl_rng;

/* The splitmix64 finalizer: a bijective 64-bit mixing function. */
static inline uint64_t psl_rng_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The stream of (seed, row, stream): three chained mixes, so that nearby
 * seeds, rows and streams start far apart. */
static inline psl_rng psl_rng_stream(uint64_t seed, uint64_t row, uint64_t stream)
{
    uint64_t z = psl_rng_mix(seed + PSL_RNG_GOLDEN);
    z = psl_rng_mix(z ^ (row * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL));
    z = psl_rng_mix(z ^ (stream * 0xaef17502108ef2d9ULL + 0x2545f4914f6cdd1dULL));
    psl_rng r = {z};
    return r;
}

/* Next 64 random bits of a stream (splitmix64 step). */
static inline uint64_t psl_rng_next(psl_rng *r)
{
    r->state += PSL_RNG_GOLDEN;
    return psl_rng_mix(r->state);
}

/* Uniform integer in [0, m), 1 <= m <= 2^32, without bias (Lemire's
 * multiply-shift with rejection of the short interval). */
static inline uint32_t psl_rng_below(psl_rng *r, uint64_t m)
{
    uint64_t prod = (psl_rng_next(r) >> 32) * m;
    uint32_t low = (uint32_t)prod;
    if (low < m) {
        uint32_t threshold = (uint32_t)((UINT64_C(0x100000000) - m) % m);
        while (low < threshold) {
            prod = (psl_rng_next(r) >> 32) * m;
            low = (uint32_t)prod;
        }
    }
    return (uint32_t)(prod >> 32);
}

/* Uniform double in [-1, 1) on the grid of 2^-52. */
static inline double psl_rng_signed_unit(psl_rng *r)
{
    return (double)(psl_rng_next(r) >> 11) * 0x1.0p-52 - 1.0;
}

/* Uniform double in (0, 1] on the grid of 2^-53 (never 0: safe for pow). */
static inline double psl_rng_open_unit(psl_rng *r)
{
    return (double)((psl_rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

#endif /* PSL_GEN_RNG_H */
