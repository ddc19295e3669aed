// sdainv_ref_driver.cpp -- times the reference code's SD-AINV build
// (suzuki-hpc/F3R, library/umineko-sparse/preconditioner/ainv.hpp) on a
// Matrix Market matrix, the way its drivers (work/src/f3r-gpu.cpp,
// krylov-gpu.cpp) set it up: io::mm::read_system, CSR<double, host>,
// algorithm::scaling, then algorithm::sdainv(data, tol, acc).
// The reference's headers are not part of this repository: the include path
// (-I REF/library) is given at compile time; see bench/sdainv_ref_compare.sh.
//
//   sdainv_ref_driver MATRIX.mtx [--tol T] [--acc A] [--reps N] [--dump FILE]
// Prints each build's wall and process CPU seconds, the median wall, nnz of A, Z D^-1 and W^T,
// the peak RSS, and a final line of JSON. --dump writes the last build's
// factors as text triplets, "Z i j v" for Z D^-1 and "W i j v" for W^T
// (row i, column j), the format of bench/sdainv_dump.c.
#include "umineko-sparse/matrix/algorithm.hpp"
#include "umineko-sparse/matrix/csr.hpp"
#include "umineko-sparse/matrix/io.hpp"
#include "umineko-sparse/preconditioner/ainv.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <time.h>

using namespace kmm;

static double wall() {
  return std::chrono::duration<double>(
      std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

static double cpu_now() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr,
        "usage: sdainv_ref_driver MATRIX.mtx [--tol T] [--acc A] [--reps N] [--dump FILE]\n");
    return 2;
  }
  double tol = 0.1, acc = 1.0;
  int reps = 3;
  const char *dump = nullptr;
  for (int a = 2; a < argc; a++) {
    if (!std::strcmp(argv[a], "--tol") && a + 1 < argc)
      tol = std::atof(argv[++a]);
    else if (!std::strcmp(argv[a], "--acc") && a + 1 < argc)
      acc = std::atof(argv[++a]);
    else if (!std::strcmp(argv[a], "--reps") && a + 1 < argc)
      reps = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--dump") && a + 1 < argc)
      dump = argv[++a];
    else {
      std::fprintf(stderr, "sdainv_ref_driver: unknown argument '%s'\n", argv[a]);
      return 2;
    }
  }
  if (reps < 1)
    reps = 1;

  // As the reference's drivers: read, CSR, symmetric diagonal scaling.
  double t0 = wall();
  // The COO copy and the right-hand side die at the end of the lambda (the
  // reference's drivers keep them; the build does not use them).
  auto data = [&] {
    auto [coo, rhs] = io::mm::read_system(
        argv[1], [](vector<double, host> v) { v.random<0, 1>(std::mt19937_64(0)); });
    return CSR<double, host>(io::CSR(coo));
  }();
  algorithm::scaling(data);
  double t_read = wall() - t0;

  std::vector<double> times;
  double best_cpu = 1e300;
  idx_t nnz_z = 0, nnz_w = 0;
  for (int r = 0; r < reps; r++) {
    double s = wall(), c = cpu_now();
    auto [z, w] = algorithm::sdainv(data, tol, acc);
    double e = wall() - s;
    c = cpu_now() - c;
    best_cpu = std::min(best_cpu, c);
    times.push_back(e);
    nnz_z = z.nnz();
    nnz_w = w.nnz();
    std::printf("build %d: %.6f s (CPU %.6f s)\n", r + 1, e, c);
    if (dump && r == reps - 1) {
      FILE *f = std::fopen(dump, "w");
      if (!f) {
        std::fprintf(stderr, "sdainv_ref_driver: cannot write %s\n", dump);
        return 1;
      }
      for (idx_t i = 0; i < z.nrows(); i++)
        for (idx_t j = z.rptr[i]; j < z.rptr[i + 1]; j++)
          std::fprintf(f, "Z %d %d %.17g\n", (int)i, (int)z.idx[j], z.val[j]);
      for (idx_t i = 0; i < w.nrows(); i++)
        for (idx_t j = w.rptr[i]; j < w.rptr[i + 1]; j++)
          std::fprintf(f, "W %d %d %.17g\n", (int)i, (int)w.idx[j], w.val[j]);
      std::fclose(f);
    }
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  double med = sorted[sorted.size() / 2];
  if (sorted.size() % 2 == 0)
    med = 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  std::printf("n %d nnz(A) %d nnz(Z) %d nnz(Wt) %d\n", (int)data.nrows(),
      (int)data.nnz(), (int)nnz_z, (int)nnz_w);
  std::printf("read+scale %.3f s; build median %.6f s, min %.6f s, best CPU %.6f s (%d runs)\n",
      t_read, med, sorted[0], best_cpu, reps);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double rss_mb = ru.ru_maxrss / 1024.0;
  std::printf("peak RSS %.1f MB\n", rss_mb);
  std::printf("{\"n\": %d, \"nnz_a\": %d, \"nnz_z\": %d, \"nnz_wt\": %d, \"tol\": %g, "
              "\"acc\": %g, \"reps\": %d, \"build_median_s\": %.6f, \"build_min_s\": %.6f, "
              "\"build_best_cpu_s\": %.6f, \"peak_rss_mb\": %.1f}\n",
      (int)data.nrows(), (int)data.nnz(), (int)nnz_z, (int)nnz_w, tol, acc, reps, med,
      sorted[0], best_cpu, rss_mb);
  return 0;
}
