/*
 * bench_auto.c -- the "auto" rows of `packsell bench --device cuda`: the
 * format chooser's pick for FP16 and FP32 on the benchmark matrix (the
 * device model of the current device), its predicted times, and the
 * measured time of the picked kernel taken from
 * the rows the bench already timed (no extra timing), beside the fastest
 * candidate and the fastest cuSPARSE kernel of the same value width.
 */
#include "bench.h"

#include <string.h>

/* Index of the timed kernel called name, or -1. */
static int find_row(const bench_args *a, const bench_result *res, const char *name)
{
    for (int i = 0; i < a->nkernels; i++)
        if (res[i].ok && strcmp(a->kernels[i].name, name) == 0)
            return i;
    return -1;
}

void bench_auto_compute(const bench_args *a, const bench_data *d, const bench_result *res,
                        bench_auto *au)
{
    static const psl_precision precs[BENCH_AUTO_N] = {PSL_PREC_FP16, PSL_PREC_FP32};
    static const char *suffix[BENCH_AUTO_N] = {"-fp16", "-fp32"};
    psl_device_model model; /* this device, its copy bandwidth measured by the library */
    psl_status mst = psl_device_model_query(&model, -1, 1);
    for (int p = 0; p < BENCH_AUTO_N; p++) {
        bench_auto *u = &au[p];
        memset(u, 0, sizeof *u);
        u->pick_row = u->best_row = u->best_cusparse_row = -1;
        psl_status st =
            mst != PSL_OK ? mst : psl_choose_format(d->A, precs[p], &model, &u->choice);
        if (st != PSL_OK) {
            snprintf(u->error, sizeof u->error, "%s", psl_last_error_message());
            continue;
        }
        u->ok = 1;
        for (int i = 0; i < u->choice.ncandidates; i++) {
            int r = find_row(a, res, u->choice.candidates[i].kernel);
            u->cand_row[i] = r;
            if (r >= 0 && (u->best_row < 0 || res[r].t_median < res[u->best_row].t_median))
                u->best_row = r;
        }
        u->pick_row = u->cand_row[u->choice.pick];
        for (int i = 0; i < a->nkernels; i++) {
            size_t n = strlen(a->kernels[i].name), s = strlen(suffix[p]);
            if (!res[i].ok || a->kernels[i].impl != BENCH_CUSPARSE || n < s ||
                strcmp(a->kernels[i].name + n - s, suffix[p]) != 0)
                continue;
            if (u->best_cusparse_row < 0 || res[i].t_median < res[u->best_cusparse_row].t_median)
                u->best_cusparse_row = i;
        }
    }
}

void bench_auto_print(const bench_args *a, const bench_result *res, const bench_auto *au)
{
    printf("\n%-10s %-18s %8s %10s %-18s %10s %-20s %10s %6s\n", "chooser", "pick", "pred_us",
           "median_us", "fastest candidate", "median_us", "fastest cuSPARSE", "median_us",
           "speed");
    for (int p = 0; p < BENCH_AUTO_N; p++) {
        const bench_auto *u = &au[p];
        const char *name = p == 0 ? "auto-fp16" : "auto-fp32";
        if (!u->ok) {
            printf("%-10s error: %s\n", name, u->error);
            continue;
        }
        const psl_candidate *k = &u->choice.candidates[u->choice.pick];
        char meas[24] = "not timed", best[24] = "-", cus[24] = "-", speed[24] = "-";
        if (u->pick_row >= 0)
            snprintf(meas, sizeof meas, "%.2f", res[u->pick_row].t_median * 1e6);
        if (u->best_row >= 0)
            snprintf(best, sizeof best, "%.2f", res[u->best_row].t_median * 1e6);
        if (u->best_cusparse_row >= 0)
            snprintf(cus, sizeof cus, "%.2f", res[u->best_cusparse_row].t_median * 1e6);
        if (u->pick_row >= 0 && u->best_cusparse_row >= 0)
            snprintf(speed, sizeof speed, "%.3f",
                     res[u->best_cusparse_row].t_median / res[u->pick_row].t_median);
        printf("%-10s %-18s %8.2f %10s %-18s %10s %-20s %10s %6s\n", name, k->kernel,
               k->predicted_us, meas, u->best_row >= 0 ? a->kernels[u->best_row].name : "-",
               best, u->best_cusparse_row >= 0 ? a->kernels[u->best_cusparse_row].name : "-",
               cus, speed);
    }
    printf("(chooser: psl_choose_format's pick, its time from the rows above; speed = fastest\n"
           " cuSPARSE kernel of the same value width / the pick; the issue's target: >= 0.95)\n");
    for (int p = 0; p < BENCH_AUTO_N; p++)
        if (au[p].ok) {
            const psl_device_model *m = &au[p].choice.device;
            printf("(device model: %s, %d SMs, L2 %.1f MB, copy %.1f GB/s %s, clusters of %d)\n",
                   m->name, (int)m->sm_count, (double)m->l2_bytes * 1e-6, m->copy_gbs,
                   m->copy_measured ? "measured" : "default", (int)m->cluster_max);
            break;
        }
}

void bench_auto_json(struct cli_json *j, const bench_args *a, const bench_result *res,
                     const bench_auto *au)
{
    for (int p = 0; p < BENCH_AUTO_N; p++) {
        const bench_auto *u = &au[p];
        cli_json_begin_object(j, NULL);
        cli_json_string(j, "kernel", p == 0 ? "auto-fp16" : "auto-fp32");
        cli_json_string(j, "library", "packsell");
        cli_json_bool(j, "auto", 1);
        if (!u->ok) {
            cli_json_bool(j, "ok", 0);
            cli_json_string(j, "error", u->error);
            cli_json_end_object(j);
            continue;
        }
        const psl_candidate *k = &u->choice.candidates[u->choice.pick];
        cli_json_string(j, "format", psl_format_name(k->opt.format));
        cli_json_string(j, "vectors", psl_scalar_name(k->vec_type));
        cli_json_string(j, "pick_kernel", k->kernel);
        cli_json_double(j, "predicted_us", k->predicted_us);
        /* ok: the picked kernel was timed in this run; median_us is its time */
        cli_json_bool(j, "ok", u->pick_row >= 0);
        if (u->pick_row >= 0) {
            const bench_result *r = &res[u->pick_row];
            cli_json_string(j, "values", r->values);
            cli_json_double(j, "median_us", r->t_median * 1e6);
            cli_json_double(j, "gflops", r->gflops);
            cli_json_double(j, "backward_error", r->backward_error);
            cli_json_int(j, "bytes", r->bytes);
        } else {
            cli_json_string(j, "error", "the picked kernel was not among the timed kernels");
        }
        if (u->best_row >= 0) {
            cli_json_string(j, "best_candidate", a->kernels[u->best_row].name);
            cli_json_double(j, "best_candidate_us", res[u->best_row].t_median * 1e6);
        }
        if (u->best_cusparse_row >= 0) {
            cli_json_string(j, "best_cusparse", a->kernels[u->best_cusparse_row].name);
            cli_json_double(j, "best_cusparse_us", res[u->best_cusparse_row].t_median * 1e6);
        }
        cli_json_begin_array(j, "candidates_measured_us");
        for (int i = 0; i < u->choice.ncandidates; i++) {
            if (u->cand_row[i] >= 0)
                cli_json_double(j, NULL, res[u->cand_row[i]].t_median * 1e6);
            else
                cli_json_null(j, NULL);
        }
        cli_json_end_array(j);
        cli_choice_json(j, "choice", &u->choice);
        cli_json_end_object(j);
    }
}
