/*
 * tune_fit.c -- the least-squares fit of `packsell tune-csrk`: per range of
 * the tuning model's table, each group size against ln d (tune.h).
 */
#include "tune.h"

#include <math.h>

#define COEF_MAX 1e9 /* what a fit file accepts (psl_csrk_model_row) */

int tune_range_of(const psl_csrk_model_row *rows, int n, double d)
{
    if (d < 1)
        d = 1;
    int i = 0;
    while (i + 1 < n && d > rows[i].d_max)
        i++;
    return i;
}

/* a - b x through the points (x[i], y[i]), i < m (m >= 1). */
static void line_fit(const double *x, const double *y, int m, double *a, double *b)
{
    double mx = 0, my = 0;
    for (int i = 0; i < m; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= m;
    my /= m;
    double sxx = 0, sxy = 0;
    for (int i = 0; i < m; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    double slope = sxx > 1e-12 ? sxy / sxx : 0.0;
    *a = my - slope * mx;
    *b = -slope;
    if (!(fabs(*a) <= COEF_MAX && fabs(*b) <= COEF_MAX)) {
        *a = my;
        *b = 0;
    }
}

void tune_fit(psl_csrk_model_row *rows, int n, const tune_point *pts, int npts, int *count)
{
    for (int r = 0; r < n; r++) {
        double x[256], ysr[256], yssr[256];
        int m = 0;
        for (int i = 0; i < npts && m < 256; i++) {
            if (tune_range_of(rows, n, pts[i].d) != r)
                continue;
            x[m] = log(pts[i].d < 1 ? 1 : pts[i].d);
            ysr[m] = pts[i].sr;
            yssr[m] = pts[i].ssr;
            m++;
        }
        count[r] = m;
        if (m == 0)
            continue;
        line_fit(x, ysr, m, &rows[r].sr_a, &rows[r].sr_b);
        line_fit(x, yssr, m, &rows[r].ssr_a, &rows[r].ssr_b);
    }
}
