/*
 * vec_types.h -- the one list of the vector types SpMV supports (x and y),
 * expanded by the CPU kernels (src/kernels/cpu/vec_instances.h, the select
 * tables, psl_cpu_scale), the CUDA kernels (psl_with_vec of
 * src/kernels/cuda/vec_ops.cuh) and the argument checks. Plain C
 * preprocessor, usable from C and CUDA C++.
 *
 * Adding a vector type is one line here plus its arithmetic: the CPU load and
 * store helpers psl_v<NAME>_x / psl_v<NAME>_y (cpu_common.h) and the SIMD
 * ones psl_s_v<NAME>_* (simd_common.h), and the CUDA struct psl_vec<NAME>
 * (vec_ops.cuh).
 */
#ifndef PSL_VEC_TYPES_H
#define PSL_VEC_TYPES_H

#include "packsell.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * X(arg, TYPE, NAME, ELEM_T, ACC_T, ACC_SFX, LANES) for every vector type:
 *   TYPE     its psl_scalar; the types are 0 .. PSL_VEC_COUNT-1 (the kernel
 *            tables are indexed by it);
 *   NAME     the suffix of its kernels: v<NAME> on the CPU
 *            (psl_cpu_sell_fp32_v64), psl_vec<NAME> on CUDA;
 *   ELEM_T   the C type of an element of x and y;
 *   ACC_T    the accumulation type (kernels.h: the arithmetic contract);
 *   ACC_SFX  d or f: the CPU SIMD accumulators of ACC_T (simd_common.h);
 *   LANES    rows the portable CPU kernels sum together (one array of ACC_T).
 * arg is passed through unchanged (for example the prefix of a table row).
 */
#define PSL_FOR_EACH_VEC_WITH(X, arg)              \
    X(arg, PSL_FP64, 64, double, double, d, 8)     \
    X(arg, PSL_FP32, 32, float, float, f, 16)      \
    X(arg, PSL_FP16, 16, uint16_t, float, f, 16)

/* X(TYPE, NAME, ELEM_T, ACC_T, ACC_SFX, LANES) for every vector type. */
#define PSL_FOR_EACH_VEC(X) PSL_FOR_EACH_VEC_WITH(PSL_VEC_NO_ARG_, X)
#define PSL_VEC_NO_ARG_(X, ...) X(__VA_ARGS__)

/* The number of vector types (usable in #if and as an array size). */
#define PSL_VEC_COUNT (0 PSL_FOR_EACH_VEC(PSL_VEC_ONE_))
#define PSL_VEC_ONE_(...) +1

/* "PSL_FP64, PSL_FP32, ...": the names of the vector types, for messages. */
#define PSL_VEC_NAMES (PSL_FOR_EACH_VEC(PSL_VEC_NAME_STR_) + 2)
#define PSL_VEC_NAME_STR_(TYPE, ...) ", " #TYPE

/* Whether t is a vector type of the list. */
static inline bool psl_vec_supported(psl_scalar t)
{
#define PSL_VEC_CASE_(TYPE, ...) case TYPE:
    switch (t) {
        PSL_FOR_EACH_VEC(PSL_VEC_CASE_)
        return true;
    default: return false;
    }
#undef PSL_VEC_CASE_
}

/* Bytes of the accumulation type of vector type t (a type of the list). */
static inline size_t psl_vec_acc_size(psl_scalar t)
{
#define PSL_VEC_ACC_SIZE_(TYPE, NAME, ELEM_T, ACC_T, ...) \
    case TYPE: return sizeof(ACC_T);
    switch (t) {
        PSL_FOR_EACH_VEC(PSL_VEC_ACC_SIZE_)
    default: return 0;
    }
#undef PSL_VEC_ACC_SIZE_
}

/*
 * The fields of entry i (0 .. 7, a literal or a macro of one) of the list,
 * for code that must visit the types one #include at a time
 * (src/kernels/cpu/vec_instances.h): PSL_VEC_FIELD(i, NAME) and so on.
 */
#define PSL_VEC_FIELD(i, field) PSL_VEC_APPLY_(PSL_VEC_F_##field##_, PSL_VEC_ENTRY_(i))
#define PSL_VEC_F_TYPE_(TYPE, NAME, ELEM_T, ACC_T, ACC_SFX, LANES) TYPE
#define PSL_VEC_F_NAME_(TYPE, NAME, ELEM_T, ACC_T, ACC_SFX, LANES) NAME
#define PSL_VEC_F_ELEM_T_(TYPE, NAME, ELEM_T, ACC_T, ACC_SFX, LANES) ELEM_T
#define PSL_VEC_F_ACC_T_(TYPE, NAME, ELEM_T, ACC_T, ACC_SFX, LANES) ACC_T
#define PSL_VEC_F_ACC_SFX_(TYPE, NAME, ELEM_T, ACC_T, ACC_SFX, LANES) ACC_SFX
#define PSL_VEC_F_LANES_(TYPE, NAME, ELEM_T, ACC_T, ACC_SFX, LANES) LANES
#define PSL_VEC_APPLY_(f, entry) f entry
/* entry i as a parenthesized tuple: the list as "(...), (...), ..." padded
 * with ~, and the i-th element of that */
#define PSL_VEC_ENTRY_(i) \
    PSL_VEC_CALL_(PSL_VEC_PASTE_(PSL_VEC_PICK_, i), PSL_VEC_TUPLES_ ~, ~, ~, ~, ~, ~, ~, ~)
#define PSL_VEC_TUPLES_ PSL_FOR_EACH_VEC(PSL_VEC_TUPLE_)
#define PSL_VEC_TUPLE_(...) (__VA_ARGS__),
#define PSL_VEC_CALL_(m, ...) m(__VA_ARGS__)
#define PSL_VEC_PASTE_(a, b) PSL_VEC_PASTE2_(a, b)
#define PSL_VEC_PASTE2_(a, b) a##b
#define PSL_VEC_PICK_0(a, ...) a
#define PSL_VEC_PICK_1(a, b, ...) b
#define PSL_VEC_PICK_2(a, b, c, ...) c
#define PSL_VEC_PICK_3(a, b, c, d, ...) d
#define PSL_VEC_PICK_4(a, b, c, d, e, ...) e
#define PSL_VEC_PICK_5(a, b, c, d, e, f, ...) f
#define PSL_VEC_PICK_6(a, b, c, d, e, f, g, ...) g
#define PSL_VEC_PICK_7(a, b, c, d, e, f, g, h, ...) h
#define PSL_VEC_MAX 8 /* entries PSL_VEC_FIELD reaches */

#endif /* PSL_VEC_TYPES_H */
