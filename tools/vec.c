/*
 * vec.c -- dense vectors of the command: conversion between doubles and the
 * vector types of psl_spmv (FP64, FP32, FP16). Rounding to FP16 uses the
 * library's codec (round-to-nearest-even from the double itself); a finite
 * value beyond the range of the type is reported, never turned into Inf.
 */
#include "cli.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const psl_codec fp16_codec = {5, 10};

size_t cli_vec_size(psl_scalar t)
{
    switch (t) {
    case PSL_FP64: return 8;
    case PSL_FP32: return 4;
    default: return 2;
    }
}

/* IEEE binary16 bits of a non-finite double. */
static uint16_t half_nonfinite(double v)
{
    if (isnan(v))
        return signbit(v) ? 0xfe00 : 0x7e00;
    return v < 0 ? 0xfc00 : 0x7c00;
}

/* The value of IEEE binary16 bits (Inf and NaN included). */
static double half_value(uint16_t h) { return psl_codec_decode(fp16_codec, h); }

double cli_round_fp16(double v)
{
    uint32_t b = 0;
    if (!isfinite(v))
        return v;
    if (psl_codec_encode(fp16_codec, PSL_OVERFLOW_SATURATE, v, &b) != PSL_OK)
        return NAN;
    return half_value((uint16_t)b);
}

void *cli_vec_from_double(const double *x, int64_t n, psl_scalar t, const char *what,
                          char *errbuf, size_t errlen)
{
    void *v = psl_host_alloc((size_t)(n > 0 ? n : 1) * cli_vec_size(t));
    if (!v) {
        snprintf(errbuf, errlen, "out of memory for %s (%lld entries)", what, (long long)n);
        return NULL;
    }
    if (t == PSL_FP64) {
        if (n > 0)
            memcpy(v, x, (size_t)n * sizeof *x);
        return v;
    }
    for (int64_t i = 0; i < n; i++) {
        int over = 0;
        if (t == PSL_FP32) {
            over = isfinite(x[i]) && fabs(x[i]) > (double)FLT_MAX &&
                   !isfinite((float)x[i]);
            ((float *)v)[i] = (float)x[i];
        } else {
            uint32_t b = 0;
            if (!isfinite(x[i]))
                b = half_nonfinite(x[i]);
            else
                over = psl_codec_encode(fp16_codec, PSL_OVERFLOW_ERROR, x[i], &b) != PSL_OK;
            ((uint16_t *)v)[i] = (uint16_t)b;
        }
        if (over) {
            snprintf(errbuf, errlen, "%s[%lld] = %.17g is beyond the range of %s", what,
                     (long long)i, x[i], psl_scalar_name(t));
            free(v);
            return NULL;
        }
    }
    return v;
}

void cli_vec_to_double(const void *v, int64_t n, psl_scalar t, double *y)
{
    for (int64_t i = 0; i < n; i++) {
        if (t == PSL_FP64)
            y[i] = ((const double *)v)[i];
        else if (t == PSL_FP32)
            y[i] = ((const float *)v)[i];
        else
            y[i] = half_value(((const uint16_t *)v)[i]);
    }
}

double cli_uniform_pm1(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}
