#!/usr/bin/env python3
"""chooser_eval.py -- evaluate (and refit) the format chooser's cost model
on `packsell bench --device cuda` JSON files.

For every matrix and precision (FP16, FP32) it takes the chooser's
candidates -- from the "auto-fp16"/"auto-fp32" rows the bench writes (their
"choice" holds each candidate's bytes, slice widths and model row), or, for
older JSON without them, rebuilt from the timed rows -- predicts each
candidate's time with a constants table (the one of src/format/choose.c by
default), picks the smallest, and compares with the measured times:

  fastest   how often the pick is the fastest timed candidate
  vs best   the pick's time over the fastest candidate's (worst, geomean)
  speed     fastest cuSPARSE kernel of the value width (CSR/SELL/COO/BSR)
            over the pick's time, per matrix; the issue's target: >= 0.95

Usage: python3 bench/chooser_eval.py RESULTS_DIR [--constants FILE.json] [--fit]
                                    [--csv FILE] [--quiet]
  --constants  a JSON object {model: [launch_us, eff, row_ns, word_ns_l2,
               word_ns_mem]} overriding rows of the table
  --fit        refit launch (one per family), eff and row_ns by least squares
               on relative error (word_ns is kept: see fit()); print the
               table as C rows for src/format/choose.c and evaluate with it
No third-party modules.
"""
import argparse
import glob
import json
import math
import os
import sys

# The constants of src/format/choose.c: model -> (launch_us, eff, row_ns,
# word_ns_l2, word_ns_mem). Keep the two tables equal.
MODELS = {
    "packsell16": (4.60, 0.782, 0.0000, 60.0, 150.0),
    "packsell32": (4.60, 0.837, 0.0000, 60.0, 150.0),
    "sell16": (4.60, 0.828, 0.0000, 60.0, 150.0),
    "sell32": (4.60, 0.886, 0.0000, 60.0, 150.0),
    "sell64": (4.60, 0.886, 0.0000, 60.0, 150.0),
    "csr32": (7.55, 0.665, 0.0000, 0.0, 0.0),
    "csr64": (7.55, 0.724, 0.0047, 0.0, 0.0),
}
# choose.c's tuning table (the sliced kernel classes' common constants).
SPLIT_US = 3.0      # the finishing kernel of slices split over several blocks
SHORT_WIDTH = 8              # PackSELL short-row kernel: slices at most this wide,
SHORT_WALK = 4               # its row costs one group of the general kernel
SHORT_GROUP_SMALL = 16       # small matrices: one group of 16 positions up to 16 wide, else 2
# The kernels' rules (src/format/gpu_rules.h).
SOLO_SEG = 16                # PSL_WIDE_SOLO_SEG
SHORT_WIDTH_SMALL = 32       # PSL_SHORT_WIDE_SMALL: short-row kernel of a small matrix
SMALL_ROWS_PER_SM = 512      # PSL_SMALL_ROWS_PER_SM: small matrix, at most SMs x this
WIDE_CLUSTER_MAX = 16        # PSL_WIDE_CLUSTER_MAX: the kernels' largest cluster
# psl_device_model_default of choose.c: the H200 the constants were fitted
# on. A bench JSON's auto rows record the device model they predicted with
# (choice.device_model); their cases are evaluated with it.
DEFAULT_DEVICE = {"sm_count": 132, "threads_per_sm": 2048, "l2_bytes": 50000000,
                  "copy_gbs": 4258.0, "cluster_max": 16}


def device_terms(dev):
    """The model's device figures (choose.c's device_terms_of)."""
    cl = 1
    while cl * 2 <= dev["cluster_max"] and cl * 2 <= WIDE_CLUSTER_MAX:
        cl *= 2
    return {"bw": dev["copy_gbs"] * 1e3,  # bytes per microsecond, read + write
            "warps": float(dev["sm_count"] * dev["threads_per_sm"] // 32),
            "l2": float(dev["l2_bytes"]),  # matrices below stay in L2 between runs
            "lat_rows": dev["sm_count"] * SMALL_ROWS_PER_SM,
            "cl_max": cl}


DEFAULT_TERMS = device_terms(DEFAULT_DEVICE)
FAMILIES = {"sliced": ["packsell16", "packsell32", "sell16", "sell32", "sell64"],
            "csr": ["csr32", "csr64"]}
PRECISIONS = ("fp16", "fp32")


def wide_rule(rows, max_width, t):
    """(wide_min, seg, cl): psl_wide_rule of src/format/gpu_rules.h on the
    device terms t (keep the two equal)."""
    cl_max = t["cl_max"]
    if rows >= 1 << 17:
        return 64, 32, 1
    if rows <= t["lat_rows"] and max_width <= SHORT_WIDTH_SMALL:
        return SHORT_WIDTH_SMALL + 1, 8, 1  # the short-row kernels take it whole
    seg = 8
    while seg < SOLO_SEG and seg * 8 < max_width:
        seg *= 2
    if seg * 8 >= max_width:
        return 16, seg, 1
    seg = 8
    while seg < 32 and seg * 8 * cl_max < max_width:
        seg *= 2
    cl = 1
    while cl < cl_max and seg * 8 * cl < max_width:
        cl *= 2
    return 16, seg, cl if seg * 8 * cl >= max_width else 1


def split(rows, max_width, t):
    """Whether the finishing kernel runs: a split slice wider than one block
    and no cluster for it."""
    wide_min, seg, cl = wide_rule(rows, max_width, t)
    return max_width >= wide_min and cl == 1 and max_width > seg * 8


def walk(rows, max_width, t):
    """The longest walk of one thread after the kernels split long rows."""
    if max_width <= 0:
        return 0
    wide_min, seg, _ = wide_rule(rows, max_width, t)
    return max_width if max_width < wide_min else max(wide_min - 1, seg)


def walk_of(model, rows, max_width, t):
    """walk(), but a row that a short-row kernel loads in one go
    (psl_short_words of src/kernels/cuda/wide.cuh: PackSELL, and SELL in a
    small matrix) counts as one group of the general kernel (SHORT_WALK
    words). Keep equal to choose.c."""
    w = walk(rows, max_width, t)
    wide_min = wide_rule(rows, max_width, t)[0]
    if 0 < max_width < wide_min and model.startswith("packsell") and max_width <= SHORT_WIDTH:
        return min(w, SHORT_WALK)
    if 0 < max_width < wide_min and rows <= t["lat_rows"] and max_width <= SHORT_WIDTH_SMALL:
        # the 32-position kernel costs a group of 16 twice
        return min(w, SHORT_WALK * (1 if max_width <= SHORT_GROUP_SMALL else 2))
    return w


def predict(c, rows, models, t=DEFAULT_TERMS):
    """(predicted_us, bandwidth_us, latency_us) of a candidate dict on the
    device terms t."""
    launch, eff, row_ns, wl2, wmem = models[c["model"]]
    total = c["bytes"] + c["vector_bytes"]
    bw = total / (eff * t["bw"]) + rows * row_ns * 1e-3
    word_ns = wl2 if total < t["l2"] else wmem
    lat = word_ns * 1e-3 * max(walk_of(c["model"], rows, c["max_width"], t),
                               c["sum_width"] / t["warps"])
    finish = SPLIT_US if c["max_width"] > 0 and split(rows, c["max_width"], t) else 0.0
    return launch + max(bw, lat) + finish, bw, lat


def rebuilt_candidates(data, ks, prec):
    """Candidates of a JSON without auto rows, from the timed rows (slice
    widths approximated by the row lengths: exact enough for regular rows)."""
    n, m = data["rows"], data["cols"]
    wmax = data.get("max_row_nnz", 0)
    out = []

    def add(kernel, model, vs, word_bytes):
        if kernel not in ks:
            return
        b = ks[kernel]["bytes"]
        out.append({"kernel": kernel, "model": model, "bytes": b, "vector_bytes": vs * (n + m),
                    "max_width": wmax if word_bytes else 0,
                    "sum_width": b / word_bytes / data.get("C", 32) if word_bytes else 0})
    if prec == "fp16":
        add("packsell-bf16" if "packsell-fp16" not in ks else "packsell-fp16", "packsell16", 2, 4)
        add("sell-fp16", "sell16", 2, 6)
    else:
        e = [k for k in ("packsell-e8m21", "packsell-e8m20") if k in ks]
        if e:  # the fewer bytes, D = 1 on a tie
            add(min(e, key=lambda k: (ks[k]["bytes"], k != "packsell-e8m21")), "packsell32", 4, 4)
        add("sell-fp32", "sell32", 4, 8)
    add("cusparse-csr-fp32", "csr32", 4, 0)
    return out


def cases(runs):
    """One record per matrix and precision: candidates with their measured
    times, the fastest cuSPARSE time of the width, the bench's own pick."""
    out = []
    for name, data in sorted(runs.items()):
        ks = {k["kernel"]: k for k in data["kernels"] if k.get("ok") and "median_us" in k}
        for prec in PRECISIONS:
            auto = next((k for k in data["kernels"] if k.get("kernel") == f"auto-{prec}"), None)
            terms = DEFAULT_TERMS
            if auto and "choice" in auto:
                cands = [dict(c) for c in auto["choice"]["candidates"]]
                recorded = auto["choice"]["pick_kernel"]
                if "device_model" in auto["choice"]:
                    terms = device_terms(auto["choice"]["device_model"])
            else:
                cands = rebuilt_candidates(data, ks, prec)
                recorded = None
            for c in cands:
                c["measured_us"] = ks[c["kernel"]]["median_us"] if c["kernel"] in ks else None
            cus = [k for n_, k in ks.items()
                   if k.get("library") == "cusparse" and n_.endswith("-" + prec)]
            best_cus = min(cus, key=lambda k: k["median_us"]) if cus else None
            if not cands:
                continue
            out.append({"matrix": name, "precision": prec, "rows": data["rows"],
                        "nnz": data["nnz"], "rsd": data["rsd"], "candidates": cands,
                        "terms": terms,
                        "recorded_pick": recorded,
                        "best_cusparse": best_cus["kernel"] if best_cus else None,
                        "best_cusparse_us": best_cus["median_us"] if best_cus else None})
    return out


def evaluate(cs, models):
    """Per case: the model's pick and the ratios; returns a list of rows."""
    rows = []
    for c in cs:
        preds = [predict(k, c["rows"], models, c["terms"])[0] for k in c["candidates"]]
        pi = min(range(len(preds)), key=lambda i: (preds[i], i))
        pick = c["candidates"][pi]
        timed = [k for k in c["candidates"] if k["measured_us"] is not None]
        best = min(timed, key=lambda k: k["measured_us"]) if timed else None
        t = pick["measured_us"]
        rows.append({
            "matrix": c["matrix"], "precision": c["precision"], "nnz": c["nnz"],
            "rsd": c["rsd"], "pick": pick["kernel"], "predicted_us": preds[pi],
            "measured_us": t, "recorded_pick": c["recorded_pick"],
            "best": best["kernel"] if best else None,
            "best_us": best["measured_us"] if best else None,
            "vs_best": t / best["measured_us"] if t and best else None,
            "best_cusparse": c["best_cusparse"], "best_cusparse_us": c["best_cusparse_us"],
            "speed_vs_cusparse": c["best_cusparse_us"] / t if t and c["best_cusparse_us"] else None,
        })
    return rows


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def summary(rows, prec):
    """Aggregate numbers of one precision (dict)."""
    r = [x for x in rows if x["precision"] == prec and x["vs_best"] is not None]
    sp = [x for x in r if x["speed_vs_cusparse"] is not None]
    worst = min(sp, key=lambda x: x["speed_vs_cusparse"]) if sp else None
    return {
        "precision": prec, "matrices": len(r),
        "fastest": sum(1 for x in r if x["vs_best"] <= 1.0),
        "worst_vs_best": max((x["vs_best"] for x in r), default=float("nan")),
        "geomean_vs_best": geomean([x["vs_best"] for x in r]),
        "min_speed_vs_cusparse": worst["speed_vs_cusparse"] if worst else float("nan"),
        "min_speed_matrix": worst["matrix"] if worst else None,
        "below_target": sorted(x["matrix"] for x in sp if x["speed_vs_cusparse"] < 0.95),
    }


def solve(a, b):
    """Gaussian elimination with partial pivoting (small dense systems)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        if abs(m[i][i]) < 1e-300:
            return None
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [x - f * y for x, y in zip(m[r], m[i])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit_rates(pts, launch):
    """(1/eff, row_ns) >= 0 minimizing the relative error of
    t = launch + bytes/BW * (1/eff) + rows * row_ns / 1000 (BW: each
    point's device)."""
    feats = [[p["bytes"] / p["terms"]["bw"], p["rows"] * 1e-3] for p in pts]
    act = [0, 1]
    while act:
        a = [[sum(f[i] * f[j] / p["t"] ** 2 for f, p in zip(feats, pts)) for j in act]
             for i in act]
        b = [sum(f[i] * (p["t"] - launch) / p["t"] ** 2 for f, p in zip(feats, pts)) for i in act]
        x = solve(a, b)
        if x is None:
            return None
        neg = [act[k] for k in range(len(x)) if x[k] < 0]
        if not neg:
            coef = [0.0, 0.0]
            for k, i in enumerate(act):
                coef[i] = x[k]
            err = sum(((launch + coef[0] * f[0] + coef[1] * f[1]) / p["t"] - 1) ** 2
                      for f, p in zip(feats, pts))
            return coef, err
        act.remove(neg[0])
    return None


def fit(cs, models):
    """Refit the table from every timed candidate; returns a new table."""
    pts = {m: [] for m in models}
    for c in cs:
        for k in c["candidates"]:
            if k["measured_us"] is None or k["model"] not in pts:
                continue
            pts[k["model"]].append({"bytes": k["bytes"] + k["vector_bytes"], "rows": c["rows"],
                                    "t": k["measured_us"], "w": k["max_width"],
                                    "ws": k["sum_width"], "terms": c["terms"]})
    new = dict(models)
    for fam, names in FAMILIES.items():
        # streaming points: those the latency term of the current table does not decide
        stream = {n: [p for p in pts[n] if models[n][3] == 0 or
                      predict({"model": n, "bytes": p["bytes"], "vector_bytes": 0,
                               "max_width": p["w"], "sum_width": p["ws"]}, p["rows"], models,
                              p["terms"])[2]
                      < 0.5 * p["t"]] for n in names}
        have = [n for n in names if len(stream[n]) >= 3]
        if not have:
            continue
        best = None
        for step in range(0, 300):
            launch = step * 0.05
            fits = [fit_rates(stream[n], launch) for n in have]
            if any(f is None for f in fits):
                continue
            err = sum(f[1] for f in fits)
            if best is None or err < best[0]:
                best = (err, launch, fits)
        if best is None:
            continue
        _, launch, fits = best
        for n, (coef, _) in zip(have, fits):
            old = models[n]
            new[n] = (round(launch, 2), round(1 / coef[0], 3) if coef[0] > 0 else old[1],
                      round(coef[1], 4), old[3], old[4])
        for n in names:  # rows without data keep their rates, take the launch
            if n not in have:
                new[n] = (round(launch, 2),) + tuple(models[n][1:])
    # word_ns is not refit: with long rows split over warps the walk left is
    # at most 63 words, and the sliced points far above their streaming
    # prediction are the random-column matrices, slow from x gathers (which
    # the model has no term for, and which slow CSR as much), not from walks:
    # their excess divided by the walk would be word latencies of ~1 us that
    # send every large stencil to CSR (bench/NOTES.md, The chooser).
    return new


def print_table(models, out=sys.stdout):
    print("    /* name          launch   eff    row_ns  word_ns L2, HBM */", file=out)
    for n, v in models.items():
        print(f'    {{"{n}", {v[0]:.2f}, {v[1]:.3f}, {v[2]:.4f}, {v[3]:.1f}, {v[4]:.1f}}},',
              file=out)


def load(results_dir):
    runs = {}
    for path in sorted(glob.glob(os.path.join(results_dir, "*.json"))):
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            print(f"skipping {path}: {e}", file=sys.stderr)
            continue
        if "kernels" in data and data.get("device") == "cuda":
            runs[os.path.splitext(os.path.basename(path))[0]] = data
    return runs


def report(rows, out=sys.stdout):
    print(f"{'matrix':<20} {'prec':<5} {'pick':<18} {'pred_us':>9} {'meas_us':>9} "
          f"{'fastest candidate':<18} {'vs_best':>7} {'cuSPARSE best':<20} {'speed':>6}",
          file=out)
    fmt = lambda v, f: format(v, f) if v is not None else "-"
    for r in rows:
        print(f"{r['matrix']:<20} {r['precision']:<5} {r['pick']:<18} "
              f"{r['predicted_us']:9.2f} {fmt(r['measured_us'], '9.2f'):>9} "
              f"{(r['best'] or '-'):<18} {fmt(r['vs_best'], '7.3f'):>7} "
              f"{(r['best_cusparse'] or '-'):<20} {fmt(r['speed_vs_cusparse'], '6.3f'):>6}",
              file=out)
    for prec in PRECISIONS:
        s = summary(rows, prec)
        print(f"{prec}: pick fastest on {s['fastest']} of {s['matrices']}; vs fastest candidate "
              f"worst {s['worst_vs_best']:.3f}, geomean {s['geomean_vs_best']:.3f}; speed vs "
              f"fastest cuSPARSE min {s['min_speed_vs_cusparse']:.3f} ({s['min_speed_matrix']}), "
              f"{len(s['below_target'])} below 0.95: {', '.join(s['below_target']) or '-'}",
              file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results_dir")
    ap.add_argument("--constants", help="JSON {model: [launch, eff, row_ns, wl2, wmem]}")
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--csv", help="write the per-matrix rows as CSV")
    ap.add_argument("--quiet", action="store_true", help="summary lines only")
    args = ap.parse_args()
    models = dict(MODELS)
    if args.constants:
        with open(args.constants) as f:
            for k, v in json.load(f).items():
                models[k] = tuple(float(x) for x in v)
    runs = load(args.results_dir)
    if not runs:
        sys.exit(f"no CUDA bench JSON files in {args.results_dir}")
    cs = cases(runs)
    rows = evaluate(cs, models)
    mism = [r for r in rows if r["recorded_pick"] and r["recorded_pick"] != r["pick"]]
    print(f"{len(runs)} matrices; constants: {'given' if args.constants else 'choose.c'}")
    if mism and not args.constants:
        print(f"note: {len(mism)} picks differ from the bench's recorded pick (table changed?)")
    if args.quiet:
        for prec in PRECISIONS:
            print(summary(rows, prec))
    else:
        report(rows)
    if args.fit:
        new = fit(cs, models)
        print("\nfitted constants (paste into src/format/choose.c and MODELS here):")
        print_table(new)
        print("\nwith the fitted constants:")
        report(evaluate(cs, new))
    if args.csv:
        import csv
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
