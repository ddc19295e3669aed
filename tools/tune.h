/*
 * tune.h -- the fit of `packsell tune-csrk` (tune_fit.c): the tuning
 * model's coefficients from the best group sizes that a sweep found on
 * matrices of known d = nonzeros per row. The command itself is in
 * cmd_tune.c.
 */
#ifndef PSL_TUNE_H
#define PSL_TUNE_H

#include "packsell.h"

/* The best sizes of one matrix: rows per super-row and super-rows per
 * super-super-row (k = 3) at d nonzeros per row. */
typedef struct tune_point {
    double d;
    int32_t sr, ssr;
} tune_point;

/* The row of table rows (n rows, ranges of d by d_max as the model reads
 * them: d <= 1 counts as 1) that holds d. */
int tune_range_of(const psl_csrk_model_row *rows, int n, double d);

/* Fit the coefficients of rows[0 .. n) to the points, range by range,
 * keeping d_max and the blocks: with two or more distinct ln d in a range,
 * the ordinary least squares line of the best size against ln d for each
 * of the two sizes (size = a - b ln d); with one (or all d equal), b = 0
 * and a = the mean size; with none the row keeps its coefficients. A line
 * too steep for a fit file (|a| or |b| above 1e9) falls back to b = 0 and
 * the mean. count[i] receives the points of row i. */
void tune_fit(psl_csrk_model_row *rows, int n, const tune_point *pts, int npts, int *count);

#endif
