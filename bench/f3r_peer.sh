#!/usr/bin/env bash
# f3r_peer.sh -- run the reference code's prebuilt GPU solvers (suzuki-hpc/F3R
# v1.0.2, ../shared/peers/f3r/README.md) on one matrix and turn the CSV line
# each prints into a JSON object like `packsell solve --json`.
#
#   bash bench/f3r_peer.sh [--bin PACKSELL] [--peers DIR] [--work DIR]
#                          [--which cg64,f3r16] [--ave N] [--acc A] [--json FILE] MATRIX
#
# MATRIX: gen:SPEC (written once with `packsell gen` as WORK/matrix/LABEL.mtx)
#         or a Matrix Market file (linked there).
# --peers  the folder holding f3r-gpu-bins.tar.xz and SHA256SUMS (default:
#          .dev-f3r, the carried copy, then ../shared/peers/f3r)
# --which  cg64 (FP64 CG + SD-AINV: `cg64-gpu.exe NAME.mtx ACC AVE`),
#          f3r16 (FP16-F3R with the reference suite's settings:
#          `f3r16-gpu.exe NAME.mtx ACC AVE 8 4 2 64 3`), f3r64, f3r32, gm64
#          (FGMRES(64) + SD-AINV), bicg64 (BiCGStab + SD-AINV)
# --ave    solves per run (the reference reports their mean time; default 5)
# --json   with one --which: its result (several: FILE gets the first, the
#          rest FILE with the name appended)
# The drivers scale A by D^-1/2 on both sides, take b uniform [0,1) from
# std::mt19937_64(0) and stop at an estimated relative residual of 1e-8;
# they open "../matrix/" + argv[1], so they run from WORK/run.
# Output: one CSV line per run on stdout (peer,matrix,method,prec,m2,m3,m4,c,
# precond,acc,time_s,iters,implicit_relres,explicit_relres,wall_s,rc);
# the drivers' own output in WORK/run/PEER_LABEL.log.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=build-solver/packsell PEERS="" WORK=/tmp/f3r-work WHICH=cg64,f3r16 AVE=5 ACC=1.0 JSON=""
while [ $# -gt 1 ]; do
  case "$1" in
    --bin) BIN=$2; shift 2 ;;
    --peers) PEERS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --which) WHICH=$2; shift 2 ;;
    --ave) AVE=$2; shift 2 ;;
    --acc) ACC=$2; shift 2 ;;
    --json) JSON=$2; shift 2 ;;
    *) echo "f3r_peer.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: bash bench/f3r_peer.sh [options] MATRIX" >&2; exit 2; }
SRC=$1
if [ -z "$PEERS" ]; then
  for d in .dev-f3r ../shared/peers/f3r; do
    [ -f "$d/f3r-gpu-bins.tar.xz" ] && { PEERS=$d; break; }
  done
fi
[ -n "$PEERS" ] && [ -f "$PEERS/f3r-gpu-bins.tar.xz" ] ||
  { echo "f3r_peer.sh: no f3r-gpu-bins.tar.xz (stage it: python3 bench/solver_bench.py --stage)" >&2; exit 1; }
mkdir -p "$WORK/bin" "$WORK/matrix" "$WORK/run"
if [ ! -x "$WORK/bin/cg64-gpu.exe" ]; then
  tar xJf "$PEERS/f3r-gpu-bins.tar.xz" -C "$WORK/bin" || exit 1
  if [ -f "$PEERS/SHA256SUMS" ]; then
    sums=$(realpath "$PEERS/SHA256SUMS")
    (cd "$WORK/bin" && sha256sum -c --quiet "$sums") ||
      { echo "f3r_peer.sh: checksum mismatch in $PEERS" >&2; rm -f "$WORK"/bin/*.exe; exit 1; }
  fi
fi

case "$SRC" in
  gen:*) LABEL=$(echo "${SRC#gen:}" | awk -F: '{ printf "%s", toupper($1); for (i = 2; i <= NF; i++) printf "_%s", $i }')
         MTX="$WORK/matrix/$LABEL.mtx"
         if [ ! -s "$MTX" ]; then
           t0=$(date +%s)
           "$BIN" gen "${SRC#gen:}" -o "$MTX.part" >/dev/null && mv "$MTX.part" "$MTX" ||
             { echo "f3r_peer.sh: packsell gen $SRC failed" >&2; exit 1; }
           echo "f3r_peer.sh: wrote $MTX in $(( $(date +%s) - t0 )) s" >&2
         fi ;;
  *) LABEL=$(basename "$SRC"); LABEL=${LABEL%.mtx}
     MTX="$WORK/matrix/$LABEL.mtx"
     ln -sf "$(realpath "$SRC")" "$MTX" ;;
esac

first=1 status=0
for peer in ${WHICH//,/ }; do
  case "$peer" in
    cg64|gm64|bicg64) args=("$LABEL.mtx" "$ACC" "$AVE") ;;
    f3r16|f3r32|f3r64) args=("$LABEL.mtx" "$ACC" "$AVE" 8 4 2 64 3) ;;
    *) echo "f3r_peer.sh: unknown peer $peer (cg64, gm64, bicg64, f3r16, f3r32, f3r64)" >&2; status=2; continue ;;
  esac
  exe="$WORK/bin/$peer-gpu.exe"
  logf="$WORK/run/${peer}_$LABEL.log"
  t0=$(date +%s%N)
  (cd "$WORK/run" && "$exe" "${args[@]}") >"$logf" 2>&1
  rc=$?
  wall=$(( ($(date +%s%N) - t0) / 1000000 ))
  wall=$(printf '%d.%03d' $((wall / 1000)) $((wall % 1000)))
  # the result line: NAME,METHOD,PREC,M2,M3,M4,C,SDAINV,ACC,time,iters,implicit,explicit
  line=$(grep -E '^[^,]+(,[^,]*){12}$' "$logf" | tail -1)
  echo "$peer,$line,$wall,$rc"
  [ -n "$line" ] || { echo "f3r_peer.sh: $peer printed no result line (exit $rc); end of its log:" >&2; tail -5 "$logf" >&2; status=1; }
  out=$JSON
  [ -n "$JSON" ] && [ $first = 0 ] && out="$JSON.$peer"
  first=0
  [ -n "$out" ] || continue
  python3 - "$out" "$peer" "$SRC" "$MTX" "$wall" "$rc" "$line" "${args[*]}" <<'EOF'
import json, math, sys
out, peer, src, mtx, wall, rc, line, args = sys.argv[1:9]
f = line.split(",") if line else []
nrows = nnz = None
with open(mtx) as fh:
    for l in fh:
        if not l.startswith("%"):
            nrows, _, nnz = (int(v) for v in l.split()[:3])
            break
d = {"command": f"{peer}-gpu.exe {args}", "peer": "suzuki-hpc/F3R v1.0.2 " + peer,
     "matrix": src, "nrows": nrows, "nnz": nnz, "device": "cuda", "scale": "symmetric",
     "tol": 1e-8, "stopping_rule": "estimated (recursive) relres < 1e-8", "rc": int(rc),
     "wall_s": float(wall)}
if len(f) == 13:
    t, it, imp, exp = float(f[9]), int(f[10]), float(f[11]), float(f[12])
    d.update(method=f[1], precond=f[7].lower(), vectors=f[2], sdainv={"tol": 0.1, "acc": float(f[8])},
             m=[int(v) for v in f[3:7]], solve_s=t, iterations=it, relres=exp,
             relres_recursive=imp, status=("nonfinite" if not (math.isfinite(imp) and math.isfinite(exp))
                     else "converged" if imp < 1e-8 else "max-iters"),
             time_per_iteration_s=t / it if it else None,
             note="time: mean of the reference's solves; F3R iterations = outer x m2*m3*m4")
else:
    d.update(status="error", note="no result line")
with open(out, "w") as fh:
    json.dump(d, fh, indent=1)
EOF
done
exit $status
