#!/usr/bin/env python3
"""solver_graph_report.py -- the table of run_device_solver_bench.sh's `graph`
part: FP64 PCG + SD-AINV and IO-CG (PackSELL E8MY inside) with their CG
work replayed from CUDA graphs (PSL_SOLVER_GRAPH=1: IO-CG's inner iterations,
PCG's steps) and launched kernel by kernel (0), per matrix.

Reads DIR/TAG_pcg_gG.json (or TAG_pcg.json, one PCG for both) and
DIR/TAG_e8mY_mM_gG.json (`packsell solve --json`,
--repeat 5 after one setup: solve_s is the median, solve_s_max the slowest
solve: the first, which pays the process's first launches of each kernel and,
for G = 1, the capture of the graph).
Writes DIR/graph.csv (one row per solve command; a folder holding only
graph.csv is read from it) and prints, per matrix, the
fastest converged E8MY-IO-CG with and without the graph as a speedup over
PCG (median solves; "first": first solves against PCG's first), the count of
matrices where it beats PCG, and what the capture adds to a first solve.

Usage: python3 bench/solver_graph_report.py DIR
"""
import csv
import glob
import json
import os
import re
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    rows = []
    for path in sorted(glob.glob(os.path.join(root, "*.json"))):
        name = os.path.basename(path)[:-5]
        m = re.match(r"(.+)_(pcg(?:_g([01]))?|e8m(\d+)_m(\d+)_g([01]))$", name)
        d = load(path)
        if not m or d is None:
            continue
        pcg = m.group(2).startswith("pcg")
        rows.append(dict(
            matrix=m.group(1), solver="pcg" if pcg else "e8-iocg",
            y=m.group(4) or "", m_in=m.group(5) or "", graph=(m.group(3) if pcg else m.group(6)) or "",
            status=d.get("status", "?"), nrows=d.get("nrows", ""), nnz=d.get("nnz", ""),
            iterations=d.get("iterations", ""), inner_iterations=d.get("inner_iterations", ""),
            relres=d.get("relres", ""), solve_s=d.get("solve_s", ""),
            solve_s_min=d.get("solve_s_min", ""), solve_s_max=d.get("solve_s_max", "")))
    table = os.path.join(root, "graph.csv")
    if rows:
        with open(table, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    elif os.path.isfile(table):  # a results folder keeps the table, not the JSON
        with open(table) as f:
            rows = list(csv.DictReader(f))
        for r in rows:
            for k in ("solve_s", "solve_s_min", "solve_s_max"):
                r[k] = float(r[k]) if r[k] else ""
    if not rows:
        sys.exit(f"solver_graph_report: no solves in {root}")

    def conv(r):
        return r["status"] == "converged" and isinstance(r["solve_s"], (int, float))

    matrices = sorted({r["matrix"] for r in rows},
                      key=lambda t: min(int(r["nnz"] or 0) for r in rows if r["matrix"] == t))

    def pcg_of(t, g):  # PCG with graphs g; a folder without the pair has one PCG for both
        c = [r for r in rows if r["matrix"] == t and r["solver"] == "pcg" and r["graph"] in (g, "")]
        return c[0] if c else None

    print(f"{'matrix':14s} {'rows':>9s} {'PCG it':>6s} {'PCG ms g1':>9s} {'g0':>7s} | "
          f"{'best IO-CG, graphs':>22s} {'first':>6s} | {'best IO-CG, none':>22s} | "
          f"{'us/inner g1':>11s} {'g0':>6s}")
    wins = {"1": 0, "0": 0, "first": 0}
    counted = 0
    for t in matrices:
        pcg = {g: pcg_of(t, g) for g in ("1", "0")}
        if not all(p and conv(p) for p in pcg.values()):
            print(f"{t:14s} PCG did not converge or did not run")
            continue
        counted += 1
        best = {}
        for g in ("1", "0"):
            cand = [r for r in rows if r["matrix"] == t and r["solver"] != "pcg"
                    and r["graph"] == g and conv(r)]
            best[g] = min(cand, key=lambda r: r["solve_s"]) if cand else None
        cells = []
        for g in ("1", "0"):
            b = best[g]
            if b:
                sp = pcg[g]["solve_s"] / b["solve_s"]
                wins[g] += sp > 1.0
                cells.append(f"{sp:5.2f}x E8M{b['y']} m{b['m_in']:>2s} {1e3 * b['solve_s']:7.2f}")
            else:
                cells.append(f"{'none converged':>22s}")
        first = ""
        if best["1"]:  # first solves against first solves: both pay the process's first launches
            sp_first = pcg["1"]["solve_s_max"] / best["1"]["solve_s_max"]
            wins["first"] += sp_first > 1.0
            first = f"{sp_first:5.2f}x"
        per = []
        for g in ("1", "0"):
            b = best["1"]
            same = next((r for r in rows if b and r["matrix"] == t and r["solver"] != "pcg"
                         and r["graph"] == g and r["y"] == b["y"] and r["m_in"] == b["m_in"]
                         and conv(r)), None)
            inner = same and int(same["inner_iterations"] or 0)
            per.append(f"{1e6 * same['solve_s'] / inner:6.1f}" if inner else f"{'-':>6s}")
        p1, p0 = pcg["1"], pcg["0"]
        print(f"{t:14s} {p1['nrows']:>9} {p1['iterations']:>6} {1e3 * p1['solve_s']:9.2f} "
              f"{1e3 * p0['solve_s']:7.2f} | {cells[0]} {first:>6s} | {cells[1]} | "
              f"{per[0]:>11s} {per[1]}")
    print(f"E8MY-IO-CG faster than FP64 PCG (best Y and m_in, median solves): with graphs on "
          f"both sides {wins['1']} of {counted}, without {wins['0']} of {counted}; with graphs, "
          f"first solves against PCG's first (captures included): {wins['first']} of {counted}")
    gains = []
    for t in matrices:
        p1, p0 = pcg_of(t, "1"), pcg_of(t, "0")
        if p1 and p0 and p1 is not p0 and conv(p1) and conv(p0) and int(p1["iterations"] or 0):
            gains.append((t, 1e6 * p1["solve_s"] / int(p1["iterations"]),
                          1e6 * p0["solve_s"] / int(p0["iterations"])))
    if gains:
        print("FP64 PCG us per iteration, graphs / none: " +
              ", ".join(f"{t} {a:.1f} / {b:.1f}" for t, a, b in gains))
    extra = []
    for r in rows:
        if r["graph"] == "1" and conv(r):
            o = next((q for q in rows if q["matrix"] == r["matrix"] and q["graph"] == "0"
                      and q["solver"] == r["solver"] and q["y"] == r["y"]
                      and q["m_in"] == r["m_in"] and conv(q)), None)
            if o:  # the first solve's excess over the median, with graphs less without
                extra.append(1e3 * ((r["solve_s_max"] - r["solve_s"])
                                    - (o["solve_s_max"] - o["solve_s"])))
    if extra:
        extra.sort()
        print(f"first solve's excess over the median, with graphs less without (the captures): median "
              f"{extra[len(extra) // 2]:.2f} ms, range {extra[0]:.2f} to {extra[-1]:.2f} ms "
              f"over {len(extra)} pairs")


if __name__ == "__main__":
    main()
