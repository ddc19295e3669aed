/*
 * chooser.c -- the format chooser in the packsell command: "packsell choose
 * MATRIX [--precision P] [--device D] [--json FILE]" (statistics, every
 * candidate's predicted GPU time and the pick of psl_choose_format) and the
 * helpers behind --format auto of info, convert and spmv.
 */
#include "bench_bw.h"
#include "cli.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int cli_precision_parse(const char *s, psl_precision *out)
{
    static const psl_precision all[] = {PSL_PREC_FP16, PSL_PREC_FP32, PSL_PREC_FP64};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (cli_same(s, psl_precision_name(all[i]))) {
            *out = all[i];
            return 0;
        }
    return -1;
}

/* The host's read bandwidth with the current OpenMP threads: the median
 * of 5 passes of bench --device cpu's read kernel over its default buffer
 * (after one untimed); <= 0 when it could not be measured. */
static double host_read_gbs(void)
{
    bench_read_buf b;
    if (bench_read_alloc(&b, bench_read_default_bytes()) != 0)
        return -1;
    double t[5];
    int ok = bench_read_pass(&b) >= 0;
    for (int i = 0; i < 5 && ok; i++)
        ok = (t[i] = bench_read_pass(&b)) > 0;
    const double gbs = ok ? bench_gbs((double)b.n * sizeof(double), cli_median(t, 5)) : -1;
    bench_read_free(&b);
    return gbs;
}

int cli_chooser_for(const char *cmd, const char *device, int cpu_default, cli_chooser *t)
{
    memset(t, 0, sizeof *t);
    psl_status st;
    if (cli_device_is_cuda(device)) {
        st = psl_device_model_query(&t->gpu, -1, 1);
    } else if (device ? cli_same(device, "cpu") : cpu_default) {
        t->on_cpu = 1;
        st = psl_cpu_model_default(&t->cpu);
#ifdef _OPENMP
        t->cpu.threads = omp_get_max_threads();
#else
        t->cpu.threads = 1;
#endif
        const double gbs = host_read_gbs();
        if (gbs > 0)
            t->cpu.read_gbs = gbs;
        bench_cpu_model(t->cpu.name, sizeof t->cpu.name);
    } else {
        st = psl_device_model_default(&t->gpu);
    }
    return st == PSL_OK ? CLI_OK : cli_lib_error(cmd, st);
}

psl_status cli_choose(const cli_chooser *t, const psl_matrix *A, psl_precision prec,
                      psl_choice *choice)
{
    if (t && t->on_cpu)
        return psl_choose_format_cpu(A, prec, &t->cpu, choice);
    return psl_choose_format(A, prec, t ? &t->gpu : NULL, choice);
}

int cli_auto_convert(const char *cmd, const cli_format_args *fa, const psl_convert_options *opt,
                     const cli_chooser *target, psl_matrix **A, psl_choice *choice,
                     double *seconds)
{
    psl_precision prec;
    if (cli_precision_parse(fa->precision, &prec) != 0) /* checked by cli_format_options */
        return cli_usage_error(cmd, "unknown --precision '%s'", fa->precision);
    double t0 = cli_now();
    psl_status st = cli_choose(target, *A, prec, choice);
    if (st != PSL_OK)
        return cli_lib_error(cmd, st);
    psl_convert_options o = choice->opt;
    if (fa->permute)
        o.permute = opt->permute;
    if (fa->overflow)
        o.overflow = opt->overflow;
    choice->opt = o;
    psl_matrix *B = NULL;
    st = psl_matrix_convert(&B, *A, &o);
    *seconds += cli_now() - t0;
    if (st != PSL_OK)
        return cli_lib_error(cmd, st);
    psl_matrix_destroy(A);
    *A = B;
    return CLI_OK;
}

/* "packsell-fp16"-style name of a candidate's options ("sell-fp32", "csr-fp32"). */
static const char *options_name(const psl_convert_options *o, char *buf, size_t len)
{
    char v[16];
    if (o->format == PSL_FORMAT_PACKSELL) {
        if (psl_codec_name(o->codec, v, sizeof v) != PSL_OK)
            snprintf(v, sizeof v, "?");
    } else {
        snprintf(v, sizeof v, "%s", psl_scalar_name(o->value_type));
    }
    snprintf(buf, len, "%s-%s", psl_format_name(o->format), v);
    return buf;
}

void cli_choice_print(FILE *f, const psl_choice *c)
{
    char name[48];
    fprintf(f, "precision %s:", psl_precision_name(c->precision));
    for (int i = 0; i < c->ndelta; i++)
        fprintf(f, "%s D = %d: %lld dummies, %lld bytes", i ? ";" : " PackSELL",
                (int)c->delta_bits[i], (long long)c->delta_dummies[i],
                (long long)c->delta_bytes[i]);
    fprintf(f, "\n  %-16s %-18s %12s %12s %9s %9s %10s %10s %10s\n", "candidate", "kernel",
            "bytes", "vec_bytes", "max_width", "dummies", "bw_us", "lat_us", "pred_us");
    for (int i = 0; i < c->ncandidates; i++) {
        const psl_candidate *k = &c->candidates[i];
        fprintf(f, "  %-16s %-18s %12lld %12lld %9lld %9lld %10.2f %10.2f %10.2f%s\n",
                options_name(&k->opt, name, sizeof name), k->kernel, (long long)k->bytes,
                (long long)k->vector_bytes, (long long)k->max_width, (long long)k->dummies,
                k->bandwidth_us, k->latency_us, k->predicted_us, i == c->pick ? "  <- pick" : "");
    }
    const psl_candidate *p = &c->candidates[c->pick];
    fprintf(f, "  pick: %s (%s vectors), predicted %.2f us on the %s\n",
            options_name(&p->opt, name, sizeof name), psl_scalar_name(p->vec_type),
            p->predicted_us, c->on_cpu ? "CPU" : "GPU");
}

void cli_choice_json(struct cli_json *j, const char *key, const psl_choice *c)
{
    char name[48];
    const psl_candidate *p = &c->candidates[c->pick];
    cli_json_begin_object(j, key);
    cli_json_string(j, "precision", psl_precision_name(c->precision));
    cli_json_string(j, "pick", options_name(&p->opt, name, sizeof name));
    cli_json_string(j, "pick_kernel", p->kernel);
    cli_json_string(j, "pick_vectors", psl_scalar_name(p->vec_type));
    cli_json_string(j, "target", c->on_cpu ? "cpu" : "cuda");
    if (c->on_cpu) {
        cli_json_begin_object(j, "cpu_model");
        cli_json_string(j, "name", c->cpu.name);
        cli_json_int(j, "threads", c->cpu.threads);
        cli_json_double(j, "read_gbs", c->cpu.read_gbs);
        cli_json_int(j, "llc_bytes", c->cpu.llc_bytes);
        cli_json_end_object(j);
    }
    cli_json_begin_object(j, "device_model");
    cli_json_string(j, "name", c->device.name);
    cli_json_int(j, "sm_count", c->device.sm_count);
    cli_json_int(j, "threads_per_sm", c->device.threads_per_sm);
    cli_json_int(j, "l2_bytes", c->device.l2_bytes);
    cli_json_double(j, "copy_gbs", c->device.copy_gbs);
    cli_json_bool(j, "copy_measured", c->device.copy_measured);
    cli_json_int(j, "cluster_max", c->device.cluster_max);
    cli_json_end_object(j);
    cli_json_double(j, "pick_predicted_us", p->predicted_us);
    cli_json_int(j, "C", p->opt.slice_height);
    cli_json_int(j, "sigma", p->opt.sigma);
    cli_json_double(j, "max_abs", c->max_abs);
    cli_json_begin_array(j, "delta_bits");
    for (int i = 0; i < c->ndelta; i++) {
        cli_json_begin_object(j, NULL);
        cli_json_int(j, "D", c->delta_bits[i]);
        cli_json_int(j, "dummies", c->delta_dummies[i]);
        cli_json_int(j, "bytes", c->delta_bytes[i]);
        cli_json_end_object(j);
    }
    cli_json_end_array(j);
    cli_json_begin_array(j, "candidates");
    for (int i = 0; i < c->ncandidates; i++) {
        const psl_candidate *k = &c->candidates[i];
        cli_json_begin_object(j, NULL);
        cli_json_string(j, "options", options_name(&k->opt, name, sizeof name));
        cli_json_string(j, "kernel", k->kernel);
        cli_json_string(j, "model", k->model);
        cli_json_string(j, "vectors", psl_scalar_name(k->vec_type));
        cli_json_int(j, "bytes", k->bytes);
        cli_json_int(j, "vector_bytes", k->vector_bytes);
        cli_json_int(j, "dummies", k->dummies);
        cli_json_int(j, "padding", k->padding);
        cli_json_int(j, "max_width", k->max_width);
        cli_json_int(j, "sum_width", k->sum_width);
        cli_json_double(j, "bandwidth_us", k->bandwidth_us);
        cli_json_double(j, "latency_us", k->latency_us);
        cli_json_double(j, "predicted_us", k->predicted_us);
        cli_json_end_object(j);
    }
    cli_json_end_array(j);
    cli_json_end_object(j);
}

static void usage(void)
{
    printf("Usage: packsell choose MATRIX [--precision fp16|fp32|fp64] [--device cpu|cuda]\n"
           "                       [--json FILE]\n"
           "\n"
           "Pick the storage format for SpMV at a value precision, as --format auto\n"
           "does: PackSELL (with the best delta bits D for the codec), our SELL, or CSR\n"
           "(cuSPARSE), from cheap statistics -- nonzeros, rows, row-length spread (RSD),\n"
           "the widest slice, the dummy words each D adds, bytes -- and a cost model of\n"
           "the kernels on a GPU (launch + bytes / bandwidth + per-row cost, or the\n"
           "latency of the widest slices for one-thread-per-row sliced kernels): the\n"
           "H200 the model was fitted on, or with --device cuda the current CUDA\n"
           "device (its SMs, L2 and clusters, and its copy bandwidth, measured once).\n"
           "With --device cpu the pick is for the CPU kernels (psl_spmv, CSR the\n"
           "library's): a roofline of this host -- the OpenMP threads, the read\n"
           "bandwidth measured with them, per-word and per-row kernel costs fitted on\n"
           "the development machine (psl_choose_format_cpu).\n"
           "Nothing else is timed. Prints each candidate's predicted time and the pick.\n"
           "\n"
           "Candidates: fp16: PackSELL FP16 (BF16 when a value is beyond FP16's range),\n"
           "SELL FP16, CSR FP32; fp32: PackSELL E8MY with D in {1, 2} (fewer bytes),\n"
           "SELL FP32, CSR FP32; fp64: SELL FP64, CSR FP64. C = 32, sigma = 256.\n"
           "\n"
           "MATRIX: gen:SPEC, a packsell binary file or a Matrix Market file.\n"
           "\n"
           "Options:\n"
           "      --precision P    fp16, fp32 or fp64 (default: all three)\n"
           "      --device D       cuda (this device) or cpu (this host's CPU model);\n"
           "                       default: the H200 model\n"
           "      --json FILE      also write the statistics and choices as JSON\n"
           "  -h, --help           this help\n"
           "\n"
           "Example: packsell choose gen:hpcg:6:6:6 --precision fp16\n"
           "         packsell convert m.mtx -o m.psl --format auto --precision fp32\n");
}

/* The choices as JSON into path. */
static int write_json(const char *cmd, const char *path, const char *source,
                      const psl_choice *ch, int n)
{
    FILE *f = NULL;
    psl_output *out = NULL;
    psl_status ost = psl_output_begin(&out, path, &f);
    if (ost != PSL_OK)
        return cli_lib_error(cmd, ost);
    cli_json j;
    cli_json_init(&j, f);
    cli_json_begin_object(&j, NULL);
    cli_json_string(&j, "matrix", source);
    cli_json_int(&j, "rows", ch[0].nrows);
    cli_json_int(&j, "cols", ch[0].ncols);
    cli_json_int(&j, "nnz", ch[0].nnz);
    cli_json_int(&j, "max_row_nnz", ch[0].max_row_nnz);
    cli_json_double(&j, "mean_row_nnz", ch[0].mean_row_nnz);
    cli_json_double(&j, "rsd", ch[0].rsd);
    cli_json_int(&j, "kleft", ch[0].kleft);
    cli_json_begin_array(&j, "choices");
    for (int i = 0; i < n; i++)
        cli_choice_json(&j, NULL, &ch[i]);
    cli_json_end_array(&j);
    cli_json_end_object(&j);
    fputc('\n', f);
    return cli_output_finish(cmd, &out, f, "error writing", path);
}

int cmd_choose(int argc, char **argv)
{
    const char *cmd = "choose";
    cli_opt opts[] = {{"--precision", NULL, 1, NULL, 0},
                      {"--json", NULL, 1, NULL, 0},
                      {"--device", NULL, 1, NULL, 0}};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1];
    int rc = cli_parse_one(cmd, argc, argv, opts, nopts, usage, "MATRIX", pos);
    if (rc)
        return rc == CLI_HELP ? CLI_OK : rc;
    psl_precision precs[3] = {PSL_PREC_FP16, PSL_PREC_FP32, PSL_PREC_FP64};
    int n = 3;
    const char *ps = cli_find(opts, nopts, "--precision")->value;
    if (ps) {
        if (cli_precision_parse(ps, &precs[0]) != 0)
            return cli_usage_error(cmd, "unknown --precision '%s' (expected fp16, fp32 or fp64)",
                                   ps);
        n = 1;
    }
    const char *device = cli_find(opts, nopts, "--device")->value;
    if ((rc = cli_check_device(cmd, device)) != 0)
        return rc;
    cli_chooser model;
    if ((rc = cli_chooser_for(cmd, device, 0, &model)) != 0)
        return rc;
    psl_convert_options csr;
    psl_convert_options_init(&csr);
    psl_matrix *A = NULL;
    double load_s = 0, conv_s = 0;
    if ((rc = cli_load_matrix(cmd, pos[0], &csr, &A, &load_s, &conv_s)) != 0)
        return rc;
    psl_choice ch[3];
    double t0 = cli_now();
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        psl_status st = cli_choose(&model, A, precs[i], &ch[i]);
        if (st != PSL_OK)
            rc = cli_lib_error(cmd, st);
    }
    double choose_s = cli_now() - t0;
    if (rc == CLI_OK) {
        printf("matrix %s: %d x %d, %lld nonzeros, %d max per row (mean %.3f, RSD %.4f), "
               "kleft %lld, max |a| %.6g\n",
               pos[0], (int)ch[0].nrows, (int)ch[0].ncols, (long long)ch[0].nnz,
               (int)ch[0].max_row_nnz, ch[0].mean_row_nnz, ch[0].rsd, (long long)ch[0].kleft,
               ch[0].max_abs);
        if (model.on_cpu)
            printf("predicted times are for the CPU %s: %d threads, read bandwidth %.1f GB/s, "
                   "L3 %.1f MB (the CPU model's kernel rates)\n",
                   model.cpu.name, (int)model.cpu.threads, model.cpu.read_gbs,
                   (double)model.cpu.llc_bytes * 1e-6);
        else
            printf("predicted times are for %s: %d SMs x %d threads, L2 %.1f MB, copy %.1f GB/s "
                   "(%s)\n",
                   model.gpu.name, (int)model.gpu.sm_count, (int)model.gpu.threads_per_sm,
                   (double)model.gpu.l2_bytes * 1e-6, model.gpu.copy_gbs,
                   model.gpu.copy_measured ? "measured" : "the default model's");
        printf("load %.3f s, choose %.3f s\n", load_s + conv_s, choose_s);
        for (int i = 0; i < n; i++)
            cli_choice_print(stdout, &ch[i]);
        if (fflush(stdout) != 0)
            rc = cli_error(cmd, "cannot write to standard output");
    }
    const char *json = cli_find(opts, nopts, "--json")->value;
    if (rc == CLI_OK && json)
        rc = write_json(cmd, json, pos[0], ch, n);
    psl_matrix_destroy(&A);
    return rc;
}
