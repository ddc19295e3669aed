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
#   TOL       relative residual (default 1e-9)
#   BUILD     build folder (default /tmp/build-petsc-cg)
#   PETSC_ONLY=1  build petsc_cg without our solvers (-DPETSC_CG_NO_OURS)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUTDIR=${1:-bench/results/2026-12-01-cpu-petsc-cg}
BUILD=${BUILD:-/tmp/build-petsc-cg}
MDIR=${MATRICES_DIR:-$ROOT/../shared/matrices}
MATRICES=${MATRICES:-"gen:hpcg:6:6:6 gen:hpcg:7:7:7 $MDIR/bcsstk16.mtx $MDIR/Dubcova1.mtx"}
THREADS=${THREADS:-"1 $(nproc)"}
ROUNDS=${ROUNDS:-3}
TOL=${TOL:-1e-9}
mkdir -p "$OUTDIR"
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$OUTDIR/log.txt"; }

# PETSc from Debian: the pkg-config name is PETSc (petsc-dev's alternative).
if ! pkg-config --exists PETSc; then
  log "installing petsc-dev"
  apt-get install -y petsc-dev >"$OUTDIR/apt.txt" 2>&1
fi
PETSC_CFLAGS="$(pkg-config --cflags PETSc ompi-c)"
PETSC_LIBS="$(pkg-config --libs PETSc ompi-c)"
PETSC_DIR=$(pkg-config --variable=prefix PETSc)

log "build libpacksell (Release, CPU only) in $BUILD"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=OFF >"$OUTDIR/build.txt" 2>&1
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
} | tee "$OUTDIR/host.txt"

for m in $MATRICES; do
  name=$(basename "$m" .mtx)
  name=${name#gen:}
  name=${name//:/_}
  for t in $THREADS; do
    cmd="OMP_NUM_THREADS=$t $BUILD/petsc_cg $m --tol $TOL --rounds $ROUNDS --json $OUTDIR/${name}_t$t.json"
    log "$cmd"
    echo "$cmd" >"$OUTDIR/${name}_t$t.txt"
    OMP_NUM_THREADS=$t "$BUILD/petsc_cg" "$m" --tol "$TOL" --rounds "$ROUNDS" \
      --json "$OUTDIR/${name}_t$t.json" 2>&1 | tee -a "$OUTDIR/${name}_t$t.txt"
  done
done

log "summary"
python3 - "$OUTDIR" <<'EOF'
import glob, json, os, sys
out = sys.argv[1]
host = dict(l.rstrip("\n").split(": ", 1) for l in open(os.path.join(out, "host.txt")) if ": " in l)
rows = []
for f in sorted(glob.glob(os.path.join(out, "*_t*.json"))):
    j = json.load(open(f))
    for name, s in j["solvers"].items():
        rows.append(dict(matrix=j["matrix"].split("/")[-1], n=j["n"], nnz=j["nnz"],
                         omp_threads=j["omp_threads"], solver=name, iterations=s["iterations"],
                         solve_s=s["solve_s_median"], ms_per_iter=1e3 * s["s_per_iter"],
                         ratio=s["ratio_per_iter_vs_petsc"], true_relres=s["true_relres"],
                         rec_relres=s["recursive_relres"], reason=s["reason"]))
order = {"petsc": 0, "psl_solve": 1, "psl_cg": 2}
rows.sort(key=lambda r: (r["nnz"], r["matrix"], r["omp_threads"], order.get(r["solver"], 9)))
cols = ["matrix", "n", "nnz", "omp_threads", "solver", "iterations", "solve_s", "ms_per_iter",
        "ratio", "true_relres", "rec_relres", "reason"]
with open(os.path.join(out, "results.csv"), "w") as f:
    f.write(",".join(cols + ["date", "commit", "cpu", "petsc"]) + "\n")
    for r in rows:
        f.write(",".join(("%.6g" % r[c]) if isinstance(r[c], float) else str(r[c]) for c in cols) + ",%s,%s,\"%s\",%s\n" % (
            host.get("date", ""), host.get("commit", ""), host.get("cpu", ""),
            host.get("petsc", "").split(" ")[0]))
with open(os.path.join(out, "README.md"), "w") as f:
    f.write("# FP64 PCG + Jacobi: libpacksell against PETSc KSPCG + PCJACOBI (CPU)\n\n")
    f.write("Written by `bench/run_petsc_compare.sh`; every run's output and JSON lie beside it.\n\n")
    for k in ["date", "commit", "cpu", "petsc", "petsc openmp", "petsc cflags", "blas", "cc",
              "threads of our side", "rounds"]:
        if k in host:
            f.write("- %s: %s\n" % (k, host[k]))
    f.write("\nb uniform [0,1) (splitmix64, seed 1), x0 = 0, stop when the recursive "
            "||r||/||b|| < tol (PETSc: KSP_NORM_UNPRECONDITIONED, rtol = tol, atol = 0; ours: "
            "recursive_stop = 1, no scaling). solve_s is the median of the rounds: KSPSolve, "
            "psl_solve's solve_seconds, psl_solver_solve. true relres is ||b-Ax||/||b|| from a "
            "plain CSR loop. ratio = our time per iteration / PETSc's, in the same run; "
            "PETSc always runs on 1 thread, omp_threads is ours.\n\n")
    f.write("| matrix | nnz | omp threads | solver | iters | solve s | ms/iter | ratio vs PETSc | true relres |\n")
    f.write("|---|---:|---:|---|---:|---:|---:|---:|---:|\n")
    for r in rows:
        f.write("| %s | %d | %d | %s | %d | %.4f | %.4f | %.3f | %.2e |\n" % (
            r["matrix"], r["nnz"], r["omp_threads"], r["solver"], r["iterations"], r["solve_s"],
            r["ms_per_iter"], r["ratio"], r["true_relres"]))
print(open(os.path.join(out, "README.md")).read())
EOF
