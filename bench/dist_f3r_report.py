#!/usr/bin/env python3
"""dist_f3r_report.py -- the table of bench/run_device_dist_f3r.sh: for each
case (f3r_hpcg888, sdainv_hpcg777, pcg_lap3d256) the serial command and
mpirun at 1 and 2 ranks: iterations, true relative residual, setup (sum of
its parts) and solve time (median of --repeat), and the solve time over the
serial one's.

Usage: python3 bench/dist_f3r_report.py DIR [--markdown]
"""
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    md = "--markdown" in sys.argv
    cases = sorted({f.rsplit("_", 1)[0] for f in os.listdir(d) if f.endswith(".json")})
    rows = []
    for c in cases:
        base = load(os.path.join(d, c + "_serial.json"))
        for run in ("serial", "np1", "np2"):
            r = load(os.path.join(d, f"{c}_{run}.json"))
            if r is None:
                rows.append((c, run, "-", "-", "-", "-", "-", "-", "missing"))
                continue
            setup = sum(v for v in r.get("setup_s", {}).values() if isinstance(v, (int, float)))
            ratio = (f"{r['solve_s'] / base['solve_s']:.4f}"
                     if base and base.get("solve_s") else "-")
            rows.append((c, run, r.get("iterations"), r.get("inner_iterations", 0),
                         f"{r.get('relres', float('nan')):.2e}", f"{setup:.2f}",
                         f"{r['solve_s']:.4f}", ratio, r.get("status", "?")))
    head = ("case", "run", "outer it", "inner it", "relres", "setup s", "solve s",
            "solve / serial", "status")
    if md:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(str(x) for x in r) + " |")
    else:
        print("  ".join(f"{h:>14s}" for h in head))
        for r in rows:
            print("  ".join(f"{str(x):>14s}" for x in r))


if __name__ == "__main__":
    main()
