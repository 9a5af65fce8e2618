#!/usr/bin/env bash
# Training frames/s of the pointnav-depth preset on one node (issue 38): on every GPU, on
# one, and as two runs at once; each a `batchsim bench train` of 15 updates after 5 warm-up
# updates on SPLIT. Writes OUTDIR/bench_{4gpu,1gpu,pair_a,pair_b}.json and .log (4gpu: every
# GPU of the 4-GPU node), then prints a line a run: its name, ranks, simulator threads per
# rank and median frames/s. gpu-scaling.sh and gpu-ablation.sh run it.
#   bash scripts/gpu-train-bench.sh SPLIT OUTDIR
set -uo pipefail
split=${1:?usage: gpu-train-bench.sh SPLIT OUTDIR}
out=${2:?usage: gpu-train-bench.sh SPLIT OUTDIR}
mkdir -p "$out"
bench="python3 -m batchsim bench train --preset pointnav-depth --warmup 5 --updates 15"
bench+=" dataset=$split"
$bench --out "$out/bench_4gpu.json" > "$out/bench_4gpu.log" 2>&1
$bench --gpus 1 --out "$out/bench_1gpu.json" > "$out/bench_1gpu.log" 2>&1
$bench --out "$out/bench_pair_a.json" > "$out/bench_pair_a.log" 2>&1 &
$bench --out "$out/bench_pair_b.json" > "$out/bench_pair_b.log" 2>&1
wait
python3 - "$out" <<'EOF'
import json, sys, pathlib
for name in ("4gpu", "1gpu", "pair_a", "pair_b"):
    path = pathlib.Path(sys.argv[1], f"bench_{name}.json")
    if path.exists():  # a run that failed says why in its .log
        r = json.loads(path.read_text())
        print(name, r["ranks"], r["sim_threads_per_rank"], round(r["frames_per_s_median"]))
EOF
