/*
 * solve.c -- `mpirun -np N packsell solve MATRIX ...`: the serial solve's
 * command line (solve_parse), the distributed matrix (generated per rank
 * or scattered from rank 0), b drawn by natural row as the serial command
 * draws it, the solve timed apart from the setup (the slowest rank's time),
 * and each rank's split of the SpMV and reduction phases. The solvers come
 * from a table (dist_solvers): each entry runs one --method on a
 * distributed matrix; the other methods of the serial command plug in
 * there through the distributed operator layer (psl_dist_op_create,
 * psl_dist_exec_attach, psl_dist_precond_jacobi) once the library has it.
 */
#include "cli_mpi.h"
#include "../solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a distributed solve did (the same on every rank). */
typedef struct dist_outcome {
    psl_status st;
    int32_t iterations;
    double relres, relres_recursive;
} dist_outcome;

/* One solve of A x = b from the x given, as the parsed options say. */
typedef psl_status (*dist_solve_fn)(const solve_args *a, const psl_dist_matrix *A,
                                    const double *b, double *x, dist_outcome *out);

/* PCG (psl_dist_pcg): Jacobi or none, FP64 vectors, the recursive
 * residual's stop, the true residual reported. */
static psl_status run_pcg(const solve_args *a, const psl_dist_matrix *A, const double *b,
                          double *x, dist_outcome *out)
{
    psl_dist_pcg_options opt;
    psl_dist_pcg_options_init(&opt);
    opt.tol = a->cfg.solver.tol;
    opt.max_iters = a->cfg.solver.max_iters;
    opt.jacobi = a->cfg.precond == PSL_PRECOND_JACOBI;
    psl_dist_pcg_result r;
    memset(&r, 0, sizeof r);
    psl_status st = psl_dist_pcg(A, b, x, &opt, &r);
    out->iterations = r.iterations;
    out->relres = r.relres;
    out->relres_recursive = r.relres_recursive;
    return st;
}

typedef struct dist_solver {
    psl_solve_method method;
    dist_solve_fn run;
    int fp32_vectors;  /* --vectors fp32 offered */
} dist_solver;

static const dist_solver dist_solvers[] = {
    {PSL_SOLVE_CG, run_pcg, 0},
};

static const dist_solver *find_solver(psl_solve_method m)
{
    for (size_t i = 0; i < sizeof dist_solvers / sizeof dist_solvers[0]; i++)
        if (dist_solvers[i].method == m)
            return &dist_solvers[i];
    return NULL;
}

/* The options the distributed solve refuses: the same verdict on every
 * rank (the same command line). */
static int refuse(const char *cmd, const solve_args *a, const dist_solver **solver)
{
    const psl_solve_config *c = &a->cfg;
    if (c->device >= 0)
        return cli_error(cmd, "--device cuda under MPI: the distributed device SpMV "
                              "(psl_dist_matrix_upload, psl_dist_dspmv) is not in this build yet; "
                              "use --device cpu");
    if (!(*solver = find_solver(c->method)))
        return cli_usage_error(cmd, "--method %s is not available under MPI yet (pcg is; the "
                               "other methods come with the distributed operator layer)",
                               a->method_name);
    if (c->precond != PSL_PRECOND_JACOBI && c->precond != PSL_PRECOND_NONE)
        return cli_usage_error(cmd, "--precond %s is not available under MPI (jacobi or none)",
                               a->precond_name);
    if (c->solver.vec_type != PSL_FP64 && !(*solver)->fp32_vectors)
        return cli_usage_error(cmd, "--vectors %s: %s under MPI runs on fp64 vectors",
                               psl_scalar_name(c->solver.vec_type), a->method_name);
    const char *off = a->rhs ? "--rhs" : a->out ? "--output" : a->history ? "--history"
                    : a->cache ? "--sdainv-cache" : NULL;
    if (off)
        return cli_usage_error(cmd, "%s is not available under MPI", off);
    return CLI_OK;
}

/* Each rank's split of the solve, gathered on rank 0. */
enum { S_ROWS, S_NNZ_D, S_NNZ_O, S_GHOST, S_NBRS, S_SPMVS, S_PACK, S_LOCAL, S_WAIT, S_REMOTE,
       S_REDUCTIONS, S_REDUCE, S_N };

static int write_json(const char *cmd, const solve_args *a, const psl_dist_info *g,
                      const dist_outcome *o, const char *status, double setup_s, double solve_s,
                      const double *ranks)
{
    FILE *f = NULL;
    psl_output *out = NULL;
    psl_status ost = psl_output_begin(&out, a->json, &f);
    if (ost != PSL_OK)
        return cli_lib_error(cmd, ost);
    static const char *const keys[S_N] = {"rows", "nnz_d", "nnz_o", "ghosts", "neighbors",
                                          "spmvs", "pack_s", "local_s", "wait_s", "remote_s",
                                          "reductions", "allreduce_s"};
    const psl_solve_config *c = &a->cfg;
    cli_json j;
    cli_json_init(&j, f);
    cli_json_begin_object(&j, NULL);
    cli_json_string(&j, "command", "solve");
    cli_json_string(&j, "matrix", a->matrix);
    cli_json_int(&j, "nrows", g->n_global);
    cli_json_int(&j, "nnz", g->nnz_global);
    cli_json_string(&j, "method", a->method_name);
    cli_json_string(&j, "precond", a->precond_name);
    cli_json_string(&j, "vectors", psl_scalar_name(c->solver.vec_type));
    cli_json_string(&j, "device", "cpu");
    cli_json_bool(&j, "scale", 0);
    cli_json_double(&j, "tol", c->solver.tol);
    cli_json_int(&j, "max_iters", c->solver.max_iters);
    cli_json_string(&j, "status", status);
    cli_json_int(&j, "iterations", o->iterations);
    cli_json_double(&j, "relres", o->relres);
    cli_json_double(&j, "relres_recursive", o->relres_recursive);
    cli_json_double(&j, "setup_s", setup_s);
    cli_json_int(&j, "repeat", c->repeat);
    cli_json_double(&j, "solve_s", solve_s);
    cli_json_double(&j, "time_per_iteration_s", o->iterations > 0 ? solve_s / o->iterations : NAN);
    cli_json_begin_object(&j, "mpi");
    cli_json_int(&j, "nranks", cli_mpi_size);
    cli_json_begin_array(&j, "ranks");
    for (int q = 0; q < cli_mpi_size; q++) {
        cli_json_begin_object(&j, NULL);
        cli_json_int(&j, "rank", q);
        for (int e = 0; e < S_N; e++)
            cli_json_double(&j, keys[e], ranks[(size_t)q * S_N + e]);
        cli_json_end_object(&j);
    }
    cli_json_end_array(&j);
    cli_json_end_object(&j);
    cli_json_end_object(&j);
    fputc('\n', f);
    if (ferror(f)) {
        psl_output_cancel(&out);
        return cli_error(cmd, "cannot write --json '%s'", a->json);
    }
    ost = psl_output_commit(&out);
    return ost == PSL_OK ? CLI_OK : cli_lib_error(cmd, ost);
}

int cli_mpi_solve(int argc, char **argv)
{
    const char *cmd = "solve";
    solve_args a;
    memset(&a, 0, sizeof a);
    int rc = solve_parse(argc, argv, &a);
    if (rc == CLI_HELP)
        return CLI_OK;
    if ((rc = cli_mpi_agree(cmd, rc,
                            rc && cli_mpi_rank > 0 ? "the command line was refused on this rank"
                                                   : NULL)))
        return rc;
    const dist_solver *solver = NULL;
    if ((rc = refuse(cmd, &a, &solver)))
        return rc;
    const psl_convert_options *storage = a.cfg.storage_auto ? NULL : &a.cfg.storage;
    cli_dist_source src;
    psl_dist_matrix *A = NULL;
    double *b = NULL, *x = NULL, *times = NULL, *ranks = NULL;
    int64_t *nat = NULL;
    double setup_s = 0.0;
    if ((rc = cli_mpi_agree(cmd, cli_dist_open(cmd, a.matrix, &src), NULL)) != CLI_OK)
        goto done;
    if ((rc = cli_mpi_lib(cmd, cli_dist_build(cmd, &src, storage, storage, &A, &setup_s))))
        goto done;
    psl_dist_info g;
    psl_dist_matrix_get_info(A, &g);
    int32_t n = g.nrows;
    b = malloc((size_t)(n + 1) * sizeof *b);
    x = malloc((size_t)(n + 1) * sizeof *x);
    nat = malloc((size_t)(n + 1) * sizeof *nat);
    times = malloc((size_t)a.cfg.repeat * sizeof *times);
    if (cli_mpi_rank == 0)
        ranks = calloc((size_t)cli_mpi_size * S_N, sizeof *ranks);
    if ((rc = cli_mpi_agree(cmd, b && x && nat && times && (ranks || cli_mpi_rank > 0)
                                     ? CLI_OK : CLI_RUNTIME, "out of memory for the vectors")))
        goto done;
    /* b as the serial command draws it: uniform in [0, 1) by natural row */
    cli_dist_natural_rows(A, &src, nat);
    for (int32_t i = 0; i < n; i++)
        b[i] = 0.5 * (cli_dist_uniform_at((uint64_t)a.seed, nat[i]) + 1.0);
    dist_outcome o;
    memset(&o, 0, sizeof o);
    psl_dist_timings tm;
    psl_dist_matrix_set_timing(A, 1);
    for (int32_t r = 0; r < a.cfg.repeat; r++) {
        memset(x, 0, (size_t)(n + 1) * sizeof *x);
        psl_dist_matrix_timings(A, NULL, 1); /* the last solve's split is reported */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        o.st = solver->run(&a, A, b, x, &o);
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(&t, &times[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (o.st != PSL_OK && o.st != PSL_ERR_NOT_CONVERGED && o.st != PSL_ERR_BREAKDOWN)
            break;
    }
    psl_dist_matrix_timings(A, &tm, 0);
    psl_dist_matrix_set_timing(A, 0);
    int solved = o.st == PSL_OK || o.st == PSL_ERR_NOT_CONVERGED || o.st == PSL_ERR_BREAKDOWN;
    if (!solved) { /* the library agreed: every rank has it */
        rc = cli_mpi_lib(cmd, o.st);
        goto done;
    }
    double solve_s = cli_median(times, a.cfg.repeat);
    double mine[S_N] = {(double)g.nrows, (double)g.nnz_d, (double)g.nnz_o, (double)g.nghost,
                        (double)g.recv_neighbors, (double)tm.spmvs, tm.pack_s, tm.local_s,
                        tm.wait_s, tm.remote_s, (double)tm.reductions, tm.reduce_s};
    MPI_Gather(mine, S_N, MPI_DOUBLE, ranks, S_N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    const char *status = o.st == PSL_OK ? "converged"
                         : o.st == PSL_ERR_NOT_CONVERGED ? "max-iters" : "breakdown";
    char how[256];
    cli_dist_describe(&src, how, sizeof how);
    printf("matrix      %s: %lld rows, %lld nonzeros\n", a.matrix, (long long)g.n_global,
           (long long)g.nnz_global);
    printf("mpi         %d ranks; the matrix %s\n", cli_mpi_size, how);
    printf("solver      %s, precond %s, %s vectors, cpu, unscaled (MPI)\n", a.method_name,
           a.precond_name, psl_scalar_name(a.cfg.solver.vec_type));
    printf("setup       matrix %.4f s (generate or scatter, blocks, halo plan)\n", setup_s);
    printf("solve       %.6f s%s, slowest rank (%.3e s per iteration)\n", solve_s,
           a.cfg.repeat > 1 ? " median" : "", o.iterations > 0 ? solve_s / o.iterations : 0.0);
    printf("iterations  %d\n", o.iterations);
    printf("status      %s: relative residual %.3e (true, FP64; tol %.1e)\n", status, o.relres,
           a.cfg.solver.tol);
    printf("split       per rank, seconds in the solve (the last when repeated)\n");
    printf("    rank %9s %11s %10s %7s %5s %7s | %9s %9s %9s %9s %9s\n", "rows", "nnz_d", "nnz_o",
           "ghosts", "nbrs", "spmvs", "pack_s", "A_d_s", "wait_s", "A_o_s", "allred_s");
    for (int q = 0; ranks && q < cli_mpi_size; q++) {
        const double *f = ranks + (size_t)q * S_N;
        printf("    %4d %9.0f %11.0f %10.0f %7.0f %5.0f %7.0f | %9.6f %9.6f %9.6f %9.6f %9.6f\n", q,
               f[S_ROWS], f[S_NNZ_D], f[S_NNZ_O], f[S_GHOST], f[S_NBRS], f[S_SPMVS], f[S_PACK],
               f[S_LOCAL], f[S_WAIT], f[S_REMOTE], f[S_REDUCE]);
    }
    if (o.st != PSL_OK && cli_mpi_rank == 0)
        fprintf(stderr, "packsell solve: %s\n", psl_last_error_message());
    rc = o.st == PSL_OK ? CLI_OK : CLI_RUNTIME;
    int wrc = CLI_OK;
    if (a.json && cli_mpi_rank == 0)
        wrc = write_json(cmd, &a, &g, &o, status, setup_s, solve_s, ranks);
    if ((wrc = cli_mpi_agree(cmd, wrc, NULL)))
        rc = wrc;
done:
    psl_dist_matrix_destroy(&A);
    cli_dist_close(&src);
    free(b);
    free(x);
    free(nat);
    free(times);
    free(ranks);
    return rc;
}
