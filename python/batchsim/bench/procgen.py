"""Procedural dataset generation: time for N scenes x E episodes, and dataset statistics.

Runs `batchsim procgen`'s pipeline (layout, geometry, textures, GLB, import + Recast bake,
Habitat-rule episodes, json.gz) into a temporary folder (or --out) and reports the wall
time, the per-scene mean, and the statistics a dataset card needs: triangles, rooms,
navigable area, islands, episodes' geodesic distance and geodesic/Euclidean ratio. One
run: the spread is over scenes (`per_scene.seconds`: generation time of each scene).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time

from batchsim.bench import report
from batchsim.procgen.build import DatasetConfig, build_dataset_timed


def summarize(values: list[float]) -> dict:
    return {
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
    }


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("--num-scenes", type=int, default=100)
    parser.add_argument("--episodes-per-scene", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--workers", type=int, default=1, help="processes generating scenes (default 1)"
    )
    parser.add_argument("--data", help="generate here (default: a temporary folder)")
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args(argv)
    config = DatasetConfig(
        num_scenes=args.num_scenes, seed=args.seed, episodes_per_scene=args.episodes_per_scene
    )
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        manifest, timings = build_dataset_timed(args.data or tmp, config, args.workers)
        seconds = time.perf_counter() - started
    # timings stay out of the manifest (its bytes follow from the seed): merge them back
    scenes = [stats | timings["scenes"][name] for name, stats in manifest["scenes"].items()]
    stat_keys = ("triangles", "rooms", "navigable_area", "islands", "mean_geodesic_m", "seconds")
    record = {
        "benchmark": "procgen",
        **report.header(args),
        "machine": platform.node(),
        "cores": os.cpu_count(),
        "workers": args.workers,
        "config": manifest["config"],
        "seconds_total": seconds,
        "seconds_per_scene": seconds / len(scenes),
        "episodes_total": sum(s["episodes"] for s in scenes),
        "per_scene": {k: summarize([float(s[k]) for s in scenes]) for k in stat_keys},
        "mean_geodesic_euclid_ratio": statistics.fmean(
            s["mean_geodesic_euclid_ratio"] for s in scenes
        ),
    }
    report.emit(record, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
