#!/usr/bin/env bash
# run_petsc_compare.sh -- FP64 PCG + Jacobi of libpacksell against PETSc's
# KSPCG + PCJACOBI (Debian's petsc-dev) on the same machine and matrices:
# installs petsc-dev if missing, builds libpacksell (Release, CPU only) and
# bench/petsc_cg.c against it with plain cc (PETSc stays out of the CMake
# build), runs petsc_cg on each matrix with OMP_NUM_THREADS=1 (like for like:
# PETSc's SeqAIJ is single-threaded) and with all cores, and writes the JSON
# of every run, results.csv and README.md into OUTDIR.
#
# Usage: bench/run_petsc_compare.sh [OUTDIR]   (default bench/results/2026-12-01-cpu-petsc-cg)
# Environment:
#   MATRICES  space-separated specs or .mtx paths (default: gen:hpcg:6:6:6
#             gen:hpcg:7:7:7 and bcsstk16, Dubcova1 of ../shared/matrices)
#   THREADS   OpenMP thread counts of our side (default "1 $(nproc)")
#   ROUNDS    alternating rounds per run, the median reported (default 3)
#   SPMV      SpMVs timed alone per round and side (default 10)
#   TOL       relative residual (default 1e-9)
#   BUILD     build folder (default /tmp/build-petsc-cg)
#   PETSC_ONLY=1  build petsc_cg without our solvers (-DPETSC_CG_NO_OURS)
#   LIB_CFLAGS  CMAKE_C_FLAGS of the libpacksell build (default none: the
#             project's Release flags), e.g. -falign-loops=64
#   TAG       suffix of this invocation's file names and its label in the
#             tables (default none), to keep runs of other builds apart
#   SUMMARY_ONLY=1  only rewrite results.csv and README.md from OUTDIR's runs
# Several invocations may write into one OUTDIR: the tables cover every run
# listed in OUTDIR/runs.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUTDIR=${1:-bench/results/2026-12-01-cpu-petsc-cg}
BUILD=${BUILD:-/tmp/build-petsc-cg}
MDIR=${MATRICES_DIR:-$ROOT/../shared/matrices}
MATRICES=${MATRICES:-"gen:hpcg:6:6:6 gen:hpcg:7:7:7 $MDIR/bcsstk16.mtx $MDIR/Dubcova1.mtx"}
THREADS=${THREADS:-"1 $(nproc)"}
ROUNDS=${ROUNDS:-3}
SPMV=${SPMV:-10}
TOL=${TOL:-1e-9}
LIB_CFLAGS=${LIB_CFLAGS:-}
TAG=${TAG:-}
mkdir -p "$OUTDIR"
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$OUTDIR/log.txt"; }

if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
# PETSc from Debian: the pkg-config name is PETSc (petsc-dev's alternative).
if ! pkg-config --exists PETSc; then
  log "installing petsc-dev"
  apt-get install -y petsc-dev >"$OUTDIR/apt.txt" 2>&1
fi
PETSC_CFLAGS="$(pkg-config --cflags PETSc ompi-c)"
PETSC_LIBS="$(pkg-config --libs PETSc ompi-c)"
PETSC_DIR=$(pkg-config --variable=prefix PETSc)

log "build libpacksell (Release, CPU only, CMAKE_C_FLAGS '$LIB_CFLAGS') in $BUILD"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=OFF \
  -DCMAKE_C_FLAGS="$LIB_CFLAGS" >"$OUTDIR/build.txt" 2>&1
cmake --build "$BUILD" -j "$(nproc)" --target packsell_static >>"$OUTDIR/build.txt" 2>&1
CC=${CC:-cc}
NO_OURS=""
[ "${PETSC_ONLY:-0}" = 1 ] && NO_OURS="-DPETSC_CG_NO_OURS"
BUILD_CMD="$CC -std=c11 -O2 -fopenmp $NO_OURS -Iinclude $PETSC_CFLAGS bench/petsc_cg.c -o $BUILD/petsc_cg $BUILD/libpacksell.a $PETSC_LIBS -lz -lm"
log "build petsc_cg: $BUILD_CMD"
$BUILD_CMD >>"$OUTDIR/build.txt" 2>&1

# Where each side's arithmetic comes from: PETSc's configuration (no OpenMP
# in Debian's build, -O2), the BLAS it calls for VecDot/VecAXPY.
BLAS=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || echo unknown)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (working tree modified)')"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cpus"
  lscpu | grep -E '^(L2|L3) cache' || true
  echo "petsc: $(pkg-config --modversion PETSc) ($PETSC_DIR)"
  echo "petsc openmp: $(grep -c 'define PETSC_HAVE_OPENMP ' "$PETSC_DIR/include/petscconf.h" || true) (1 = built with OpenMP)"
  echo "petsc cflags: $(sed -n 's/^PCC_FLAGS = //p; s/^CC_FLAGS = //p' "$PETSC_DIR/lib/petsc/conf/petscvariables" | head -1)"
  echo "blas: $BLAS"
  echo "cc: $($CC --version | head -1)"
  echo "build: $BUILD_CMD"
  echo "threads of our side: $THREADS (PETSc: 1)"
  echo "rounds: $ROUNDS, tol: $TOL"
  echo "libpacksell CMAKE_C_FLAGS: ${LIB_CFLAGS:-(none)}"
} | tee "$OUTDIR/host${TAG}.txt"
[ -f "$OUTDIR/runs.tsv" ] || printf 'json\ttag\tlib_cflags\tcommit\n' >"$OUTDIR/runs.tsv"

for m in $MATRICES; do
  name=$(basename "$m" .mtx)
  name=${name#gen:}
  name=${name//:/_}
  for t in $THREADS; do
    run=${name}${TAG}_t$t
    cmd="OMP_NUM_THREADS=$t $BUILD/petsc_cg $m --tol $TOL --rounds $ROUNDS --spmv $SPMV --json $OUTDIR/$run.json"
    log "$cmd (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    echo "$cmd" >"$OUTDIR/$run.txt"
    OMP_NUM_THREADS=$t "$BUILD/petsc_cg" "$m" --tol "$TOL" --rounds "$ROUNDS" --spmv "$SPMV" \
      --json "$OUTDIR/$run.json" 2>&1 | tee -a "$OUTDIR/$run.txt"
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUTDIR/$run.txt"
    grep -v "^$run.json	" "$OUTDIR/runs.tsv" >"$OUTDIR/runs.tsv.new" || true
    printf '%s\t%s\t%s\t%s\n' "$run.json" "${TAG:--}" "${LIB_CFLAGS:--}" \
      "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" >>"$OUTDIR/runs.tsv.new"
    mv "$OUTDIR/runs.tsv.new" "$OUTDIR/runs.tsv"
  done
done

fi

log "summary"
python3 - "$OUTDIR" <<'EOF'
import glob, json, os, sys
out = sys.argv[1]
hosts = sorted(glob.glob(os.path.join(out, "host*.txt")), key=lambda h: (len(h), h))
host = dict(l.rstrip("\n").split(": ", 1) for l in open(hosts[0]) if ": " in l)
runs = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "runs.tsv"))][1:]
rows = []
for fname, tag, lib_cflags, commit in runs:
    j = json.load(open(os.path.join(out, fname)))
    sv = j["solvers"]
    pc = sv["petsc"].get("cpu_s_per_iter", 0.0)
    for name, s in sv.items():
        # psl_solve runs the operator psl_cg's SpMV figure times; no CPU time of its own
        sp = (sv.get("psl_cg", s) if name == "psl_solve" else s).get("spmv_s_median", 0.0)
        cpu = s.get("cpu_s_per_iter", 0.0)
        rows.append(dict(matrix=j["matrix"].split("/")[-1], build=tag, lib_cflags=lib_cflags,
                         commit=commit, n=j["n"], nnz=j["nnz"],
                         omp_threads=j["omp_threads"], rounds=j["rounds"], solver=name, iterations=s["iterations"],
                         solve_s=s["solve_s_median"], ms_per_iter=1e3 * s["s_per_iter"],
                         ratio=s["ratio_per_iter_vs_petsc"], spmv_ms=1e3 * sp,
                         cpu_ms_per_iter=1e3 * cpu,
                         cpu_ratio=cpu / pc if cpu and pc and j["omp_threads"] == 1 else 0.0,
                         true_relres=s["true_relres"], rec_relres=s["recursive_relres"],
                         reason=s["reason"]))
order = {"petsc": 0, "psl_solve": 1, "psl_cg": 2}
rows.sort(key=lambda r: (r["nnz"], r["matrix"], r["build"], r["omp_threads"],
                         order.get(r["solver"], 9)))
cols = ["matrix", "build", "lib_cflags", "commit", "n", "nnz", "omp_threads", "rounds", "solver", "iterations", "solve_s", "ms_per_iter",
        "ratio", "spmv_ms", "cpu_ms_per_iter", "cpu_ratio", "true_relres", "rec_relres", "reason"]
with open(os.path.join(out, "results.csv"), "w") as f:
    f.write(",".join(cols + ["date", "cpu", "petsc"]) + "\n")
    for r in rows:
        f.write(",".join(("%.6g" % r[c]) if isinstance(r[c], float) else str(r[c]) for c in cols) + ",%s,\"%s\",%s\n" % (
            host.get("date", ""), host.get("cpu", ""), host.get("petsc", "").split(" ")[0]))
with open(os.path.join(out, "README.md"), "w") as f:
    f.write("# FP64 PCG + Jacobi: libpacksell against PETSc KSPCG + PCJACOBI (CPU)\n\n")
    f.write("Written by `bench/run_petsc_compare.sh`; every run's output and JSON lie beside it.\n\n")
    for k in ["date", "commit", "cpu", "petsc", "petsc openmp", "petsc cflags", "blas", "cc"]:
        if k in host:
            f.write("- %s: %s\n" % (k, host[k]))
    f.write("\nb uniform [0,1) (splitmix64, seed 1), x0 = 0, stop when the recursive "
            "||r||/||b|| < tol (PETSc: KSP_NORM_UNPRECONDITIONED, rtol = tol, atol = 0; ours: "
            "recursive_stop = 1, no scaling). solve_s is the median of the rounds: KSPSolve, "
            "psl_solve's solve_seconds, psl_solver_solve. true relres is ||b-Ax||/||b|| from a "
            "plain CSR loop. ratio = our wall time per iteration / PETSc's, in the same run; "
            "PETSc always runs on 1 thread, omp threads is ours. spmv ms: one y = A x timed "
            "alone (MatMult; our FP64 CSR operator). CPU ms/iter: the thread CPU time of the "
            "solve per iteration, and its ratio to PETSc's (1-thread runs only): on a shared "
            "machine it leaves out the time other processes held the core. Each run's .txt gives "
            "its command and the load average before and after; runs.tsv the commit and "
            "library flags of each.\n\n")
    f.write("build -: the project's Release flags; another label: the library built with the "
            "CMAKE_C_FLAGS of runs.tsv.\n\n")
    f.write("| matrix | build | nnz | omp threads | rounds | solver | iters | solve s | ms/iter | ratio vs PETSc "
            "| spmv ms | CPU ms/iter | CPU ratio | true relres |\n")
    f.write("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    dash = lambda v, fmt: (fmt % v) if v else "-"
    for r in rows:
        f.write("| %s | %s | %d | %d | %d | %s | %d | %.4f | %.4f | %.3f | %s | %s | %s | %.2e |\n" % (
            r["matrix"], r["build"], r["nnz"], r["omp_threads"], r["rounds"], r["solver"], r["iterations"], r["solve_s"],
            r["ms_per_iter"], r["ratio"], dash(r["spmv_ms"], "%.4f"),
            dash(r["cpu_ms_per_iter"], "%.4f"), dash(r["cpu_ratio"], "%.3f"), r["true_relres"]))
print(open(os.path.join(out, "README.md")).read())
EOF
