/*
 * finish_instances.h -- instantiate finish_tmpl.h once per vector kind in the
 * including translation unit (the include guard keeps it to once when both
 * sell_instances.h and packsell_instances.h are included, as in simd_tu.h).
 */
#ifndef PSL_CPU_FINISH_INSTANCES_H
#define PSL_CPU_FINISH_INSTANCES_H
#define PSL_TEMPLATE "finish_tmpl.h"
#include "vec_instances.h"
#undef PSL_TEMPLATE
#endif
