/*
 * names.c -- the names of storage formats and scalar types: the public
 * lowercase names and their parsers (psl_format_name/_parse,
 * psl_scalar_name/_parse), and the display forms used in messages and
 * traces ("PackSELL", "FP16"). Format names come from the table of formats
 * (src/format/registry.c), scalar names from the table below.
 */
#include "format/format_ops.h"
#include "internal.h"

#include <ctype.h>
#include <stdio.h>

/* Names of each scalar type: `name` is the public lowercase one, `display`
 * the spelling of messages. Indexed by the enum value. */
typedef struct name_entry {
    const char *name;
    const char *display;
} name_entry;

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

/* The public name of entry i of the formats (the table of formats) or of
 * the scalar types, or NULL past the end. */
static const char *format_entry(size_t i)
{
    if ((int)i >= psl_format_count())
        return NULL;
    const psl_format_ops *ops = psl_format_ops_of((psl_format)i);
    return ops ? ops->id : NULL;
}
static const char *scalar_entry(size_t i)
{
    return i < NSCALARS ? scalar_names[i].name : NULL;
}

/* Index of name among the entries (case-insensitive), or -1. */
static int lookup(const char *(*entry)(size_t), const char *name)
{
    for (size_t i = 0; entry(i); i++)
        if (same(name, entry(i)))
            return (int)i;
    return -1;
}

/* "a, b, c or d": the accepted names, for error messages. */
static void accepted(const char *(*entry)(size_t), char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; entry(i) && used < len; i++) {
        const char *sep = i == 0 ? "" : !entry(i + 1) ? " or " : ", ";
        int w = snprintf(buf + used, len - used, "%s%s", sep, entry(i));
        used += w > 0 ? (size_t)w : 0;
    }
}

const char *psl_format_name(psl_format format)
{
    const psl_format_ops *ops = psl_format_ops_of(format);
    return ops ? ops->id : "?";
}

const char *psl_scalar_name(psl_scalar scalar)
{
    return (unsigned)scalar < NSCALARS ? scalar_names[scalar].name : "?";
}

const char *psl_format_display(psl_format format)
{
    const psl_format_ops *ops = psl_format_ops_of(format);
    return ops ? ops->name : "?";
}

const char *psl_scalar_display(psl_scalar scalar)
{
    return (unsigned)scalar < NSCALARS ? scalar_names[scalar].display : "unknown type";
}

psl_status psl_format_parse(const char *name, psl_format *format)
{
    if (!name || !format)
        return psl_error(PSL_ERR_NULL_POINTER, "format name or output is NULL");
    int i = lookup(format_entry, name);
    if (i < 0) {
        char list[64];
        accepted(format_entry, list, sizeof list);
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
    int i = lookup(scalar_entry, name);
    if (i < 0) {
        char list[64];
        accepted(scalar_entry, list, sizeof list);
        return psl_error(PSL_ERR_INVALID_VALUE, "unknown scalar type '%s' (expected %s)", name,
                         list);
    }
    *scalar = (psl_scalar)i;
    return PSL_OK;
}
