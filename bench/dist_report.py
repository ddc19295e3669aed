#!/usr/bin/env python3
"""dist_report.py -- the table of a distributed-layer run on the device
(bench/run_device_dist.sh): the JSON lines of dist_pcg_bench and
dist_gpu_bench in DIR/*.txt, the tests' last lines, and host.txt, as
markdown on stdout (the results folder's README takes it).

Usage: python3 bench/dist_report.py DIR
"""
import glob
import json
import os
import sys


def lines(path):
    out = []
    for l in open(path, errors="replace"):
        l = l.strip()
        if l.startswith("{") and l.endswith("}"):
            try:
                out.append(json.loads(l))
            except ValueError:
                pass
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    host = open(os.path.join(d, "host.txt")).read().strip() if os.path.exists(
        os.path.join(d, "host.txt")) else ""
    print("```\n" + host + "\n```\n")
    tests = sorted(glob.glob(os.path.join(d, "test_dist_gpu*_np*.txt")))
    if tests:
        print("| test | result |\n|---|---|")
        for t in tests:
            last = [l.strip() for l in open(t, errors="replace") if l.strip()]
            summary = [l for l in last if " passed, " in l]
            line = summary[-1] if summary else last[-1] if last else "(empty)"
            print(f"| {os.path.basename(t)[:-4]} | {line} |")
        print()
    pcg = [r for f in sorted(glob.glob(os.path.join(d, "dist_pcg_np*.txt"))) for r in lines(f)]
    rows = [r for r in pcg if r.get("bench") == "dist_pcg"]
    if rows:
        print("| path | ranks | box per rank | rows | format | PCG it | relres | solve s | "
              "ms / iteration | SpMV us | setup s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['path']} | {r['ranks']} | {'x'.join(map(str, r['box']))} | {r['n_global']} | "
                  f"{r['format']} | {r['pcg_iterations']} | {r['relres']:.2e} | {r['solve_s']:.4f} | "
                  f"{r['per_iteration_s'] * 1e3:.3f} | {r['spmv_s'] * 1e6:.1f} | {r['setup_s']:.2f} |")
        print()
        one = {r["path"]: r for r in rows if r["ranks"] == 1}
        if "distributed" in one and "single" in one:
            a, b = one["distributed"], one["single"]
            print(f"One rank through the distributed layer vs the plain single-GPU operator: "
                  f"PCG {100 * (a['solve_s'] / b['solve_s'] - 1):+.2f}% "
                  f"({a['pcg_iterations']} vs {b['pcg_iterations']} iterations), "
                  f"SpMV {100 * (a['spmv_s'] / b['spmv_s'] - 1):+.2f}%.\n")
    split = [r for r in pcg if r.get("bench") == "dist_split"]
    if split:
        print("| ranks | ghosts per rank | pack us | A_d us | wait us | A_o us |\n|---|---|---|---|---|---|")
        for r in split:
            print(f"| {r['ranks']} | {r['ghosts']} | {r['pack_s'] * 1e6:.1f} | {r['local_s'] * 1e6:.1f} | "
                  f"{r['wait_s'] * 1e6:.1f} | {r['remote_s'] * 1e6:.1f} |")
        print()
    gpu = [r for f in sorted(glob.glob(os.path.join(d, "dist_gpu_bench_np*.txt"))) for r in lines(f)]
    if gpu:
        keys = sorted({k for r in gpu for k in r})
        print("| " + " | ".join(keys) + " |\n|" + "---|" * len(keys))
        for r in gpu:
            print("| " + " | ".join(str(r.get(k, "")) for k in keys) + " |")
        print()


if __name__ == "__main__":
    main()
