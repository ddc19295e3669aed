/*
 * vec_instances.h -- instantiate the template named by PSL_TEMPLATE once per
 * vector type of PSL_FOR_EACH_VEC (core/vec_types.h), defining for it:
 *   VEC_NAME  the kind's suffix (v64, v32, v16);  ACC_T  accumulation type;
 *   LANES     rows processed together (one accumulator array);
 *   ACC_SFX   d or f: SIMD accumulators of double or float (simd_common.h);
 *   XLOAD(x, c)                 x[c] as ACC_T (psl_<kind>_x);
 *   YSTORE(y, o, t, a, b, beta) finish row o (psl_<kind>_y, cpu_common.h).
 * The preprocessor cannot loop over #include, so each entry of the list
 * has a slot below (vec_slot.h; slots past the list's end are empty).
 * Included (several times) by the kernel .c files; no include guard.
 */
#if PSL_VEC_COUNT > PSL_VEC_MAX
#error "more vector types than vec_instances.h has slots"
#endif
#define PSL_VEC_SLOT 0
#include "vec_slot.h"
#define PSL_VEC_SLOT 1
#include "vec_slot.h"
#define PSL_VEC_SLOT 2
#include "vec_slot.h"
#define PSL_VEC_SLOT 3
#include "vec_slot.h"
#define PSL_VEC_SLOT 4
#include "vec_slot.h"
#define PSL_VEC_SLOT 5
#include "vec_slot.h"
#define PSL_VEC_SLOT 6
#include "vec_slot.h"
#define PSL_VEC_SLOT 7
#include "vec_slot.h"
