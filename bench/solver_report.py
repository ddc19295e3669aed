#!/usr/bin/env python3
"""solver_report.py -- turn the results of bench/solver_bench.py (one or more
folders, e.g. one per device call) into

  solvers.csv            the merged rows, one per solve (the latest of a key)
  speedup.csv            per matrix and m_in: FP64 PCG time and each IO-CG
                         variant's speedup over it, the best E8MY (Table 3)
  fig11_speedup.png      speedup over FP64 PCG of FP32-, FP16-, PackSELL-FP16-
                         and best-E8MY-IO-CG, one panel per m_in, a line per
                         matrix (the paper's Figure 11)
  fig11_per_matrix.png   the same as bars, per matrix
  fig12_history_M.png    relative residual against iterations (inner ones
                         for IO-CG) of PCG, FP32, FP16, PackSELL FP16, E8M14,
                         E8M10 and the best E8MY, a panel per m_in (Figure 12)
  table3_e8my.png        speedup against D for every matrix and m_in
  RESULTS-solvers.md     the paper's Section 5.2.2 claims and the issue's
                         targets beside ours, Table 3, the peers, the run's
                         date, commit, GPU and commands (from its metadata)
  summary.txt            a short table for the end of a device call

Usage: python3 bench/solver_report.py DIR [DIR...] [--out DIR]
                                      [--publish bench/results/RESULTS-solvers.md]
With --publish, RESULTS-solvers.md is also written to that file, its links
pointing into --out. Needs matplotlib for the figures (skipped without it).
"""
import argparse
import csv
import glob
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_md  # noqa: E402  (the sections other reports own)

M_IN = [20, 50, 80]
# The paper's Table 3 (A100): best E8MY per matrix for m_in = 20, 50, 80 (Y).
PAPER_TABLE3 = {
    "Bump_2911": (11, 14, 15), "Emilia_923": (12, 15, 19), "G3_circuit": (14, 13, 17),
    "Queen_4147": (13, 14, 14), "Serena": (13, 12, 11), "apache2": (20, 15, 21),
    "audikw_1": (13, 14, 16), "ecology2": (11, 12, 12), "ldoor": (13, 20, 17),
    "thermal2": (11, 16, 16), "tmt_sym": (10, 10, 20), "HPCG_7_7_7": (10, 11, 14),
    "HPCG_8_7_7": (10, 11, 14), "HPCG_8_8_7": (11, 13, 13), "HPCG_8_8_8": (10, 12, 14),
}
GRID = [("fp32", "FP32-IO-CG"), ("fp16", "FP16-IO-CG"), ("psfp16", "PackSELL-FP16-IO-CG"),
        ("e8best", "E8MY-IO-CG (best)")]
OK = "converged"


def fnum(v):
    try:
        x = float(v)
        return x if math.isfinite(x) else None
    except (TypeError, ValueError):
        return None


def load(dirs):
    """Merged rows (the latest solve of each key wins; a skipped row never
    replaces a run one), the metadata of every part, the SpMV-alone JSONs."""
    rows, metas, spmv, hosts = {}, [], {}, []
    for d in dirs:
        path = os.path.join(d, "solves.csv")
        if not os.path.isfile(path):
            print(f"solver_report: no solves.csv in {d}", file=sys.stderr)
            continue
        with open(path) as f:
            for r in csv.DictReader(f):
                r["_dir"] = d
                # a later solve of a key replaces an earlier one; a skipped
                # row only stands where nothing ran
                if r["key"] not in rows or r["status"] != "skipped":
                    rows[r["key"]] = r
        for m in sorted(glob.glob(os.path.join(d, "meta*.json"))):
            with open(m) as f:
                metas.append(json.load(f))
        for s in glob.glob(os.path.join(d, "spmv_*.json")):
            try:
                with open(s) as f:
                    spmv[os.path.basename(s)[5:-5]] = json.load(f)
            except ValueError:
                pass
        h = os.path.join(d, "host.txt")
        if os.path.isfile(h):
            with open(h) as f:
                hosts.append(f.read())
    return list(rows.values()), metas, spmv, hosts


def by_matrix(rows):
    """{matrix: {(variant, m_in): row}}, matrices in first-seen order."""
    out = {}
    for r in rows:
        m = r["matrix"]
        out.setdefault(m, {})[(r["variant"], r["m_in"] or "")] = r
    return out


def solve_time(r):
    return fnum(r.get("solve_s")) if r and r.get("status") == OK else None


def analyse(rows):
    """Per matrix: PCG row and time, per m_in the grid variants and the best
    E8MY (fastest converged), with the D values tried and skipped."""
    res = {}
    for m, cells in by_matrix(rows).items():
        pcg = cells.get(("pcg", ""))
        t_pcg = solve_time(pcg)
        info = {"pcg": pcg, "t_pcg": t_pcg, "m_in": {}, "nrows": "", "nnz": ""}
        for r in cells.values():
            if r.get("nrows"):
                info["nrows"], info["nnz"] = r["nrows"], r["nnz"]
        for mi in M_IN:
            k = str(mi)
            e = {}
            for v, _ in GRID[:3]:
                e[v] = cells.get((v, k))
            e8 = [r for (v, kk), r in cells.items() if v.startswith("e8m") and kk == k]
            tried = sorted(int(r["d_bits"]) for r in e8 if r["status"] != "skipped" and r.get("d_bits"))
            skipped = sorted(int(r["d_bits"]) for r in e8 if r["status"] == "skipped" and r.get("d_bits"))
            conv = [r for r in e8 if solve_time(r) is not None]
            best = min(conv, key=solve_time) if conv else None
            e.update(e8best=best, e8_all=e8, e8_tried=tried, e8_skipped=skipped)
            if not any(e[v] for v in ("fp32", "fp16", "psfp16")) and not e8:
                continue
            info["m_in"][mi] = e
        res[m] = info
    return res


def speedup(info, r):
    t = solve_time(r)
    if t is None or not info["t_pcg"]:
        return None
    return info["t_pcg"] / t


def is_hpcg(m):
    return m.startswith("HPCG_")


def is_generated(m):
    return m.startswith(("HPCG_", "LAP3D_", "LAP2D_", "HPGMP_"))


# ------------------------------------------------------------------ figures

def figures(res, rows, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("solver_report: matplotlib missing, no figures", file=sys.stderr)
        return []
    made = []
    mats = [m for m in res if res[m]["t_pcg"] and res[m]["m_in"]]
    panels = [mi for mi in M_IN if any(mi in res[m]["m_in"] for m in mats)]
    if mats and panels:
        fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.2), sharey=True,
                                 squeeze=False)
        for ax, mi in zip(axes[0], panels):
            data = []
            for j, (v, name) in enumerate(GRID):
                vals = []
                for m in mats:
                    e = res[m]["m_in"].get(mi)
                    s = speedup(res[m], e[v]) if e else None
                    if s is not None:
                        vals.append(s)
                data.append(vals)
            for m in mats:
                e = res[m]["m_in"].get(mi)
                if not e:
                    continue
                ys = [speedup(res[m], e[v]) for v, _ in GRID]
                xs = [j for j, y in enumerate(ys) if y is not None]
                ax.plot(xs, [ys[j] for j in xs], ":", marker="o", ms=3, lw=0.7, alpha=0.7,
                        color="tab:red" if is_hpcg(m) else "tab:blue")
            bp = ax.boxplot([d if d else [float("nan")] for d in data], positions=range(len(GRID)),
                            widths=0.5, showfliers=False)
            for k in ("boxes", "medians", "whiskers", "caps"):
                for a in bp[k]:
                    a.set_alpha(0.5)
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_xticks(range(len(GRID)))
            ax.set_xticklabels([n.replace(" (best)", "") for _, n in GRID], rotation=30, ha="right",
                               fontsize=8)
            ax.set_title(f"m_in = {mi}")
            ax.grid(axis="y", alpha=0.3)
        axes[0][0].set_ylabel("Speedup over FP64 PCG (SD-AINV)")
        fig.suptitle("IO-CG variants vs FP64 PCG (red: HPCG, blue: others; E8MY: best D)",
                     fontsize=9)
        fig.tight_layout()
        p = os.path.join(out, "fig11_speedup.png")
        fig.savefig(p, dpi=130)
        plt.close(fig)
        made.append(p)

        fig, axes = plt.subplots(len(panels), 1, figsize=(max(6, 0.9 * len(mats) + 2), 2.6 * len(panels)),
                                 sharex=True, sharey=True, squeeze=False)
        w = 0.8 / len(GRID)
        for ax, mi in zip(axes[:, 0], panels):
            for j, (v, name) in enumerate(GRID):
                ys = []
                for m in mats:
                    e = res[m]["m_in"].get(mi)
                    s = speedup(res[m], e[v]) if e else None
                    ys.append(s if s is not None else 0.0)
                ax.bar([i + (j - 1.5) * w for i in range(len(mats))], ys, w, label=name)
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_ylabel(f"m_in = {mi}")
            ax.grid(axis="y", alpha=0.3)
        axes[0][0].legend(fontsize=7, ncol=4, loc="upper left")
        axes[-1][0].set_xticks(range(len(mats)))
        axes[-1][0].set_xticklabels(mats, rotation=40, ha="right", fontsize=8)
        fig.suptitle("Speedup over FP64 PCG per matrix (0: not converged or not run)", fontsize=9)
        fig.tight_layout()
        p = os.path.join(out, "fig11_per_matrix.png")
        fig.savefig(p, dpi=130)
        plt.close(fig)
        made.append(p)

    for m in history_matrices(res):
        p = history_figure(plt, res[m], m, out)
        if p:
            made.append(p)

    e8mats = [m for m in mats if any(res[m]["m_in"][mi]["e8_all"] for mi in res[m]["m_in"])]
    if e8mats:
        n = len(e8mats)
        cols = min(4, n)
        rws = (n + cols - 1) // cols
        fig, axes = plt.subplots(rws, cols, figsize=(3.4 * cols, 2.7 * rws), squeeze=False)
        for i, m in enumerate(e8mats):
            ax = axes[i // cols][i % cols]
            for mi, e in sorted(res[m]["m_in"].items()):
                pts = sorted((int(r["d_bits"]), speedup(res[m], r)) for r in e["e8_all"]
                             if r.get("d_bits") and speedup(res[m], r) is not None)
                if pts:
                    ax.plot([d for d, _ in pts], [s for _, s in pts], marker="o", ms=3,
                            label=f"m_in {mi}")
            ax.axhline(1.0, color="k", lw=0.6)
            ax.set_title(m, fontsize=8)
            ax.set_xlabel("D (E8MY, Y = 22 - D)", fontsize=7)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
        for j in range(n, rws * cols):
            axes[j // cols][j % cols].axis("off")
        axes[0][0].set_ylabel("speedup over FP64 PCG", fontsize=7)
        if axes[0][0].get_legend_handles_labels()[0]:
            axes[0][0].legend(fontsize=6)
        fig.tight_layout()
        p = os.path.join(out, "table3_e8my.png")
        fig.savefig(p, dpi=120)
        plt.close(fig)
        made.append(p)
    return made


def history_matrices(res):
    """HPCG_8_8_8 (or the largest HPCG present) and the real matrix whose
    PCG took the most iterations (the paper shows HPCG_8_8_8 and ldoor)."""
    out = []
    hp = [m for m in res if is_hpcg(m) and res[m]["pcg"]]
    if hp:
        out.append(max(hp, key=lambda m: int(fnum(res[m]["nrows"]) or 0)))
    real = [m for m in res if not is_generated(m) and res[m]["pcg"] and res[m]["m_in"]]
    if real:
        out.append(max(real, key=lambda m: fnum(res[m]["pcg"].get("iterations")) or 0))
    return out


def read_history(r):
    if not r or not r.get("history"):
        return None
    p = os.path.join(r["_dir"], r["history"])
    try:
        with open(p) as f:
            pts = [(int(float(x["iteration"])), float(x["relres"])) for x in csv.DictReader(f)]
    except (OSError, ValueError, KeyError):
        return None
    return pts or None


def inner_per_outer(r, m_in):
    """Inner iterations per outer one (m_in unless an inner solve ended early)."""
    outer = fnum(r.get("iterations")) if r else None
    inner = fnum(r.get("inner_iterations")) if r else None
    return inner / outer if outer and inner else m_in


def history_figure(plt, info, m, out):
    panels = [mi for mi in M_IN if mi in info["m_in"]]
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), sharey=True,
                             squeeze=False)
    pcg = read_history(info["pcg"])
    for ax, mi in zip(axes[0], panels):
        e = info["m_in"][mi]
        lines = [("PCG", pcg, 1)]
        for v, name in GRID[:3]:
            lines.append((name, read_history(e[v]), inner_per_outer(e[v], mi)))
        by_y = {r["variant"]: r for r in e["e8_all"]}
        for y in (14, 10):
            r = by_y.get(f"e8m{y}")
            lines.append((f"E8M{y}-IO-CG", read_history(r), inner_per_outer(r, mi)))
        b = e["e8best"]
        if b and b["variant"] not in ("e8m14", "e8m10"):
            lines.append((f"{b['variant'].upper()}-IO-CG (best)", read_history(b),
                          inner_per_outer(b, mi)))
        styles = ["-", "-", "--", ":", "-.", "--", ":", "-."]
        for k, (name, pts, scale) in enumerate(lines):
            if pts:  # dashes tell apart curves that coincide (FP16 and E8M10 often do)
                ax.semilogy([i * scale for i, _ in pts], [max(r, 1e-16) for _, r in pts],
                            styles[k % len(styles)], label=name, lw=1.2)
        ax.axhline(1e-9, color="k", lw=0.5, ls="--")
        ax.set_title(f"m_in = {mi}")
        ax.set_xlabel("iteration (inner iterations for IO-CG)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("relative residual")
    if axes[0][0].get_legend_handles_labels()[0]:
        axes[0][0].legend(fontsize=7)
    fig.suptitle(f"{m}: residual histories (IO-CG: outer iteration x inner iterations per outer)",
                 fontsize=9)
    fig.tight_layout()
    p = os.path.join(out, f"fig12_history_{m}.png")
    fig.savefig(p, dpi=130)
    plt.close(fig)
    return p


# ------------------------------------------------------------------ tables

def acc_of(info):
    r = info["pcg"]
    return r.get("sdainv_acc") or "-" if r else "-"


def fmt(x, spec=".2f", none="-"):
    return none if x is None else format(x, spec)


def cell(info, r):
    """'1.23x' or the reason there is none."""
    if r is None:
        return "-"
    if r["status"] == "skipped":
        return "skipped"
    s = speedup(info, r)
    if s is None:
        return r["status"] or "?"
    return f"{s:.2f}x"


def write_csvs(rows, res, out):
    keys = [k for k in rows[0].keys() if not k.startswith("_")] if rows else []
    with open(os.path.join(out, "solvers.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for r in sorted(rows, key=lambda r: r["key"]):
            w.writerow(r)
    with open(os.path.join(out, "speedup.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["matrix", "nrows", "nnz", "pcg_iterations", "pcg_solve_s", "m_in",
                    "fp32_speedup", "fp16_speedup", "psfp16_speedup", "e8_best_y",
                    "e8_best_speedup", "e8_best_outer", "e8_best_inner", "e8_d_tried",
                    "e8_d_skipped"])
        for m, info in res.items():
            for mi, e in sorted(info["m_in"].items()):
                b = e["e8best"]
                w.writerow([m, info["nrows"], info["nnz"],
                            info["pcg"]["iterations"] if info["pcg"] else "",
                            info["t_pcg"] or "", mi,
                            *(fmt(speedup(info, e[v]), ".4f", "") for v in ("fp32", "fp16", "psfp16")),
                            (22 - int(b["d_bits"])) if b else "",
                            fmt(speedup(info, b), ".4f", "") if b else "",
                            b["iterations"] if b else "", b["inner_iterations"] if b else "",
                            " ".join(map(str, e["e8_tried"])), " ".join(map(str, e["e8_skipped"]))])


def peers(rows):
    """Rows of the peer comparisons, by matrix."""
    out = {}
    for r in rows:
        if r["variant"] in ("pcg-jacobi", "cupy-cg", "pcg-f3rrule", "f3r-cg64", "f3r16"):
            out.setdefault(r["matrix"], {})[r["variant"]] = r
    return out


def outer_kernel(row, fp64):
    """The SpMV-alone kernel of a solve's outer matrix: --format/--values of
    its command, else psl_solve's default storage on the device (SELL FP64 on
    CUDA since 2329f81, CSR FP64 on the CPU)."""
    cmd = (row.get("command") or "").split()
    fmt = cmd[cmd.index("--format") + 1] if "--format" in cmd[:-1] else None
    vals = cmd[cmd.index("--values") + 1] if "--values" in cmd[:-1] else "fp64"
    if fmt is None:
        fmt = "sell" if row.get("device") == "cuda" else "csr"
    kn = f"{fmt}-{vals}"
    if kn in fp64:
        return kn
    return min(fp64, key=fp64.get) if fp64 else None


def sdainv_build_seconds(row, dirs):
    """The SD-AINV build time `packsell solve` logs when it fills the cache."""
    for d in dirs:
        path = os.path.join(d, "log", row.get("key", "") + ".txt")
        if os.path.isfile(path):
            with open(path) as f:
                for line in f:
                    if "SD-AINV factors built" in line:
                        w = line.split()
                        return fnum(w[w.index("s") - 1]) if "s" in w else None
    return None


def spmv_alone(spmv, label):
    """{kernel: median seconds} of the SpMV-alone bench of a matrix."""
    tag = label.lower()[len("hpcg_"):] if label.startswith("HPCG_") else None
    for k, d in spmv.items():
        if tag and k == "hpcg_" + tag:
            return {x["kernel"]: x["median_us"] * 1e-6 for x in d.get("kernels", [])
                    if x.get("ok") and "median_us" in x}
    return {}


def below_tol(r):
    x, t = fnum(r.get("relres")), fnum(r.get("tol"))
    return "-" if x is None or t is None else ("yes" if x < t else "no")


def verdict(ok):
    return "met" if ok else "missed"


def report(rows, res, metas, spmv, hosts, figs, out, link_prefix="", dirs=()):
    L = []
    L.append("# The paper's Section 5.2.2 (IO-CG with PackSELL E8MY) beside ours")
    L.append("")
    dates = sorted(m.get("date", "") for m in metas if m.get("date"))
    commits = sorted({m.get("commit", "") + (" (dirty)" if m.get("dirty") else "") for m in metas})
    gpus = sorted({m.get("gpu", "") for m in metas if m.get("gpu")})
    L.append(f"- Date of the runs: {dates[0] if dates else '?'} to {dates[-1] if dates else '?'}")
    L.append(f"- Commit: {', '.join(commits) or '?'}; `packsell --version`: "
             f"{', '.join(sorted({m.get('packsell', '') for m in metas})) or '?'}")
    L.append(f"- GPU: {', '.join(gpus) or 'none recorded'}; host CPU: "
             f"{', '.join(sorted({str(m.get('cpu', '')) + ' x' + str(m.get('cpus', '')) for m in metas}))}")
    L.append(f"- Device: {', '.join(sorted({m.get('device', '') for m in metas}))}; "
             f"solves per configuration: {', '.join(sorted({str(m.get('repeat')) for m in metas}))} "
             "(median solve time, setup excluded); tolerance: true relative residual < "
             f"{', '.join(sorted({str(m.get('tol')) for m in metas}))}; SD-AINV (drop tolerance 0.1; "
             "acc 1.0 on generated matrices, on a file the smallest of 1.0..1.6 with which FP64 PCG "
             "converges, column acc below) in every solver; symmetric diagonal scaling on")
    L.append("- Commands:")
    for c in sorted({m.get("run_command") for m in metas if m.get("run_command")}):
        L.append(f"  - device call: `{c}`")
    for m in metas:
        L.append(f"  - part `{m.get('part') or '-'}`: `{m.get('command', '?')}`")
    L.append("  - report: `python3 bench/solver_report.py DIR... --out OUT "
             "--publish bench/results/RESULTS-solvers.md`")
    L.append("")

    mats = [m for m in res if res[m]["m_in"]]
    L.append("## Claims and targets")
    L.append("")
    L.append("| claim (paper, A100) or target (issue 15) | ours |")
    L.append("|---|---|")

    def best_over(info, key):
        vals = [(speedup(info, e[key]), mi, e[key]) for mi, e in info["m_in"].items()
                if speedup(info, e[key]) is not None]
        return max(vals, key=lambda t: t[0]) if vals else None

    h8 = "HPCG_8_8_8" if "HPCG_8_8_8" in res else None
    if h8:
        b = best_over(res[h8], "e8best")
        f32 = best_over(res[h8], "fp32")
        s = (f"{b[0]:.2f}x ({b[2]['variant'].upper()}, m_in {b[1]}): {verdict(b[0] >= 1.9)}"
             if b else "no converged E8MY-IO-CG run")
        L.append(f"| E8MY-IO-CG up to 2.0x over FP64 PCG; target >= 1.9x on HPCG_8_8_8 | {s} |")
        if b and f32:
            r = b[0] / f32[0]
            L.append(f"| target: E8MY-IO-CG >= 1.25x FP32-IO-CG on HPCG_8_8_8 (best of each) | "
                     f"{r:.2f}x (FP32-IO-CG best {f32[0]:.2f}x at m_in {f32[1]}): {verdict(r >= 1.25)} |")
    else:
        L.append("| E8MY-IO-CG up to 2.0x over FP64 PCG (target >= 1.9x on HPCG_8_8_8) | HPCG_8_8_8 not run |")
    allb = [(m, best_over(res[m], "e8best")) for m in mats if res[m]["t_pcg"]]
    if allb:
        best = max((b for _, b in allb if b), key=lambda t: t[0], default=None)
        faster = [m for m, b in allb if b and b[0] > 1.0]
        at80 = [m for m in mats if res[m]["t_pcg"] and 80 in res[m]["m_in"]]
        f80 = [m for m in at80 if (speedup(res[m], res[m]["m_in"][80]["e8best"]) or 0) > 1.0]
        pct = 100.0 * len(faster) / len(allb)
        L.append(f"| E8MY-IO-CG faster than FP64 PCG on 13 of 15 problems, even at m_in = 80; "
                 f"target: on >= 90% of the SPD matrices | {len(faster)} of {len(allb)} ({pct:.0f}%) at "
                 f"the best m_in: {verdict(pct >= 90)}; at m_in = 80: {len(f80)} of {len(at80)}; "
                 f"max {best[0]:.2f}x ({[m for m, b in allb if b is best][0]}) |" if best else
                 "| E8MY-IO-CG faster than FP64 PCG | no converged run |")
        slower = [m for m, b in allb if not b or b[0] <= 1.0]
        if slower:
            L.append(f"| (not faster than FP64 PCG) | {', '.join(slower)} |")
    f32s = [speedup(res[m], e["fp32"]) for m in mats for e in res[m]["m_in"].values()]
    f32s = [s for s in f32s if s is not None]
    if f32s:
        L.append(f"| FP32-IO-CG around 1.3x over PCG (ideal about 1.5x) | median {statistics.median(f32s):.2f}x, "
                 f"max {max(f32s):.2f}x over {len(f32s)} (matrix, m_in) |")
    pairs = [(speedup(res[m], e["fp16"]), speedup(res[m], e["fp32"]), e) for m in mats
             for e in res[m]["m_in"].values()]
    pairs = [p for p in pairs if p[1] is not None]
    if pairs:
        worse = sum(1 for a, b, _ in pairs if a is None or a <= b)
        L.append(f"| FP16-IO-CG similar to or slower than FP32-IO-CG (more iterations) | FP16 not faster "
                 f"than FP32 in {worse} of {len(pairs)} (matrix, m_in), not converged counted as not faster |")
    ratios = []
    for m in mats:
        for e in res[m]["m_in"].values():
            r10 = next((r for r in e["e8_all"] if r["variant"] == "e8m10" and r["status"] == OK), None)
            r16 = e["fp16"] if e["fp16"] and e["fp16"]["status"] == OK else None
            if r10 and r16 and fnum(r16["inner_iterations"]):
                ratios.append(fnum(r10["inner_iterations"]) / fnum(r16["inner_iterations"]))
    if ratios:
        L.append(f"| E8M10 converges like FP16 | inner iterations E8M10 / FP16 SELL: median "
                 f"{statistics.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f} "
                 f"over {len(ratios)} |")
    ys = {mi: [22 - int(res[m]["m_in"][mi]["e8best"]["d_bits"]) for m in mats
               if mi in res[m]["m_in"] and res[m]["m_in"][mi]["e8best"]] for mi in M_IN}
    if any(ys.values()):
        L.append("| the best format needs more mantissa bits as m_in grows (Table 3) | median best Y: "
                 + ", ".join(f"m_in {mi}: {statistics.median(v):g}" for mi, v in ys.items() if v) + " |")

    pr = peers(rows)
    for m in ("HPCG_7_7_7", "HPCG_8_8_8"):
        p = pr.get(m, {})
        a, c = p.get("pcg-jacobi"), p.get("cupy-cg")
        if a and c and solve_time(a) and solve_time(c):
            r = solve_time(c) / solve_time(a)
            di = abs(int(float(a["iterations"])) - int(float(c["iterations"])))
            L.append(f"| target: our FP64 PCG + Jacobi >= 1.6x CuPy cg + Jacobi (CSR FP64), iterations "
                     f"±1, {m} | {r:.2f}x ({fmt(solve_time(a), '.4f')} s, {a['iterations']} it vs "
                     f"{fmt(solve_time(c), '.4f')} s, {c['iterations']} it): "
                     f"{verdict(r >= 1.6 and di <= 1)} |")
        elif a or c:
            L.append(f"| target: FP64 PCG + Jacobi vs CuPy, {m} | incomplete: ours "
                     f"{a['status'] if a else 'not run'}, CuPy {c['status'] if c else 'not run'} |")
    p = pr.get("HPCG_7_7_7", {})
    a, f = p.get("pcg-f3rrule"), p.get("f3r-cg64")
    if a and f and solve_time(a) and solve_time(f):
        r = solve_time(f) / solve_time(a)
        L.append(f"| target: our FP64 PCG + SD-AINV >= 1.3x the reference's CG + SD-AINV, HPCG_7_7_7, "
                 f"its stopping rule (1e-8) | {r:.2f}x ({fmt(solve_time(a), '.4f')} s, {a['iterations']} it "
                 f"vs {fmt(solve_time(f), '.4f')} s, {f['iterations']} it): {verdict(r >= 1.3)} |")
    for m in ("HPCG_7_7_7", "HPCG_8_8_8"):
        a = pr.get(m, {}).get("pcg-jacobi")
        k = spmv_alone(spmv, m)
        tpi = fnum(a.get("time_per_iteration_s")) if a else None
        if tpi and k:
            fp64 = {n: t for n, t in k.items() if n.endswith("fp64")}
            kn = outer_kernel(a, fp64)
            if kn:
                kt = fp64[kn]
                L.append(f"| target: FP64 PCG (Jacobi) time per iteration <= 1.15x its SpMV alone, {m} | "
                         f"{tpi / kt:.2f}x ({tpi * 1e6:.1f} us per iteration vs {kn} alone {kt * 1e6:.1f} us; "
                         + ", ".join(f"{n} {t * 1e6:.1f} us" for n, t in sorted(fp64.items()) if n != kn)
                         + f"): {verdict(tpi / kt <= 1.15)} |")
    if h8 and res[h8]["pcg"] and fnum(res[h8]["pcg"].get("setup_precond_s")) is not None:
        built = sdainv_build_seconds(res[h8]["pcg"], dirs)
        L.append(f"| SD-AINV build, HPCG_8_8_8, {metas[0].get('cpus', '?') if metas else '?'}-core host: "
                 f"reported | {'%.2f s to build and save the factors, ' % built if built else ''}"
                 f"{fnum(res[h8]['pcg']['setup_precond_s']):.2f} s to make the operator (setup: scale "
                 f"{fmt(fnum(res[h8]['pcg'].get('setup_scale_s')))} s, convert "
                 f"{fmt(fnum(res[h8]['pcg'].get('setup_convert_s')))} s, upload "
                 f"{fmt(fnum(res[h8]['pcg'].get('setup_upload_s')))} s) |")
    L.append("")

    if figs:
        L.append("Figures: " + ", ".join(f"[{os.path.basename(p)}]({link_prefix}{os.path.basename(p)})"
                                         for p in figs) + f"; data: [speedup.csv]({link_prefix}speedup.csv), "
                 f"[solvers.csv]({link_prefix}solvers.csv).")
        L.append("")

    L.append("## Speedup over FP64 PCG (Figure 11's data)")
    L.append("")
    L.append("SD-AINV in every solver; E8MY: the fastest converged D of those run (Table 3 below). "
             "`skipped`: the call's time ran out; a status: the solve did not converge. The paper's "
             "FP64-IO-CG has no counterpart here: the inner PCG of `packsell solve --method iocg` is "
             "FP32 (psl_solve), as in the paper's three mixed-precision variants.")
    L.append("")
    L.append("| matrix | rows | nnz | acc | PCG it | PCG s | m_in | FP32 | FP16 | PackSELL FP16 | best E8MY |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for m in res:
        info = res[m]
        pcg = info["pcg"]
        for mi, e in sorted(info["m_in"].items()):
            b = e["e8best"]
            bs = (f"{cell(info, b)} ({b['variant'].upper()})" if b else
                  ("skipped" if e["e8_skipped"] and not e["e8_tried"] else "none converged"))
            L.append(f"| {m} | {info['nrows']} | {info['nnz']} | {acc_of(info)} | "
                     f"{pcg['iterations'] if pcg else '-'} | "
                     f"{fmt(info['t_pcg'], '.4f')} | {mi} | {cell(info, e['fp32'])} | {cell(info, e['fp16'])} | "
                     f"{cell(info, e['psfp16'])} | {bs} |")
        if not info["m_in"]:
            L.append(f"| {m} | {info['nrows']} | {info['nnz']} | {acc_of(info)} | "
                     f"{pcg['iterations'] if pcg else '-'} | {fmt(info['t_pcg'], '.4f')} | - | - | - | - | - |")
    L.append("")

    L.append("## Table 3: the best E8MY per matrix and m_in")
    L.append("")
    L.append("Ours: the fastest converged E8MY (speedup over FP64 PCG), with the D values run when "
             "not all 12 were. Paper: the A100 Table 3 where the matrix is the paper's.")
    L.append("")
    L.append("| matrix | " + " | ".join(f"m_in = {mi} (ours) | paper" for mi in M_IN) + " |")
    L.append("|---|" + "---|---|" * len(M_IN))
    for m in res:
        info = res[m]
        if not info["m_in"]:
            continue
        cells = []
        for i, mi in enumerate(M_IN):
            e = info["m_in"].get(mi)
            if not e:
                cells += ["-", "-"]
                continue
            b = e["e8best"]
            c = f"E8M{22 - int(b['d_bits'])} ({cell(info, b)})" if b else "none converged"
            if len(e["e8_tried"]) < 12:
                c += f"; D run: {','.join(map(str, e['e8_tried'])) or 'none'}"
            paper = PAPER_TABLE3.get(m)
            cells += [c, f"E8M{paper[i]}" if paper else ""]
        L.append(f"| {m} | " + " | ".join(cells) + " |")
    L.append("")

    if pr:
        L.append("## Peers")
        L.append("")
        L.append("CuPy: `cupyx.scipy.sparse.linalg.cg`, CSR FP64 (cuSPARSE), Jacobi as a LinearOperator, "
                 "x0 = 0, the same b as ours (read from the same file), stopping when its recursive "
                 "residual is below tol·||b|| (bench/cupy_cg.py); ours against it: PCG + Jacobi on the "
                 "same unscaled system. The reference (suzuki-hpc/F3R v1.0.2, prebuilt): its own b, "
                 "scaling and estimated-residual stop at 1e-8, time the mean of its solves; ours against "
                 "it: PCG + SD-AINV to 1e-8" + (" with the recursive stop" if any(
                     "recursive" in (r.get("command") or "") for r in rows) else
                     " (true residual: the command had no recursive-stop option)") + ".")
        L.append("")
        L.append("The issue's anchors, from ../shared/peers/f3r/README.md (H200, 2026-12-01): CuPy cg "
                 "285 iterations, 0.131 s on HPCG_7_7_7; the reference's CG + SD-AINV 256 iterations, "
                 "0.085 s; FP16-F3R (8,4,2,64) 512 iterations, 0.125 s.")
        L.append("")
        L.append("| matrix | solver | status | iterations | solve s | s per iteration | true relres | below tol |")
        L.append("|---|---|---|---|---|---|---|---|")
        names = {"pcg-jacobi": "ours: FP64 PCG + Jacobi", "cupy-cg": "CuPy cg + Jacobi",
                 "pcg-f3rrule": "ours: FP64 PCG + SD-AINV (1e-8)", "f3r-cg64": "reference CG + SD-AINV",
                 "f3r16": "reference FP16-F3R (8,4,2,64)"}
        for m, p in pr.items():
            for v in names:
                r = p.get(v)
                if r:
                    L.append(f"| {m} | {names[v]} | {r['status']} | {r['iterations'] or '-'} | "
                             f"{fmt(fnum(r['solve_s']), '.4f')} | {fmt(fnum(r['time_per_iteration_s']), '.2e')} | "
                             f"{fmt(fnum(r['relres']), '.2e')} | {below_tol(r)} |")
        L.append("")

    skipped = [r for r in rows if r["status"] == "skipped"]
    bad = [r for r in rows if r["status"] not in (OK, "skipped")]
    L.append("## What did not run or converge")
    L.append("")
    if skipped:
        per = {}
        for r in skipped:
            per.setdefault(r["matrix"], []).append(r)
        L.append(f"{len(skipped)} solves skipped (time budget of the call): " + "; ".join(
            f"{m}: {len(v)}" for m, v in per.items()) + ". `SOLVER_ARGS` and `SOLVER_RESUME_FROM` of "
            "bench/run_device_solver_bench.sh run them in a later call.")
    else:
        L.append("No solve was skipped.")
    L.append("")
    if bad:
        L.append("| solve | status | outer it | inner it | relres | note |")
        L.append("|---|---|---|---|---|---|")
        for r in sorted(bad, key=lambda r: r["key"]):
            L.append(f"| {r['key']} | {r['status']} | {r['iterations'] or '-'} | {r['inner_iterations'] or '-'} | "
                     f"{fmt(fnum(r['relres']), '.2e')} | {(r.get('note') or '')[:120]} |")
    else:
        L.append("Every solve that ran converged.")
    L.append("")
    return "\n".join(L) + "\n"


def summary(rows, res):
    L = [f"{'matrix':14s} {'PCG it':>6s} {'PCG s':>8s} {'m_in':>4s} {'FP32':>6s} {'FP16':>6s} "
         f"{'PS16':>6s} {'E8best':>7s} {'Y':>3s}  skipped"]
    for m, info in res.items():
        pcg = info["pcg"]
        for mi, e in sorted(info["m_in"].items()):
            b = e["e8best"]
            s = [speedup(info, e[v]) for v in ("fp32", "fp16", "psfp16")]
            L.append(f"{m:14s} {(pcg['iterations'] if pcg else '-'):>6s} {fmt(info['t_pcg'], '.4f'):>8s} "
                     f"{mi:4d} " + " ".join(f"{fmt(x):>6s}" for x in s) +
                     f" {fmt(speedup(info, b) if b else None):>7s} "
                     f"{(str(22 - int(b['d_bits'])) if b else '-'):>3s}  "
                     f"{len(e['e8_skipped'])}")
    for m, p in peers(rows).items():
        for v, r in p.items():
            L.append(f"{m:14s} {v:12s} {r['status']:10s} it={r['iterations'] or '-':>6s} "
                     f"solve={fmt(fnum(r['solve_s']), '.4f')} s relres={fmt(fnum(r['relres']), '.1e')}")
    n_skip = sum(1 for r in rows if r["status"] == "skipped")
    n_bad = sum(1 for r in rows if r["status"] not in (OK, "skipped"))
    L.append(f"{len(rows)} rows: {len(rows) - n_skip - n_bad} converged, {n_bad} not converged or "
             f"failed, {n_skip} skipped (speedups over FP64 PCG; '-': none)")
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description="solver benchmark report (see the module text)")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--publish")
    args = ap.parse_args()
    out = args.out or args.dirs[0]
    os.makedirs(out, exist_ok=True)
    rows, metas, spmv, hosts = load(args.dirs)
    if not rows:
        sys.exit("solver_report: no rows")
    res = analyse(rows)
    write_csvs(rows, res, out)
    figs = figures(res, rows, out)
    with open(os.path.join(out, "RESULTS-solvers.md"), "w") as f:
        f.write(report(rows, res, metas, spmv, hosts, figs, out, dirs=args.dirs))
    if args.publish:
        prefix = os.path.relpath(out, os.path.dirname(os.path.abspath(args.publish))) + "/"
        # the sections other reports own (results_md.py) stay
        kept = results_md.sections(args.publish)
        with open(args.publish, "w") as f:
            f.write(report(rows, res, metas, spmv, hosts, figs, out, prefix, dirs=args.dirs))
            f.write("".join("\n" + k for k in kept))
    s = summary(rows, res)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(s)
    print(s, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
