"""End-to-end training throughput: frames/s of the PPO trainer (rollouts with rendering,
inference and the PPO update) for a preset, as the median over `--updates` updates after
`--warmup` updates, with the time breakdown per update (inference, waiting for the
simulator, update), each with its min and max over the timed updates. Like `batchsim train`
it uses every visible GPU, one process each (`--gpus N` limits it; batchsim.train.launch),
or runs as one rank of an outer torchrun; frames/s are summed over ranks and rank 0 prints.

    batchsim bench train --preset pointnav-depth num_envs=1024
    batchsim bench train --gpus 1 --preset pointnav-depth
    batchsim bench train --preset pointnav-depth num_envs=1024
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import torch

from batchsim._progress import progress
from batchsim.bench import report
from batchsim.train import launch
from batchsim.train.presets import make_config
from batchsim.train.trainer import Trainer

BREAKDOWN = ("frames_per_s", "collect_s", "inference_s", "sim_wait_s", "update_s")


def parse_args(argv: list[str] | None, prog: str | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="pointnav-depth")
    parser.add_argument("--warmup", type=int, default=5, help="updates not timed")
    parser.add_argument("--updates", type=int, default=20, help="updates timed")
    parser.add_argument("--out", help="also write the JSON report here")
    parser.add_argument(
        "--gpus", type=int, metavar="N", help="N GPUs, one process each (default: every GPU)"
    )
    parser.add_argument("overrides", nargs="*", metavar="KEY=VALUE")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    args = parse_args(argv, prog)
    total = args.warmup + args.updates
    gpus = [f"num_gpus={args.gpus}"] if args.gpus is not None else []
    config = make_config(args.preset, None, [*args.overrides, *gpus, "checkpoint_every=0"])
    processes = launch.processes_for(config.num_gpus, config.device)
    if processes > 1:
        words = argv if argv is not None else sys.argv[1:]
        return launch.start_ranks(["bench", "train", *words], processes, config.explicit_threads)
    # One update more than run: with overlap_update the step before the last update collects
    # no rollout, and every timed step should.
    updates_planned = total + 1
    world = int(os.environ.get("WORLD_SIZE", 1))
    config.total_frames = config.frames_per_update * updates_planned * world
    trainer = Trainer(config)
    rows = []
    started = time.perf_counter()
    for _ in progress(range(total), total=total, desc="updates"):
        rows.append(trainer.train_step())
    wall = time.perf_counter() - started
    timed = rows[args.warmup :]
    if trainer.rank == 0:
        fps = [r["frames_per_s"] for r in timed]
        report.emit(
            {
                "benchmark": "train",
                **report.header(args, trainer.envs[0].sim.context),
                "cores": os.cpu_count(),
                "device": trainer.envs[0].sim.context.device_info,
                "torch": torch.__version__,
                "ranks": trainer.world,
                "sim_threads_per_rank": trainer.sim_threads,
                "preset": args.preset,
                "overrides": args.overrides,
                "num_envs_per_rank": config.num_envs,
                "frames_per_update": config.frames_per_update * trainer.world,
                "warmup_updates": args.warmup,
                "timed_updates": args.updates,
                "frames_per_s_median": statistics.median(fps),
                "frames_per_s_min": min(fps),
                "frames_per_s_max": max(fps),
                "median_seconds_per_update": {
                    k: statistics.median(r[k] for r in timed) for k in BREAKDOWN[1:]
                },
                "seconds_per_update_spread": {
                    k: report.spread([r[k] for r in timed]) for k in BREAKDOWN[1:]
                },
                "wall_s": wall,
                "final_success": rows[-1].get("success"),
            },
            args.out,
        )
    trainer.close()
    from batchsim.train import distributed

    distributed.shutdown()
    return 0
