/*
 * names.c -- the one table of the names of storage formats and scalar types:
 * the public lowercase names and their parsers (psl_format_name/_parse,
 * psl_scalar_name/_parse), and the display forms used in messages and
 * traces ("PackSELL", "FP16").
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>

/* Names of each value: `name` is the public lowercase one, `display` the
 * spelling of messages. Indexed by the enum value. */
typedef struct name_entry {
    const char *name;
    const char *display;
} name_entry;

static const name_entry format_names[] = {
    [PSL_FORMAT_CSR] = {"csr", "CSR"},
    [PSL_FORMAT_SELL] = {"sell", "SELL"},
    [PSL_FORMAT_PACKSELL] = {"packsell", "PackSELL"},
};
#define NFORMATS (sizeof format_names / sizeof format_names[0])

static const name_entry scalar_names[] = {
    [PSL_FP64] = {"fp64", "FP64"},
    [PSL_FP32] = {"fp32", "FP32"},
    [PSL_FP16] = {"fp16", "FP16"},
    [PSL_BF16] = {"bf16", "BF16"},
};
#define NSCALARS (sizeof scalar_names / sizeof scalar_names[0])

/* Case-insensitive string equality. */
static bool same(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

/* Index of name in table (case-insensitive), or -1. */
static int lookup(const name_entry *table, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (same(name, table[i].name))
            return (int)i;
    return -1;
}

/* "a, b, c or d": the accepted names of a table, for error messages. */
static void accepted(const name_entry *table, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int w = snprintf(buf + used, len - used, "%s%s", sep, table[i].name);
        used += w > 0 ? (size_t)w : 0;
    }
}

const char *psl_format_name(psl_format format)
{
    return (unsigned)format < NFORMATS ? format_names[format].name : "?";
}

const char *psl_scalar_name(psl_scalar scalar)
{
    return (unsigned)scalar < NSCALARS ? scalar_names[scalar].name : "?";
}

const char *psl_format_display(psl_format format)
{
    return (unsigned)format < NFORMATS ? format_names[format].display : "?";
}

const char *psl_scalar_display(psl_scalar scalar)
{
    return (unsigned)scalar < NSCALARS ? scalar_names[scalar].display : "unknown type";
}

psl_status psl_format_parse(const char *name, psl_format *format)
{
    if (!name || !format)
        return psl_error(PSL_ERR_NULL_POINTER, "format name or output is NULL");
    int i = lookup(format_names, NFORMATS, name);
    if (i < 0) {
        char list[64];
        accepted(format_names, NFORMATS, list, sizeof list);
        return psl_error(PSL_ERR_INVALID_VALUE, "unknown storage format '%s' (expected %s)",
                         name, list);
    }
    *format = (psl_format)i;
    return PSL_OK;
}

psl_status psl_scalar_parse(const char *name, psl_scalar *scalar)
{
    if (!name || !scalar)
        return psl_error(PSL_ERR_NULL_POINTER, "scalar type name or output is NULL");
    int i = lookup(scalar_names, NSCALARS, name);
    if (i < 0) {
        char list[64];
        accepted(scalar_names, NSCALARS, list, sizeof list);
        return psl_error(PSL_ERR_INVALID_VALUE, "unknown scalar type '%s' (expected %s)", name,
                         list);
    }
    *scalar = (psl_scalar)i;
    return PSL_OK;
}
