/*
 * clock.c -- the library's one wall clock (monotonic seconds), for the
 * timings it traces and reports.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <time.h>

double psl_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
