#!/usr/bin/env python3
"""mkl_probe.py -- how many bytes does MKL's optimised CSR SpMV read per nonzero?

`write DIR` writes Matrix Market files whose rows differ only in the gaps
between their column indices (every row has 24 nonzeros; x is read in a few
sequential streams in all of them, so x stays in cache alike):
  gap1     two runs of 12 consecutive columns, i-6.. and i+20.. (gaps 1, one of 15)
  jump100k the same with the second run at i+100000 (one gap > 65535 a row)
  gap300   24 columns 300 apart (every gap > 255, < 65536)
  gap70k   24 columns 70000 apart, modulo n (every gap > 65535)
  random   24 columns drawn uniformly (x read at random)
Then `bash bench/run_cpu_mkl.sh OUT build-mkl run1` with SPECS set to those
files and KERNELS to our CSR and MKL with and without mkl_sparse_optimize.

`report DIR` prints, per matrix and kernel, the time, GB/s on CSR's bytes as %
of the read bandwidth of the same run, and the most bytes per nonzero the
kernel can have read: read bandwidth x median time, less x and y, over nnz.
No kernel reads faster than the read bandwidth, so a kernel that read all
of CSR's bytes (12 a nonzero in FP64, 8 in FP32, plus the row pointers)
cannot come out below them.

Usage: python3 bench/mkl_probe.py write DIR [--rows N]
       python3 bench/mkl_probe.py report DIR
"""
import glob
import json
import os
import random
import sys

PER_ROW = 24
MATRICES = ["gap1", "jump100k", "gap300", "gap70k", "random"]


def row_columns(name, i, n, rng):
    if name == "gap1":
        cols = [c for c in range(i - 6, i + 6) if 0 <= c < n] + [(i + 20 + d) % n for d in range(12)]
    elif name == "jump100k":
        cols = [c for c in range(i - 6, i + 6) if 0 <= c < n] + [(i + 100000 + d) % n for d in range(12)]
    elif name == "gap300":
        cols = [(i + 300 * d) % n for d in range(PER_ROW)]
    elif name == "gap70k":
        cols = [(i + 70000 * d) % n for d in range(PER_ROW)]
    else:
        cols = rng.sample(range(n), PER_ROW)
    return sorted(set(cols))


def write(outdir, n):
    os.makedirs(outdir, exist_ok=True)
    for name in MATRICES:
        rng = random.Random(1)
        lines = []
        for i in range(n):
            for c in row_columns(name, i, n, rng):
                lines.append("%d %d %s\n" % (i + 1, c + 1, "4" if c == i else "-0.125"))
        path = os.path.join(outdir, name + ".mtx")
        with open(path, "w") as f:
            f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (n, n, len(lines)))
            f.writelines(lines)
        print(path, len(lines), "nonzeros")


def report(d):
    print("| matrix | kernel | median us | GB/s on CSR bytes (% of read) | bytes/nnz at most |")
    print("|---|---|---|---|---|")
    files = sorted(glob.glob(os.path.join(d, "*.json")))
    order = {m: k for k, m in enumerate(MATRICES)}
    files.sort(key=lambda p: order.get(os.path.basename(p).split("_")[0], 99))
    for path in files:
        run = json.load(open(path))
        name = os.path.basename(path)[:-5]
        read = run["read_bw_gbs"]
        nnz, rows, cols = run["nnz"], run["rows"], run["cols"]
        for k in run["kernels"]:
            if not k.get("ok", True) or not k.get("median_us"):
                continue
            t = k["median_us"] * 1e-6
            vec = 8 if k["vectors"] == "fp64" else 4 if k["vectors"] == "fp32" else 2
            csr_bytes = nnz * (4 + (8 if k["values"] == "fp64" else 4)) + 8 * (rows + 1)
            gbs = (csr_bytes + vec * (rows + cols)) / t * 1e-9
            most = (read * 1e9 * t - vec * (rows + cols)) / nnz
            print("| %s | %s | %.0f | %.1f (%.0f%%) | %.2f |" % (name, k["kernel"], k["median_us"],
                                                               gbs, 100 * gbs / read, most))


def main(argv):
    if len(argv) >= 3 and argv[1] == "write":
        n = int(argv[argv.index("--rows") + 1]) if "--rows" in argv else 400000
        write(argv[2], n)
    elif len(argv) == 3 and argv[1] == "report":
        report(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
