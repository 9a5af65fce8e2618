"""Where a training update's GPU time goes: the torch profiler over one rollout collection
and one PPO update of a preset, apart, after a few warm-up updates. Prints each phase's
wall time and its CUDA kernels' total, and writes the top operations by GPU time (grouped
by Python stack, then by input shape) to `--out`. Kernels of the renderer (Vulkan) are not
seen: a collection whose kernels sum to much less than its wall time waits on the render or
the simulator.

    python3 benchmarks/profile_train.py --preset pointnav-rgb dataset=/tmp/pg100/pointnav/train
"""

from __future__ import annotations

import argparse
import time

import torch
from torch.profiler import ProfilerActivity, profile

from batchsim.train.presets import make_config
from batchsim.train.trainer import Trainer


def synchronize() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def profiled(name: str, phase, out) -> None:
    """Runs `phase` once under the profiler; prints its times and appends its tables."""
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=activities, with_stack=True, record_shapes=True) as prof:
        started = time.perf_counter()
        phase()
        synchronize()
        wall = time.perf_counter() - started
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    gpu = sum(e.device_time for e in kernels) / 1e6
    print(f"{name}: wall {wall:.4f} s, CUDA kernels {gpu:.4f} s")
    out.write(f"==== {name}: wall {wall:.4f} s, CUDA kernels {gpu:.4f} s\n")
    by_stack = prof.key_averages(group_by_stack_n=6)
    out.write(by_stack.table(sort_by="self_cuda_time_total", row_limit=30))
    by_shape = prof.key_averages(group_by_input_shape=True)
    out.write(by_shape.table(sort_by="self_cuda_time_total", row_limit=25))
    out.write("\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="pointnav-depth")
    parser.add_argument("--warmup", type=int, default=3, help="updates before profiling")
    parser.add_argument("--out", default="profile_train.txt", help="the tables")
    parser.add_argument("overrides", nargs="*", metavar="KEY=VALUE")
    args = parser.parse_args()
    config = make_config(args.preset, None, [*args.overrides, "checkpoint_every=0"])
    config.total_frames = config.frames_per_update * (args.warmup + 2)
    trainer = Trainer(config)
    try:
        for _ in range(args.warmup):
            trainer.train_step()
        synchronize()
        with open(args.out, "w") as out:
            profiled("collect", trainer.collect, out)
            profiled("update", lambda: trainer._update(trainer.storage), out)
    finally:
        trainer.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
