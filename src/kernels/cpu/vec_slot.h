/*
 * vec_slot.h -- one slot of vec_instances.h: PSL_TEMPLATE instantiated for
 * entry PSL_VEC_SLOT of PSL_FOR_EACH_VEC, with the vector-kind macros of
 * vec_instances.h; nothing when the list is shorter. Undefines
 * PSL_VEC_SLOT. No include guard.
 */
#if PSL_VEC_SLOT < PSL_VEC_COUNT
#define VEC_NAME PSL_CAT(v, PSL_VEC_FIELD(PSL_VEC_SLOT, NAME))
#define ACC_SFX PSL_VEC_FIELD(PSL_VEC_SLOT, ACC_SFX)
#define ACC_T PSL_VEC_FIELD(PSL_VEC_SLOT, ACC_T)
#define LANES PSL_VEC_FIELD(PSL_VEC_SLOT, LANES)
#define XLOAD(x, c) PSL_CAT3(psl_, VEC_NAME, _x)(x, c)
#define YSTORE(y, o, t, a, b, beta) PSL_CAT3(psl_, VEC_NAME, _y)(y, o, t, a, b, beta)
#include PSL_TEMPLATE
#undef VEC_NAME
#undef ACC_SFX
#undef ACC_T
#undef LANES
#undef XLOAD
#undef YSTORE
#endif
#undef PSL_VEC_SLOT
