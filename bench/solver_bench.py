#!/usr/bin/env python3
"""solver_bench.py -- the solver benchmark of the paper's Section 5.2.2
(Figures 11, 12 and Table 3) through `packsell solve`, plus its peers.

For each matrix it runs, in this order (so that a time budget cuts the least
useful solves first):
  pcg        FP64 PCG + SD-AINV
  fp32       IO-CG, inner FP32 SELL          } each for every m_in
  fp16       IO-CG, inner FP16 SELL          } (--m-in, default 20,50,80)
  psfp16     IO-CG, inner PackSELL FP16      }
  e8mY       IO-CG, inner PackSELL E8MY, Y = 22 - D, D in --d (default
             1..12), the D values in the order of D_ORDER (those that won
             most often in the paper's Table 3 first)
and, where --peers names them (HPCG matrices and small files only):
  pcg-jacobi FP64 PCG + Jacobi on the unscaled matrix with b from a file
  cupy-cg    cupyx.scipy.sparse.linalg.cg on the same A, b, Jacobi, tol
             (bench/cupy_cg.py)
  pcg-f3rrule FP64 PCG + SD-AINV stopped as the reference code stops
             (estimated residual < 1e-8), beside
  f3r-cg64, f3r16   the reference's GPU CG + SD-AINV and FP16-F3R
             (bench/f3r_peer.sh)
SD-AINV (drop tolerance 0.1) everywhere, acc 1.0 on the generated matrices
and, on a file, the one --stage chose for it (ACC_CHOICES); the command's
symmetric diagonal scaling is on (the paper's setting) except for
pcg-jacobi/cupy-cg, which solve the unscaled system both.

Output in --out DIR: solves.csv (one row per solve, skipped solves too, with
the reason), hist/KEY.csv (--history of each solve), json/KEY.json (the
command's --json), log/KEY.txt (its output), meta.json (date, commit, GPU,
the commands), rhs/ (the b files of the peer runs). --archive FILE re-packs
DIR into FILE (tar.gz, rhs/ left out; log/ and then hist/ too when it would
pass 15 MiB) after every matrix, so a call cut short still returns what it had.

A time budget (--budget SEC) is checked before each solve against the time
the last solve of the same matrix took: what does not fit is recorded as
skipped, and the run goes on with whatever still fits. --interleave runs
the n-th solve of every matrix before the (n+1)-th of any, so that a cut
leaves each of many small matrices its PCG and its likeliest formats.

Real matrices: NAME or NAME.mtx is looked up in $PSL_MATRIX_DIR,
../shared/matrices and .dev-matrices/; `spd` in --matrices stands for every
SPD matrix listed in .dev-matrices/spd.tsv, written by --stage from the
INDEX.tsv kind column, the Matrix Market header (symmetric, real or integer),
a positive diagonal, the smallest eigenvalue where the matrix is small enough
for a dense one (NumPy), and a short CPU test solve (PCG + Jacobi must not
report "indefinite").

Usage:
  python3 bench/solver_bench.py --stage [--bin PATH]    # here, before a device call
  python3 bench/solver_bench.py --out DIR --matrices gen:hpcg:7:7:7,spd
        [--m-in 20,50,80] [--d 1-12] [--variants pcg,fp32,fp16,psfp16,e8]
        [--peers cupy,f3r] [--budget SEC] [--repeat N] [--device cuda|cpu]
        [--bin PATH] [--part NAME] [--resume] [--list]
"""
import argparse
import csv
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STAGE_DIR = os.path.join(ROOT, ".dev-matrices")
F3R_STAGE_DIR = os.path.join(ROOT, ".dev-f3r")

# The D values in the order they are run: the paper's Table 3 best formats
# (E8M10..E8M16, D = 12..6) first, then the rest, so that a budget cut
# removes the unlikely ones.
D_ORDER = [12, 11, 10, 9, 8, 7, 6, 4, 2, 5, 3, 1]
M_IN = [20, 50, 80]
ACC_CHOICES = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6"]
VARIANTS = ["pcg", "fp32", "fp16", "psfp16", "e8"]
# Inner storage of each IO-CG variant: (--inner-format, --inner-values).
INNER = {"fp32": ("sell", "fp32"), "fp16": ("sell", "fp16"),
         "psfp16": ("packsell", "fp16"), "psbf16": ("packsell", "bf16"), "fp64": ("sell", "fp64")}
# Shorthands accepted in --matrices.
ALIASES = {"hpcg7": "gen:hpcg:7:7:7", "hpcg877": "gen:hpcg:8:7:7",
           "hpcg887": "gen:hpcg:8:8:7", "hpcg8": "gen:hpcg:8:8:8"}

FIELDS = ["key", "part", "matrix", "source", "nrows", "nnz", "variant", "method", "precond",
          "inner_format", "inner_values", "d_bits", "m_in", "sdainv_acc", "vectors", "device", "scale",
          "tol", "max_iters", "repeat", "status", "iterations", "inner_iterations",
          "relres", "relres_unscaled", "setup_scale_s", "setup_convert_s", "setup_precond_s",
          "setup_upload_s", "solve_s", "solve_s_min", "solve_s_max", "solve_s_all",
          "time_per_iteration_s", "relres_recursive", "wall_s",
          "rc", "history", "note", "command", "started_utc"]


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def log(msg):
    print(f"[{datetime.datetime.now().strftime('%H:%M:%S')}] {msg}", flush=True)


# ------------------------------------------------------------------ matrices

def label_of(source):
    """HPCG_7_7_7, LAP3D_128, or the file's base name."""
    if source.startswith("gen:"):
        parts = source[4:].split(":")
        return "_".join([parts[0].upper()] + parts[1:])
    base = os.path.basename(source)
    for ext in (".gz", ".mtx", ".psl"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base


def nnz_hint(source):
    """Nonzeros of a generated matrix (for the first time estimate), else None."""
    m = re.match(r"gen:hpcg:(\d+):(\d+):(\d+)$", source)
    if m:
        nx, ny, nz = (2 ** int(g) for g in m.groups())
        return (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2)
    m = re.match(r"gen:lap3d:(\d+)(?::(\d+):(\d+))?$", source)
    if m:
        nx = int(m.group(1))
        ny = int(m.group(2) or nx)
        nz = int(m.group(3) or nx)
        n = nx * ny * nz
        return 7 * n - 2 * (ny * nz + nx * nz + nx * ny)
    return None


def matrix_dirs():
    dirs = []
    if os.environ.get("PSL_MATRIX_DIR"):
        dirs.append(os.environ["PSL_MATRIX_DIR"])
    dirs += [os.path.join(ROOT, "..", "shared", "matrices"), STAGE_DIR]
    return dirs


def find_matrix(name):
    if os.path.isfile(name):
        return name
    fname = name if name.endswith((".mtx", ".mtx.gz", ".psl")) else name + ".mtx"
    for d in matrix_dirs():
        p = os.path.join(d, fname)
        if os.path.isfile(p):
            return p
    return None


def read_spd_table():
    """{name: row} of the staged spd.tsv (empty when there is none)."""
    for d in [STAGE_DIR] + matrix_dirs():
        p = os.path.join(d, "spd.tsv")
        if os.path.isfile(p):
            with open(p) as f:
                return {r["name"]: r for r in csv.DictReader(f, delimiter="\t")}
    return {}


def read_spd_list():
    """Names from spd.tsv (staged), else from INDEX.tsv's kind column."""
    for d in [STAGE_DIR] + matrix_dirs():
        p = os.path.join(d, "spd.tsv")
        if os.path.isfile(p):
            with open(p) as f:
                return [r["name"] for r in csv.DictReader(f, delimiter="\t") if r["spd"] == "yes"]
    names = []
    for d in matrix_dirs():
        p = os.path.join(d, "INDEX.tsv")
        if os.path.isfile(p):
            with open(p) as f:
                names = [r["name"] for r in csv.DictReader(f, delimiter="\t")
                         if "SPD" in r.get("kind", "")]
            break
    return names


def expand_matrices(spec):
    out = []
    for tok in [t.strip() for t in spec.split(",") if t.strip()]:
        tok = ALIASES.get(tok, tok)
        if tok == "spd":
            out += [find_matrix(n) or n for n in read_spd_list()]
        elif tok.startswith("gen:"):
            out.append(tok)
        else:
            out.append(find_matrix(tok) or tok)
    seen, uniq = set(), []
    for s in out:
        if s not in seen:
            seen.add(s)
            uniq.append(s)
    return uniq


def mm_header_check(path):
    """(symmetric real/integer, every diagonal entry present and > 0, n, note)."""
    with open(path) as f:
        header = f.readline().lower().split()
        if len(header) < 5 or header[0] != "%%matrixmarket":
            return False, False, 0, "not Matrix Market"
        fmt, field, sym = header[2], header[3], header[4]
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        nr, nc, _ = (int(v) for v in line.split()[:3])
        if fmt != "coordinate" or sym != "symmetric" or field not in ("real", "integer", "double"):
            return False, False, nr, f"{fmt} {field} {sym}"
        if nr != nc:
            return False, False, nr, "not square"
        diag = [0.0] * nr
        for line in f:
            v = line.split()
            if len(v) >= 3 and v[0] == v[1]:
                diag[int(v[0]) - 1] += float(v[2])
    bad = sum(1 for d in diag if not d > 0)
    return True, bad == 0, nr, (f"{bad} diagonal entries <= 0 or missing" if bad else "")


def stage(args):
    """Copy the SPD matrices and the reference's binaries into git-ignored
    folders of the checkout (the device tool carries only those)."""
    src_dir = None
    for d in [os.environ.get("PSL_MATRIX_DIR"), os.path.join(ROOT, "..", "shared", "matrices")]:
        if d and os.path.isfile(os.path.join(d, "INDEX.tsv")):
            src_dir = d
            break
    if not src_dir:
        sys.exit("stage: no INDEX.tsv in $PSL_MATRIX_DIR or ../shared/matrices")
    with open(os.path.join(src_dir, "INDEX.tsv")) as f:
        index = list(csv.DictReader(f, delimiter="\t"))
    have_solve = args.bin and solve_supported(args.bin)
    os.makedirs(STAGE_DIR, exist_ok=True)
    for old in os.listdir(STAGE_DIR):
        if old.endswith(".mtx"):
            os.remove(os.path.join(STAGE_DIR, old))
    rows = []
    for r in index:
        name, path = r["name"], os.path.join(src_dir, r["name"] + ".mtx")
        if not os.path.isfile(path):
            continue
        index_spd = "SPD" in r.get("kind", "")
        sym, posdiag, n, note = mm_header_check(path)
        test, eig = "-", "-"
        if sym and posdiag and have_solve:
            test = test_solve(args.bin, path, n)
        if sym and posdiag:
            eig = min_eigenvalue(path, n)
        # SPD: the checks pass, and INDEX.tsv says so or the eigenvalue shows it
        # (a Jacobi PCG solve can converge on an indefinite matrix: Si2)
        spd = (sym and posdiag and test not in ("indefinite", "nonfinite", "error")
               and not (isinstance(eig, float) and eig <= 0)
               and (index_spd or isinstance(eig, float)))
        if isinstance(eig, float) and eig <= 0:
            note = (note + "; " if note else "") + f"smallest eigenvalue {eig:.4g}"
        acc = "-"
        if spd and have_solve:
            acc = choose_acc(args.bin, path, n)
        if index_spd and not spd:
            note = (note + "; " if note else "") + "INDEX.tsv says SPD, the checks disagree"
        rows.append({"name": name, "spd": "yes" if spd else "no",
                     "index_spd": "yes" if index_spd else "no",
                     "symmetric_header": "yes" if sym else "no",
                     "positive_diagonal": "yes" if posdiag else "no",
                     "test_solve": test,
                     "min_eigenvalue": f"{eig:.6g}" if isinstance(eig, float) else eig,
                     "sdainv_acc": acc,
                     "note": note})
        if spd:
            shutil.copy2(path, os.path.join(STAGE_DIR, name + ".mtx"))
    with open(os.path.join(STAGE_DIR, "spd.tsv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    spd = [r["name"] for r in rows if r["spd"] == "yes"]
    print(f"staged {len(spd)} SPD matrices in {STAGE_DIR}: {' '.join(spd)}")
    for r in rows:
        if r["symmetric_header"] == "yes" and r["spd"] == "no":
            print(f"  not SPD: {r['name']} ({r['note'] or 'test solve: ' + r['test_solve']})")
    peers = os.path.join(ROOT, "..", "shared", "peers", "f3r")
    if os.path.isdir(peers):
        os.makedirs(F3R_STAGE_DIR, exist_ok=True)
        for f in ("f3r-gpu-bins.tar.xz", "SHA256SUMS", "README.md"):
            shutil.copy2(os.path.join(peers, f), os.path.join(F3R_STAGE_DIR, f))
        print(f"staged the reference's GPU binaries in {F3R_STAGE_DIR}")
    if not have_solve:
        print("note: no `packsell solve` given (--bin): no test solves, and acc 1.0 everywhere")
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        print("note: no NumPy/SciPy: no eigenvalue check, only INDEX.tsv's SPD matrices staged")


def min_eigenvalue(path, n, limit=5000):
    """The smallest eigenvalue (dense, n <= limit, with NumPy and SciPy), else "-"."""
    if n > limit:
        return "-"
    try:
        import numpy as np
        import scipy.io
    except ImportError:
        return "-"
    A = scipy.io.mmread(path)
    A = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
    return float(np.linalg.eigvalsh(A)[0])


def solve_supported(binary):
    try:
        p = subprocess.run([binary, "solve", "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0


def choose_acc(binary, path, n):
    """SD-AINV's acc for a matrix, as the reference's suite picks one per
    matrix in 1.0..1.6: the smallest of ACC_CHOICES with which FP64 PCG +
    SD-AINV converges on the CPU (with acc = 1 the factors' D can lose
    definiteness on ill-conditioned matrices, e.g. nos1, lund_a, bcsstk13);
    "none" if none does."""
    for acc in ACC_CHOICES:
        if test_solve(binary, path, n, ["--precond", "sdainv", "--sdainv-acc", acc]) == "converged":
            return acc
    return "none"


def test_solve(binary, path, n, precond=("--precond", "jacobi")):
    """Status of a CPU FP64 PCG solve (Jacobi: a cheap definiteness check)."""
    tmp = os.path.join("/tmp", f"psl-spd-{os.getpid()}.json")
    cmd = [binary, "solve", path, "--method", "pcg", *precond, "--device", "cpu",
           "--tol", "1e-9", "--max-iters", str(max(1000, 4 * n)), "--json", tmp]
    try:
        subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        with open(tmp) as f:
            return json.load(f).get("status", "error")
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return "error"
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# ------------------------------------------------------------------ the plan

def parse_int_list(s):
    out = []
    for part in s.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            out += list(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def plan_for(source, args):
    """The solves of one matrix, in running order: (key, variant, settings)."""
    label = label_of(source)
    items = []
    variants = args.variants
    d_list = [d for d in D_ORDER if d in args.d] + [d for d in args.d if d not in D_ORDER]
    peers = args.peers
    is_hpcg = source.startswith("gen:hpcg:")
    if "cupy" in peers:
        items.append((f"{label}__pcg-jacobi", "pcg-jacobi", {}))
        items.append((f"{label}__cupy-cg", "cupy-cg", {}))
    if "f3r" in peers and is_hpcg:
        items.append((f"{label}__pcg-f3rrule", "pcg-f3rrule", {}))
        items.append((f"{label}__f3r-cg64", "f3r-cg64", {}))
        items.append((f"{label}__f3r16", "f3r16", {}))
    if "pcg" in variants:
        items.append((f"{label}__pcg", "pcg", {}))
    rounds = [v for v in ("fp64", "fp32", "fp16", "psfp16", "psbf16") if v in variants]
    if "e8" in variants:
        rounds += [f"e8m{22 - d}" for d in d_list]
    for v in rounds:
        for m in args.m_in:
            items.append((f"{label}__{v}__m{m}", v, {"m_in": m}))
    return items


# ------------------------------------------------------------------ running

class Bench:
    def __init__(self, args):
        self.args = args
        self.out = args.out
        self.sdainv_cache = os.path.join(args.out, "sdainv-cache")
        os.makedirs(self.sdainv_cache, exist_ok=True)
        for sub in ("hist", "json", "log", "rhs"):
            os.makedirs(os.path.join(self.out, sub), exist_ok=True)
        self.csv_path = os.path.join(self.out, "solves.csv")
        self.done = set()
        if os.path.isfile(self.csv_path):  # rows of an older column set: rewrite them
            with open(self.csv_path) as f:
                old = list(csv.DictReader(f))
            with open(self.csv_path) as f:
                header = f.readline().strip().split(",")
            if header != FIELDS:
                with open(self.csv_path, "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
                    w.writeheader()
                    w.writerows(old)
        if args.resume and os.path.isfile(self.csv_path):
            with open(self.csv_path) as f:
                for r in csv.DictReader(f):
                    if r["status"] not in ("skipped", "timeout", "error"):
                        self.done.add(r["key"])
        self.start = time.monotonic()
        self.last_wall = {}
        self.help_text = ""
        self.recursive_flag = None
        self.spd = read_spd_table()

    def elapsed(self):
        return time.monotonic() - self.start

    def remaining(self):
        return self.args.budget - self.elapsed() if self.args.budget > 0 else float("inf")

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
        tmp = self.args.archive + ".part"
        top = os.path.basename(os.path.normpath(self.out))
        for skip in ((), ("log",), ("log", "hist")):
            # never the SD-AINV cache: HPCG_8_8_8's factors are 800 MB, minutes to compress
            drop = {os.path.join(top, d) for d in ("rhs", "sdainv-cache") + skip}
            with tarfile.open(tmp, "w:gz") as t:
                t.add(self.out, arcname=top,
                      filter=lambda ti: None if ti.name in drop else ti)
            if os.path.getsize(tmp) < 15 << 20:
                break
        os.replace(tmp, self.args.archive)

    def probe(self):
        """Read `packsell solve --help` once: which optional flags exist."""
        try:
            p = subprocess.run([self.args.bin, "solve", "--help"], capture_output=True,
                               text=True, timeout=30)
            self.help_text = p.stdout + p.stderr
        except (OSError, subprocess.TimeoutExpired) as e:
            sys.exit(f"solver_bench: cannot run {self.args.bin} solve --help: {e}")
        if p.returncode != 0:
            sys.exit(f"solver_bench: `{self.args.bin} solve --help` failed:\n{self.help_text}")
        for flag in ("--recursive-stop", "--stop-recursive", "--recursive"):
            if re.search(re.escape(flag) + r"\b", self.help_text):
                self.recursive_flag = flag
                break

    def has_flag(self, flag):
        return re.search(re.escape(flag) + r"(\b|[ =])", self.help_text) is not None

    # --- one solve of `packsell solve`
    def solve_cmd(self, source, key, variant, opt):
        a = self.args
        cmd = [a.bin, "solve", source, "--device", a.device, "--tol", repr(a.tol)]
        if variant in ("pcg", "pcg-f3rrule", "pcg-jacobi"):
            cmd += ["--method", "pcg", "--vectors", "fp64", "--max-iters", str(a.max_iters)]
        else:
            m = opt["m_in"]
            fmt, vals = INNER.get(variant, ("packsell", variant))
            outer = max(10, -(-a.max_inner // m))
            cmd += ["--method", "iocg", "--vectors", "fp64", "--inner-format", fmt,
                    "--inner-values", vals, "--inner-iters", str(m), "--max-iters", str(outer)]
        if variant == "pcg-jacobi":
            cmd += ["--precond", "jacobi", "--no-scale", "--rhs", self.rhs_file(source)]
        else:
            cmd += ["--precond", "sdainv", "--sdainv-tol", "0.1", "--sdainv-acc", self.acc_of(source),
                    # one SD-AINV build per matrix and acc: later solves load it
                    "--sdainv-cache", self.sdainv_cache]
        if variant == "pcg-f3rrule":
            i = cmd.index("--tol")
            cmd[i + 1] = "1e-8"
            if self.recursive_flag:
                cmd.append(self.recursive_flag)
        if a.repeat > 1 and self.has_flag("--repeat"):
            cmd += ["--repeat", str(a.repeat)]
        if self.has_flag("--seed") and variant != "pcg-jacobi":
            cmd += ["--seed", str(a.seed)]
        cmd += ["--json", os.path.join(self.out, "json", key + ".json"),
                "--history", os.path.join(self.out, "hist", key + ".csv")]
        return cmd

    def acc_of(self, source):
        """SD-AINV acc: --sdainv-acc, else the staged choice for the matrix, else 1.0."""
        if self.args.sdainv_acc:
            return self.args.sdainv_acc
        r = self.spd.get(label_of(source))
        if r and r.get("sdainv_acc") not in (None, "", "-", "none"):
            return r["sdainv_acc"]
        return "1.0"

    def rhs_file(self, source):
        """b uniform in [0,1) as k/10^6 (exact decimals: every reader gets
        the same doubles), written once per size; the peers read it too."""
        n = self.nrows_of(source)
        path = os.path.join(self.out, "rhs", f"b_{n}.mtx")
        if not os.path.isfile(path):
            write_rhs(path, n, self.args.seed)
        return path

    def nrows_of(self, source):
        m = re.match(r"gen:hpcg:(\d+):(\d+):(\d+)$", source)
        if m:
            return 2 ** sum(int(g) for g in m.groups())
        m = re.match(r"gen:lap3d:(\d+)(?::(\d+):(\d+))?$", source)
        if m:
            nx = int(m.group(1))
            return nx * int(m.group(2) or nx) * int(m.group(3) or nx)
        with open(source) as f:
            line = f.readline()
            while line.startswith("%"):
                line = f.readline()
            return int(line.split()[0])

    def run_one(self, source, key, variant, opt, base):
        a = self.args
        if variant == "cupy-cg":
            cmd = [sys.executable, os.path.join(HERE, "cupy_cg.py"), source,
                   "--rhs", self.rhs_file(source), "--tol", repr(a.tol),
                   "--maxiter", str(a.max_iters), "--repeat", str(max(a.repeat, 3)),
                   "--json", os.path.join(self.out, "json", key + ".json"),
                   "--history", os.path.join(self.out, "hist", key + ".csv")]
            if a.device == "cpu":
                cmd.append("--allow-cpu")
        elif variant in ("f3r-cg64", "f3r16"):
            cmd = ["bash", os.path.join(HERE, "f3r_peer.sh"), "--bin", a.bin,
                   "--which", {"f3r-cg64": "cg64", "f3r16": "f3r16"}[variant], "--ave", str(max(a.repeat, 3)),
                   "--json", os.path.join(self.out, "json", key + ".json"), source]
        else:
            cmd = self.solve_cmd(source, key, variant, opt)
        row = dict(base, key=key, variant=variant, m_in=opt.get("m_in", ""),
                   command=" ".join(cmd), started_utc=utcnow(), device=a.device,
                   tol=1e-8 if variant in ("pcg-f3rrule", "f3r-cg64", "f3r16") else a.tol,
                   repeat=a.repeat)
        if variant.startswith("e8m"):
            row["d_bits"] = 22 - int(variant[3:])
        t0 = time.monotonic()
        timeout = max(10.0, min(self.remaining(), a.solve_timeout)) if a.budget > 0 else a.solve_timeout
        logp = os.path.join(self.out, "log", key + ".txt")
        try:
            with open(logp, "w") as lf:
                p = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, timeout=timeout,
                                   cwd=ROOT)
            rc = p.returncode
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
            fill_from_json(row, data)
        elif rc == "timeout":
            row["status"] = "timeout"
            row["note"] = f"killed after {timeout:.0f} s"
        else:
            row["status"] = "error"
            row["note"] = last_line(logp)
        hpath = os.path.join(self.out, "hist", key + ".csv")
        if os.path.isfile(hpath):
            row["history"] = os.path.relpath(hpath, self.out)
        self.write_row(row)
        return row, wall

    def run(self, matrices):
        self.probe()
        total = skipped = 0
        schedule, bases = [], {}
        for source in matrices:
            label = label_of(source)
            base = {"part": self.args.part, "matrix": label, "source": source}
            if not source.startswith("gen:") and not os.path.isfile(source):
                log(f"{label}: no such matrix ({source}); skipped")
                self.write_row(dict(base, key=f"{label}__missing", status="skipped",
                                    note="matrix not found"))
                continue
            bases[source] = base
            schedule += [(i, source, item) for i, item in enumerate(plan_for(source, self.args))]
        if self.args.interleave:
            # the n-th solve of every matrix before the (n+1)-th of any: a budget
            # cut then leaves each matrix its most useful solves
            schedule.sort(key=lambda t: t[0])
        current = None
        for _, source, (key, variant, opt) in schedule:
            base = bases[source]
            label = base["matrix"]
            if source != current:
                if current is not None and not self.args.interleave:
                    self.archive()
                current = source
                if not self.args.interleave:
                    log(f"{label}: {source}")
            if key in self.done:
                continue
            est = 2.0 + (nnz_hint(source) or 0) * 3e-8
            cls = variant_class(variant)
            est_this = (self.last_wall.get((label, cls)) or self.last_wall.get((label, "grid"))
                        or est * (1 if cls == "grid" else 3))
            if self.remaining() < est_this * 1.1:
                skipped += 1
                self.write_row(dict(base, key=key, variant=variant, m_in=opt.get("m_in", ""),
                                    d_bits=(22 - int(variant[3:])) if variant.startswith("e8m") else "",
                                    status="skipped", device=self.args.device,
                                    note=f"budget: {self.remaining():.0f} s left, "
                                         f"about {est_this:.0f} s needed",
                                    started_utc=utcnow()))
                continue
            row, wall = self.run_one(source, key, variant, opt, base)
            total += 1
            self.last_wall[(label, cls)] = wall
            base.update(nrows=row.get("nrows", ""), nnz=row.get("nnz", ""))
            log(f"  {key}: {row.get('status')} it={row.get('iterations')} "
                f"inner={row.get('inner_iterations')} relres={row.get('relres')} "
                f"solve={row.get('solve_s')} s wall={wall:.1f} s")
            if self.args.interleave and total % 20 == 0:
                self.archive()
        self.archive()
        log(f"done: {total} solves, {skipped} skipped (budget), {self.elapsed():.0f} s")
        return total, skipped


def variant_class(variant):
    if variant in ("cupy-cg", "f3r-cg64", "f3r16"):
        return variant
    if variant in ("pcg-jacobi", "pcg-f3rrule"):
        return "peer"
    return "grid"


def fill_from_json(row, d):
    def g(*path):
        v = d
        for p in path:
            if not isinstance(v, dict) or p not in v:
                return ""
            v = v[p]
        return v
    row.update(nrows=g("nrows"), nnz=g("nnz"), method=g("method"), precond=g("precond"),
               vectors=g("vectors"), scale=g("scale"), max_iters=g("max_iters"),
               status=g("status") or "error", iterations=g("iterations"),
               inner_iterations=g("inner_iterations"), relres=g("relres"),
               relres_unscaled=g("relres_unscaled"),
               setup_scale_s=g("setup_s", "scale"), setup_convert_s=g("setup_s", "convert"),
               setup_precond_s=g("setup_s", "precond"), setup_upload_s=g("setup_s", "upload"),
               solve_s=g("solve_s"), solve_s_min=g("solve_s_min"), solve_s_max=g("solve_s_max"),
               time_per_iteration_s=g("time_per_iteration_s"),
               relres_recursive=g("relres_recursive"))
    if isinstance(d.get("scale"), bool):
        row["scale"] = "symmetric" if d["scale"] else "none"
    if g("device"):
        row["device"] = g("device")
    if g("tol") != "":
        row["tol"] = g("tol")
    sd = d.get("sdainv") if isinstance(d.get("sdainv"), dict) else {}
    if "acc" in sd:
        row["sdainv_acc"] = sd["acc"]
    inner = d.get("inner") if isinstance(d.get("inner"), dict) else {}
    if inner:
        row.update(inner_format=inner.get("format", ""), inner_values=inner.get("values", ""))
    allv = d.get("solve_s_all")
    if isinstance(allv, list):
        row["solve_s_all"] = ";".join(f"{v:.6g}" for v in allv)
    if d.get("note"):
        row["note"] = d["note"]


def last_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
        return lines[-1][:300] if lines else ""
    except OSError:
        return ""


def write_rhs(path, n, seed):
    """Matrix Market array of n values k/10^6, k uniform in [0, 10^6)."""
    import numpy as np
    k = np.random.default_rng(seed).integers(0, 10 ** 6, n)
    digits = np.empty((n, 9), dtype=np.uint8)
    digits[:, 0] = ord("0")
    digits[:, 1] = ord(".")
    for j in range(6):
        digits[:, 2 + j] = ord("0") + (k // 10 ** (5 - j)) % 10
    digits[:, 8] = ord("\n")
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(f"%%MatrixMarket matrix array real general\n{n} 1\n".encode())
        f.write(digits.tobytes())
    os.replace(tmp, path)


def meta(args, matrices):
    def sh(cmd):
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True,
                                  timeout=30, cwd=ROOT).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""
    return {
        "date": utcnow(),
        # SOLVER_COMMIT: the commit, named by the caller where the copy has no git
        "commit": os.environ.get("SOLVER_COMMIT") or sh("git rev-parse --short HEAD") or "unknown",
        "dirty": bool(sh("git status --porcelain --untracked-files=no")),
        "gpu": sh("nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader"),
        "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip(),
        "cpus": os.cpu_count(),
        "packsell": sh(f"{args.bin} --version"),
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
        "run_command": os.environ.get("PSL_RUN_COMMAND", ""),
        "part": args.part,
        "device": args.device,
        "budget_s": args.budget,
        "repeat": args.repeat,
        "tol": args.tol,
        "matrices": matrices,
        "m_in": args.m_in,
        "d": args.d,
        "variants": args.variants,
        "peers": args.peers,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/psl-solver-bench")
    ap.add_argument("--bin", default=os.environ.get("PSL_BENCH_BIN", os.path.join(ROOT, "build-solver", "packsell")))
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--matrices", default="hpcg7")
    ap.add_argument("--m-in", default="20,50,80")
    ap.add_argument("--d", default="1-12", help="delta bits D of E8MY (Y = 22 - D)")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="pcg,fp32,fp16,psfp16,e8; also psbf16 (PackSELL BF16) and fp64 "
                         "(FP64 SELL, if the command takes it)")
    ap.add_argument("--peers", default="", help="cupy,f3r")
    ap.add_argument("--budget", type=float, default=0, help="seconds; 0: no limit")
    ap.add_argument("--solve-timeout", type=float, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--max-iters", type=int, default=20000, help="PCG iterations")
    ap.add_argument("--max-inner", type=int, default=40000,
                    help="IO-CG: outer limit = this / m_in")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sdainv-acc", default="",
                    help="SD-AINV acc for every matrix (default: spd.tsv's choice, else 1.0)")
    ap.add_argument("--part", default="")
    ap.add_argument("--archive", default="")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--interleave", action="store_true",
                    help="run the matrices' plans side by side (many small matrices)")
    ap.add_argument("--list", action="store_true", help="print the plan and exit")
    ap.add_argument("--stage", action="store_true")
    args = ap.parse_args()
    args.m_in = parse_int_list(args.m_in)
    args.d = parse_int_list(args.d)
    args.variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    args.peers = [v.strip() for v in args.peers.split(",") if v.strip()]
    if args.stage:
        if not os.path.exists(args.bin):
            args.bin = shutil.which("packsell") or ""
        stage(args)
        return 0
    return list_or_run(args, expand_matrices(args.matrices), plan_for, meta, Bench)


def list_or_run(args, matrices, plan, meta_of, bench):
    """--list: print the keys plan(source, args) gives; else write
    meta[-PART].json (meta_of(args, matrices)) into args.out and run
    bench(args).run(matrices). Shared by the benchmarks' drivers."""
    if args.list:
        for s in matrices:
            for key, _, _ in plan(s, args):
                print(key)
        return 0
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"meta{('-' + args.part) if args.part else ''}.json"), "w") as f:
        json.dump(meta_of(args, matrices), f, indent=1)
    bench(args).run(matrices)
    return 0


if __name__ == "__main__":
    sys.exit(main())
