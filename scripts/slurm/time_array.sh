#!/usr/bin/env bash
# Wall time of a sweep run as one process against the same sweep as a Slurm job array, side by
# side on the same machine (docs/benchmarks.md). Needs an answering Slurm controller
# (scripts/slurm/single_node.sh up) and a release build.
#
#   scripts/slurm/time_array.sh [TASKS] [SWEEP]
#   scripts/slurm/time_array.sh 4 sweeps/stick_slip.toml
#
# One process: `stickslip sweep SWEEP --out DIR` with its default --jobs (every core), then
# `sweep collect`. The array: scripts/slurm/stick_slip_array.sbatch with --array=0-(TASKS-1),
# --cpus-per-task=1, timed from sbatch until the array and its dependent collect job have left
# the queue (squeue polled every 0.2 s), so it includes Slurm's scheduling and start-up. The two
# maps are compared at the end. Both directories are temporary and removed on exit.
set -euo pipefail
tasks=${1:-4}
root=$(cd "$(dirname "$0")/../.." && pwd)
sweep=$(realpath "${2:-$root/sweeps/stick_slip.toml}")
bin=$root/target/release/stickslip
[ -x "$bin" ] || cargo build --release --manifest-path "$root/Cargo.toml" --bin stickslip
scontrol ping | grep -q 'is UP' || { echo "time_array.sh: no Slurm controller answers" >&2; exit 1; }
work=$(mktemp -d "$root/target/time_array.XXXXXX")
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }

t0=$(now)
"$bin" sweep "$sweep" --out "$work/single" 2>"$work/single.log"
"$bin" sweep collect "$work/single" >/dev/null 2>&1
t1=$(now)

name=time-array-$$
t2=$(now)
job=$(cd "$work" && STICKSLIP_BIN=$bin STICKSLIP_SWEEP=$sweep STICKSLIP_OUT=$work/array \
  sbatch --parsable --array=0-$((tasks - 1)) --cpus-per-task=1 --job-name="$name" \
  "$root/scripts/slurm/stick_slip_array.sbatch")
while [ -n "$(squeue --noheader --name="$name,$name-collect")" ]; do sleep 0.2; done
t3=$(now)

if cmp -s "$work/single/map.csv" "$work/array/map.csv"; then same="identical"; else same="DIFFERENT"; fi
cells=$(($(wc -l <"$work/single/map.csv") - 1))
echo "sweep $(basename "$sweep"): $cells cells on $(nproc) CPUs; map.csv of the two: $same"
printf '  one process (--jobs default)      : %6.1f s  (sweep + collect)\n' "$(echo "$t1 - $t0" | bc -l)"
printf '  Slurm array of %2d tasks (job %s): %6.1f s  (sbatch to empty queue, collect job included)\n' \
  "$tasks" "$job" "$(echo "$t3 - $t2" | bc -l)"
grep -h 'cells/s' "$work/single.log" | sed 's/^/  one process: /'
grep -h 'cells/s' "$work"/slurm-"$name"-*.out | sed 's/^/  array task: /'
