#!/usr/bin/env bash
# Four 15-minute one-GPU trainings side by side on a 4-GPU, 64-core node (issue 38's
# ablation), in phases that fit the device tool's 10-minute calls; the runs go on between
# calls (setsid). Every phase writes under $ROOT and copies its logs to OUTDIR.
#   bash scripts/gpu-ablation.sh setup OUTDIR    datasets, then the runs start (detached)
#   bash scripts/gpu-ablation.sh wait OUTDIR [S] until the runs end, at most S seconds (570)
#   bash scripts/gpu-ablation.sh eval OUTDIR     test curves, val and the real building
#   bash scripts/gpu-ablation.sh bench OUTDIR    training frames/s: 4 GPUs, 1, two at once
# The datasets: 1,000 procgen scenes (seed 0: 800 train, 100 val, 100 test; the protocol's
# val1k and test1k are the first 10 episodes of each val and test scene) and 10,000 more
# (seed 1, disjoint from the first: its 8,000 train scenes test "more buildings").
set -uo pipefail
phase=${1:?usage: gpu-ablation.sh setup|wait|eval|bench OUTDIR}
out=${2:?usage: gpu-ablation.sh PHASE OUTDIR}
root=${ROOT:-/tmp/ablation}
# For a dry run on a small machine: fewer scenes, a shorter limit, another preset, overrides.
read -r scenes_a scenes_b <<< "${ABLATION_SCENES:-1000 10000}"
limit_s=${ABLATION_TIME_LIMIT:-885}
preset=${ABLATION_PRESET:-pointnav-depth}
extra=${ABLATION_OVERRIDES:-}
envs=${ABLATION_EVAL_ENVS:-1000} real=${ABLATION_REAL_EPISODES:-1000}
runs=$root/runs
d1k=$root/d1k d10k=$root/d10k
mkdir -p "$out" "$runs"
cd "$(dirname "$0")/.."
sbs() { python3 scripts/side_by_side.py --out "$runs" "$@"; }
logs() { tar -C "$root" -czf "$out/logs.tgz" --exclude='*.pt' --exclude='events.out*' runs; }

case $phase in
setup)
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nproc
  # The GLBs are for Habitat users; training reads the packed scenes alone.
  time python3 -m batchsim procgen --out "$d1k" --num-scenes "$scenes_a" --seed 0 --no-glb
  time python3 -m batchsim procgen --out "$d10k" --num-scenes "$scenes_b" --seed 1 --no-glb
  du -sh "$d1k" "$d10k"; df -h /tmp | tail -1
  common="dataset=$d1k/pointnav/train val_dataset=$d1k/pointnav/val total_frames=280000000"
  common+=" snapshot_every_s=150 checkpoint_every=0 $extra"
  setsid nohup python3 scripts/side_by_side.py --out "$runs" --time-limit "$limit_s" \
    --preset "$preset" --common $common \
    --run baseline \
    --run scenes10k "dataset=$d10k/pointnav/train" \
    --run curriculum curriculum_start_m=3 curriculum_frames=20000000 \
    --run aux_valnorm value_normalization=true inverse_dynamics_coef=0.1 \
      temporal_distance_coef=0.1 \
    > "$root/side_by_side.log" 2>&1 < /dev/null &
  sleep "${ABLATION_SETTLE_S:-60}"; cat "$root/side_by_side.log"; cat "$runs/status.json" 2>/dev/null; logs
  ;;
wait)
  limit=${3:-570}; waited=0
  while pgrep -f "side_by_side.py --out $runs --time-limit" > /dev/null && ((waited < limit)); do
    sleep 30; waited=$((waited + 30))
  done
  cat "$runs/status.json"; tail -n 3 "$runs"/*.train.log; logs
  ;;
eval)
  test=$d1k/pointnav/test val=$d1k/pointnav/val
  sbs --each --log-name test -- eval --snapshots {run} --split "$test" --episodes-per-scene 10 --envs "$envs" \
    --no-progress --json {run}/test_curve.json
  sbs --each --log-name val -- eval --checkpoint {run} --split "$val" --episodes-per-scene 10 --envs "$envs" \
    --no-progress --json {run}/val1k.json
  sbs --each --log-name real -- zero-shot --checkpoint {run} --out {run}/zero-shot --envs "$envs" \
    --episodes "$real" --no-progress
  for run in "$runs"/*/; do
    name=$(basename "$run"); echo "== $name"
    for log in test val real; do tail -n 6 "$runs/$name.$log.log"; done
  done
  logs
  # The GPU-only tests of this change: the default device under CUDA_VISIBLE_DEVICES, and
  # the rollouts' CUDA graphs reading value normalisation's statistics in place.
  python3 -m pytest -q -p no:cacheprovider tests/python/test_devices.py \
    tests/python/test_train_value_norm.py -k "cuda" 2>&1 | tail -n 5
  ;;
bench)
  bash scripts/gpu-train-bench.sh "$d1k/pointnav/train" "$out"
  ;;
*)
  echo "unknown phase $phase" >&2; exit 2
  ;;
esac
