/*
 * outfile.h -- the library's one way to write a file (outfile.c): a
 * temporary beside the target renamed over it when complete, links
 * followed, FIFOs streamed to, other special files refused.
 */
#ifndef PSL_IO_OUTFILE_H
#define PSL_IO_OUTFILE_H

#include "internal.h"

#include <stdio.h>

typedef struct psl_out_file {
    FILE *f;      /* write here */
    char *tmp;    /* the temporary name (NULL for a FIFO) */
    char *target; /* the file replaced at commit */
    int slot;     /* its entry for psl_output_remove_temporaries, or -1 */
    int is_stdout; /* path "-": f is stdout (flushed, never closed) */
} psl_out_file;

/* Open a write of `path` (errors: PSL_ERR_IO naming the path and why,
 * PSL_ERR_NULL_POINTER, PSL_ERR_OUT_OF_MEMORY; nothing is left then). */
psl_status psl_out_open(psl_out_file *o, const char *path);
/* Flush, sync, close and rename over the target; on failure the temporary
 * is removed and the target is as it was. o is closed either way. */
psl_status psl_out_commit(psl_out_file *o);
/* Close and remove the temporary (after a failed write); o is closed. */
void psl_out_abort(psl_out_file *o);

#endif /* PSL_IO_OUTFILE_H */
