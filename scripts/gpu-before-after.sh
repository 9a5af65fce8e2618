#!/usr/bin/env bash
# Two builds side by side on one GPU machine, to show that a change kept (or moved) the
# throughput: each wheel is installed into a folder of its own, then the env step, the
# simulator and the training benchmarks run for both, alternating BEFORE and AFTER ROUNDS
# times so that the machine's drift falls on both alike. Each run writes
# OUTDIR/{before,after}_{env,sim,train}_R.json; the last lines print the medians and the
# after/before ratios (scripts/before_after_summary.py).
#   bash scripts/gpu-before-after.sh BEFORE.whl AFTER.whl OUTDIR [ROUNDS]   (default 2)
# Needs torch and gymnasium in the machine's Python (the carried wheels) and a Vulkan loader.
set -uo pipefail
before=${1:?usage: gpu-before-after.sh BEFORE.whl AFTER.whl OUTDIR [ROUNDS]}
after=${2:?usage: gpu-before-after.sh BEFORE.whl AFTER.whl OUTDIR [ROUNDS]}
out=${3:?usage: gpu-before-after.sh BEFORE.whl AFTER.whl OUTDIR [ROUNDS]}
rounds=${4:-2}
root=${ROOT:-/tmp/before-after}
data=$root/data
mkdir -p "$out" "$root"
here="$(cd "$(dirname "$0")" && pwd)"
export PYTHONUNBUFFERED=1 BATCHSIM_VALIDATION=0
cd "$root"  # no batchsim source folder on the path: each build comes from its own folder

for build in before after; do
  wheel=$before; [ "$build" = after ] && wheel=$after
  python3 -m pip install -q --no-deps --target "$root/$build" "$wheel" || exit 1
done
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
PYTHONPATH=$root/after python3 -m batchsim procgen --out "$data" --num-scenes 100 --seed 0 \
  --no-glb > "$out/procgen.log" 2>&1 || { tail "$out/procgen.log"; exit 1; }

run() {  # run BUILD NAME ROUND ARGS...: one benchmark of one build, its JSON kept
  local build=$1 name=$2 round=$3; shift 3
  PYTHONPATH=$root/$build python3 -m batchsim bench "$name" "$@" \
    --out "$out/${build}_${name}_${round}.json" > "$out/${build}_${name}_${round}.log" 2>&1 \
    || tail -n 5 "$out/${build}_${name}_${round}.log"
}
for round in $(seq 1 "$rounds"); do
  for build in before after; do
    echo "round $round: $build"
    run "$build" env "$round" --envs 4096 --steps 50 --runs 3 --warmup 10 --actions drawn
    run "$build" sim "$round" --num-envs 4096 --threads 16 --geodesic corridor --data "$data"
    run "$build" train "$round" --preset pointnav-depth --warmup 3 --updates 10 \
      "dataset=$data/pointnav/train"
  done
done
python3 "$here/before_after_summary.py" "$out"
