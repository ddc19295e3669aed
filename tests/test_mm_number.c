/*
 * test_mm_number.c -- the Matrix Market number parsers against strtod /
 * strtoll: random decimal strings of every shape (short and long
 * significands, leading and trailing zeros, small and large exponents,
 * halfway cases, printed doubles) must give bit-identical results.
 */
#include "harness.h"
#include "io/mm_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse s (whole string) with the library and with strtod; compare bits. */
static int same_as_strtod(const char *s)
{
    const char *next = NULL;
    double mine = 0;
    psl_num_result r = psl_mm_parse_double(s, s + strlen(s), &mine, &next);
    char *stop = NULL;
    double ref = strtod(s, &stop);
    if (ref - ref != 0) { /* strtod overflowed: the parser must say non-finite */
        if (r == PSL_NUM_NONFINITE)
            return 1;
        fprintf(stderr, "  '%s': result %d, strtod overflows\n", s, (int)r);
        return 0;
    }
    if (r != PSL_NUM_OK || next != s + strlen(s) || *stop) {
        fprintf(stderr, "  '%s': result %d\n", s, (int)r);
        return 0;
    }
    if (memcmp(&mine, &ref, sizeof mine) != 0) {
        fprintf(stderr, "  '%s': %.17g (%a) vs strtod %.17g (%a)\n", s, mine, mine, ref, ref);
        return 0;
    }
    return 1;
}

/* A random decimal: nd digits (some leading/trailing zeros), a point
 * somewhere or not, an exponent or not. */
static void random_decimal(unsigned long long *seed, char *out, int max_digits, int max_exp)
{
    char *p = out;
    unsigned long long r = psl_test_rand(seed);
    if (r & 1)
        *p++ = '-';
    else if (r & 2)
        *p++ = '+';
    int nd = 1 + (int)(psl_test_rand(seed) % (unsigned)max_digits);
    int point = (int)(psl_test_rand(seed) % (unsigned)(nd + 2)) - 1; /* -1: none */
    int lead = (psl_test_rand(seed) % 4 == 0) ? (int)(psl_test_rand(seed) % 5) : 0;
    int trail = (psl_test_rand(seed) % 4 == 0) ? (int)(psl_test_rand(seed) % 5) : 0;
    for (int i = 0; i < nd + lead + trail; i++) {
        if (i == point)
            *p++ = '.';
        char d = (char)('0' + psl_test_rand(seed) % 10);
        if (i < lead || i >= lead + nd)
            d = '0';
        *p++ = d;
    }
    if (point == nd + lead + trail)
        *p++ = '.';
    if (psl_test_rand(seed) % 3) {
        *p++ = (psl_test_rand(seed) & 1) ? 'e' : 'E';
        int e = (int)(psl_test_rand(seed) % (unsigned)(2 * max_exp + 1)) - max_exp;
        p += sprintf(p, (psl_test_rand(seed) & 1) ? "%+d" : "%d", e);
    }
    *p = '\0';
}

TEST(random_decimals_match_strtod)
{
    unsigned long long seed = 12345;
    char buf[128];
    int bad = 0;
    /* short and 19-digit significands with exponents around the fast paths */
    for (int i = 0; i < 400000 && bad < 10; i++) {
        random_decimal(&seed, buf, i % 2 ? 19 : 8, i % 3 ? 30 : 340);
        bad += !same_as_strtod(buf);
    }
    /* long significands (strtod fallback) */
    for (int i = 0; i < 50000 && bad < 10; i++) {
        random_decimal(&seed, buf, 40, 40);
        bad += !same_as_strtod(buf);
    }
    CHECK(bad == 0);
}

TEST(printed_doubles_match_strtod)
{
    unsigned long long seed = 777;
    char buf[64];
    int bad = 0;
    const char *fmts[] = {"%.17g", "%.16g", "%.15e", "%.6g", "%.19e", "%.17f"};
    for (int i = 0; i < 300000 && bad < 10; i++) {
        uint64_t bits = psl_test_rand(&seed);
        double v;
        if (i % 2) { /* any finite double */
            memcpy(&v, &bits, sizeof v);
            if (v != v || v - v != 0)
                continue;
        } else { /* values of typical magnitude */
            v = (psl_test_uniform(&seed) - 0.5) * 1e4;
        }
        snprintf(buf, sizeof buf, fmts[i % 6], v);
        if (strlen(buf) > 60)
            continue;
        bad += !same_as_strtod(buf);
    }
    CHECK(bad == 0);
}

TEST(halfway_and_edge_cases)
{
    const char *cases[] = {
        "9007199254740993",        /* 2^53 + 1: halfway, rounds to even */
        "9007199254740995",        /* halfway, rounds up */
        "9007199254740993e0",      "900719925474099.3e1",
        "18014398509481985",       "18014398509481986", "18014398509481987",
        "9223372036854775807",     "9999999999999999999", "1000000000000000000",
        "1e22", "1e23", "1e-22", "1e-23", "1e27", "1e-27", "1e28", "1e-28",
        "8.98846567431158e307", "1.7976931348623157e308", "2.2250738585072014e-308",
        "2.2250738585072011e-308", "4.9406564584124654e-324", "2.4703282292062327e-324",
        "2.4703282292062328e-324", "1e-400", "0.000000000000000000000000000000001",
        "0", "-0", "0.0e-999999999", "00000000000000000000000000001", "123456789012345678e-27",
        "7.2057594037927933e16", "0.1", "0.2", "0.3", "3.14159265358979323846264338327950288",
        "1.00000000000000011102230246251565404236316680908203125", /* halfway 1 + 2^-53 */
        "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126",
        "5e-324", "1e308",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK_MSG(same_as_strtod(cases[i]), "%s", cases[i]);
}

TEST(rejects_and_nonfinite)
{
    const char *bad[] = {"", "+", "-", ".", "e5", "1e", "1e+", "1.2.3", "0x10", "1,5",
                         "1d5", "--1", "1e5e", "infinite", "nan(", "abc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *s = bad[i], *next;
        double v = 42;
        CHECK_MSG(psl_mm_parse_double(s, s + strlen(s), &v, &next) == PSL_NUM_BAD, "'%s'", s);
        CHECK(v == 42);
    }
    const char *nf[] = {"inf", "-INF", "Infinity", "nan", "NaN", "-nan(0x1)", "1e309",
                        "-1e400000000000"};
    for (size_t i = 0; i < sizeof nf / sizeof nf[0]; i++) {
        const char *s = nf[i], *next;
        double v;
        CHECK_MSG(psl_mm_parse_double(s, s + strlen(s), &v, &next) == PSL_NUM_NONFINITE, "'%s'",
                  s);
    }
    /* the token ends at a blank; a token may end at the buffer end */
    const char *s = "2.5 7", *next;
    double v = 0;
    CHECK(psl_mm_parse_double(s, s + 5, &v, &next) == PSL_NUM_OK && v == 2.5 && next == s + 3);
    CHECK(psl_mm_parse_double(s, s + 2, &v, &next) == PSL_NUM_OK && v == 2.0);
}

TEST(integers)
{
    unsigned long long seed = 99;
    char buf[64];
    for (int i = 0; i < 100000; i++) {
        long long x = (long long)psl_test_rand(&seed) >> (psl_test_rand(&seed) % 63);
        snprintf(buf, sizeof buf, "%lld", x);
        int64_t got = 0;
        const char *next;
        psl_num_result r = psl_mm_parse_int(buf, buf + strlen(buf), &got, &next);
        CHECK_MSG(r == PSL_NUM_OK && got == x, "%s", buf);
        if (r != PSL_NUM_OK || got != x)
            break;
    }
    struct { const char *s; psl_num_result r; int64_t v; } cases[] = {
        {"9223372036854775807", PSL_NUM_OK, INT64_MAX},
        {"-9223372036854775808", PSL_NUM_OK, INT64_MIN},
        {"9223372036854775808", PSL_NUM_RANGE, 0},
        {"-9223372036854775809", PSL_NUM_RANGE, 0},
        {"99999999999999999999", PSL_NUM_RANGE, 0},
        {"0000000000000000000000000042", PSL_NUM_OK, 42},
        {"+7", PSL_NUM_OK, 7},
        {"1.0", PSL_NUM_BAD, 0}, {"1e3", PSL_NUM_BAD, 0}, {"", PSL_NUM_BAD, 0},
        {"-", PSL_NUM_BAD, 0}, {"x1", PSL_NUM_BAD, 0}, {"12a", PSL_NUM_BAD, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t got = 0;
        const char *next, *s = cases[i].s;
        psl_num_result r = psl_mm_parse_int(s, s + strlen(s), &got, &next);
        CHECK_MSG(r == cases[i].r, "'%s': %d", s, (int)r);
        if (r == PSL_NUM_OK)
            CHECK_MSG(got == cases[i].v, "'%s'", s);
    }
}

static const psl_test_case tests[] = {
    {"random_decimals_match_strtod", random_decimals_match_strtod},
    {"printed_doubles_match_strtod", printed_doubles_match_strtod},
    {"halfway_and_edge_cases", halfway_and_edge_cases},
    {"rejects_and_nonfinite", rejects_and_nonfinite},
    {"integers", integers},
};

PSL_TEST_MAIN(tests)
