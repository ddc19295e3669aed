/*
 * vec_instances.h -- instantiate the template named by PSL_TEMPLATE once per
 * vector kind (v64, v32, v16), defining for it:
 *   VEC_NAME  suffix of the kind;  ACC_T  accumulation type;
 *   LANES     rows processed together (one accumulator array);
 *   ACC_SFX   d or f: SIMD accumulators of double or float (simd_common.h);
 *   XLOAD(x, c)                 x[c] as ACC_T;
 *   YSTORE(y, o, t, a, b, beta) finish row o (cpu_common.h).
 * Included (several times) by the kernel .c files; no include guard.
 */
#define VEC_NAME v64
#define ACC_SFX d
#define ACC_T double
#define LANES 8
#define XLOAD(x, c) psl_v64_x(x, c)
#define YSTORE(y, o, t, a, b, beta) psl_v64_y(y, o, t, a, b, beta)
#include PSL_TEMPLATE
#undef VEC_NAME
#undef ACC_SFX
#undef ACC_T
#undef LANES
#undef XLOAD
#undef YSTORE

#define VEC_NAME v32
#define ACC_SFX f
#define ACC_T float
#define LANES 16
#define XLOAD(x, c) psl_v32_x(x, c)
#define YSTORE(y, o, t, a, b, beta) psl_v32_y(y, o, t, a, b, beta)
#include PSL_TEMPLATE
#undef VEC_NAME
#undef ACC_SFX
#undef ACC_T
#undef LANES
#undef XLOAD
#undef YSTORE

#define VEC_NAME v16
#define ACC_SFX f
#define ACC_T float
#define LANES 16
#define XLOAD(x, c) psl_v16_x(x, c)
#define YSTORE(y, o, t, a, b, beta) psl_v16_y(y, o, t, a, b, beta)
#include PSL_TEMPLATE
#undef VEC_NAME
#undef ACC_SFX
#undef ACC_T
#undef LANES
#undef XLOAD
#undef YSTORE
