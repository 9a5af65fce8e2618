"""Where a trained policy fails on procedural val scenes: each episode's outcome, grouped by
the episode's kind (garden or indoor), geodesic length and geodesic/Euclidean ratio, and the
failures by how they ended (STOP called away from the goal, or the step limit). Prints JSON.

It rebuilds scenes FIRST..LAST-1 of the `batchsim procgen --num-scenes NUM_SCENES` dataset
(seed 0 by default: the val scenes of the 1,000-scene runs are 800..899), keeps the first
PER_SCENE episodes of each and evaluates the policy on them, sampling as `batchsim eval` does.

    python3 benchmarks/failure_breakdown.py --checkpoint run/checkpoint.pt \
        [--scenes 800 820] [--per-scene 10] [--num-scenes 1000] [--device cpu] [--out FILE]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import torch

from batchsim.bench import report
from batchsim.datasets import load_pointnav, write_pointnav
from batchsim.procgen.build import SCENE_ID_PREFIX, DatasetConfig, build_one_scene
from batchsim.procgen.episode_mix import touches_garden
from batchsim.train.checkpoint import load_policy
from batchsim.train.evaluate import PolicyAgent, eval_simulator, run_episodes

OUTCOME_FIELDS = (
    "episode_index",
    "success",
    "distance_to_goal",
    "terminated",  # STOP was called
    "episode_step",
    "collisions",
)


def build_val_scenes(out: Path, config: DatasetConfig, first: int, last: int, per_scene: int):
    """Scenes first..last-1 of `config`'s dataset into `out`, the first `per_scene` episodes
    of each as the split out/pointnav/subset; returns {scene name: its statistics}."""
    seeds = np.random.SeedSequence(config.seed).generate_state(config.num_scenes)
    built = [build_one_scene(out, config, i, int(seeds[i])) for i in range(first, last)]
    episodes = {SCENE_ID_PREFIX + f"{name}.glb": eps[:per_scene] for name, _, eps, _ in built}
    write_pointnav(out / "pointnav", "subset", episodes)
    return {name: stats for name, stats, _, _ in built}


def run_outcomes(checkpoint: str, split: Path, device: str) -> dict[str, np.ndarray]:
    """Each episode's outcome (OUTCOME_FIELDS), in the split's order."""
    torch.manual_seed(0)
    policy, config = load_policy(checkpoint, device)
    count = len(load_pointnav(split))
    sim = eval_simulator(config, str(split), num_envs=min(count, 256), device=device)
    try:
        results = run_episodes(sim, PolicyAgent(policy.float(), config), fields=OUTCOME_FIELDS)
    finally:
        sim.close()
    order = np.argsort(results.pop("episode_index"))
    return {name: values[order] for name, values in results.items()}


def breakdown(episodes: list, outcomes: dict[str, np.ndarray], scenes: dict) -> dict:
    """Success per group of episodes, and how the failures ended; `outcomes`: run_outcomes'
    arrays, in the order of `episodes`."""
    geodesic = np.array([e.geodesic_distance for e in episodes])
    straight = [np.linalg.norm(np.subtract(e.goal_position, e.start_position)) for e in episodes]
    ratio = geodesic / np.array(straight)
    garden = np.array(
        [touches_garden([e], scenes[e.scene_name]["footprint_m"])[0] for e in episodes]
    )
    success, stopped = outcomes["success"], outcomes["terminated"].astype(bool)
    remaining = outcomes["distance_to_goal"]
    groups = {
        "garden": garden,
        "indoor": ~garden,
        "geodesic < 8 m": geodesic < 8,
        "geodesic 8-16 m": (geodesic >= 8) & (geodesic < 16),
        "geodesic >= 16 m": geodesic >= 16,
        "ratio < 1.3": ratio < 1.3,
        "ratio 1.3-2": (ratio >= 1.3) & (ratio < 2),
        "ratio >= 2": ratio >= 2,
    }
    failed = success < 0.5
    ended = {"stop_called": failed & stopped, "step_limit": failed & ~stopped}
    return {
        "episodes": len(success),
        "success": float(success.mean()),
        "groups": {
            k: {"episodes": int(m.sum()), "success": _mean(success[m])} for k, m in groups.items()
        },
        "failures": {
            name: {
                "episodes": int(m.sum()),
                "median_geodesic_m": _median(geodesic[m]),
                "median_remaining_m": _median(remaining[m]),
                "further_than_start": _mean(remaining[m] > geodesic[m]),
            }
            for name, m in ended.items()
        },
        "collisions_per_step": {
            "failed": _per_step(outcomes, failed),
            "succeeded": _per_step(outcomes, ~failed),
        },
    }


def _mean(values) -> float | None:
    return float(np.mean(values)) if len(values) else None


def _median(values) -> float | None:
    return float(np.median(values)) if len(values) else None


def _per_step(outcomes: dict[str, np.ndarray], mask: np.ndarray) -> float | None:
    steps = outcomes["episode_step"][mask].sum()
    return float(outcomes["collisions"][mask].sum() / steps) if steps else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True, help="checkpoint.pt or a run folder")
    parser.add_argument(
        "--scenes", type=int, nargs=2, default=(800, 820), metavar=("FIRST", "LAST")
    )
    parser.add_argument("--per-scene", type=int, default=10)
    parser.add_argument("--num-scenes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--out", help="also write the JSON record here")
    args = parser.parse_args(argv)
    first, last = args.scenes
    if not 0 <= first < last <= args.num_scenes:
        parser.error(
            f"--scenes: expected 0 <= FIRST < LAST <= {args.num_scenes}, got {first} {last}"
        )
    config = DatasetConfig(num_scenes=args.num_scenes, seed=args.seed)
    with tempfile.TemporaryDirectory() as folder:
        scenes = build_val_scenes(Path(folder), config, first, last, args.per_scene)
        split = Path(folder) / "pointnav" / "subset"
        outcomes = run_outcomes(args.checkpoint, split, args.device)
        result = breakdown(list(load_pointnav(split)), outcomes, scenes)
    record = {**report.header(args), **result}
    report.emit(record, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
