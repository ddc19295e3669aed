#!/usr/bin/env python3
"""format_compare_report.py -- which storage is fastest per matrix and value
precision, from `packsell bench --device cuda --json` files of one call.

For each JSON in DIR: the median time of every kernel, grouped by value
precision (fp64: FP64 values; fp32: FP32 values and PackSELL E8MY with Y >= 20,
the chooser's PSL_PREC_FP32 set), the fastest of each group, and each kernel's
time over that fastest. Prints a markdown table; --csv FILE writes one row
per kernel.

Usage: python3 bench/format_compare_report.py DIR [--csv FILE]
"""
import csv
import glob
import json
import os
import re
import sys


def precision(kernel):
    """fp64, fp32 or None (a kernel outside both sets)."""
    m = re.match(r"(?:cusparse-)?[a-z]+-(fp64|fp32|e8m(\d+))", kernel)
    if not m:
        return None
    if m.group(1) in ("fp64", "fp32"):
        return m.group(1)
    return "fp32" if int(m.group(2)) >= 20 else None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    docs = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            d = json.load(f)
        if "kernels" in d:
            docs.append((os.path.basename(path)[:-5], d))
    if not docs:
        sys.exit(f"format_compare_report: no bench JSON in {folder}")
    rows = []
    for name, d in docs:
        ks = [k for k in d["kernels"] if k.get("ok")]
        for prec in ("fp64", "fp32"):
            group = [k for k in ks if precision(k["kernel"]) == prec]
            if not group:
                continue
            best = min(group, key=lambda k: k["median_us"])
            for k in group:
                rows.append(dict(matrix=name, nnz=d.get("nnz"), precision=prec,
                                 kernel=k["kernel"], median_us=k["median_us"],
                                 pct_copy=k.get("pct_copy"),
                                 over_fastest=k["median_us"] / best["median_us"],
                                 fastest=best["kernel"]))
    kernels = []
    for r in rows:
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    print(f"GPU: {docs[0][1].get('gpu', '?')}; median us (time / the fastest of its precision)\n")
    print("| matrix | nnz | " + " | ".join(kernels) + " | fastest FP64 | fastest FP32 |")
    print("|---|---|" + "---|" * (len(kernels) + 2))
    for name, d in docs:
        cells = []
        for k in kernels:
            r = next((r for r in rows if r["matrix"] == name and r["kernel"] == k), None)
            cells.append(f"{r['median_us']:.1f} ({r['over_fastest']:.2f})" if r else "-")
        fast = {p: next((r["fastest"] for r in rows if r["matrix"] == name
                         and r["precision"] == p), "-") for p in ("fp64", "fp32")}
        print(f"| {name} | {d.get('nnz', 0) / 1e6:.1f}M | " + " | ".join(cells) +
              f" | {fast['fp64']} | {fast['fp32']} |")
    if "--csv" in sys.argv:
        with open(sys.argv[sys.argv.index("--csv") + 1], "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
