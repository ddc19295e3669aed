/*
 * choose.h -- what the GPU chooser (choose.c) and the CPU chooser
 * (choose_cpu.c) share: the candidates and the pick, priced by a cost model
 * each.
 */
#ifndef PSL_FORMAT_CHOOSE_H
#define PSL_FORMAT_CHOOSE_H

#include "packsell.h"

/* A cost model: fills a candidate's bandwidth_us, latency_us and
 * predicted_us from its layout (bytes, vector bytes, slice widths) and
 * the source matrix. cpu: the CSR candidate is the library's kernel (its
 * name and host layout), else cuSPARSE's. */
typedef struct psl_pricer {
    void (*price)(psl_candidate *c, const psl_matrix *src, const void *ctx);
    const void *ctx;
    int cpu;
} psl_pricer;

/* The candidates of prec for csr (an FP64 CSR matrix) priced by pr, and the
 * cheapest as the pick; device, on_cpu and cpu are left zero. *choice is
 * written only on success. */
psl_status psl_choose_with(const psl_matrix *csr, psl_precision prec, const psl_pricer *pr,
                           psl_choice *choice);

#endif /* PSL_FORMAT_CHOOSE_H */
