/* test_codec_basic.c -- hand-checked values of the ExMy codec and half.h. */
#include "packsell.h"
#include "codec/codec.h"
#include "codec/half.h"
#include "harness.h"

TEST(fp16_known_values)
{
    psl_codec c = PSL_CODEC_FP16;
    uint32_t b = 0;
    CHECK_OK(psl_codec_encode(c, PSL_OVERFLOW_ERROR, 1.0, &b));
    CHECK(b == 0x3c00);
    CHECK_OK(psl_codec_encode(c, PSL_OVERFLOW_ERROR, -2.0, &b));
    CHECK(b == 0xc000);
    CHECK_OK(psl_codec_encode(c, PSL_OVERFLOW_ERROR, 65504.0, &b));
    CHECK(b == 0x7bff);
    CHECK_ST(psl_codec_encode(c, PSL_OVERFLOW_ERROR, 65520.0, &b), PSL_ERR_CODEC_OVERFLOW);
    CHECK_OK(psl_codec_encode(c, PSL_OVERFLOW_SATURATE, 1e9, &b));
    CHECK(b == 0x7bff);
    CHECK_OK(psl_codec_encode(c, PSL_OVERFLOW_ERROR, 0x1p-24, &b));
    CHECK(b == 0x0001);
    CHECK_OK(psl_codec_encode(c, PSL_OVERFLOW_ERROR, 0x1p-25, &b));
    CHECK(b == 0x0000); /* tie to even */
    CHECK_OK(psl_codec_encode(c, PSL_OVERFLOW_ERROR, -0.0, &b));
    CHECK(b == 0x8000);
    CHECK(psl_codec_decode(c, 0x3555) == 0x1.554p-2);
    CHECK(psl_half_to_float(0x0001) == 0x1p-24f);
    CHECK(psl_float_to_half(1.0f) == 0x3c00);
}

TEST(e8m_round_into_next_binade)
{
    psl_codec c = {8, 0}; /* e8m0: values are +-2^k */
    uint32_t b = 0;
    CHECK_OK(psl_codec_encode(c, PSL_OVERFLOW_ERROR, 1.5, &b)); /* tie -> even mantissa: 2 */
    CHECK(psl_codec_decode(c, b) == 2.0);
    CHECK_OK(psl_codec_encode(c, PSL_OVERFLOW_ERROR, 1.4999, &b));
    CHECK(psl_codec_decode(c, b) == 1.0);
}

TEST(parse_and_names)
{
    psl_codec c;
    char name[16];
    CHECK_OK(psl_codec_parse("E8M10", &c));
    CHECK(c.exp_bits == 8 && c.man_bits == 10 && psl_codec_delta_bits(c) == 12);
    CHECK_OK(psl_codec_name(c, name, sizeof name));
    CHECK(strcmp(name, "e8m10") == 0);
    CHECK_ST(psl_codec_parse("e8m22", &c), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_codec_parse("e9m3", &c), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_codec_parse("fp8", &c), PSL_ERR_INVALID_VALUE);
}

static const psl_test_case tests[] = {
    {"fp16_known_values", fp16_known_values},
    {"e8m_round_into_next_binade", e8m_round_into_next_binade},
    {"parse_and_names", parse_and_names},
};
PSL_TEST_MAIN(tests)
