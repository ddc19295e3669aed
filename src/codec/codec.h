/*
 * codec.h -- internal entry points of the value codecs (see exmy.c) and the
 * scalar conversions of FP16/BF16 vectors and SELL values (half.h).
 */
#ifndef PSL_CODEC_H
#define PSL_CODEC_H

#include "packsell.h"

/* Encode without touching the thread's error record (hot loops): returns
 * PSL_OK, PSL_ERR_NONFINITE or PSL_ERR_CODEC_OVERFLOW; *bits is written
 * only on PSL_OK. The codec must be valid (psl_codec_check). */
psl_status psl_codec_encode_raw(psl_codec c, psl_overflow policy, double value,
                                uint32_t *bits);

#define PSL_CODEC_FP16 ((psl_codec){5, 10})
#define PSL_CODEC_BF16 ((psl_codec){8, 7})

#endif /* PSL_CODEC_H */
