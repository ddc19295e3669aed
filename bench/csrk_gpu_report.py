#!/usr/bin/env python3
"""csrk_gpu_report.py -- CSR-k against cuSPARSE CSR on the GPU from the
`packsell bench --json` files of bench/run_device_csrk.sh: a table per
precision (median times, GB/s on own bytes, the ratio cuSPARSE / CSR-k, the
device grouping's lanes where the bench prints them) and the geometric mean,
as summary.md and summary.csv beside the JSON folder.

  python3 bench/csrk_gpu_report.py bench/results/DATE-gpu-csrk
"""
import csv
import glob
import json
import math
import os
import sys


def main():
    top = sys.argv[1]
    rows = []
    for f in sorted(glob.glob(os.path.join(top, "spmv", "*.json"))):
        with open(f) as fh:
            d = json.load(fh)
        ks = {k["kernel"]: k for k in d["kernels"]}
        for prec in ("fp64", "fp32"):
            a, b = ks.get(f"csrk-{prec}"), ks.get(f"cusparse-csr-{prec}")
            if not a or not b:
                continue
            rows.append({"matrix": d["matrix"], "nnz": d["nnz"], "rows": d["rows"],
                         "nnz_per_row": d["nnz"] / max(d["rows"], 1), "rsd": d.get("rsd"),
                         "precision": prec, "csrk_us": a["median_us"], "csrk_gbs": a["gbs"],
                         "cusparse_us": b["median_us"], "cusparse_gbs": b["gbs"],
                         "speedup": b["median_us"] / a["median_us"], "csrk_ok": a["ok"]})
    if not rows:
        sys.exit("csrk_gpu_report: no bench JSON with csrk and cusparse-csr kernels")
    with open(os.path.join(top, "summary.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(top, "host.txt")) as fh:
        host = fh.read().strip().replace("\n", "; ")
    L = [f"# CSR-k against cuSPARSE CSR on the GPU", "", f"- {host}",
         "- Command (device call): `CSRK_COMMIT=<commit> bash bench/run_device_csrk.sh`; each matrix "
         "`packsell bench SPEC --device cuda --kernels csrk-fp64,cusparse-csr-fp64,csrk-fp32,cusparse-csr-fp32` "
         "(CUDA events, median); summary: `python3 bench/csrk_gpu_report.py DIR`", ""]
    for prec in ("fp64", "fp32"):
        rs = [r for r in rows if r["precision"] == prec]
        gm = math.exp(sum(math.log(r["speedup"]) for r in rs) / len(rs))
        L += [f"## {prec.upper()} (geometric mean of cuSPARSE / CSR-k time: {gm:.3f}x; target >= 1.2x)", "",
              "| matrix | nnz | nnz/row | CSR-k (us) | GB/s | cuSPARSE CSR (us) | GB/s | speedup | y checked |",
              "|---|---|---|---|---|---|---|---|---|"]
        for r in rs:
            L.append(f"| {r['matrix']} | {r['nnz']} | {r['nnz_per_row']:.1f} | {r['csrk_us']:.1f} | "
                     f"{r['csrk_gbs']:.0f} | {r['cusparse_us']:.1f} | {r['cusparse_gbs']:.0f} | "
                     f"{r['speedup']:.3f}x | {'ok' if r['csrk_ok'] else 'FAILED'} |")
        L.append("")
    with open(os.path.join(top, "summary.md"), "w") as fh:
        fh.write("\n".join(L))
    print("\n".join(L))


if __name__ == "__main__":
    main()
