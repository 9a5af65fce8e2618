"""Raster renderer throughput: frames/s of BatchRenderer.render() (one frame = one view).

Cameras sit 1.25 m above random navigable points of the procedural scenes with random
headings; every run renders the same poses `--steps` times after a warm-up and waits for
the results (CPU export: render() returns when done; CUDA export: torch synchronises).
Reports the median frames/s over `--runs` runs. Depth and RGB are always both written by
this first cut of the raster backend; the naive one-submission-per-view mode is not there
yet.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

import numpy as np

import batchsim
from _report import emit
from batchsim.procgen.build import DatasetConfig, ensure_dataset

DEFAULT_DATA = Path(__file__).resolve().parents[1] / "build" / "bench-data" / "procgen"


def cameras(scenes, views: int, seed: int):
    rng = np.random.default_rng(seed)
    places = np.arange(views, dtype=np.uint32) % len(scenes)
    positions = np.empty((views, 3), np.float32)
    for place, scene in enumerate(scenes):
        navmesh = scene.navmesh()
        navmesh.seed(seed + place)
        chosen = places == place
        points = navmesh.get_random_navigable_points(int(chosen.sum()))
        positions[chosen] = points + np.float32([0, 1.25, 0])
    yaw = rng.uniform(0, 2 * np.pi, views)
    zeros = np.zeros(views)
    rotations = np.stack([zeros, np.sin(yaw / 2), zeros, np.cos(yaw / 2)], 1).astype(np.float32)
    return positions, rotations, places


def measure(context, scenes, views: int, size: int, args) -> dict:
    renderer = batchsim._core.BatchRenderer(
        context, views, width=size, height=size, places=len(scenes)
    )
    for place, scene in enumerate(scenes):
        renderer.set_scene(place, scene)
    poses = cameras(scenes, views, args.seed)
    sync = _synchronizer(context)
    for _ in range(args.warmup):
        renderer.render(*poses)
    sync()
    rates = []
    for _ in range(args.runs):
        started = time.perf_counter()
        for _ in range(args.steps):
            renderer.render(*poses)
        sync()
        rates.append(views * args.steps / (time.perf_counter() - started))
    return {
        "views": views,
        "resolution": size,
        "frames_per_s": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "scene_bytes": [renderer.scene_bytes(p) for p in range(len(scenes))],
    }


def _synchronizer(context):
    if not context.exports_cuda:
        return lambda: None
    import torch

    return torch.cuda.synchronize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--views", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--resolution", type=int, nargs="+", default=[64])
    parser.add_argument("--scenes", type=int, default=4, help="resident scenes")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="", help="batchsim.Context device selector")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    ensure_dataset(args.data, DatasetConfig(num_scenes=8, seed=0, episodes_per_scene=500))
    paths = sorted((args.data / "scene_datasets" / "procgen").glob("*.bsscene"))[: args.scenes]
    scenes = [batchsim.Scene.load(p) for p in paths]
    context = batchsim.Context(device=args.device)
    results = [
        measure(context, scenes, views, size, args)
        for views in args.views
        for size in args.resolution
    ]
    emit(
        {
            "benchmark": "render",
            "backend": "raster",
            "machine": platform.node(),
            "device": context.device_info,
            "export": "cuda" if context.exports_cuda else "cpu",
            "scenes": [p.name for p in paths],
            "triangles": [s.triangle_count for s in scenes],
            "results": results,
        },
        args.out,
    )


if __name__ == "__main__":
    main()
