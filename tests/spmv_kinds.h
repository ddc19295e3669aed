/*
 * spmv_kinds.h -- the storage kinds (format + value type or codec) and
 * vector types that every SpMV test runs, CPU and GPU alike; public API
 * types only.
 */
#ifndef PSL_TEST_SPMV_KINDS_H
#define PSL_TEST_SPMV_KINDS_H

#include "packsell.h"

/* Every storage kind the SpMV tests run: format + value type (CSR, SELL) or
 * codec (PackSELL). */
typedef struct fx_kind {
    psl_format f;
    psl_scalar vt;
    psl_codec codec;
    const char *name;
} fx_kind;

static const fx_kind fx_kinds[] = {
    {PSL_FORMAT_CSR, PSL_FP64, {5, 10}, "csr-fp64"},
    {PSL_FORMAT_CSR, PSL_FP32, {5, 10}, "csr-fp32"},
    {PSL_FORMAT_SELL, PSL_FP64, {5, 10}, "sell-fp64"},
    {PSL_FORMAT_SELL, PSL_FP32, {5, 10}, "sell-fp32"},
    {PSL_FORMAT_SELL, PSL_FP16, {5, 10}, "sell-fp16"},
    {PSL_FORMAT_SELL, PSL_BF16, {5, 10}, "sell-bf16"},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {5, 10}, "packsell-fp16"},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {8, 7}, "packsell-bf16"},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {8, 21}, "packsell-e8m21"},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {8, 10}, "packsell-e8m10"},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {8, 0}, "packsell-e8m0"},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {5, 12}, "packsell-e5m12"},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {4, 3}, "packsell-e4m3"},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {7, 12}, "packsell-e7m12"},
};
#define FX_NKINDS ((int)(sizeof fx_kinds / sizeof fx_kinds[0]))

static const psl_scalar fx_vec_types[] = {PSL_FP64, PSL_FP32, PSL_FP16};

#endif
