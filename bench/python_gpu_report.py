#!/usr/bin/env python3
"""python_gpu_report.py -- the Python package's GPU figures (issue 20's
targets) from a log of python/run_gpu_tests.sh: A @ x on CuPy arrays against
the same kernel in `packsell bench`, packsell.linalg.cg against
cupyx.scipy.sparse.linalg.cg, and the test summary, into results.csv and a
targets table printed as markdown.

  python3 bench/python_gpu_report.py LOG [--csv OUT.csv]
"""
import argparse
import csv
import re
import sys


def parse(text):
    apx = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in re.finditer(
        r"A @ x  (\S+) \(\S+ x\):\s+([\d.]+) us per call \(events, out=\),\s+([\d.]+) us", text)}
    bench = {m.group(1): float(m.group(2)) for m in re.finditer(
        r"^(\S+)\s+\S+\s+\S+\s+psl_dspmv\s+\d+\s+([\d.]+)", text, re.M)}
    cg = re.search(r"packsell.linalg.cg: (\w+), (\d+) iterations, solve ([\d.]+) s.*?setup ([\d.]+) s, "
                   r"whole call ([\d.]+) s.*?relres ([\d.e+-]+)", text)
    cx = re.search(r"cupyx cg \(CSR FP64\): info (-?\d+), ([\d.]+) s.*?relres ([\d.e+-]+)", text)
    tests = re.search(r"^(\d+) passed(?:, (\d+) failed)?(?:, (\d+) skipped)?", text, re.M)
    return apx, bench, cg, cx, tests


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--csv")
    a = ap.parse_args()
    apx, bench, cg, cx, tests = parse(open(a.log).read())
    rows = []
    print("| case | target | measured | |\n|---|---|---|---|")
    for k, (ev, wall) in apx.items():
        b = bench.get(k)
        if b is None:
            continue
        ok = ev <= max(1.05 * b, b + 5.0)
        rows.append(dict(case=f"A@x {k}", ours_us=ev, ours_wall_us=wall, peer="packsell bench",
                         peer_us=b, ratio=b / ev))
        print(f"| `A @ x` {k}, HPCG_7_7_7, vs `packsell bench` | <= 5% or 5 us more | "
              f"{ev:.1f} us (events; {wall:.1f} us host clock) vs {b:.2f} us median | "
              f"{'met' if ok else 'missed'} |")
    if cg and cx:
        sp = float(cx.group(2)) / float(cg.group(3))
        rows.append(dict(case="cg HPCG_7_7_7 1e-9", ours_us=float(cg.group(3)) * 1e6,
                         ours_wall_us=float(cg.group(5)) * 1e6, peer="cupyx cg CSR FP64",
                         peer_us=float(cx.group(2)) * 1e6, ratio=sp))
        print(f"| `packsell.linalg.cg` vs cupyx cg (CSR FP64), HPCG_7_7_7, 1e-9 | >= 1.3x | "
              f"{sp:.2f}x ({cg.group(3)} s, {cg.group(2)} iterations, relres {cg.group(6)}; setup "
              f"{cg.group(4)} s apart; cupyx {cx.group(2)} s, relres {cx.group(3)}) | "
              f"{'met' if sp >= 1.3 else 'missed'} |")
    if tests:
        print(f"\npytest on the GPU: {tests.group(1)} passed, {tests.group(2) or 0} failed, "
              f"{tests.group(3) or 0} skipped")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["case", "ours_us", "ours_wall_us", "peer", "peer_us", "ratio"])
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
