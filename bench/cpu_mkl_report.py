#!/usr/bin/env python3
"""cpu_mkl_report.py -- tables from the JSON files of bench/run_cpu_mkl.sh.

Prints (markdown) per matrix: the time ratios packsell / MKL (above 1:
packsell slower) from the medians over all runs of each kernel, the same
from the minima, the median over rounds of each round's ratio, each kernel's GB/s on its own bytes and share of the read
bandwidth measured in the same run and of the same-size read (when the
JSON has it), and the noise (largest over smallest
round median). With several runs (tags) of one matrix, the ratios are the
median over those runs. --csv FILE also writes one row per kernel and run.

Usage: python3 bench/cpu_mkl_report.py DIR [--csv FILE]
"""
import csv
import glob
import json
import os
import statistics
import sys

ORDER = ["hpcg_6_6_6", "hpcg_7_6_6", "hpcg_7_7_7", "lap3d_96", "lap2d_1024", "bcsstk29",
         "Dubcova1"]
# (column, our kernel, MKL kernel)
RATIOS = [
    ("CSR FP64", "csr-fp64", "mkl-csr-fp64"),
    ("SELL FP64", "sell-fp64", "mkl-csr-fp64"),
    ("CSR FP32", "csr-fp32", "mkl-csr-fp32"),
    ("SELL FP32", "sell-fp32", "mkl-csr-fp32"),
    ("PackSELL FP16 vs MKL FP32", "packsell-fp16", "mkl-csr-fp32"),
    ("PackSELL E8M21 vs MKL FP32", "packsell-e8m21", "mkl-csr-fp32"),
    ("CSR-k FP64", "csrk-fp64", "mkl-csr-fp64"),
    ("CSR-k FP32", "csrk-fp32", "mkl-csr-fp32"),
    ("CSR-k FP64 vs MKL FP64 noopt", "csrk-fp64", "mkl-csr-noopt-fp64"),
    ("CSR-k FP32 vs MKL FP32 noopt", "csrk-fp32", "mkl-csr-noopt-fp32"),
]
# (faster format, the format it is compared with): issue 17's 16-core pairs
PAIRS = [("packsell-fp16", "sell-fp16"), ("packsell-e8m21", "sell-fp32")]
# the kernels of the GB/s table
GBS_KERNELS = ["csr-fp64", "csr-fp32", "csrk-fp64", "csrk-fp32", "sell-fp64", "sell-fp32",
               "sell-fp16", "packsell-fp16", "packsell-e8m21", "mkl-csr-fp64", "mkl-csr-fp32",
               "mkl-csr-noopt-fp64", "mkl-csr-noopt-fp32"]


def load(folder):
    runs = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            doc = json.load(f)
        base = os.path.basename(path)[:-5]
        matrix, _, tag = base.rpartition("_")
        runs.setdefault(matrix, []).append((tag, doc))
    return runs


def kernels(doc):
    return {k["kernel"]: k for k in doc["kernels"] if k.get("ok")}


def ratio(ks, ours, mkl, key):
    if ours in ks and mkl in ks and ks[mkl][key] > 0:
        return ks[ours][key] / ks[mkl][key]
    return None


def fmt(v, spec="%.2f"):
    return "-" if v is None else spec % v


def run_rows(names, runs, columns, cells):
    """A markdown table with a row per matrix and run: cells(kernels by name, run) gives the
    row's cells under columns."""
    print("| matrix | run | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for m in names:
        for tag, d in runs[m]:
            print(f"| {m} | {tag} | " + " | ".join(cells(kernels(d), d)) + " |")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    runs = load(folder)
    names = [m for m in ORDER if m in runs] + sorted(m for m in runs if m not in ORDER)
    present = {k for m in names for _, d in runs[m] for k in kernels(d)}
    global RATIOS
    RATIOS = [r for r in RATIOS if r[1] in present and r[2] in present]  # columns with data
    for key, title in (("median_us", "medians"), ("min_us", "minima")):
        print(f"\n### packsell / MKL time, {title} (above 1: packsell slower)\n")
        print("| matrix | nnz | runs | " + " | ".join(c for c, _, _ in RATIOS) + " |")
        print("|---|---|---|" + "---|" * len(RATIOS))
        for m in names:
            docs = runs[m]
            cells = []
            for _, ours, mkl in RATIOS:
                vals = [ratio(kernels(d), ours, mkl, key) for _, d in docs]
                vals = [v for v in vals if v is not None]
                cells.append(fmt(statistics.median(vals)) if vals else "-")
            nnz = docs[0][1]["nnz"]
            print(f"| {m} | {nnz / 1e6:.2f}M | {len(docs)} | " + " | ".join(cells) + " |")
    print("\n### packsell / MKL time, median over rounds of each round's ratio of medians\n")
    print("(the kernels of one round run seconds apart, so the load of a shared")
    print("machine cancels best here)\n")
    print("| matrix | rounds | " + " | ".join(c for c, _, _ in RATIOS) + " |")
    print("|---|---|" + "---|" * len(RATIOS))
    for m in names:
        cells, nr = [], 0
        for _, ours, mkl in RATIOS:
            vals = []
            for _, d in runs[m]:
                ks = kernels(d)
                if ours in ks and mkl in ks:
                    a, b = ks[ours]["round_median_us"], ks[mkl]["round_median_us"]
                    vals += [x / y for x, y in zip(a, b) if y > 0]
            nr = max(nr, len(vals))
            cells.append(fmt(statistics.median(vals)) if vals else "-")
        print(f"| {m} | {nr} | " + " | ".join(cells) + " |")
    pairs = [(a, b) for a, b in PAIRS if a in present and b in present]
    if pairs:
        print("\n### speed-ups between our formats (time of the second over the first, "
              "medians; issue 17's 16-core pairs)\n")
        run_rows(names, runs, [f"{a} vs {b}" for a, b in pairs],
                 lambda ks, d: [f"{ks[b]['median_us'] / ks[a]['median_us']:.2f}x"
                                if a in ks and b in ks else "-" for a, b in pairs])
    print("\n### GB/s on each kernel's own bytes (% of the read bandwidth of the same run)\n")
    kn = [k for k in GBS_KERNELS if k in present]
    run_rows(names, runs, ["read GB/s"] + kn,
             lambda ks, d: [f"{d.get('read_bw_gbs') or 0:.1f}"] +
             [f"{ks[k]['gbs']:.1f} ({ks[k]['pct_read_bw']:.0f}%)"
              if k in ks and ks[k].get("pct_read_bw") is not None else "-" for k in kn])
    if any(k.get("pct_read_bw_same_size") is not None
           for m in names for _, d in runs[m] for k in kernels(d).values()):
        print("\n### % of the same-size read (the first N bytes of the read array read "
              "again and again, N the kernel's own bytes)\n")
        run_rows(names, runs, kn,
                 lambda ks, d: [f"{ks[k]['pct_read_bw_same_size']:.0f}% of "
                                f"{ks[k]['read_bw_same_size_gbs']:.0f}"
                                if k in ks and ks[k].get("pct_read_bw_same_size") is not None
                                else "-" for k in kn])
    opt = [(m, tag, k["kernel"], k["mkl_optimize_bytes"] / k["bytes"])
           for m in names for tag, d in runs[m] for k in kernels(d).values()
           if k.get("mkl_optimize") and (k.get("mkl_optimize_bytes") or 0) > 0 and k["bytes"]]
    if opt:
        print("\n### what mkl_sparse_optimize keeps (mkl_mem_stat after / before, over its CSR "
              "arrays' bytes)\n")
        print("| matrix | run | kernel | kept / CSR bytes |")
        print("|---|---|---|---|")
        for m, tag, k, v in opt:
            print(f"| {m} | {tag} | {k} | {v:.2f} |")
    print("\n### noise: largest / smallest round median per kernel (min - max over kernels)\n")
    print("| matrix | run | rounds | spread of round medians | max run / median run |")
    print("|---|---|---|---|---|")
    for m in names:
        for tag, d in runs[m]:
            ks = kernels(d).values()
            spreads = [max(k["round_median_us"]) / min(k["round_median_us"]) for k in ks
                       if k.get("round_median_us")]
            tails = [k["max_us"] / k["median_us"] for k in ks]
            print(f"| {m} | {tag} | {d.get('rounds')} | {min(spreads):.2f} - {max(spreads):.2f} "
                  f"| {min(tails):.1f} - {max(tails):.1f} |")
    if "--csv" in sys.argv:
        out = sys.argv[sys.argv.index("--csv") + 1]
        with open(out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["matrix", "run", "kernel", "nnz", "runs", "median_us", "min_us", "max_us",
                        "gbs", "pct_read_bw", "read_bw_gbs", "pct_read_bw_same_size",
                        "read_bw_same_size_gbs", "bytes", "traffic_bytes",
                        "backward_error", "prep_seconds"])
            for m in names:
                for tag, d in runs[m]:
                    for k in d["kernels"]:
                        if not k.get("ok"):
                            continue
                        w.writerow([m, tag, k["kernel"], d["nnz"], k["runs"],
                                    "%.2f" % k["median_us"], "%.2f" % k["min_us"],
                                    "%.2f" % k["max_us"], "%.3f" % k["gbs"],
                                    "%.1f" % (k.get("pct_read_bw") or 0),
                                    "%.3f" % (d.get("read_bw_gbs") or 0),
                                    "%.1f" % (k.get("pct_read_bw_same_size") or 0),
                                    "%.3f" % (k.get("read_bw_same_size_gbs") or 0), k["bytes"],
                                    k["traffic_bytes"], "%.3e" % k["backward_error"],
                                    "%.4f" % k["convert_seconds"]])


if __name__ == "__main__":
    main()
