/*
 * mm_source.c -- bring a whole text file into memory: one read() loop into
 * one buffer for plain files, zlib inflation into a growing buffer for gzip
 * (detected by the magic bytes 1f 8b, not by the file name; concatenated
 * gzip members are read as one stream, like gzip -d does).
 */
#define _POSIX_C_SOURCE 200809L
#include "mm_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Replace *buf (used bytes: used) by a buffer of cap bytes. */
static psl_status grow(char **buf, size_t used, size_t cap)
{
    char *nb = psl_malloc(cap, 1);
    if (!nb)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory growing the file buffer to %zu "
                         "bytes", cap);
    if (used)
        memcpy(nb, *buf, used);
    free(*buf);
    *buf = nb;
    return PSL_OK;
}

psl_status psl_mm_gunzip(const unsigned char *src, size_t srclen, char **buf, size_t *len)
{
    psl_status st = PSL_OK;
    char *out = NULL;
    size_t used = 0, cap;
    z_stream zs;
    int zinit = 0;
    memset(&zs, 0, sizeof zs);

    /* the last member's ISIZE (size mod 2^32) is a good first guess */
    cap = srclen * 4 + 4096;
    if (srclen >= 18) {
        const unsigned char *t = src + srclen - 4;
        size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 |
                       (size_t)t[3] << 24;
        if (isize + 1 > cap && isize < (size_t)srclen * 1100)
            cap = isize + 1;
    }
    st = grow(&out, 0, cap);
    if (st)
        goto fail;
    if (inflateInit2(&zs, 15 + 16) != Z_OK) {
        st = psl_error(PSL_ERR_OUT_OF_MEMORY, "zlib could not start inflating");
        goto fail;
    }
    zinit = 1;
    size_t in_off = 0;
    for (;;) {
        if (used == cap) {
            size_t ncap = cap < ((size_t)1 << 40) ? cap * 2 : cap + ((size_t)1 << 40);
            st = grow(&out, used, ncap);
            if (st)
                goto fail;
            cap = ncap;
        }
        size_t in_left = srclen - in_off, out_left = cap - used;
        zs.next_in = (Bytef *)(uintptr_t)(src + in_off);
        zs.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
        zs.next_out = (Bytef *)(out + used);
        zs.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
        uInt in0 = zs.avail_in, out0 = zs.avail_out;
        int zr = inflate(&zs, Z_NO_FLUSH);
        in_off += in0 - zs.avail_in;
        used += out0 - zs.avail_out;
        if (zr == Z_STREAM_END) {
            /* another member may follow (skip zero padding at the end) */
            while (in_off < srclen && src[in_off] == 0)
                in_off++;
            if (in_off == srclen)
                break;
            if (!psl_mm_is_gzip(src + in_off, srclen - in_off)) {
                st = psl_error(PSL_ERR_IO, "gzip stream corrupt: unexpected data after the "
                               "compressed stream (byte %zu)", in_off);
                goto fail;
            }
            inflateReset(&zs);
            continue;
        }
        if (zr == Z_MEM_ERROR) {
            st = psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory inside zlib");
            goto fail;
        }
        if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR) {
            st = psl_error(PSL_ERR_IO, "gzip stream corrupt: %s (at compressed byte %zu)",
                           zs.msg ? zs.msg : "invalid data", in_off);
            goto fail;
        }
        if (zr == Z_BUF_ERROR && in_off == srclen && zs.avail_out > 0) {
            st = psl_error(PSL_ERR_IO, "gzip stream corrupt: truncated after %zu compressed "
                           "bytes (%zu bytes inflated)", srclen, used);
            goto fail;
        }
    }
    inflateEnd(&zs);
    *buf = out;
    *len = used;
    return PSL_OK;

fail:
    if (zinit)
        inflateEnd(&zs);
    free(out);
    return st;
}

/* Read all of fd into a new buffer; size_hint from fstat (0 if unknown). */
static psl_status read_all(int fd, const char *path, size_t size_hint, char **buf, size_t *len)
{
    size_t cap = size_hint + 1, used = 0;
    char *out = NULL;
    psl_status st = grow(&out, 0, cap);
    if (st)
        return st;
    for (;;) {
        if (used == cap) {
            st = grow(&out, used, cap * 2);
            if (st)
                goto fail;
            cap *= 2;
        }
        size_t want = cap - used;
        if (want > ((size_t)1 << 30))
            want = (size_t)1 << 30;
        ssize_t got = read(fd, out + used, want);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            st = psl_error(PSL_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
            goto fail;
        }
        if (got == 0)
            break;
        used += (size_t)got;
    }
    *buf = out;
    *len = used;
    return PSL_OK;
fail:
    free(out);
    return st;
}

psl_status psl_mm_load_file(const char *path, char **buf, size_t *len)
{
    char *raw = NULL;
    size_t rawlen = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return psl_error(PSL_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    size_t hint = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0)
        hint = (size_t)sb.st_size;
    psl_status st = read_all(fd, path, hint, &raw, &rawlen);
    close(fd);
    if (st)
        return st;
    if (psl_mm_is_gzip(raw, rawlen)) {
        st = psl_mm_gunzip((const unsigned char *)raw, rawlen, buf, len);
        free(raw);
        if (st) {
            char why[400];
            snprintf(why, sizeof why, "%s", psl_last_error_message());
            return psl_error(st, "'%s': %s", path, why);
        }
        return PSL_OK;
    }
    *buf = raw;
    *len = rawlen;
    return PSL_OK;
}
