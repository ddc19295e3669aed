/*
 * timer.c -- the monotonic wall clock (clock_gettime CLOCK_MONOTONIC), the
 * median of timing samples, and the date and host that stamp a report.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cli_run_stamp(char *date, size_t date_len, char *host, size_t host_len)
{
    time_t now = time(NULL);
    struct tm tmv;
    date[0] = '\0';
    if (gmtime_r(&now, &tmv))
        strftime(date, date_len, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    if (gethostname(host, host_len - 1) != 0)
        host[0] = '\0';
    host[host_len - 1] = '\0';
}

double cli_median(double *t, int64_t n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}
