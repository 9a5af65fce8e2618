#!/usr/bin/env bash
# The GPU machine's proof run (docs/gpu.md): builds batchsim, runs `batchsim doctor`, the
# C++ and Python suites (CUDA tests included, validation on) and the benchmarks.
# Usage: bash scripts/gpu-check.sh OUTDIR   (expects the Debian dependencies already
# available, e.g. through `source .devdeps/prelude.sh` on the lent machine).
set -uo pipefail
out=${1:?usage: gpu-check.sh OUTDIR}
mkdir -p "$out"
cd "$(dirname "$0")/.."
# Where the carried validation layer lives when unpacked by .devdeps/prelude.sh.
[ -d /opt/devdeps/usr/share/vulkan/explicit_layer.d ] &&
  export VK_LAYER_PATH=/opt/devdeps/usr/share/vulkan/explicit_layer.d
# Debian's assimp-testmodels, when carried in .devdeps (real models for the import tests).
[ -d /opt/devdeps/usr/share/assimp/models ] &&
  export BATCHSIM_ASSIMP_MODELS=/opt/devdeps/usr/share/assimp/models
export PYTHONUNBUFFERED=1 BATCHSIM_VALIDATION=1
status=0
step() {  # step NAME COMMAND...: runs, logs to $out/NAME.txt, remembers failures
  local name=$1; shift
  echo "=== $name: $*"
  "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  tail -n 25 "$out/$name.txt"
  echo "=== $name exit $rc"
  [ $rc -eq 0 ] || status=1
}
step machine nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
step install python3 -m pip install --no-build-isolation --no-deps --force-reinstall -q .
step doctor python3 -m batchsim doctor
step cpp bash -c "cmake -S . -B build/gpu-cpp -G Ninja -DBATCHSIM_BUILD_PYTHON=OFF \
  -DBATCHSIM_BUILD_TESTS=ON && cmake --build build/gpu-cpp && build/gpu-cpp/tests/cpp/batchsim_tests"
step pytest python3 -m pytest tests/python -p no:cacheprovider -q -rs \
  --ignore=tests/python/test_train_compiled_parity.py \
  --ignore=tests/python/test_train_compiled_trainer.py
# The compiled encoder against the eager one on CUDA (Triton, cuDNN, CUDA graphs of the
# compiled encoder, the trainer end to end in fp32): issue 39's compiled-vs-eager test.
step compiled_parity python3 -m pytest tests/python/test_train_compiled_parity.py \
  tests/python/test_train_compiled_trainer.py \
  -p no:cacheprovider -q -rs
# Timings without the validation layer, twice to show the spread between runs.
step bench env BATCHSIM_VALIDATION=0 python3 -m batchsim bench export --out "$out/bench_export.json"
step bench2 env BATCHSIM_VALIDATION=0 python3 -m batchsim bench export --out "$out/bench_export2.json"
models=${BATCHSIM_ASSIMP_MODELS:-/usr/share/assimp/models}
step assets python3 -m batchsim bench assets --models "$models" --out "$out/bench_assets.json"
step assets2 python3 -m batchsim bench assets --models "$models" --out "$out/bench_assets2.json"
# The simulation core on the host CPUs: 1-16 threads, corridor geodesics; exact at the ends.
step sim python3 -m batchsim bench sim --threads 1 2 4 8 16 --geodesic corridor \
  --out "$out/bench_sim.json"
step sim_exact python3 -m batchsim bench sim --threads 1 16 --geodesic exact \
  --out "$out/bench_sim_exact.json"
# The renderer, both backends: batched and naive (one submission per view) at the same N,
# depth / rgb, 64 x 64 and 128 x 128 (small settings; bench_render's defaults run longer).
step render env BATCHSIM_VALIDATION=0 python3 -m batchsim bench render --views 256 1024 \
  --resolution 64 128 --outputs depth rgb --backends raster compute --steps 4 --runs 3 \
  --warmup 1 --out "$out/bench_render.json"
# Env step and training end to end on the compute backend.
step env_step env BATCHSIM_VALIDATION=0 python3 -m batchsim bench env --envs 1024 4096 \
  --backend compute --steps 30 --runs 3 --warmup 5 --out "$out/bench_env.json"
step procgen python3 -m batchsim procgen  # data/procgen: the presets' dataset
step train env BATCHSIM_VALIDATION=0 python3 -m batchsim bench train --warmup 2 --updates 3 \
  --out "$out/bench_train.json" render.backend=compute
# Reliability: Simulators and a renderer on one CUDA context from threads with their own
# streams (no hang, same results as alone), and a soak with scene swaps (all flat).
step stress env BATCHSIM_VALIDATION=0 python3 scripts/stress_context.py --device cuda:0 \
  --data data/procgen/pointnav/train --workers 4 --num-envs 512 --resolution 64 --steps 60 \
  --swap-every 5 --minutes 2 --timeout 60
step soak env BATCHSIM_VALIDATION=0 python3 scripts/soak.py --device cuda:0 \
  --data data/procgen/pointnav/train --minutes 4 --num-envs 1024 --resolution 64 \
  --swap-every 300 --out "$out/soak.json" --plot "$out/soak.png"
step cpu lscpu
exit $status
