/*
 * outfile.c -- how the library writes a file: never in place. The data go to
 * a temporary file beside the target (created exclusively), which is
 * flushed, synced and closed, and only then renamed over the target, so a
 * failed or interrupted write leaves the target as it was and no partial
 * file under its name. A target that is a symbolic link is followed (the
 * file it names is replaced, the link stays); a FIFO, and "-" (standard
 * output), are written to as streams (nothing is renamed); any other target that is not a
 * regular file (a folder, a device, a socket) is refused before anything is
 * written. The temporary names of open writes are kept so that a program's
 * signal handler can remove them (psl_output_remove_temporaries).
 */
#define _XOPEN_SOURCE 700 /* open, fdopen, fsync, getpid, realpath, readlink */

#include "io/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary names of the writes in progress (for a signal handler: fixed
 * slots, written before the file exists and cleared after it is gone). */
#define OUT_SLOTS 16
#define OUT_NAME_MAX 4096
static char out_names[OUT_SLOTS][OUT_NAME_MAX];
static atomic_int out_used[OUT_SLOTS];

static int slot_take(const char *name)
{
    if (strlen(name) >= OUT_NAME_MAX)
        return -1;
    for (int i = 0; i < OUT_SLOTS; i++) {
        int expect = 0;
        if (atomic_compare_exchange_strong(&out_used[i], &expect, 1)) {
            memcpy(out_names[i], name, strlen(name) + 1);
            atomic_store(&out_used[i], 2); /* the name is complete */
            return i;
        }
    }
    return -1; /* more writes at once than slots: not removable by a handler */
}

static void slot_free(int i)
{
    if (i >= 0)
        atomic_store(&out_used[i], 0);
}

void psl_output_remove_temporaries(void)
{
    for (int i = 0; i < OUT_SLOTS; i++)
        if (atomic_load(&out_used[i]) == 2)
            unlink(out_names[i]); /* async-signal-safe */
}

psl_status psl_out_open(psl_out_file *o, const char *path)
{
    static atomic_uint counter;
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (!path || !path[0])
        return psl_error(PSL_ERR_NULL_POINTER, "the output path is %s", path ? "empty" : "NULL");
    if (strcmp(path, "-") == 0) { /* standard output, a stream */
        o->f = stdout;
        o->is_stdout = 1;
        return PSL_OK;
    }
    /* the file the path names: a link is followed */
    char *target = NULL;
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        target = realpath(path, NULL);
        if (!target && errno != ENOENT)
            return psl_error(PSL_ERR_IO, "cannot follow the link '%s': %s", path,
                             strerror(errno));
        if (!target) { /* a dangling link: create the file it names */
            char buf[OUT_NAME_MAX];
            ssize_t n = readlink(path, buf, sizeof buf - 1);
            if (n < 0)
                return psl_error(PSL_ERR_IO, "cannot read the link '%s': %s", path,
                                 strerror(errno));
            buf[n] = '\0';
            const char *slash = strrchr(path, '/');
            size_t len = (buf[0] != '/' && slash ? (size_t)(slash - path) + 1 : 0) + (size_t)n + 1;
            target = malloc(len);
            if (!target)
                return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory for a file name");
            snprintf(target, len, "%.*s%s", buf[0] != '/' && slash ? (int)(slash - path) + 1 : 0,
                     path, buf);
        }
    } else {
        target = malloc(strlen(path) + 1);
        if (!target)
            return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory for a file name");
        memcpy(target, path, strlen(path) + 1);
    }
    o->target = target;
    if (stat(target, &sb) == 0) {
        if (S_ISFIFO(sb.st_mode)) { /* a stream: written to, never renamed over */
            o->f = fopen(target, "wb");
            if (!o->f) {
                psl_status st = psl_error(PSL_ERR_IO, "cannot open the FIFO '%s': %s", target,
                                          strerror(errno));
                psl_out_abort(o);
                return st;
            }
            return PSL_OK;
        }
        if (!S_ISREG(sb.st_mode)) {
            psl_status st = psl_error(PSL_ERR_IO,
                                      "'%s' exists and is not a regular file (%s); it is not "
                                      "written",
                                      path,
                                      S_ISDIR(sb.st_mode) ? "a folder"
                                      : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode)
                                          ? "a device"
                                          : "a socket or other special file");
            psl_out_abort(o);
            return st;
        }
    }
    size_t len = strlen(target) + 64;
    o->tmp = malloc(len);
    if (!o->tmp) {
        psl_out_abort(o);
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory for a file name");
    }
    snprintf(o->tmp, len, "%s.tmp%ld.%u", target, (long)getpid(), atomic_fetch_add(&counter, 1));
    o->slot = slot_take(o->tmp);
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        psl_status st = psl_error(PSL_ERR_IO, "cannot create '%s' (temporary file for '%s'): %s",
                                  o->tmp, path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        psl_out_abort(o);
        return st;
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        psl_status st = psl_error(PSL_ERR_IO, "cannot open '%s' for writing: %s", o->tmp,
                                  strerror(errno));
        close(fd);
        psl_out_abort(o);
        return st;
    }
    return PSL_OK;
}

psl_status psl_out_commit(psl_out_file *o)
{
    psl_status st = PSL_OK;
    const char *name = o->tmp ? o->tmp : o->is_stdout ? "standard output" : o->target;
    if (fflush(o->f) != 0 || (o->tmp && fsync(fileno(o->f)) != 0))
        st = psl_error(PSL_ERR_IO, "cannot write '%s': %s", name, strerror(errno));
    int rc = o->is_stdout ? 0 : fclose(o->f);
    o->f = NULL;
    if (rc != 0 && st == PSL_OK)
        st = psl_error(PSL_ERR_IO, "cannot close '%s': %s", name, strerror(errno));
    if (st == PSL_OK && o->tmp && rename(o->tmp, o->target) != 0)
        st = psl_error(PSL_ERR_IO, "cannot rename '%s' to '%s': %s", o->tmp, o->target,
                       strerror(errno));
    if (st == PSL_OK && o->tmp) {
        free(o->tmp);
        o->tmp = NULL; /* renamed: nothing to remove */
    }
    psl_out_abort(o);
    return st;
}

void psl_out_abort(psl_out_file *o)
{
    if (o->f && !o->is_stdout)
        fclose(o->f);
    if (o->tmp)
        remove(o->tmp);
    slot_free(o->slot);
    free(o->tmp);
    free(o->target);
    memset(o, 0, sizeof *o);
    o->slot = -1;
}

/* ---- the public handle (packsell.h) */

struct psl_output {
    psl_out_file o;
};

psl_status psl_output_begin(psl_output **out, const char *path, FILE **f)
{
    if (!out || !f)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_output_begin: out or f is NULL");
    *out = NULL;
    *f = NULL;
    psl_output *h = calloc(1, sizeof *h);
    if (!h)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory for an output handle");
    psl_status st = psl_out_open(&h->o, path);
    if (st != PSL_OK) {
        free(h);
        return st;
    }
    *out = h;
    *f = h->o.f;
    return PSL_OK;
}

psl_status psl_output_commit(psl_output **out)
{
    if (!out || !*out)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_output_commit: no output handle");
    psl_status st = psl_out_commit(&(*out)->o);
    free(*out);
    *out = NULL;
    return st;
}

void psl_output_cancel(psl_output **out)
{
    if (!out || !*out)
        return;
    psl_out_abort(&(*out)->o);
    free(*out);
    *out = NULL;
}
