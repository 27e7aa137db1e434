#!/usr/bin/env bash
# Side by side with the book's own code (../shared/reference/run_reference.py; needs numpy and
# scipy): the same scene, the same number of steps, time per step of each and the ratio.
#
#   scripts/side_by_side.sh [MU] [STEPS] [N_SEG] [extra --set KEY=VALUE for stickslip ...]
#   scripts/side_by_side.sh 0.11 800 4
#   scripts/side_by_side.sh 0.11 100 16 newton.projection=none
#
# stickslip's time is the wall time of its stepping loop as `run` reports it in summary.json
# (wall_seconds, which includes the cross-check post-pass; --gpu off keeps it on the CPU), the
# reference's its own wall_s over the stepping loop (run_reference.py), both excluding process
# start-up. The machine is shared and its speed drifts from one minute to the next, so the two
# are interleaved: the reference runs REFERENCE_RUNS times (default 2), with three stickslip runs
# before, between and after (3·(REFERENCE_RUNS + 1) in all), and the ratio is the median of the
# reference's times over the median of stickslip's. Every time is printed. Run on an otherwise
# idle machine: both share the CPU with whatever else runs.
#
# STICKSLIP_BASELINE=/path/to/an/other/stickslip adds a second build, run right after each
# stickslip run (the same interleaving), with its own ratio: a before/after comparison of two
# builds from one run.
set -euo pipefail
mu=${1:-0.11}; steps=${2:-800}; n_seg=${3:-4}; shift $(( $# < 3 ? $# : 3 ))
root=$(cd "$(dirname "$0")/.." && pwd)
ref=${STICKSLIP_REFERENCE:-$root/../shared/reference/run_reference.py}
bin=$root/target/release/stickslip
[ -x "$bin" ] || cargo build --release --manifest-path "$root/Cargo.toml" --bin stickslip
case_file=$root/cases/slope_mu0.11.toml  # μ set below
h=0.01
sets=(--set "square.n_seg=$n_seg" --set "friction.mu=$mu")
for s in "$@"; do sets+=(--set "$s"); done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
walls=()
base_walls=()
ref_ms=()
baseline=${STICKSLIP_BASELINE:-}
one_run() {  # BIN: prints its wall seconds and Newton iterations
  rm -rf "$out/run"
  "$1" run "$case_file" --gpu off --duration "$(echo "$steps * $h" | bc -l)" --out "$out/run" "${sets[@]}" > /dev/null
  python3 -c "import json,sys; s=json.load(open('$out/run/summary.json')); print(s['wall_seconds'], s['solver']['newton_iterations'])"
}
run_stickslip() {
  read -r ss_wall ss_iters < <(one_run "$bin")
  walls+=("$ss_wall")
  if [ -n "$baseline" ]; then
    read -r base_wall base_iters < <(one_run "$baseline")
    base_walls+=("$base_wall")
  fi
}
reference_runs=${REFERENCE_RUNS:-2}
for _ in 1 2 3; do run_stickslip; done
for _ in $(seq "$reference_runs"); do
  ref_json=$(python3 "$ref" --mu "$mu" --steps "$steps" --n-seg "$n_seg")
  ref_ms+=("$(python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d['ms_per_step'])" "$ref_json")")
  for _ in 1 2 3; do run_stickslip; done
done
python3 - "$(IFS=,; echo "${walls[*]}")" "$ss_iters" "$steps" "$ref_json" "$n_seg" "$mu" "$(IFS=,; echo "${ref_ms[*]}")" "$(IFS=,; echo "${base_walls[*]}")" "${base_iters:-0}" "$baseline" <<'PY'
import json, statistics, sys
walls = [float(w) for w in sys.argv[1].split(",")]
ss_iters, steps, ref, n_seg, mu = int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5], sys.argv[6]
ref_ms = [float(r) for r in sys.argv[7].split(",")]
base_walls = [float(w) for w in sys.argv[8].split(",") if w]
base_iters, baseline = int(sys.argv[9]), sys.argv[10]
ss_ms = 1e3 * statistics.median(walls) / steps
book_ms = statistics.median(ref_ms)
print(f"mu = {mu}, n_seg = {n_seg}, {steps} steps")
print(f"  book's code : {book_ms:10.3f} ms/step, {ref['newton_iterations']} Newton iterations (median of "
      f"{len(ref_ms)} runs: " + ", ".join(f"{r:.3f}" for r in ref_ms) + " ms/step)")
print(f"  stickslip   : {ss_ms:10.4f} ms/step, {ss_iters} Newton iterations (median of {len(walls)} runs: "
      + ", ".join(f"{1e3 * w / steps:.4f}" for w in walls) + " ms/step)")
print(f"  ratio       : {book_ms / ss_ms:10.0f} x")
if base_walls:
    base_ms = 1e3 * statistics.median(base_walls) / steps
    print(f"  baseline    : {base_ms:10.4f} ms/step, {base_iters} Newton iterations ({baseline}; median of "
          f"{len(base_walls)} runs: " + ", ".join(f"{1e3 * w / steps:.4f}" for w in base_walls) + " ms/step)")
    print(f"  ratio       : {book_ms / base_ms:10.0f} x (baseline); stickslip / baseline time {ss_ms / base_ms:.3f}")
PY
