"""Hash of the simulator's outputs over a fixed run, to show that a speed-up changed nothing.

Steps `--num-envs` agents `--steps` times with seeded actions (trained-like and random
mixes, corridor and exact geodesic modes) and prints one SHA-256 per configuration over
every array of `BatchSim.outputs` after every step but the actions (positions, rotations,
goals, pointgoals, rewards, flags, success, SPL, SoftSPL, geodesic distances, collisions,
episode steps and indices, resident places, cameras). Run it with two builds on the same
datasets and compare the lines:

    PYTHONPATH=python python3 scripts/sim_hash.py /tmp/v7s /tmp/nav100

Where one build has an output the other lacks, leave it out of both: ``--skip NAME``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
from pathlib import Path

import numpy as np

import batchsim
from batchsim.datasets import load_pointnav

# What the agents are given, not what the simulator computes.
INPUTS = ("actions",)
MIXES = {"random": [0.25, 0.25, 0.25, 0.25], "trained": [0.01, 0.69, 0.15, 0.15]}


def run_hash(dataset, geodesic: str, mix: str, args: argparse.Namespace) -> str:
    sim = batchsim.BatchSim(
        dataset,
        args.num_envs,
        num_threads=args.threads,
        seed=args.seed,
        geodesic=geodesic,
        scenes_resident=args.scenes_resident,
    )
    sim.reset()
    rng = np.random.default_rng(args.seed)
    actions = rng.choice(4, size=(args.steps, args.num_envs), p=MIXES[mix]).astype(np.int32)
    digest = hashlib.sha256()
    for row in actions:
        sim.step(row)
        for field in dataclasses.fields(sim.outputs):
            if field.name not in INPUTS and field.name not in args.skip:
                array = getattr(sim.outputs, field.name)
                digest.update(np.ascontiguousarray(array).tobytes())
    digest.update(str(sim.stats()["unreachable"]).encode())
    return digest.hexdigest()[:16]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", type=Path, nargs="+", help="procgen dataset folders")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--scenes-resident", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        metavar="OUTPUT",
        help="outputs left out of the hash: those one of the two builds lacks",
    )
    args = parser.parse_args()
    for folder in args.data:
        dataset = load_pointnav(folder / "pointnav" / "train")
        for geodesic in ("corridor", "exact"):
            for mix in MIXES:
                print(folder, geodesic, mix, run_hash(dataset, geodesic, mix, args), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
