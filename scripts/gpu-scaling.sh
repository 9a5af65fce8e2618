#!/usr/bin/env bash
# Issue 38 on one 4-GPU node with the defaults: training frames/s on 4 GPUs against 1 and
# two runs at once (bench), then the 15-minute `batchsim train --preset pointnav-depth` with
# no thread or GPU arguments and its held-out curve; in phases that fit the device tool's
# 10-minute calls (the training goes on between calls). Logs go to OUTDIR.
#   bash scripts/gpu-scaling.sh setup OUTDIR     the 1,000-scene dataset, then the benches
#   bash scripts/gpu-scaling.sh train OUTDIR     starts the 15-minute run (detached)
#   bash scripts/gpu-scaling.sh wait OUTDIR [S]  until it ends, at most S seconds (570)
#   bash scripts/gpu-scaling.sh eval OUTDIR      test curve, val and the real building
set -uo pipefail
phase=${1:?usage: gpu-scaling.sh setup|train|wait|eval OUTDIR}
out=${2:?usage: gpu-scaling.sh PHASE OUTDIR}
root=${ROOT:-/tmp/scaling}
data=$root/d1k run=$root/runs/default
mkdir -p "$out" "$root/runs"
cd "$(dirname "$0")/.."
logs() { tar -C "$root" -czf "$out/logs.tgz" --exclude='*.pt' --exclude='events.out*' runs; }

case $phase in
setup)
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc
  time python3 -m batchsim procgen --out "$data" --num-scenes 1000 --seed 0 --no-glb
  bash scripts/gpu-train-bench.sh "$data/pointnav/train" "$out"
  ;;
train)
  # total_frames: the cosine ends near 15 minutes at ~1.5M frames/s.
  setsid nohup python3 -m batchsim train --preset pointnav-depth --quiet --time-limit 885 \
    "dataset=$data/pointnav/train" "val_dataset=$data/pointnav/val" total_frames=1300000000 \
    snapshot_every_s=60 checkpoint_every=0 "log_dir=$run" > "$root/runs/default.train.log" 2>&1 \
    < /dev/null &
  sleep 60; cat "$root/runs/default.train.log"; tail -n 2 "$run/metrics.csv"
  ;;
wait)
  limit=${3:-570}; waited=0
  while pgrep -f "batchsim train --preset pointnav-depth --quiet" > /dev/null \
    && ((waited < limit)); do
    sleep 30; waited=$((waited + 30))
  done
  tail -n 3 "$root/runs/default.train.log"; tail -n 1 "$run/metrics.csv"; logs
  ;;
eval)
  python3 -m batchsim eval --snapshots "$run" --split "$data/pointnav/test" \
    --episodes-per-scene 10 --envs 1000 --no-progress --json "$run/test_curve.json"
  python3 -m batchsim eval --checkpoint "$run" --split "$data/pointnav/val" \
    --episodes-per-scene 10 --envs 1000 --no-progress --json "$run/val1k.json"
  python3 -m batchsim zero-shot --checkpoint "$run" --out "$run/zero-shot" --envs 1000 \
    --no-progress
  logs
  ;;
*)
  echo "unknown phase $phase" >&2; exit 2
  ;;
esac
