/*
 * cmd_solve.c -- "packsell solve MATRIX ...": solve A x = b with PCG, flexible
 * CG, inner-outer CG (PackSELL inside), GMRES, FGMRES, BiCGStab or the nested
 * FP16 solver F3R on the CPU or a CUDA device, through
 * psl_solve. Prints setup and solve times apart, iterations and the true
 * residual; writes x, a JSON record and the residual history on request.
 */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "solve.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(void)
{
    printf("Usage: packsell solve MATRIX [options]\n"
           "\n"
           "Solve A x = b (A symmetric positive definite for pcg, fcg and iocg; any\n"
           "nonsingular A for gmres, fgmres and bicgstab), from x0 = 0, to the true\n"
           "relative residual ||b - A x||_2 / ||b||_2 < tol (FP64), after the symmetric\n"
           "diagonal scaling Gbar^-1 A Gbar^-1 (gbar_i = sqrt|a_ii|; x is scaled back).\n"
           "\n"
           "MATRIX: gen:SPEC, a packsell binary file or a Matrix Market file.\n"
           "\n"
           "Options:\n"
           "      --method M        pcg (default), fcg (flexible CG), iocg (FCG outside,\n"
           "                        --inner-iters of FP32 PCG inside on --inner-format),\n"
           "                        gmres, fgmres, bicgstab or f3r (nonsymmetric systems;\n"
           "                        f3r: FGMRES FP64 over FGMRES FP32 over FGMRES FP32 with\n"
           "                        an FP16 matrix over adaptive Richardson in FP16)\n"
           "      --restart M       gmres/fgmres: Arnoldi steps per cycle (default 30);\n"
           "                        f3r: the outer FGMRES's m1 (default 100)\n"
           "      --f3r V           f3r variant: packsell (default; PackSELL FP16, D = 15),\n"
           "                        fp16 (SELL FP16) or fp64 (every layer FP64)\n"
           "      --f3r-values V    f3r packsell: the codec of layers 3-4's matrix and\n"
           "                        layer 4's factors: auto (default: fp16 unless over\n"
           "                        1%% of the scaled values are below FP16's normal\n"
           "                        range, then e8m14), fp16, bf16 or e8mY\n"
           "      --m2 N, --m3 N    f3r: steps of layers 2 and 3 (default 8 and 4)\n"
           "      --m4 N            f3r: Richardson steps of layer 4 (default 2)\n"
           "      --richardson-c N  f3r: Richardson's weight sampling period (default 64)\n"
           "      --precond P       none, jacobi (default; sdainv for f3r, where it is\n"
           "                        layer 4's) or sdainv\n"
           "      --sdainv-tol T    SD-AINV absolute drop tolerance (default 0.1)\n"
           "      --sdainv-acc A    SD-AINV diagonal factor acc (default 1.0)\n"
           "      --sdainv-cache DIR  keep SD-AINV factors in DIR: load them when there,\n"
           "                        else build and save them (named by matrix, tol, acc)\n"
           "      --inner-format F  iocg: packsell (default) or sell\n"
           "      --inner-values V  iocg: sell: fp32 or fp16; packsell: fp16, bf16 or e8mY\n"
           "                        (default e8m14, D = 8 delta bits)\n"
           "      --inner-iters M   iocg: inner iterations m_in (default 50)\n"
           "      --fcg-mmax K      fcg/iocg: directions kept (default 1)\n"
           "      --fcg-restart     fcg/iocg: Notay's truncate-and-restart schedule\n"
           "      --tol T           relative residual to reach (default 1e-9)\n"
           "      --max-iters N     outer iteration limit (default 10000)\n"
           "      --vectors T       outer vectors: fp64 (default) or fp32\n"
           "      --format F ...    the outer matrix's storage (default: csr on the cpu,\n"
           "                        sell on cuda, values of the vectors' type): the\n"
           "                        format options below; the true residual is checked\n"
           "                        with an FP64 CSR copy when the values are not FP64\n"
           "      --device D        cpu (default) or cuda\n"
           "      --rhs FILE        b as a Matrix Market vector (default: uniform in\n"
           "                        [0,1) from --seed)\n"
           "      --seed S          seed of the default b (default 1)\n"
           "      --no-scale        solve A x = b as given\n"
           "      --recursive-stop  stop on the recursive residual (no true check)\n"
           "      --repeat N        solve N times after one setup; report the median\n"
           "  -o, --output FILE     write x as a Matrix Market array\n"
           "      --json FILE       write the settings, times and outcome as JSON\n"
           "      --history FILE    write the residual of every outer iteration (CSV)\n"
           "  -h, --help            this help\n"
           CLI_FORMAT_HELP
           CLI_MPI_SOLVE_HELP
           "\n"
           "Exit status: 0 converged, 1 not converged, broken down or failed, 2 usage.\n"
           "\n"
           "Example: packsell solve gen:hpcg:5:5:5 --method iocg --precond sdainv\n"
#ifdef PSL_TOOL_MPI
           "         mpirun -np 4 packsell solve gen:hpcg:6:6:6 --method fgmres\n"
#endif
           );
}

static int parse_choice(const char *cmd, const char *opt, const char *v, const char *const *names,
                        int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (cli_same(v, names[i])) {
            *out = i;
            return CLI_OK;
        }
    char list[128] = "";
    for (int i = 0; i < n; i++) {
        strncat(list, names[i], sizeof list - strlen(list) - 1);
        if (i + 1 < n)
            strncat(list, i + 2 == n ? " or " : ", ", sizeof list - strlen(list) - 1);
    }
    return cli_usage_error(cmd, "unknown %s '%s' (expected %s)", opt, v, list);
}

/* --inner-format and --inner-values into cfg->inner_storage. */
static int parse_inner(const char *cmd, solve_args *a)
{
    psl_convert_options *o = &a->cfg.inner_storage;
    const char *f = a->inner_format_name ? a->inner_format_name : "packsell";
    const char *v = a->inner_values_name;
    static const char *const fmts[] = {"sell", "packsell"};
    int fi = 0;
    int rc = parse_choice(cmd, "--inner-format", f, fmts, 2, &fi);
    if (rc)
        return rc;
    if (fi == 0) {
        o->format = PSL_FORMAT_SELL;
        o->value_type = PSL_FP32;
        if (v && (psl_scalar_parse(v, &o->value_type) != PSL_OK ||
                  (o->value_type != PSL_FP32 && o->value_type != PSL_FP16)))
            return cli_usage_error(cmd, "--inner-values '%s' for sell (expected fp32 or fp16)", v);
        a->inner_values_name = psl_scalar_name(o->value_type);
    } else {
        o->format = PSL_FORMAT_PACKSELL;
        if (v && psl_codec_parse(v, &o->codec) != PSL_OK)
            return cli_usage_error(cmd, "--inner-values '%s' for packsell (expected fp16, bf16 "
                                   "or e8mY with 0 <= Y <= 21): %s", v, psl_last_error_message());
        if (!v)
            a->inner_values_name = "e8m14";
    }
    a->inner_format_name = fmts[fi];
    return CLI_OK;
}

int solve_parse(int argc, char **argv, solve_args *a)
{
    const char *cmd = "solve";
    cli_opt opts[] = {{"--method", NULL, 1, NULL, 0},       {"--precond", NULL, 1, NULL, 0},
                      {"--sdainv-tol", NULL, 1, NULL, 0},   {"--sdainv-acc", NULL, 1, NULL, 0},
                      {"--inner-format", NULL, 1, NULL, 0}, {"--inner-values", NULL, 1, NULL, 0},
                      {"--inner-iters", NULL, 1, NULL, 0},  {"--fcg-mmax", NULL, 1, NULL, 0},
                      {"--fcg-restart", NULL, 0, NULL, 0},  {"--restart", NULL, 1, NULL, 0},
                      {"--tol", NULL, 1, NULL, 0},
                      {"--max-iters", NULL, 1, NULL, 0},    {"--vectors", NULL, 1, NULL, 0},
                      {"--device", NULL, 1, NULL, 0},       {"--rhs", NULL, 1, NULL, 0},
                      {"--seed", NULL, 1, NULL, 0},         {"--no-scale", NULL, 0, NULL, 0},
                      {"--recursive-stop", NULL, 0, NULL, 0}, {"--repeat", NULL, 1, NULL, 0},
                      {"--output", "-o", 1, NULL, 0},       {"--json", NULL, 1, NULL, 0},
                      {"--history", NULL, 1, NULL, 0},      {"--sdainv-cache", NULL, 1, NULL, 0},
                      {"--f3r", NULL, 1, NULL, 0},          {"--m2", NULL, 1, NULL, 0},
                      {"--f3r-values", NULL, 1, NULL, 0},
                      {"--m3", NULL, 1, NULL, 0},           {"--m4", NULL, 1, NULL, 0},
                      {"--richardson-c", NULL, 1, NULL, 0},
                      CLI_FORMAT_OPTS};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    int rc = cli_parse_one(cmd, argc, argv, opts, nopts, usage, "MATRIX", &a->matrix);
    if (rc)
        return rc;
    psl_solve_config *c = &a->cfg;
    psl_solve_config_init(c);
#define OPT(name) (cli_find(opts, nopts, name)->value)
    /* in psl_solve_method order */
    static const char *const methods[] = {"pcg",    "fcg",      "iocg", "gmres",
                                          "fgmres", "bicgstab", "f3r"};
    static const char *const preconds[] = {"none", "jacobi", "sdainv"};
    int m = 0, p = 1;
    if (OPT("--method") && (rc = parse_choice(cmd, "--method", OPT("--method"), methods, 7, &m)))
        return rc;
    if (m == PSL_SOLVE_F3R)
        p = PSL_PRECOND_SDAINV;
    if (OPT("--precond") &&
        (rc = parse_choice(cmd, "--precond", OPT("--precond"), preconds, 3, &p)))
        return rc;
    c->method = (psl_solve_method)m;
    c->precond = (psl_precond_kind)p;
    a->method_name = methods[m];
    a->precond_name = preconds[p];
    const char *s;
    if ((s = OPT("--sdainv-tol")) && (rc = cli_parse_double(cmd, "--sdainv-tol", s, &c->sdainv.drop_tol)))
        return rc;
    if ((s = OPT("--sdainv-acc")) && (rc = cli_parse_double(cmd, "--sdainv-acc", s, &c->sdainv.acc)))
        return rc;
    if (c->sdainv.drop_tol < 0.0 || c->sdainv.drop_tol >= 1.0)
        return cli_usage_error(cmd, "--sdainv-tol %g (expected 0 <= T < 1)", c->sdainv.drop_tol);
    if (!(c->sdainv.acc > 0.0))
        return cli_usage_error(cmd, "--sdainv-acc %g (expected > 0)", c->sdainv.acc);
    a->inner_format_name = OPT("--inner-format");
    a->inner_values_name = OPT("--inner-values");
    if (c->method != PSL_SOLVE_IOCG && (a->inner_format_name || a->inner_values_name ||
                                        OPT("--inner-iters")))
        return cli_usage_error(cmd, "--inner-* options need --method iocg");
    if (c->method == PSL_SOLVE_IOCG && (rc = parse_inner(cmd, a)))
        return rc;
    long long v;
    if ((s = OPT("--inner-iters"))) {
        if ((rc = cli_parse_int(cmd, "--inner-iters", s, 1, 100000, &v)))
            return rc;
        c->inner_iters = (int32_t)v;
    }
    if ((s = OPT("--fcg-mmax"))) {
        if ((rc = cli_parse_int(cmd, "--fcg-mmax", s, 1, 64, &v)))
            return rc;
        c->solver.fcg_mmax = (int32_t)v;
    }
    c->solver.fcg_restart = cli_find(opts, nopts, "--fcg-restart")->present > 0;
    if (c->method != PSL_SOLVE_FCG && c->method != PSL_SOLVE_IOCG &&
        (OPT("--fcg-mmax") || c->solver.fcg_restart))
        return cli_usage_error(cmd, "--fcg-* options need --method fcg or iocg");
    if ((s = OPT("--restart"))) {
        if (c->method != PSL_SOLVE_GMRES && c->method != PSL_SOLVE_FGMRES &&
            c->method != PSL_SOLVE_F3R)
            return cli_usage_error(cmd, "--restart needs --method gmres, fgmres or f3r");
        if ((rc = cli_parse_int(cmd, "--restart", s, 1, PSL_GMRES_RESTART_MAX, &v)))
            return rc;
        if (c->method == PSL_SOLVE_F3R)
            c->f3r.m1 = (int32_t)v;
        else
            c->solver.restart = (int32_t)v;
    }
    static const char *const variants[] = {"fp64", "fp16", "packsell"}; /* psl_f3r_variant */
    const char *f3r_only[] = {"--f3r", "--m2", "--m3", "--m4", "--richardson-c", "--f3r-values"};
    for (int i = 0; i < 6; i++)
        if (OPT(f3r_only[i]) && c->method != PSL_SOLVE_F3R)
            return cli_usage_error(cmd, "%s needs --method f3r", f3r_only[i]);
    if (c->method == PSL_SOLVE_F3R) {
        int fv = (int)c->f3r.variant;
        if (OPT("--f3r") && (rc = parse_choice(cmd, "--f3r", OPT("--f3r"), variants, 3, &fv)))
            return rc;
        c->f3r.variant = (psl_f3r_variant)fv;
        a->f3r_name = variants[fv];
        int32_t *fm[] = {&c->f3r.m2, &c->f3r.m3, &c->f3r.m4, &c->f3r.c};
        const long long hi[] = {PSL_GMRES_RESTART_MAX, PSL_GMRES_RESTART_MAX, 1000, INT32_MAX};
        for (int i = 0; i < 4; i++)
            if ((s = OPT(f3r_only[i + 1]))) {
                if ((rc = cli_parse_int(cmd, f3r_only[i + 1], s, 1, hi[i], &v)))
                    return rc;
                *fm[i] = (int32_t)v;
            }
        if ((s = OPT("--f3r-values"))) {
            if (c->f3r.variant != PSL_F3R_PACKSELL)
                return cli_usage_error(cmd, "--f3r-values needs --f3r packsell (the fp16 variant "
                                       "is SELL FP16, the fp64 one FP64)");
            if (strcmp(s, "auto") == 0)
                c->f3r.codec = (psl_codec){0, 0};
            else if (psl_codec_parse(s, &c->f3r.codec) != PSL_OK ||
                     !((c->f3r.codec.exp_bits == 5 && c->f3r.codec.man_bits == 10) ||
                       c->f3r.codec.exp_bits == 8))
                return cli_usage_error(cmd, "--f3r-values '%s' (expected auto, fp16, bf16 or e8mY "
                                       "with Y 1..21)", s);
        }
    }
    if ((s = OPT("--tol"))) {
        if ((rc = cli_parse_double(cmd, "--tol", s, &c->solver.tol)))
            return rc;
        if (!(c->solver.tol > 0.0))
            return cli_usage_error(cmd, "--tol %g (expected > 0)", c->solver.tol);
    }
    if ((s = OPT("--max-iters"))) {
        if ((rc = cli_parse_int(cmd, "--max-iters", s, 1, INT32_MAX, &v)))
            return rc;
        c->solver.max_iters = (int32_t)v;
    }
    if ((s = OPT("--vectors")) && (psl_scalar_parse(s, &c->solver.vec_type) != PSL_OK ||
                                   (c->solver.vec_type != PSL_FP64 && c->solver.vec_type != PSL_FP32)))
        return cli_usage_error(cmd, "unknown --vectors '%s' (expected fp64 or fp32)", s);
    if (c->method == PSL_SOLVE_F3R && c->solver.vec_type != PSL_FP64)
        return cli_usage_error(cmd, "--vectors %s: f3r's outer layer is FP64 (its inner layers "
                               "are set by --f3r)", s);
    a->seed = 1;
    if ((s = OPT("--seed")) && (rc = cli_parse_int(cmd, "--seed", s, 0, INT64_MAX, &a->seed)))
        return rc;
    if ((s = OPT("--repeat"))) {
        if ((rc = cli_parse_int(cmd, "--repeat", s, 1, 1000, &v)))
            return rc;
        c->repeat = (int32_t)v;
    }
    c->scale = cli_find(opts, nopts, "--no-scale")->present ? 0 : 1;
    c->solver.recursive_stop = cli_find(opts, nopts, "--recursive-stop")->present > 0;
    a->rhs = OPT("--rhs");
    if (a->rhs && OPT("--seed"))
        return cli_usage_error(cmd, "--seed makes the default b; it does not apply with --rhs");
    a->out = OPT("--output");
    a->json = OPT("--json");
    a->history = OPT("--history");
    if ((rc = cli_check_output(cmd, "-o", a->out)) || (rc = cli_check_output(cmd, "--json", a->json)) ||
        (rc = cli_check_output(cmd, "--history", a->history)))
        return rc;
    /* the outer matrix's storage (default FP64 CSR) */
    cli_format_args fa;
    cli_format_args_get(opts, nopts, &fa);
    if (cli_format_is_auto(&fa))
        return cli_usage_error(cmd, "--format auto is not available for solve: name the format");
    if (cli_format_given(&fa)) {
        if ((rc = cli_format_options(cmd, &fa, &c->storage)))
            return rc;
        c->storage_auto = 0;
    }
    a->cache = OPT("--sdainv-cache");
    if (a->cache && c->precond != PSL_PRECOND_SDAINV)
        return cli_usage_error(cmd, "--sdainv-cache needs --precond sdainv");
    a->device = OPT("--device");
#undef OPT
    if ((rc = cli_check_device(cmd, a->device)))
        return rc;
    c->device = cli_device_is_cuda(a->device) ? 0 : -1;
    return CLI_OK;
}

/* ---- the monitor: history and a progress line on a terminal */

typedef struct monitor_state {
    int32_t *iter;
    double *relres;
    int64_t n, cap;
    int failed;   /* out of memory for the history */
    int progress; /* stderr is a terminal */
    double last_print, start;
} monitor_state;

static void monitor(void *ctx, int32_t iter, double relres)
{
    monitor_state *m = ctx;
    if (iter == 0) { /* a new solve (--repeat): keep the last one's history */
        m->n = 0;
        m->start = cli_now();
    }
    if (m->n == m->cap && !m->failed) {
        int64_t cap = m->cap ? 2 * m->cap : 1024;
        int32_t *ni = realloc(m->iter, (size_t)cap * sizeof *ni);
        if (ni)
            m->iter = ni;
        double *nr = ni ? realloc(m->relres, (size_t)cap * sizeof *nr) : NULL;
        if (nr) {
            m->relres = nr;
            m->cap = cap;
        } else {
            m->failed = 1;
        }
    }
    if (m->n < m->cap) {
        m->iter[m->n] = iter;
        m->relres[m->n] = relres;
        m->n++;
    }
    if (m->progress) {
        double t = cli_now();
        if (t - m->start > 1.0 && t - m->last_print > 0.5) {
            fprintf(stderr, "\r  iteration %d  relative residual %.3e", iter, relres);
            fflush(stderr);
            m->last_print = t;
        }
    }
}

/* --sdainv-cache: the factors of the solved system (scaled unless --no-scale)
 * from DIR, or built and saved there. The names hold the matrix's name, size,
 * drop tolerance, acc and scaling. */
static int sdainv_cache(const char *cmd, const solve_args *a, const psl_matrix *A,
                        const psl_matrix_info *info, psl_matrix **wt, psl_matrix **zd,
                        double *seconds, int *loaded)
{
    char key[256], path[2][1024];
    const char *base = strrchr(a->matrix, '/');
    base = base ? base + 1 : a->matrix;
    size_t k = 0;
    for (; base[k] && k < 120; k++)
        key[k] = (isalnum((unsigned char)base[k]) || base[k] == '.' || base[k] == '-') ? base[k] : '_';
    snprintf(key + k, sizeof key - k, "-n%d-nnz%lld-tol%g-acc%g-%s", info->nrows,
             (long long)info->nnz, a->cfg.sdainv.drop_tol, a->cfg.sdainv.acc,
             a->cfg.scale ? "scaled" : "unscaled");
    snprintf(path[0], sizeof path[0], "%s/%s.wt.psl", a->cache, key);
    snprintf(path[1], sizeof path[1], "%s/%s.zd.psl", a->cache, key);
    double t0 = cli_now();
    *wt = *zd = NULL;
    FILE *f0 = fopen(path[0], "rb"), *f1 = fopen(path[1], "rb");
    int have = f0 && f1;
    if (f0)
        fclose(f0);
    if (f1)
        fclose(f1);
    psl_status st;
    if (have) {
        if ((st = psl_matrix_load(wt, path[0])) != PSL_OK ||
            (st = psl_matrix_load(zd, path[1])) != PSL_OK) {
            psl_matrix_destroy(wt);
            return cli_lib_error(cmd, st);
        }
        *loaded = 1;
    } else {
        psl_matrix *S = NULL;
        const psl_matrix *sys = A;
        if (a->cfg.scale) {
            if ((st = psl_matrix_scale_symmetric(&S, A, NULL)) != PSL_OK)
                return cli_lib_error(cmd, st);
            sys = S;
        }
        st = psl_sdainv_build(sys, &a->cfg.sdainv, wt, zd);
        psl_matrix_destroy(&S);
        if (st == PSL_OK && (st = psl_matrix_save(*wt, path[0])) == PSL_OK)
            st = psl_matrix_save(*zd, path[1]);
        if (st != PSL_OK) {
            psl_matrix_destroy(wt);
            psl_matrix_destroy(zd);
            return cli_lib_error(cmd, st);
        }
        *loaded = 0;
    }
    *seconds = cli_now() - t0;
    return CLI_OK;
}

static int write_history(const char *cmd, const char *path, const monitor_state *m)
{
    FILE *f = NULL;
    psl_output *out = NULL;
    psl_status ost = psl_output_begin(&out, path, &f);
    if (ost != PSL_OK)
        return cli_lib_error(cmd, ost);
    fprintf(f, "iteration,relres\n");
    for (int64_t i = 0; i < m->n; i++)
        fprintf(f, "%d,%.17g\n", m->iter[i], m->relres[i]);
    return cli_output_finish(cmd, &out, f, "cannot write --history", path);
}

void solve_json_config(cli_json *j, const solve_args *a, int64_t nrows, int64_t nnz, int scale,
                       psl_codec f3r_codec)
{
    const psl_solve_config *c = &a->cfg;
    cli_json_string(j, "command", "solve");
    cli_json_string(j, "matrix", a->matrix);
    cli_json_int(j, "nrows", nrows);
    cli_json_int(j, "nnz", nnz);
    cli_json_string(j, "method", a->method_name);
    cli_json_string(j, "precond", a->precond_name);
    cli_json_string(j, "vectors", psl_scalar_name(c->solver.vec_type));
    cli_json_string(j, "device", c->device >= 0 ? "cuda" : "cpu");
    cli_json_bool(j, "scale", scale);
    cli_json_double(j, "tol", c->solver.tol);
    cli_json_int(j, "max_iters", c->solver.max_iters);
    cli_json_bool(j, "recursive_stop", c->solver.recursive_stop);
    if (c->method == PSL_SOLVE_IOCG) {
        cli_json_begin_object(j, "inner");
        cli_json_string(j, "format", a->inner_format_name);
        cli_json_string(j, "values", a->inner_values_name);
        cli_json_int(j, "iters", c->inner_iters);
        cli_json_end_object(j);
    }
    if (c->method == PSL_SOLVE_FCG || c->method == PSL_SOLVE_IOCG) {
        cli_json_int(j, "fcg_mmax", c->solver.fcg_mmax);
        cli_json_bool(j, "fcg_restart", c->solver.fcg_restart);
    }
    if (c->method == PSL_SOLVE_GMRES || c->method == PSL_SOLVE_FGMRES)
        cli_json_int(j, "restart", c->solver.restart);
    if (c->method == PSL_SOLVE_F3R) {
        cli_json_begin_object(j, "f3r");
        cli_json_string(j, "variant", a->f3r_name);
        cli_json_int(j, "m1", c->f3r.m1);
        cli_json_int(j, "m2", c->f3r.m2);
        cli_json_int(j, "m3", c->f3r.m3);
        cli_json_int(j, "m4", c->f3r.m4);
        cli_json_int(j, "richardson_c", c->f3r.c);
        if (c->f3r.variant == PSL_F3R_PACKSELL) {
            char name[32] = "";
            psl_codec_name(f3r_codec, name, sizeof name);
            cli_json_string(j, "values", name);
            cli_json_bool(j, "values_auto", c->f3r.codec.exp_bits == 0);
        }
        cli_json_end_object(j);
    }
    if (c->precond == PSL_PRECOND_SDAINV) {
        cli_json_begin_object(j, "sdainv");
        cli_json_double(j, "tol", c->sdainv.drop_tol);
        cli_json_double(j, "acc", c->sdainv.acc);
        cli_json_end_object(j);
    }
}

static int write_json(const char *cmd, const solve_args *a, const psl_matrix_info *info,
                      const psl_solve_report *r, const char *status, int cache_loaded,
                      double cache_s)
{
    FILE *f = NULL;
    psl_output *out = NULL;
    psl_status ost = psl_output_begin(&out, a->json, &f);
    if (ost != PSL_OK)
        return cli_lib_error(cmd, ost);
    const psl_solve_config *c = &a->cfg;
    cli_json j;
    cli_json_init(&j, f);
    cli_json_begin_object(&j, NULL);
    solve_json_config(&j, a, info->nrows, info->nnz, c->scale, r->f3r_codec);
    if (a->cache) {
        cli_json_begin_object(&j, "sdainv_cache");
        cli_json_string(&j, "dir", a->cache);
        cli_json_bool(&j, "loaded", cache_loaded);
        cli_json_double(&j, "seconds", cache_s);
        cli_json_end_object(&j);
    }
    cli_json_string(&j, "status", status);
    cli_json_int(&j, "iterations", r->result.iterations);
    cli_json_int(&j, "inner_iterations", r->result.inner_iterations);
    cli_json_double(&j, "relres", r->result.relres);
    cli_json_double(&j, "relres_recursive", r->result.relres_recursive);
    cli_json_double(&j, "relres_unscaled", r->relres_unscaled);
    cli_json_begin_object(&j, "setup_s");
    cli_json_double(&j, "scale", r->scale_seconds);
    cli_json_double(&j, "convert", r->convert_seconds);
    cli_json_double(&j, "precond", r->precond_seconds);
    cli_json_double(&j, "upload", r->upload_seconds);
    cli_json_end_object(&j);
    cli_json_int(&j, "repeat", c->repeat);
    cli_json_double(&j, "solve_s", r->solve_seconds);
    cli_json_double(&j, "solve_s_min", r->solve_seconds_min);
    cli_json_double(&j, "solve_s_max", r->solve_seconds_max);
    cli_json_double(&j, "time_per_iteration_s",
                    r->result.iterations > 0 ? r->solve_seconds / r->result.iterations : NAN);
    cli_json_end_object(&j);
    fputc('\n', f);
    return cli_output_finish(cmd, &out, f, "cannot write --json", a->json);
}

int cmd_solve(int argc, char **argv)
{
    const char *cmd = "solve";
    solve_args a;
    memset(&a, 0, sizeof a);
    int rc = solve_parse(argc, argv, &a);
    if (rc == CLI_HELP)
        return CLI_OK;
    if (rc)
        return rc;
    psl_matrix *A = NULL, *wt = NULL, *zd = NULL; /* zd, wt: --sdainv-cache */
    double *b = NULL, *x = NULL, cache_s = 0.0;
    int b_lib = 0, cache_loaded = 0;
    monitor_state mon = {0};
    double load_s = 0, conv_s = 0;
    psl_convert_options csr;
    psl_convert_options_init(&csr);
    if ((rc = cli_load_matrix(cmd, a.matrix, &csr, &A, &load_s, &conv_s)))
        return rc;
    psl_matrix_info info;
    psl_status st = psl_matrix_get_info(A, &info);
    if (st != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    if (info.nrows != info.ncols) {
        rc = cli_error(cmd, "the matrix is %d x %d; a solve needs a square matrix", info.nrows,
                       info.ncols);
        goto done;
    }
    int64_t n = info.nrows;
    if (a.rhs) {
        int64_t nb = 0;
        if ((st = psl_mm_read_vector(a.rhs, &b, &nb)) != PSL_OK) {
            rc = cli_lib_error(cmd, st);
            goto done;
        }
        b_lib = 1;
        if (nb != n) {
            rc = cli_error(cmd, "--rhs %s has %lld entries but the matrix has %lld rows", a.rhs,
                           (long long)nb, (long long)n);
            goto done;
        }
    } else {
        b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
        if (!b) {
            rc = cli_error(cmd, "out of memory for b (%lld entries)", (long long)n);
            goto done;
        }
        uint64_t state = (uint64_t)a.seed;
        for (int64_t i = 0; i < n; i++)
            b[i] = 0.5 * (cli_uniform_pm1(&state) + 1.0); /* uniform in [0, 1) */
    }
    x = calloc((size_t)(n > 0 ? n : 1), sizeof *x);
    if (!x) {
        rc = cli_error(cmd, "out of memory for x (%lld entries)", (long long)n);
        goto done;
    }
    if (a.cache) {
        if ((rc = sdainv_cache(cmd, &a, A, &info, &wt, &zd, &cache_s, &cache_loaded)))
            goto done;
        a.cfg.sdainv_wt = wt;
        a.cfg.sdainv_zdinv = zd;
    }
    mon.progress = isatty(fileno(stderr));
    a.cfg.solver.monitor = monitor;
    a.cfg.solver.monitor_ctx = &mon;
    psl_solve_report rep;
    memset(&rep, 0, sizeof rep);
    st = psl_solve(A, b, x, &a.cfg, &rep);
    if (mon.progress && mon.last_print > 0)
        fprintf(stderr, "\n");
    int solved = st == PSL_OK || st == PSL_ERR_NOT_CONVERGED || st == PSL_ERR_BREAKDOWN;
    if (!solved) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    const char *status = psl_reason_name(rep.result.reason);
    printf("matrix      %s: %d rows, %lld nonzeros (read in %.3f s)\n", a.matrix, info.nrows,
           (long long)info.nnz, load_s);
    printf("solver      %s, precond %s, %s vectors, %s%s\n", a.method_name, a.precond_name,
           psl_scalar_name(a.cfg.solver.vec_type), a.cfg.device >= 0 ? "cuda" : "cpu",
           a.cfg.scale ? ", scaled" : "");
    if (!a.cfg.storage_auto &&
        (a.cfg.storage.format != PSL_FORMAT_CSR || a.cfg.storage.value_type != PSL_FP64)) {
        char vb[32] = "";
        if (a.cfg.storage.format == PSL_FORMAT_PACKSELL)
            psl_codec_name(a.cfg.storage.codec, vb, sizeof vb);
        else
            snprintf(vb, sizeof vb, "%s", psl_scalar_name(a.cfg.storage.value_type));
        printf("matrix as   %s %s\n", psl_format_name(a.cfg.storage.format), vb);
    }
    if (a.cfg.method == PSL_SOLVE_IOCG)
        printf("inner       %s %s, %d iterations of FP32 PCG per outer iteration\n",
               a.inner_format_name, a.inner_values_name, a.cfg.inner_iters);
    if (a.cfg.method == PSL_SOLVE_F3R)
        printf("f3r         %s: FGMRES(%d) over FGMRES(%d) over FGMRES(%d) over Richardson(%d), "
               "c = %d\n", a.f3r_name, a.cfg.f3r.m1, a.cfg.f3r.m2, a.cfg.f3r.m3, a.cfg.f3r.m4,
               a.cfg.f3r.c);
    if (a.cfg.method == PSL_SOLVE_F3R && a.cfg.f3r.variant == PSL_F3R_PACKSELL) {
        char name[32] = "";
        psl_codec_name(rep.f3r_codec, name, sizeof name);
        printf("f3r values  PackSELL %s in layers 3-4%s\n", name,
               a.cfg.f3r.codec.exp_bits == 0 ? " (chosen from the scaled values' range)" : "");
    }
    printf("setup       scale %.4f s, convert %.4f s, precond %.4f s, upload %.4f s\n",
           rep.scale_seconds, rep.convert_seconds, rep.precond_seconds, rep.upload_seconds);
    if (a.cache)
        printf("            SD-AINV factors %s %s in %.4f s (not in precond)\n",
               cache_loaded ? "loaded from" : "built and saved to", a.cache, cache_s);
    printf("solve       %.6f s%s (%.3e s per outer iteration)\n", rep.solve_seconds,
           a.cfg.repeat > 1 ? " median" : "",
           rep.result.iterations > 0 ? rep.solve_seconds / rep.result.iterations : 0.0);
    printf("iterations  %d outer, %lld inner\n", rep.result.iterations,
           (long long)rep.result.inner_iterations);
    printf("status      %s: relative residual %.3e (true, FP64; tol %.1e)%s\n", status,
           rep.result.relres, a.cfg.solver.tol, a.cfg.scale ? " of the scaled system" : "");
    if (a.cfg.scale)
        printf("            unscaled system: relative residual %.3e\n", rep.relres_unscaled);
    if (st != PSL_OK)
        fprintf(stderr, "packsell solve: %s\n", psl_last_error_message());
    rc = st == PSL_OK ? CLI_OK : CLI_RUNTIME;
    int wrc = CLI_OK;
    if (a.out && (st = psl_mm_write_vector(a.out, x, n)) != PSL_OK)
        wrc = cli_lib_error(cmd, st);
    if (a.history && !wrc) {
        if (mon.failed)
            wrc = cli_error(cmd, "out of memory for the residual history");
        else
            wrc = write_history(cmd, a.history, &mon);
    }
    if (a.json && !wrc)
        wrc = write_json(cmd, &a, &info, &rep, status, cache_loaded, cache_s);
    if (wrc)
        rc = wrc;
done:
    psl_matrix_destroy(&wt);
    psl_matrix_destroy(&zd);
    if (b_lib)
        psl_free(b);
    else
        free(b);
    free(x);
    free(mon.iter);
    free(mon.relres);
    psl_matrix_destroy(&A);
    return rc;
}
