"""Simulation core throughput: env-steps/s of BatchSim.step() (no rendering).

For each batch size N, thread count T, geodesic mode and action mix, steps the batch
`--steps` times per run after a warm-up, `--runs` times, and reports the median env-steps/s
(N x steps / seconds), its spread, and the rate per thread. Scenes: the procedural training
split (built and cached on first use), K resident scenes.

Action mixes: "random" draws the four actions equally (Habitat's random agent: a quarter of
the steps move, and a quarter STOP, so episodes last about 4 steps and resets dominate);
"trained" is 69% MOVE_FORWARD, 15% each turn and 1% STOP, like a trained agent, which moves
on most steps and ends an episode every ~100. `--plot PNG` draws env-steps/s against N.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

import batchsim
from batchsim._progress import progress
from batchsim.bench import data, report

MIXES = {"random": [0.25, 0.25, 0.25, 0.25], "trained": [0.01, 0.69, 0.15, 0.15]}


def time_runs(sim, actions: np.ndarray, runs: int, warmup: int) -> list[float]:
    """Seconds per run of len(actions) steps, after `warmup` untimed steps."""
    for t in range(warmup):
        sim.step(actions[t % len(actions)])
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        for row in actions:
            sim.step(row)
        seconds.append(time.perf_counter() - started)
    return seconds


def measure(dataset, n: int, threads: int, geodesic: str, mix: str, args) -> dict:
    sim = batchsim.BatchSim(
        dataset,
        n,
        num_threads=threads,
        seed=args.seed,
        geodesic=geodesic,
        scenes_resident=args.scenes_resident,
    )
    sim.reset()
    rng = np.random.default_rng(args.seed)
    actions = rng.choice(4, size=(args.steps, n), p=MIXES[mix]).astype(np.int32)
    seconds = time_runs(sim, actions, args.runs, args.warmup)
    rates = [n * args.steps / s for s in seconds]
    median = statistics.median(rates)
    return {
        "num_envs": n,
        "threads": threads,
        "geodesic": geodesic,
        "actions": mix,
        "env_steps_per_s": median,
        "env_steps_per_s_per_thread": median / threads,
        "min": min(rates),
        "max": max(rates),
        "runs": len(rates),
        "stats": sim.stats(),
    }


def parse_args(argv: list[str] | None, prog: str | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, os.cpu_count() or 1])
    parser.add_argument("--geodesic", nargs="+", default=["corridor", "exact"])
    parser.add_argument("--actions", nargs="+", default=["trained", "random"], choices=MIXES)
    parser.add_argument("--steps", type=int, default=100, help="steps per timed run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--scenes-resident", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, help=data.DATA_HELP)
    return report.parse_sweep_args(parser, argv)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    args = parse_args(argv, prog)
    folder, manifest = data.ensure(args.data)
    dataset = batchsim.datasets.load_pointnav(folder / "pointnav" / "train")
    configs = [
        (n, t, g, m)
        for n in args.num_envs
        for t in args.threads
        for g in args.geodesic
        for m in args.actions
    ]
    results = [
        measure(dataset, *config, args)
        for config in progress(configs, total=len(configs), desc="bench_sim", unit="config")
    ]
    record = {
        "benchmark": "sim",
        **report.header(args),
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "dataset": data.describe(folder, manifest),
        "scenes": len(dataset.scene_ids),
        "episodes": len(dataset),
        "steps_per_run": args.steps,
        "results": results,
    }
    report.emit(record, args.out, args.plot)
    return 0
