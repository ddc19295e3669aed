#!/usr/bin/env python3
"""suite_report.py -- turn the JSON files of `packsell bench --device cuda`
(one per matrix, as bench/run_suite.sh writes them) into

  suite.csv                one row per matrix x kernel
  fig5_gflops_vs_rsd.png   GFLOPS of every FP16 kernel against RSD (paper Fig. 5)
  fig7_footprint.png       PackSELL FP16 / SELL FP16 bytes against nnz (Fig. 7)
  fig8_speedup.png         PackSELL FP16 speedup over cuSPARSE SELL, CSR and the
                           best cuSPARSE FP16 kernel, SELL-suitable matrices (Fig. 8)
  fig9_e8my.png            E8MY speed and backward error against D (Fig. 9)
  RESULTS.md               each Section 5.1 claim of the paper beside ours, and
                           the format chooser's record (bench/chooser_eval.py)
  chooser.csv              per matrix and precision: the chooser's pick, its
                           predicted and measured time, the fastest candidate
                           and the fastest cuSPARSE kernel

With --publish FILE (bench/results/RESULTS.md), the same RESULTS.md is also
written to FILE, its figure and data names as links into the run's directory:
the published record of the latest whole-suite run.

Usage: python3 bench/suite_report.py RESULTS_DIR [--out DIR] [--commit C] [--publish FILE]
Needs matplotlib (Debian: python3-matplotlib; PyPI: matplotlib).
"""
import argparse
import csv
import glob
import json
import math
import os
import statistics
import sys

# PackSELL E8MY kernels of the benchmark and their delta bits D = 22 - Y.
E8MY = [("packsell-e8m21", 1), ("packsell-e8m20", 2), ("packsell-e8m18", 4),
        ("packsell-e8m14", 8), ("packsell-e8m10", 12)]
FIELDS = ["matrix", "source", "rows", "cols", "nnz", "rsd", "kernel", "library", "format",
          "values", "vectors", "median_us", "gflops", "gbs", "pct_copy", "bytes",
          "ratio_sell", "backward_error"]


def load(results_dir):
    """{matrix name: bench JSON} for every *.json in results_dir."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(results_dir, "*.json"))):
        with open(path) as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as e:
                print(f"skipping {path}: {e}", file=sys.stderr)
                continue
        if "kernels" in data:
            runs[os.path.splitext(os.path.basename(path))[0]] = data
    return runs


def kernels_of(data):
    """{kernel name: result} of the kernels that ran."""
    return {k["kernel"]: k for k in data["kernels"] if k.get("ok")}


def write_csv(runs, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(FIELDS)
        for name, data in runs.items():
            for k in data["kernels"]:
                if not k.get("ok"):
                    continue
                w.writerow([name, data["matrix"], data["rows"], data["cols"], data["nnz"],
                            data["rsd"]] + [k.get(c, "") for c in FIELDS[6:]])


def per_matrix(runs):
    """One record per matrix with the times the claims need (µs, None if absent)."""
    out = []
    for name, data in runs.items():
        ks = kernels_of(data)
        t = lambda n: ks[n]["median_us"] if n in ks else None
        cus16 = [v["median_us"] for n, v in ks.items()
                 if v.get("library") == "cusparse" and v.get("values") == "fp16"]
        out.append({
            "name": name, "nnz": data["nnz"], "rsd": data["rsd"], "ks": ks,
            "pack16": t("packsell-fp16"), "sell16": t("cusparse-sell-fp16"),
            "csr16": t("cusparse-csr-fp16"), "sell32": t("cusparse-sell-fp32"),
            "best16": min(cus16) if cus16 else None,
        })
    return out


def sell_suitable(m):
    """cuSPARSE SELL at least 0.9x of cuSPARSE CSR (FP16), ALGORITHMS.md §4."""
    return m["sell16"] is not None and m["csr16"] is not None and m["csr16"] / m["sell16"] >= 0.9


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def best_e8my(m):
    """Fastest E8MY kernel whose backward error is <= 2x cuSPARSE SELL FP32's."""
    ref = m["ks"].get("cusparse-sell-fp32")
    if not ref:
        return None
    ok = [m["ks"][n] for n, _ in E8MY
          if n in m["ks"] and m["ks"][n]["backward_error"] <= 2 * ref["backward_error"]]
    return min(ok, key=lambda k: k["median_us"]) if ok else None


def plots(mats, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def rsd_x(r):
        return max(r, 1e-3)  # RSD = 0 drawn at 1e-3 on the log axis

    series = [("packsell-fp16", "PackSELL FP16"), ("sell-fp16", "our SELL FP16"),
              ("cusparse-sell-fp16", "cuSELL"), ("cusparse-csr-fp16", "cuCSR"),
              ("cusparse-coo-fp16", "cuCOO"), ("cusparse-bsr-fp16", "cuBSR")]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for key, label in series:
        pts = [(rsd_x(m["rsd"]), m["ks"][key]["gflops"]) for m in mats if key in m["ks"]]
        if pts:
            ax.scatter(*zip(*pts), s=14, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("RSD of nonzeros per row (0 drawn at 1e-3)")
    ax.set_ylabel("GFLOPS (2 nnz / time)")
    ax.set_title("FP16 SpMV on the H200 (cf. paper Fig. 5)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig5_gflops_vs_rsd.png"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4))
    pts = [(m["nnz"], m["ks"]["packsell-fp16"]["ratio_sell"]) for m in mats
           if "packsell-fp16" in m["ks"]]
    if pts:
        ax.scatter(*zip(*pts), s=14, label="PackSELL FP16")
    ax.axhline(1.0, color="gray", ls="--", lw=1, label="baseline (SELL)")
    ax.axhline(4 / 6, color="k", ls=":", lw=1, label="lower bound 4/6")
    ax.set_xscale("log")
    ax.set_xlabel("nonzeros")
    ax.set_ylabel("bytes / SELL FP16 bytes")
    ax.set_title("Memory footprint (cf. paper Fig. 7)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig7_footprint.png"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    suit = [m for m in mats if sell_suitable(m) and m["pack16"]]
    # distinct markers: the best cuSPARSE kernel is often cuSELL itself, and
    # filled dots on top of each other would hide a series
    for key, label, style in [("csr16", "vs cuCSR", dict(s=14, marker="o")),
                              ("best16", "vs best cuSPARSE", dict(s=40, marker="x")),
                              ("sell16", "vs cuSELL",
                               dict(s=36, marker="o", facecolors="none", edgecolors="C0"))]:
        pts = [(m["nnz"], m[key] / m["pack16"]) for m in suit if m[key]]
        if pts:
            ax.scatter(*zip(*pts), label=label, **style)
    ax.axhline(1.0, color="gray", ls="--", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("nonzeros")
    ax.set_ylabel("speedup of PackSELL FP16")
    ax.set_title("SELL-suitable matrices (cf. paper Fig. 8)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig8_speedup.png"), dpi=120)
    plt.close(fig)

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    ds, gf, err = [], [], []
    for name, d in E8MY:
        g = [m["ks"][name]["gflops"] for m in suit if name in m["ks"]]
        e = [m["ks"][name]["backward_error"] for m in suit if name in m["ks"]]
        if g:
            ds.append(d)
            gf.append(statistics.median(g))
            err.append(statistics.median(e))
    a1.plot(ds, gf, "o-", label="PackSELL E8MY")
    a2.plot(ds, err, "o-", label="PackSELL E8MY")
    for key, label, style in [("cusparse-sell-fp32", "cuSELL FP32", "--"),
                              ("cusparse-sell-fp16", "cuSELL FP16", ":"),
                              ("packsell-bf16", "PackSELL BF16", "-.")]:
        g = [m["ks"][key]["gflops"] for m in suit if key in m["ks"]]
        e = [m["ks"][key]["backward_error"] for m in suit if key in m["ks"]]
        if g:
            a1.axhline(statistics.median(g), ls=style, color="gray", label=label)
            a2.axhline(statistics.median(e), ls=style, color="gray", label=label)
    a1.set_xlabel("delta bits D (Y = 22 - D)")
    a1.set_ylabel("median GFLOPS")
    a2.set_xlabel("delta bits D")
    a2.set_ylabel("median backward error")
    a2.set_yscale("log")
    a1.legend(fontsize=8)
    a2.legend(fontsize=8)
    fig.suptitle("E8MY over the SELL-suitable matrices (cf. paper Fig. 9)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig9_e8my.png"), dpi=120)
    plt.close(fig)


def chooser_section(runs, out):
    """chooser.csv and the RESULTS.md lines of the format chooser: per
    precision how often its pick is the fastest candidate, its worst and
    geometric-mean ratio to the fastest candidate, and the fastest cuSPARSE
    kernel (CSR/SELL/COO/BSR, same value width) over the pick per matrix,
    whose minimum over the suite the issue wants >= 0.95."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import chooser_eval as ce
    rows = ce.evaluate(ce.cases(runs), ce.MODELS)
    if not rows:
        return ["## Format chooser", "", "No FP16/FP32 candidates were timed."]
    with open(os.path.join(out, "chooser.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    recorded = sum(1 for r in rows if r["recorded_pick"])
    differ = sum(1 for r in rows if r["recorded_pick"] and r["recorded_pick"] != r["pick"])
    note = (f" {differ} of them differ from the pick the bench recorded: the constants "
            "changed after the run (the picks here are the model's with today's table, "
            "each timed by its own kernel row)." if differ else "")
    lines = ["## Format chooser (psl_choose_format, `--format auto`)", "",
             f"Picks from the constants of src/format/choose.c ({recorded} of {len(rows)} "
             "cases also recorded by the bench as auto-fp16/auto-fp32; the others rebuilt "
             f"from the timed rows).{note} Data: chooser.csv. Refit: "
             "`python3 bench/chooser_eval.py DIR --fit`.", "",
             "| precision | pick is the fastest candidate | pick / fastest candidate: worst, "
             "geomean | fastest cuSPARSE / pick: min (matrix) | matrices below 0.95 |",
             "|---|---|---|---|---|"]
    for prec in ce.PRECISIONS:
        sm = ce.summary(rows, prec)
        if not sm["matrices"]:
            continue
        below = sm["below_target"]
        lines.append(
            f"| {prec} | {sm['fastest']} of {sm['matrices']} | {sm['worst_vs_best']:.3f}, "
            f"{sm['geomean_vs_best']:.3f} | {sm['min_speed_vs_cusparse']:.3f} "
            f"({sm['min_speed_matrix']}) | {len(below)}"
            f"{': ' + ', '.join(below) if below else ''} |")
    lines += ["", "Target (issue 4): fastest cuSPARSE / pick >= 0.95 on every matrix."]
    return lines


def not_won(suit):
    """'; N equal times, M slower (all under T us)' for the SELL-suitable
    matrices where PackSELL FP16 does not beat cuSPARSE SELL FP16."""
    ties = [m for m in suit if m["pack16"] == m["sell16"]]
    slower = [m for m in suit if m["pack16"] > m["sell16"]]
    if not ties and not slower:
        return ""
    worst = max(m["pack16"] for m in ties + slower)
    return (f"; not faster: {len(ties)} equal to the timer's resolution, {len(slower)} slower, "
            f"all at most {worst:.2f} us")


def results_md(runs, mats, out, commit):
    first = next(iter(runs.values()))
    suit = [m for m in mats if sell_suitable(m) and m["pack16"]]
    vs_sell = [m["sell16"] / m["pack16"] for m in suit]
    vs_csr = [m["csr16"] / m["pack16"] for m in suit if m["csr16"]]
    big = [m["sell16"] / m["pack16"] for m in suit if m["nnz"] >= 5_000_000]
    ratios = [m["ks"]["packsell-fp16"]["ratio_sell"] for m in mats if "packsell-fp16" in m["ks"]]
    e8 = [(best_e8my(m), m) for m in suit]
    e8_win = sum(1 for b, m in e8 if b and m["sell32"] and b["median_us"] < m["sell32"])
    pct = lambda a, b: f"{100 * a / b:.0f}%" if b else "n/a"
    lines = [
        "# The paper's Section 5.1 claims beside ours",
        "",
        f"- GPU: {first.get('gpu', '?')}; date of the runs: "
        f"{min(d['date'] for d in runs.values())} to {max(d['date'] for d in runs.values())}",
        f"- Commit: {commit}; {len(runs)} matrices, {len(suit)} SELL-suitable "
        "(cuSPARSE SELL FP16 >= 0.9x cuSPARSE CSR FP16)",
        "- Command: `bash bench/run_suite.sh` (parts), then "
        "`python3 bench/suite_report.py DIR`",
        "",
        "| claim (paper, A100) | ours (H200) |",
        "|---|---|",
        f"| PackSELL beats cuSELL on 201 of 292 SELL-suitable matrices (69%) | "
        f"{sum(v > 1 for v in vs_sell)} of {len(vs_sell)} ({pct(sum(v > 1 for v in vs_sell), len(vs_sell))})"
        f"{not_won(suit)} |",
        f"| max speedup over cuSELL 1.63x | {max(vs_sell, default=float('nan')):.2f}x |",
        f"| around 1.5x on matrices with many nonzeros | geometric mean {geomean(big):.2f}x "
        f"over {len(big)} SELL-suitable matrices with >= 5M nonzeros |",
        f"| beats cuCSR on 274 of 292, max 3.01x | {sum(v > 1 for v in vs_csr)} of {len(vs_csr)}, "
        f"max {max(vs_csr, default=float('nan')):.2f}x |",
        f"| footprint ratio near 0.75 for clustered nonzeros (lower bound 0.667) | median "
        f"{statistics.median(ratios) if ratios else float('nan'):.3f}, min "
        f"{min(ratios, default=float('nan')):.3f}, max {max(ratios, default=float('nan')):.3f} |",
        f"| E8MY with FP32-level accuracy faster than FP16 cuSPARSE | best-D E8MY (error <= 2x "
        f"cuSELL FP32) faster than cuSELL FP32 on {e8_win} of {len(e8)} ({pct(e8_win, len(e8))}) |",
        "",
        "Figures: fig5_gflops_vs_rsd.png, fig7_footprint.png, fig8_speedup.png, fig9_e8my.png; "
        "data: suite.csv.",
        "",
    ] + chooser_section(runs, out)
    with open(os.path.join(out, "RESULTS.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results_dir")
    ap.add_argument("--out", help="output directory (default: results_dir)")
    ap.add_argument("--commit", default="(see the JSON files)")
    ap.add_argument("--publish", help="also write RESULTS.md here, linking into the run")
    args = ap.parse_args()
    out = args.out or args.results_dir
    os.makedirs(out, exist_ok=True)
    runs = load(args.results_dir)
    if not runs:
        sys.exit(f"no bench JSON files in {args.results_dir}")
    mats = per_matrix(runs)
    write_csv(runs, os.path.join(out, "suite.csv"))
    plots(mats, out)
    results_md(runs, mats, out, args.commit)
    if args.publish:
        publish(out, args.publish)
    print(f"{len(runs)} matrices -> {out}/suite.csv, chooser.csv, RESULTS.md, 4 figures")


def publish(out, dest):
    """dest = out/RESULTS.md with its file names as links into out."""
    rel = os.path.relpath(out, os.path.dirname(os.path.abspath(dest)))
    with open(os.path.join(out, "RESULTS.md")) as f:
        text = f.read()
    for name in ("fig5_gflops_vs_rsd.png", "fig7_footprint.png", "fig8_speedup.png",
                 "fig9_e8my.png", "suite.csv", "chooser.csv"):
        text = text.replace(name, f"[{name}]({rel}/{name})")
    head, _, rest = text.partition("\n")
    with open(dest, "w") as f:
        f.write(f"{head}\n\nThe latest whole-suite run, `{rel}/` (its README says what changed "
                f"and how it was run).\n{rest}")


if __name__ == "__main__":
    main()
