#!/usr/bin/env python3
"""csrk_gpu_report.py -- CSR-k against cuSPARSE CSR on the GPU from the
`packsell bench --json` files of bench/run_device_csrk.sh or
run_device_csrk_all.sh: a table per precision (median times, GB/s on own
bytes, the ratio cuSPARSE / CSR-k) and the geometric mean, as summary.md and
summary.csv beside the JSON folder; where the folder has them, the sweep of
the device grouping (sweep/: the best sizes per matrix and precision against
the model's) and the second build's times (alt/). The column "bound" is
the speedup CSR-k would have if it ran at the copy bandwidth the bench
measured in the same run (cuSPARSE time / (CSR-k's own traffic / copy
GB/s), the traffic counting x read once): the most a kernel moving CSR-k's
bytes can gain over cuSPARSE on that card. Where x is gathered from all
over (random) the real traffic is larger and the bound means nothing.

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
                         "speedup": b["median_us"] / a["median_us"], "csrk_ok": a["ok"],
                         "copy_gbs": d.get("copy_gbs"),
                         "bound": (b["median_us"] / a["median_us"] * d["copy_gbs"] / a["gbs"]
                                   if d.get("copy_gbs") and a.get("gbs") else None)})
    if not rows:
        sys.exit("csrk_gpu_report: no bench JSON with csrk and cusparse-csr kernels")
    with open(os.path.join(top, "summary.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(top, "host.txt")) as fh:
        host = fh.read().strip().replace("\n", "; ")
    stream = any(os.path.isdir(os.path.join(top, d)) for d in ("blocks", "tune", "alt"))
    script = "run_device_csrk_all.sh" if stream else "run_device_csrk.sh"
    L = [f"# CSR-k against cuSPARSE CSR on the GPU", "", f"- {host}",
         f"- Command (device call): `CSRK_COMMIT=<commit> bash bench/{script}`; each matrix "
         "`packsell bench SPEC --device cuda --kernels csrk-fp64,cusparse-csr-fp64,csrk-fp32,cusparse-csr-fp32` "
         "(CUDA events, median); summary: `python3 bench/csrk_gpu_report.py DIR`", ""]
    for prec in ("fp64", "fp32"):
        rs = [r for r in rows if r["precision"] == prec]
        gm = math.exp(sum(math.log(r["speedup"]) for r in rs) / len(rs))
        bs = [r["bound"] for r in rs if r["bound"]]
        gb = math.exp(sum(math.log(b) for b in bs) / len(bs)) if len(bs) == len(rs) else None
        L += [f"## {prec.upper()} (geometric mean of cuSPARSE / CSR-k time: {gm:.3f}x; target >= 1.2x"
              + (f"; at the copy bandwidth: {gb:.3f}x" if gb else "") + ")", "",
              "| matrix | nnz | nnz/row | CSR-k (us) | GB/s | % of copy | cuSPARSE CSR (us) | GB/s | speedup | bound | y checked |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rs:
            pc = f"{100 * r['csrk_gbs'] / r['copy_gbs']:.0f}%" if r["copy_gbs"] else "-"
            bd = f"{r['bound']:.3f}x" if r["bound"] else "-"
            L.append(f"| {r['matrix']} | {r['nnz']} | {r['nnz_per_row']:.1f} | {r['csrk_us']:.1f} | "
                     f"{r['csrk_gbs']:.0f} | {pc} | {r['cusparse_us']:.1f} | {r['cusparse_gbs']:.0f} | "
                     f"{r['speedup']:.3f}x | {bd} | {'ok' if r['csrk_ok'] else 'FAILED'} |")
        L.append("")
    L += sweep_section(top, rows) + alt_section(top, rows)
    with open(os.path.join(top, "summary.md"), "w") as fh:
        fh.write("\n".join(L))
    print("\n".join(L))


def bench_times(path):
    """{kernel: median_us} of one bench JSON, {} when unreadable."""
    try:
        with open(path) as fh:
            d = json.load(fh)
    except (OSError, ValueError):
        return {}
    return {k["kernel"]: k["median_us"] for k in d.get("kernels", []) if k.get("ok")}


def sweep_section(top, rows):
    """Best swept grouping per matrix and precision against the model's
    (the suite table's CSR-k time), from sweep/TAG_srR_ssrS.json."""
    files = sorted(glob.glob(os.path.join(top, "sweep", "*_sr*_ssr*.json")))
    if not files:
        return []
    best = {}
    for f in files:
        base = os.path.basename(f)[:-5]
        tag, rest = base.rsplit("_sr", 1)
        sr, ssr = rest.split("_ssr")
        for kern, us in bench_times(f).items():
            key = (tag, kern)
            if key not in best or us < best[key][0]:
                best[key] = (us, int(sr), int(ssr))
    model = {}
    for r in rows:
        tag = r["matrix"].replace("gen:", "").replace(":", "_")
        model[(tag, f"csrk-{r['precision']}")] = r["csrk_us"]
    L = ["## Sweep of the device grouping (PSL_CUDA_CSRK_SR_ROWS x PSL_CUDA_CSRK_SSR_SRS)", "",
         "| matrix | kernel | best (us) | rows/super-row | super-rows/block | model's (us) | best / model |",
         "|---|---|---|---|---|---|---|"]
    for (tag, kern), (us, sr, ssr) in sorted(best.items()):
        m = model.get((tag, kern))
        L.append(f"| {tag} | {kern} | {us:.1f} | {sr} | {ssr} | "
                 f"{m:.1f} | {us / m:.3f} |" if m else f"| {tag} | {kern} | {us:.1f} | {sr} | {ssr} | - | - |")
    return L + [""]


def alt_section(top, rows):
    """The second build's CSR-k times (alt/) beside the first's."""
    files = sorted(glob.glob(os.path.join(top, "alt", "*.json")))
    if not files:
        return []
    first = {(r["matrix"].replace("gen:", "").replace(":", "_"), f"csrk-{r['precision']}"): r
             for r in rows}
    flags = "the command's second build"
    with open(os.path.join(top, "host.txt")) as fh:
        for line in fh:
            if line.startswith("second build:"):
                flags = "`" + line.split(":", 1)[1].strip() + "`"
    L = [f"## Second build ({flags})", "",
         "| matrix | kernel | second build (us) | first build (us) | first / second | cuSPARSE / second |",
         "|---|---|---|---|---|---|"]
    logs = {"csrk-fp64": [], "csrk-fp32": []}
    for f in files:
        tag = os.path.basename(f)[:-5]
        for kern, us in sorted(bench_times(f).items()):
            r = first.get((tag, kern))
            if r:
                L.append(f"| {tag} | {kern} | {us:.1f} | {r['csrk_us']:.1f} | "
                         f"{r['csrk_us'] / us:.3f} | {r['cusparse_us'] / us:.3f} |")
                logs.setdefault(kern, []).append(math.log(r["cusparse_us"] / us))
    L.append("")
    for kern, ls in logs.items():
        if ls:
            L.append(f"- second build, geometric mean of cuSPARSE / {kern} time: "
                     f"{math.exp(sum(ls) / len(ls)):.3f}x over {len(ls)} matrices")
    return L + [""]


if __name__ == "__main__":
    main()
