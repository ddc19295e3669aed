#!/bin/bash
# sdainv_ref_compare.sh -- SD-AINV build time and factor size, ours
# (psl_sdainv_build through bench/sdainv_build_bench) against the reference
# code's sequential builder (suzuki-hpc/F3R v1.0.2,
# library/umineko-sparse/preconditioner/ainv.hpp, left_sdainv) in one run,
# on the same Matrix Market files, with the reference drivers' setup
# (symmetric diagonal scaling, tol 0.1, acc given); on one small matrix the
# factors of both are compared entry by entry (|diff| <= 1e-12).
#
# Usage (from the repository root):
#   bash bench/sdainv_ref_compare.sh [MATRIX...]
# MATRIX: "gen:SPEC" (written with `packsell gen SPEC`) or a .mtx path.
# Default: MATDIR/{nos1,bcsstk13,bcsstk16,Dubcova1}.mtx (SPD; the first two fill
# in at tol 0.1), gen:hpcg:6:6:6, gen:hpcg:7:7:7,
# plus gen:hpcg:8:8:8 when MemAvailable is at least SDAINV_MIN_GB_888 (default 32) GiB
# and SKIP_888 is unset (the reference's peak RSS is 2.66 GB on HPCG_7_7_7, so
# about 21 GB on HPCG_8_8_8; ours 2.5 GB, about 20 GB).
# Environment:
#   REF_SRC   the reference source tree (holding library/); default: exported
#             from the mirror REF_MIRROR (default /work/.mirror/suzuki-hpc+F3R/repo,
#             tree REF_REV, default v1.0.2) into bench/.ref-f3r/ (git-ignored)
#   OUT       results folder (default bench/results/2026-12-01-sdainv-build)
#   BUILD     our build folder (default build-sdainv-cmp; configured CPU-only, Release)
#   THREADS   "all threads" count (default nproc)
#   REPS      builds per matrix and code (default 3; 1 for matrices over 100M nonzeros)
#   ACC       acc (default 1.0); TOL (default 0.1)
#   OMP_WAIT_POLICY  default PASSIVE: on a shared machine, spinning idle threads
#             take the core from the sequential left-looking loop (as run_suite.sh)
#   DUMP_MAX_NNZ  the factors of every matrix with fewer entries in its file are
#             compared entry by entry (default 2000000)
#   OURS_RUNS which of our four runs (threads:form; form 1 symmetric, 0 general),
#             default "1:1 all:1 1:0 all:0"; the others read "-" in the table
#   COMMIT    the commit to record when the tree has no .git (as on the device host)
#   WORK      where the .mtx files and dumps go (default $BUILD/sdainv-cmp)
#   MATDIR    the real matrices (default ../shared/matrices, else bench/.ref-f3r/matrices,
#             where the export copies the four above)
# On the device host, with no network: export here first,
# `REF_EXPORT_ONLY=1 bash bench/sdainv_ref_compare.sh` (the reference's library/
# and the four real matrices into the git-ignored bench/.ref-f3r/, ~10 MB), carry
# bench/.ref-f3r and run there (it configures and builds our code itself):
#   SKIP_888=1 bash bench/sdainv_ref_compare.sh                   (a few minutes)
#   OUT=bench/results/2026-12-01-sdainv-build-888 OURS_RUNS="1:1 all:1 all:0" \
#       bash bench/sdainv_ref_compare.sh gen:hpcg:8:8:8              (a second call)
# HPCG_8_8_8 needs ~10 GB of disk for the .mtx, ~21 GB of memory, and several
# minutes (the reference's reader is sequential text parsing: 31 s for
# HPCG_7_7_7 on the development machine, eight times that here).
# g++ only: the reference's headers take the CUDA path whenever
# __has_include("cuda_runtime_api.h") is true, and some hosts have the CUDA
# headers in /usr/local/include; the driver is therefore compiled with
# -nostdinc and the compiler's own search list minus /usr/local/include
# (no source change, no shim header).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
REF_MIRROR=${REF_MIRROR:-/work/.mirror/suzuki-hpc+F3R/repo}
REF_REV=${REF_REV:-v1.0.2}
OUT=${OUT:-bench/results/2026-12-01-sdainv-build}
BUILD=${BUILD:-build-sdainv-cmp}
THREADS=${THREADS:-$(nproc)}
ACC=${ACC:-1.0}
TOL=${TOL:-0.1}
WORK=${WORK:-$BUILD/sdainv-cmp}
CXX=${CXX:-g++}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}

# --- the reference source
if [ -z "${REF_SRC:-}" ]; then
    REF_SRC=bench/.ref-f3r
    if [ ! -d "$REF_SRC/library" ]; then
        mkdir -p "$REF_SRC"
        git -C "$REF_MIRROR" archive "$REF_REV" library | tar -x -C "$REF_SRC"
        echo "$(git -C "$REF_MIRROR" rev-parse "$REF_REV^{commit}") ($REF_REV)" > "$REF_SRC/SOURCE.txt"
    fi
fi
[ -f "$REF_SRC/library/umineko-sparse/preconditioner/ainv.hpp" ] || {
    echo "no reference source in $REF_SRC (REF_SRC must hold library/)" >&2; exit 1; }
ref_id=$(cat "$REF_SRC/SOURCE.txt" 2>/dev/null || echo "$REF_SRC")
real=(nos1 bcsstk13 bcsstk16 Dubcova1)
if [ -d ../shared/matrices ] && [ -d bench/.ref-f3r ] && [ ! -d bench/.ref-f3r/matrices ]; then
    mkdir -p bench/.ref-f3r/matrices
    for r in "${real[@]}"; do cp "../shared/matrices/$r.mtx" bench/.ref-f3r/matrices/; done
fi
MATDIR=${MATDIR:-$([ -d ../shared/matrices ] && echo ../shared/matrices || echo bench/.ref-f3r/matrices)}
[ -n "${REF_EXPORT_ONLY:-}" ] && { echo "reference source in $REF_SRC: $ref_id"; exit 0; }

# --- builds
mkdir -p "$WORK" "$OUT"
if [ ! -f "$BUILD/build.ninja" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=OFF > "$WORK/cmake.log"
fi
cmake --build "$BUILD" -j "$THREADS" --target packsell sdainv_build_bench sdainv_dump > "$WORK/build.log"
inc=$($CXX -std=c++17 -xc++ -E -v /dev/null -o /dev/null 2>&1 |
      sed -n '/search starts here:/,/End of search list/p' | grep '^ /' |
      grep -v '^ /usr/local/include/*$' | sed 's/^ *//')
incflags=(-nostdinc)
for d in $inc; do incflags+=(-isystem "$d"); done
refflags=(-std=c++17 -O3 -fopenmp)
$CXX "${refflags[@]}" "${incflags[@]}" -I "$REF_SRC/library" bench/sdainv_ref_driver.cpp \
    -o "$WORK/sdainv_ref_driver"
PACKSELL=$BUILD/packsell
[ -x "$PACKSELL" ] || PACKSELL=$(find "$BUILD" -maxdepth 2 -name packsell -type f -perm -u+x | head -1)
BENCH=$BUILD/bench/sdainv_build_bench
DUMPER=$BUILD/bench/sdainv_dump

# --- the matrices
memgb=$(awk '/MemAvailable/ {printf "%d", $2 / 1048576}' /proc/meminfo)
notes=()
if [ $# -eq 0 ]; then
    set --
    for r in "${real[@]}"; do set -- "$@" "$MATDIR/$r.mtx"; done
    set -- "$@" gen:hpcg:6:6:6 gen:hpcg:7:7:7
    if [ -n "${SKIP_888:-}" ]; then
        notes+=("HPCG_8_8_8 not in this run (SKIP_888)")
    elif [ "$memgb" -ge "${SDAINV_MIN_GB_888:-32}" ]; then
        set -- "$@" gen:hpcg:8:8:8
    else
        notes+=("HPCG_8_8_8 skipped: MemAvailable ${memgb} GiB < ${SDAINV_MIN_GB_888:-32} GiB")
    fi
fi

# the device host's copy of the tree may have no .git: COMMIT names the code then
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "${COMMIT:-unknown}")
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo "+dirty" || true)
cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -1)
cores=$(nproc)
date_utc=$(date -u +%FT%TZ)
cmdline="bash bench/sdainv_ref_compare.sh $*"
csv=$OUT/sdainv_build.csv
jsonl=$OUT/sdainv_build.jsonl
echo "matrix,n,nnz_a,ref_median_s,ref_min_s,ref_best_cpu_s,ref_peak_rss_mb,ours_sym_1t_median_s,ours_sym_1t_cpu_s,ours_sym_all_median_s,ours_sym_all_cpu_s,ours_gen_1t_median_s,ours_gen_all_median_s,threads,nnz_ref_z,nnz_ref_wt,nnz_ours_zdinv,nnz_ours_wt,nnz_equal,reps" > "$csv"
: > "$jsonl"
log=$OUT/run.log
: > "$log"
: > "$OUT/values.txt"

j() { [ "$1" = - ] && echo null || echo "$1"; }
median() { sort -g | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
# ours: median wall of the "build r: X s (CPU Y s)" lines, best CPU, nnz; args: file threads sym
runs=${OURS_RUNS:-1:1 all:1 1:0 all:0}
run_ours() {
    local f=$1 t=$2 sym=$3 o
    case " $runs " in *" $([ "$t" = 1 ] && echo 1 || echo all):$sym "*) ;; *) echo "- - - -"; return ;; esac
    o=$(OMP_NUM_THREADS=$t "$BENCH" "$f" --scale --tol "$TOL" --acc "$ACC" --sym "$sym" --reps "$reps")
    printf '%s\n' "$o" >> "$log"
    local med cpu js
    med=$(printf '%s\n' "$o" | sed -n 's/^build [0-9]*: \([0-9.]*\) s.*/\1/p' | median)
    js=$(printf '%s\n' "$o" | tail -1)
    cpu=$(printf '%s\n' "$js" | sed 's/.*"best_cpu_s": \([0-9.]*\).*/\1/')
    nzd=$(printf '%s\n' "$js" | sed 's/.*"nnz_zdinv": \([0-9]*\).*/\1/')
    nwt=$(printf '%s\n' "$js" | sed 's/.*"nnz_wt": \([0-9]*\).*/\1/')
    echo "$med $cpu $nzd $nwt"
}

for m in "$@"; do
    case $m in
    gen:*) spec=${m#gen:}; name=$(echo "$spec" | tr ':' '_'); f=$WORK/$name.mtx
        [ -f "$f" ] || "$PACKSELL" gen "$spec" -o "$f" > /dev/null ;;
    *) f=$m; name=$(basename "$m" .mtx)
        [ -f "$f" ] || { notes+=("$m skipped: no such file"); echo "skip $m: no such file" | tee -a "$log"; continue; } ;;
    esac
    nnz_file=$(awk '!/^%/ {print $3; exit}' "$f")
    reps=${REPS:-$([ "$nnz_file" -gt 100000000 ] && echo 1 || echo 3)}
    echo "== $name ($f, $nnz_file entries in the file, $reps reps)" | tee -a "$log"
    # the reference (its builder is sequential; OMP threads only in its reader)
    ro=$(OMP_NUM_THREADS=$THREADS "$WORK/sdainv_ref_driver" "$f" --tol "$TOL" --acc "$ACC" --reps "$reps")
    printf '%s\n' "$ro" >> "$log"
    rj=$(printf '%s\n' "$ro" | tail -1)
    rget() { printf '%s\n' "$rj" | sed "s/.*\"$1\": \([0-9.e+-]*\).*/\1/"; }
    n=$(rget n); nnza=$(rget nnz_a); rmed=$(rget build_median_s); rmin=$(rget build_min_s)
    rrss=$(rget peak_rss_mb); rcpu=$(rget build_best_cpu_s); rz=$(rget nnz_z); rw=$(rget nnz_wt)
    read -r s1 c1 oz ow <<< "$(run_ours "$f" 1 1)"
    read -r sa ca oz2 ow2 <<< "$(run_ours "$f" "$THREADS" 1)"
    read -r g1 _ gz gw <<< "$(run_ours "$f" 1 0)"
    read -r ga _ gz2 gw2 <<< "$(run_ours "$f" "$THREADS" 0)"
    [ "$oz" = - ] && { oz=$oz2; ow=$ow2; }
    [ "$oz" = - ] && { oz=$gz; ow=$gw; }
    [ "$oz" = - ] && { oz=$gz2; ow=$gw2; }
    eq=yes
    for pair in "$oz $ow" "$oz2 $ow2" "$gz $gw" "$gz2 $gw2"; do
        [ "$pair" = "- -" ] || [ "$pair" = "$rz $rw" ] || eq=no
    done
    echo "$name,$n,$nnza,$rmed,$rmin,$rcpu,$rrss,$s1,$c1,$sa,$ca,$g1,$ga,$THREADS,$rz,$rw,$oz,$ow,$eq,$reps" >> "$csv"
    printf '{"matrix": "%s", "n": %s, "nnz_a": %s, "ref_median_s": %s, "ref_min_s": %s, "ref_best_cpu_s": %s, "ref_peak_rss_mb": %s, "ours_sym_1t_median_s": %s, "ours_sym_1t_cpu_s": %s, "ours_sym_all_median_s": %s, "ours_sym_all_cpu_s": %s, "ours_general_1t_median_s": %s, "ours_general_all_median_s": %s, "threads": %s, "nnz_ref_zdinv": %s, "nnz_ref_wt": %s, "nnz_ours_zdinv": %s, "nnz_ours_wt": %s, "nnz_equal": "%s", "reps": %s}\n' \
        "$name" "$n" "$nnza" "$rmed" "$rmin" "$rcpu" "$rrss" "$(j "$s1")" "$(j "$c1")" "$(j "$sa")" "$(j "$ca")" "$(j "$g1")" "$(j "$ga")" "$THREADS" "$rz" "$rw" "$(j "$oz")" "$(j "$ow")" "$eq" "$reps" >> "$jsonl"
    echo "   ref $rmed s (CPU $rcpu s); ours symmetric 1t $s1 s, ${THREADS}t $sa s; general 1t $g1 s, ${THREADS}t $ga s; nnz ref $rz/$rw ours $oz/$ow ($eq)" | tee -a "$log"
    # entry-by-entry comparison on the small matrices
    if [ "$nnz_file" -lt "${DUMP_MAX_NNZ:-2000000}" ]; then
        "$WORK/sdainv_ref_driver" "$f" --tol "$TOL" --acc "$ACC" --reps 1 --dump "$WORK/ref.txt" > /dev/null
        for sym in 1 0; do
            "$DUMPER" "$f" "$WORK/ours$sym.txt" --scale --tol "$TOL" --acc "$ACC" --sym "$sym"
            python3 - "$WORK/ref.txt" "$WORK/ours$sym.txt" "$name" "$sym" >> "$OUT/values.txt" <<'EOF'
import sys
def load(p):
    d = {}
    for line in open(p):
        t, i, j, v = line.split()
        d[(t, int(i), int(j))] = float(v)
    return d
r, o = load(sys.argv[1]), load(sys.argv[2])
only_r = set(r) - set(o); only_o = set(o) - set(r)
diff = max((abs(r[k] - o[k]) for k in r.keys() & o.keys()), default=0.0)
rel = max((abs(r[k] - o[k]) / abs(r[k]) for k in r.keys() & o.keys() if r[k]), default=0.0)
ok = not only_r and not only_o and diff <= 1e-12
form = "symmetric" if sys.argv[4] == "1" else "general"
print(f"{sys.argv[3]} ({form} form): {len(r)} entries (ref), {len(o)} (ours), "
      f"{len(only_r)} only in ref, {len(only_o)} only in ours, max |diff| {diff:.3e}, "
      f"max rel {rel:.3e}: {'SAME within 1e-12' if ok else 'DIFFERENT'}")
EOF
        done
        tail -2 "$OUT/values.txt" | tee -a "$log"
        rm -f "$WORK/ref.txt" "$WORK/ours0.txt" "$WORK/ours1.txt"
    fi
done

{
    echo "{"
    echo "  \"date\": \"$date_utc\", \"commit\": \"$commit$dirty\", \"cpu\": \"$cpu\", \"cores\": $cores,"
    echo "  \"threads\": $THREADS, \"omp_wait_policy\": \"$OMP_WAIT_POLICY\", \"tol\": $TOL, \"acc\": $ACC, \"reference\": \"suzuki-hpc/F3R $ref_id\","
    echo "  \"reference_compiler\": \"$($CXX --version | head -1) ${refflags[*]}\","
    echo "  \"command\": \"$cmdline\", \"mem_available_gib_at_start\": $memgb,"
    echo "  \"rows\": ["
    sed 's/^/    /; $!s/$/,/' "$jsonl"
    echo "  ]"
    echo "}"
} > "$OUT/sdainv_build.json"
rm -f "$jsonl"

{
    echo "# SD-AINV build: ours against the reference's sequential build"
    echo
    echo "Date $date_utc, commit $commit$dirty, $cpu ($cores cores visible, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end),"
    echo "reference suzuki-hpc/F3R $ref_id (\`left_sdainv\`, general form, built with $($CXX --version | head -1), ${refflags[*]})."
    echo "Command: \`$cmdline\` (THREADS=$THREADS, TOL=$TOL, ACC=$ACC, OMP_WAIT_POLICY=$OMP_WAIT_POLICY)."
    echo
    echo "Both codes read the same .mtx file and apply the same symmetric diagonal scaling"
    echo "(\`algorithm::scaling\` / \`psl_matrix_scale_symmetric\`). Build wall seconds, median of"
    echo "the repetitions (reps in the CSV); CPU: the process's CPU seconds, best repetition"
    echo "(the steadier figure on a shared machine). The read and the scaling are not timed."
    echo "Ours: \`sdainv_build_bench FILE --scale --sym 1|0\` (symmetric form: Z only; general:"
    echo "W and Z, the reference's algorithm). nnz: Z D^-1 / W^T."
    echo
    echo "| matrix | n | nnz(A) | reference s (CPU s) | ours sym, 1 thread s (CPU s) | ours sym, $THREADS threads s | ours general, 1 / $THREADS threads s | nnz reference | nnz ours | same nnz |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    tail -n +2 "$csv" | while IFS=, read -r name n nnza rmed rmin rcpu rrss s1 c1 sa ca g1 ga th rz rw oz ow eq reps; do
        echo "| $name | $n | $nnza | $rmed ($rcpu) | $s1 ($c1) | $sa | $g1 / $ga | $rz / $rw | $oz / $ow | $eq |"
    done
    echo
    [ -s "$OUT/values.txt" ] && { echo "Entry-by-entry comparison of the factors (values.txt):"; echo; sed 's/^/- /' "$OUT/values.txt"; echo; }
    for x in "${notes[@]}"; do echo "- $x"; done
    echo
    echo "Files: sdainv_build.csv, sdainv_build.json (with date, commit, CPU, threads, command),"
    echo "run.log (every program's output), values.txt."
} > "$OUT/README.md"
cat "$OUT/README.md"
