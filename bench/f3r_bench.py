#!/usr/bin/env python3
"""f3r_bench.py -- the nonsymmetric-solver benchmark of the paper's Section
5.2.1 (Figure 10) through `packsell solve`, with the reference code's GPU
solvers (suzuki-hpc/F3R v1.0.2, bench/f3r_peer.sh) in the same run.

Per matrix, in this order (a time budget cuts the least useful solves first):
  f3r-packsell   F3R, layers 3-4 in PackSELL FP16 (D = 15)     } to the true
  f3r-auto       F3R, PackSELL with its codec chosen (FP16/E8M14)}
  f3r-fp16       F3R, layers 3-4 in SELL FP16 (C 32, sigma 256) } FP64 relative
  f3r-fp64       F3R, every layer FP64                          } residual
  bicgstab       BiCGStab FP64 + SD-AINV                        } < --tol
  gmres100       GMRES(100) FP64 + SD-AINV                      } (1e-9)
  f3r-V@M2:M3:M4 variant V with other inner step counts (m2, m3, m4)
  *-rule         the same stopped as the reference stops (estimated relative
                 residual < 1e-8, `--tol 1e-8 --recursive-stop`), beside
  ref-f3r16, ref-f3r64, ref-gm64, ref-bicg64
                 the reference's FP16-F3R (8, 4, 2, 64, 3 restarts), FP64-F3R,
                 FGMRES(64) and BiCGStab, all with SD-AINV
F3R's parameters are the paper's (m1 100, m2 8, m3 4, m4 2, c 64); SD-AINV
drop tolerance 0.1, acc 1.0; the command's symmetric diagonal scaling is on
(as the reference scales). F3R iterations are also reported as the reference
counts them (outer x m2*m3*m4: `iters_ref`).

Output in --out DIR: solves.csv (a row per solve, skipped ones with the
reason), json/KEY.json, hist/KEY.csv, log/KEY.txt; --archive FILE
re-packs DIR (without the SD-AINV cache) after every matrix. meta-PART.json
(--part) holds the date, commit, GPU and command of each run into DIR.

Usage:
  python3 bench/f3r_bench.py --out DIR --matrices gen:hpgmp:7:7:7,gen:hpcg:7:7:7
      [--solvers f3r-packsell,f3r-fp16,...] [--peers f3r16,f3r64,gm64,bicg64]
      [--rule f3r-packsell,f3r-fp16,bicgstab] [--budget SEC] [--repeat N]
      [--device cuda|cpu] [--bin PATH] [--archive FILE] [--list]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import solver_bench as sb  # noqa: E402  (label_of, fill_from_json, last_line, utcnow)

SOLVERS = ["f3r-packsell", "f3r-fp16", "f3r-fp64", "bicgstab", "gmres100"]
RULE = ["f3r-packsell", "f3r-fp16", "bicgstab"]
PEERS = ["f3r16", "f3r64", "gm64", "bicg64"]
F3R_M = (100, 8, 4, 2, 64)
FIELDS = ["key", "matrix", "source", "nrows", "nnz", "solver", "stop", "method", "precond",
          "device", "tol", "repeat", "status", "iterations", "inner_iterations", "iters_ref",
          "relres", "relres_recursive", "relres_unscaled", "setup_scale_s", "setup_convert_s",
          "setup_precond_s", "setup_upload_s", "solve_s", "solve_s_min", "solve_s_max",
          "wall_s", "rc", "note", "command", "started_utc"]


def solver_args(solver):
    """`packsell solve` options of one of our solvers."""
    if solver.startswith("f3r-"):
        m1, m2, m3, m4, c = F3R_M
        name, _, ms = solver[4:].partition("@")  # f3r-packsell@M2:M3:M4: other inner steps
        if ms:
            m2, m3, m4 = (int(v) for v in ms.split(":"))
        variant = {"packsell": ["packsell", "--f3r-values", "fp16"],
                   "auto": ["packsell", "--f3r-values", "auto"]}.get(name, [name])
        return ["--method", "f3r", "--f3r"] + variant + [
            "--restart", str(m1), "--m2", str(m2), "--m3", str(m3), "--m4", str(m4),
            "--richardson-c", str(c), "--max-iters", "2000"]
    if solver == "bicgstab":
        return ["--method", "bicgstab", "--max-iters", "20000"]
    if solver == "gmres100":
        return ["--method", "gmres", "--restart", "100", "--max-iters", "20000"]
    raise SystemExit(f"f3r_bench: unknown solver {solver}")


def plan_for(source, args):
    label = sb.label_of(source)
    items = [(f"{label}__{s}", s, "true") for s in args.solvers]
    items += [(f"{label}__{s}-rule", s, "rule") for s in args.rule]
    items += [(f"{label}__ref-{p}", "ref-" + p, "rule") for p in args.peers]
    return items


class Bench:
    def __init__(self, args):
        self.args = args
        self.out = args.out
        for sub in ("json", "hist", "log", "sdainv-cache"):
            os.makedirs(os.path.join(self.out, sub), exist_ok=True)
        self.csv_path = os.path.join(self.out, "solves.csv")
        self.start = time.monotonic()
        self.last_wall = {}

    def remaining(self):
        if self.args.budget <= 0:
            return float("inf")
        return self.args.budget - (time.monotonic() - self.start)

    def write_row(self, row):
        new = not os.path.isfile(self.csv_path)
        with open(self.csv_path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
            if new:
                w.writeheader()
            w.writerow({k: row.get(k, "") for k in FIELDS})

    def archive(self):
        if not self.args.archive:
            return
        top = os.path.basename(os.path.normpath(self.out))
        drop = {os.path.join(top, "sdainv-cache")}
        tmp = self.args.archive + ".part"
        with tarfile.open(tmp, "w:gz") as t:
            t.add(self.out, arcname=top, filter=lambda ti: None if ti.name in drop else ti)
        os.replace(tmp, self.args.archive)

    def command(self, source, key, solver, stop):
        a = self.args
        jpath = os.path.join(self.out, "json", key + ".json")
        if solver.startswith("ref-"):
            return ["bash", os.path.join(HERE, "f3r_peer.sh"), "--bin", a.bin, "--which",
                    solver[4:], "--ave", str(max(a.repeat, 3)), "--work", a.peer_work,
                    "--json", jpath, source]
        cmd = [a.bin, "solve", source, "--device", a.device] + solver_args(solver)
        cmd += ["--precond", "sdainv", "--sdainv-tol", "0.1", "--sdainv-acc", "1.0",
                "--sdainv-cache", os.path.join(self.out, "sdainv-cache")]
        cmd += ["--tol", "1e-8", "--recursive-stop"] if stop == "rule" else ["--tol", repr(a.tol)]
        if a.repeat > 1:
            cmd += ["--repeat", str(a.repeat)]
        return cmd + ["--json", jpath, "--history", os.path.join(self.out, "hist", key + ".csv")]

    def run_one(self, source, key, solver, stop):
        a = self.args
        cmd = self.command(source, key, solver, stop)
        row = dict(key=key, matrix=sb.label_of(source), source=source, solver=solver, stop=stop,
                   device=a.device, tol=1e-8 if stop == "rule" else a.tol, repeat=a.repeat,
                   command=" ".join(cmd), started_utc=sb.utcnow())
        t0 = time.monotonic()
        timeout = max(10.0, min(self.remaining(), a.solve_timeout))
        logp = os.path.join(self.out, "log", key + ".txt")
        try:
            with open(logp, "w") as lf:
                rc = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, timeout=timeout,
                                    cwd=ROOT).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        wall = time.monotonic() - t0
        row.update(rc=rc, wall_s=f"{wall:.3f}")
        jpath = os.path.join(self.out, "json", key + ".json")
        data = None
        if os.path.isfile(jpath):
            try:
                with open(jpath) as f:
                    data = json.load(f)
            except ValueError as e:
                row["note"] = f"bad JSON: {e}"
        if data is not None:
            sb.fill_from_json(row, data)
            row["stop"] = stop
            if solver.startswith("f3r-") and str(row.get("iterations", "")).isdigit():
                _, m2, m3, m4, _ = F3R_M
                if "@" in solver:
                    m2, m3, m4 = (int(v) for v in solver.split("@")[1].split(":"))
                row["iters_ref"] = int(row["iterations"]) * m2 * m3 * m4
            elif solver.startswith("ref-"):
                row["iters_ref"] = row.get("iterations", "")
        elif rc == "timeout":
            row.update(status="timeout", note=f"killed after {timeout:.0f} s")
        else:
            row.update(status="error", note=sb.last_line(logp))
        self.write_row(row)
        return row, wall

    def run(self, matrices):
        done = 0
        for source in matrices:
            label = sb.label_of(source)
            if not source.startswith("gen:") and not os.path.isfile(source):
                self.write_row(dict(key=f"{label}__missing", matrix=label, source=source,
                                    status="skipped", note="matrix not found"))
                continue
            sb.log(f"{label}: {source}")
            for key, solver, stop in plan_for(source, self.args):
                cls = "ref" if solver.startswith("ref-") else "ours"
                need = self.last_wall.get((label, cls), 5.0 + (sb.nnz_hint(source) or 0) * 2e-7)
                if self.remaining() < need * 1.1:
                    self.write_row(dict(key=key, matrix=label, source=source, solver=solver,
                                        stop=stop, status="skipped", started_utc=sb.utcnow(),
                                        note=f"budget: {self.remaining():.0f} s left, "
                                             f"about {need:.0f} s needed"))
                    continue
                row, wall = self.run_one(source, key, solver, stop)
                done += 1
                self.last_wall[(label, cls)] = max(wall, self.last_wall.get((label, cls), 0))
                sb.log(f"  {key}: {row.get('status')} it={row.get('iterations')} "
                       f"ref-it={row.get('iters_ref')} relres={row.get('relres')} "
                       f"solve={row.get('solve_s')} s wall={wall:.1f} s")
            self.archive()
        sb.log(f"done: {done} solves")


def meta(args, matrices):
    def sh(cmd):
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30,
                                  cwd=ROOT).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""
    return {"date": sb.utcnow(),
            "commit": os.environ.get("SOLVER_COMMIT") or sh("git rev-parse --short HEAD") or "unknown",
            "gpu": sh("nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader"),
            "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip(),
            "cpus": os.cpu_count(), "packsell": sh(f"{args.bin} --version"),
            "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
            "device": args.device, "repeat": args.repeat, "tol": args.tol, "f3r_m": F3R_M,
            "matrices": matrices, "solvers": args.solvers, "rule": args.rule, "peers": args.peers}


def names(s):
    return [v.strip() for v in s.split(",") if v.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/psl-f3r-bench")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build-gpu", "packsell"))
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--matrices", default="gen:hpgmp:7:7:7")
    ap.add_argument("--solvers", default=",".join(SOLVERS))
    ap.add_argument("--rule", default=",".join(RULE), help="our solvers also run at the reference's rule")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--peer-work", default="/tmp/f3r-work", help="f3r_peer.sh --work")
    ap.add_argument("--budget", type=float, default=0, help="seconds; 0: no limit")
    ap.add_argument("--solve-timeout", type=float, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--archive", default="")
    ap.add_argument("--part", default="", help="names this run's meta file (meta-PART.json)")
    ap.add_argument("--list", action="store_true", help="print the plan and exit")
    args = ap.parse_args()
    args.solvers, args.rule, args.peers = names(args.solvers), names(args.rule), names(args.peers)
    for s in args.solvers + args.rule:
        solver_args(s)
    matrices = []
    for m in names(args.matrices):
        matrices.append(m if m.startswith("gen:") or os.path.isfile(m) else (sb.find_matrix(m) or m))
    return sb.list_or_run(args, matrices, plan_for, meta, Bench)


if __name__ == "__main__":
    sys.exit(main())
