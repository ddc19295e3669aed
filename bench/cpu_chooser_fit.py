#!/usr/bin/env python3
"""cpu_chooser_fit.py -- fit and check the CPU chooser (psl_choose_format_cpu,
src/format/choose_cpu.c) on `packsell bench --device cpu` runs.

Each DIR holds, per matrix M: M.json (`packsell bench M --device cpu --json`, the
candidates' kernels among its kernels) and M.choose.json (`packsell choose M
--device cpu --json`: every candidate's layout: bytes, vector bytes, slice
widths, model class); optionally M.gpu.json (`packsell choose M --json`, the
GPU model's picks, for comparison).

The model of a candidate of class k (choose_cpu.c):
    t = launch + max(bytes / (eff * BW * (S if bytes <= llc / 2 else 1)),
                     (words * ns_word + rows * ns_row) / 1000 / threads)
with BW the read bandwidth measured in the bench's own rounds, words the
stored entries (slices: sum_width x C; CSR: nnz). --fit searches a grid for
each class's (launch, eff, ns_word, ns_row) and the shared S: least squares
on log time with each matrix's mean error taken out (the ratios between
one matrix's kernels decide the pick; a shared machine's load moves whole
runs), by coordinate descent over the classes, and prints the C table; without --fit the table of the library
(parsed from choose_cpu.c) is evaluated. Either way it prints, per matrix
and precision, the pick against the fastest measured candidate (target of
issue 17: >= 0.95 on every matrix), and the GPU model's pick beside it.

--regret fits the picks themselves: the sum over (matrix, precision) of
log(pick's time / the fastest's), the centered error breaking ties.

Several DIRs (a host each) fit one table; their matrices are DIR/M.

Usage: python3 bench/cpu_chooser_fit.py DIR... [--fit [--regret]] [--holdout M,M...]
"""
import glob
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src", "format", "choose_cpu.c")


def load(folders):
    """Data points (one per matrix and candidate kernel timed) and the
    candidate lists per matrix and precision; with several folders each
    matrix is named FOLDER/M (a host each)."""
    points, choices = [], {}
    paths = []
    for folder in folders:
        tag = os.path.basename(os.path.normpath(folder)) + "/" if len(folders) > 1 else ""
        paths += [(p, tag) for p in sorted(glob.glob(os.path.join(folder, "*.json")))]
    for bpath, tag in paths:
        folder = os.path.dirname(bpath)
        name = os.path.basename(bpath)[:-5]
        if name.endswith(".choose") or name.endswith(".gpu"):
            continue
        cpath = os.path.join(folder, name + ".choose.json")
        if not os.path.isfile(cpath):
            continue
        with open(bpath) as f:
            bench = json.load(f)
        with open(cpath) as f:
            ch = json.load(f)
        gpu = None
        gpath = os.path.join(folder, name + ".gpu.json")
        if os.path.isfile(gpath):
            with open(gpath) as f:
                gpu = {c["precision"]: c["pick_kernel"] for c in json.load(f)["choices"]}
        times = {k["kernel"]: k["median_us"] for k in bench["kernels"] if k.get("ok")}
        name = tag + name
        bw, threads = bench["read_bw_gbs"], bench["threads"]
        seen = set()
        for c in ch["choices"]:
            llc = c["cpu_model"]["llc_bytes"]
            cands = []
            for k in c["candidates"]:
                words = k["sum_width"] * c["C"] if k["sum_width"] else ch["nnz"]
                pt = dict(matrix=name, kernel=k["kernel"], model=k["model"],
                          bytes=k["bytes"] + k["vector_bytes"], words=words, rows=ch["rows"],
                          bw=bw, threads=threads, llc=llc, t=times.get(k["kernel"]))
                cands.append(pt)
                if pt["t"] is not None and k["kernel"] not in seen:
                    seen.add(k["kernel"])
                    points.append(pt)
            choices[(name, c["precision"])] = (cands, gpu.get(c["precision"]) if gpu else None)
    return points, choices


def predict(p, row, s):
    launch, eff, ns_word, ns_row = row
    cache = s if p["bytes"] <= 0.5 * p["llc"] else 1.0
    bw_us = p["bytes"] / (eff * p["bw"] * 1e3 * cache)
    cpu_us = (p["words"] * ns_word + p["rows"] * ns_row) * 1e-3 / p["threads"]
    return launch + max(bw_us, cpu_us)


def centered_sse(points, rows, s):
    """Squared log errors with each matrix's mean log error taken out: the
    ratios between one matrix's kernels (what the pick needs), not the
    load of the machine when that matrix ran."""
    by = {}
    for p in points:
        by.setdefault(p["matrix"], []).append(math.log(predict(p, rows[p["model"]], s)) -
                                              math.log(p["t"]))
    total = 0.0
    for errs in by.values():
        mean = sum(errs) / len(errs)
        total += sum((e - mean) ** 2 for e in errs)
    return total


def regret(choices, rows, s, keep):
    """Sum over the (matrix, precision) decisions of log(pick's time /
    fastest time), plus the centered error / 100 to break ties: what the
    chooser loses by its picks."""
    total = 0.0
    for (m, _), (cands, _) in choices.items():
        if m not in keep or any(c["t"] is None for c in cands) or len(cands) < 2:
            continue
        pick = min(cands, key=lambda c: predict(c, rows[c["model"]], s))
        total += math.log(pick["t"] / min(c["t"] for c in cands))
    return total


def frange(a, b, step):
    n = int(round((b - a) / step))
    return [a + i * step for i in range(n + 1)]


GRID = [(launch, eff, ns_word, ns_row) for launch in (2.0, 10.0, 20.0)
        for eff in frange(0.4, 1.6, 0.1) for ns_word in frange(0.1, 3.0, 0.1)
        for ns_row in (0.0, 5.0)]


def fit_all(points, classes, start, s, choices=None, sweeps=3):
    """Coordinate descent over the classes: each class's row the best of
    GRID with the others fixed, on the centered error, or (choices given)
    on the picks' regret with the centered error / 100 breaking ties."""
    rows = dict(start)
    keep = {p["matrix"] for p in points}

    def cost(pts):
        e = centered_sse(pts, rows, s)
        return e if choices is None else regret(choices, rows, s, keep) + e / 100

    for _ in range(sweeps):
        for k in classes:
            mats = {p["matrix"] for p in points if p["model"] == k}
            pts = [p for p in points if p["matrix"] in mats]
            best = None
            for row in GRID:
                rows[k] = row
                e = cost(pts)
                if best is None or e < best[0]:
                    best = (e, row)
            rows[k] = best[1]
    return cost(points), rows


def library_table():
    """The rows and llc_speedup of choose_cpu.c."""
    with open(SRC) as f:
        text = f.read()
    rows = {m.group(1): tuple(float(m.group(i)) for i in range(2, 6))
            for m in re.finditer(r'\{"(\w+)", ([\d.]+), ([\d.]+), ([\d.]+), ([\d.]+)\}', text)}
    s = float(re.search(r"llc_speedup = ([\d.]+);", text).group(1))
    return rows, s


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folders = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--holdout" in sys.argv:
        folders.remove(sys.argv[sys.argv.index("--holdout") + 1])
    holdout = set()
    if "--holdout" in sys.argv:
        holdout = set(sys.argv[sys.argv.index("--holdout") + 1].split(","))
    points, choices = load(folders)
    fitted = [p for p in points if p["matrix"] not in holdout]
    classes = sorted({p["model"] for p in points})
    if "--fit" in sys.argv:
        lib_rows, _ = library_table()
        best = None
        by_regret = "--regret" in sys.argv
        for s in (1.0, 2.0, 3.0):
            total, rows = fit_all(fitted, classes, lib_rows, s, choices if by_regret else None)
            if best is None or total < best[0]:
                best = (total, rows, s)
        _, rows, s = best
        for k in lib_rows:  # classes without points keep the library's row
            rows.setdefault(k, lib_rows[k])
        print(f"/* fitted on {len(fitted)} points of {len({p['matrix'] for p in fitted})} "
              f"matrices; llc_speedup {s} */")
        for k in [k for k in lib_rows]:
            r = rows[k]
            print(f'    {{"{k}", {r[0]:.2f}, {r[1]:.3f}, {r[2]:.3f}, {r[3]:.2f}}},')
    else:
        rows, s = library_table()
    print("\nmodel / measured time per class (median, range):")
    for k in classes:
        q = sorted(predict(p, rows[k], s) / p["t"] for p in points if p["model"] == k)
        if q:
            print(f"  {k:12s} {q[len(q) // 2]:.2f} ({q[0]:.2f}-{q[-1]:.2f}) over {len(q)}")
    print("\n| matrix | precision | CPU pick | fastest | fastest / pick | GPU model's pick | "
          "fastest / its pick |")
    print("|---|---|---|---|---|---|---|")
    worst, n, ok, gpu_ok, gpu_n = 9.0, 0, 0, 0, 0
    for (m, prec), (cands, gpu_pick) in sorted(choices.items()):
        timed = [c for c in cands if c["t"] is not None]
        if len(timed) < 2 or len(timed) < len(cands):
            continue  # a candidate not timed (BF16 ones): no verdict
        pick = min(cands, key=lambda c: predict(c, rows[c["model"]], s))
        fast = min(timed, key=lambda c: c["t"])
        r = fast["t"] / pick["t"]
        worst = min(worst, r)
        n += 1
        ok += r >= 0.95
        gcell = gr = "-"
        g = next((c for c in cands if c["kernel"] == gpu_pick), None)
        if g:
            gr_v = fast["t"] / g["t"]
            gpu_n += 1
            gpu_ok += gr_v >= 0.95
            gcell, gr = g["kernel"], f"{gr_v:.3f}"
        tag = " (held out)" if m in holdout else ""
        print(f"| {m}{tag} | {prec} | {pick['kernel']} | {fast['kernel']} | {r:.3f} | "
              f"{gcell} | {gr} |")
    print(f"\nCPU pick within 0.95 of the fastest candidate: {ok} of {n} (worst {worst:.3f}); "
          f"the GPU model's pick: {gpu_ok} of {gpu_n}")


if __name__ == "__main__":
    main()
