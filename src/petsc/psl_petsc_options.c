/* psl_petsc_options.c -- the -mat_packsell_* options of a PETSc matrix,
 * mapped to psl_convert_options through the library's own name parsers
 * (psl_format_parse, psl_scalar_parse, psl_codec_parse), so the accepted
 * names and the error messages are the library's. */
#include "psl_petsc_impl.h"

PetscErrorCode PslPetscParseOptions(PetscObject obj, psl_convert_options *opt)
{
    MPI_Comm comm = PetscObjectComm(obj);
    const char *pre = obj->prefix;
    PetscOptions db = obj->options;
    char name[64];
    PetscBool set;
    PetscInt ival;

    PetscFunctionBegin;
    psl_convert_options_init(opt);
    opt->format = PSL_FORMAT_PACKSELL;

    PetscCall(PetscOptionsGetString(db, pre, "-mat_packsell_format", name, sizeof name, &set));
    if (set && psl_format_parse(name, &opt->format) != PSL_OK)
        SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "-mat_packsell_format %s: %s", name,
                psl_last_error_message());

    PetscCall(PetscOptionsGetString(db, pre, "-mat_packsell_values", name, sizeof name, &set));
    if (set) {
        if (opt->format == PSL_FORMAT_PACKSELL) {
            if (psl_codec_parse(name, &opt->codec) != PSL_OK || psl_codec_check(opt->codec) != PSL_OK)
                SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE,
                        "-mat_packsell_values %s: packsell stores values in a codec "
                        "(fp16, bf16, eXmY with 2<=X<=8, X+Y<=29)",
                        name);
        } else if (psl_scalar_parse(name, &opt->value_type) != PSL_OK) {
            SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "-mat_packsell_values %s: %s", name,
                    psl_last_error_message());
        }
    }

    PetscCall(PetscOptionsGetInt(db, pre, "-mat_packsell_slice_height", &ival, &set));
    if (set) {
        PetscCheck(ival >= 1 && ival <= PSL_SLICE_HEIGHT_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE,
                   "-mat_packsell_slice_height %d: must be 1..%d", (int)ival, PSL_SLICE_HEIGHT_MAX);
        opt->slice_height = (int32_t)ival;
        if (opt->sigma % opt->slice_height) opt->sigma = opt->slice_height;
    }
    PetscCall(PetscOptionsGetInt(db, pre, "-mat_packsell_sigma", &ival, &set));
    if (set) {
        PetscCheck(ival >= 0 && ival % opt->slice_height == 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
                   "-mat_packsell_sigma %d: must be 0 or a positive multiple of the slice height %d",
                   (int)ival, (int)opt->slice_height);
        opt->sigma = (int32_t)ival;
    }
    PetscCall(PetscOptionsGetInt(db, pre, "-mat_packsell_csrk_k", &ival, &set));
    if (set) {
        PetscCheck(ival >= 1 && ival <= 3, comm, PETSC_ERR_ARG_OUTOFRANGE,
                   "-mat_packsell_csrk_k %d: must be 1, 2 or 3", (int)ival);
        opt->csrk_k = (int32_t)ival;
    }
    /* value types a format does not take are refused here, before any work */
    PetscCheck(opt->format != PSL_FORMAT_CSR || opt->value_type == PSL_FP64 ||
                   opt->value_type == PSL_FP32,
               comm, PETSC_ERR_ARG_OUTOFRANGE, "-mat_packsell_values %s: csr stores fp64 or fp32",
               psl_scalar_name(opt->value_type));
    PetscCheck(opt->format != PSL_FORMAT_CSRK || opt->value_type != PSL_BF16, comm,
               PETSC_ERR_ARG_OUTOFRANGE, "-mat_packsell_values bf16: csrk stores fp64, fp32 or fp16");
    PetscFunctionReturn(PSL_PETSC_OK);
}
