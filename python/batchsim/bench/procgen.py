"""Procedural dataset generation: time for N scenes x E episodes, dataset statistics, and
what the dataset takes on disk.

Runs `batchsim procgen`'s pipeline (layout, geometry, textures, GLB, import + Recast bake,
Habitat-rule episodes, json.gz) into a temporary folder (or --data) and reports the wall
time, the per-scene mean, and the statistics a dataset card needs: triangles, rooms,
navigable area, islands, episodes' geodesic distance and geodesic/Euclidean ratio. One
run: the spread is over scenes (`per_scene.seconds`: generation time of each scene).

`disk`: bytes per scene (packed scene, GLB, the whole dataset folder divided by the scene
count) and that times 10,000 in GB; `load_seconds`: `Scene.load` of each packed scene from
the page cache (each read once untimed first). --no-glb, --no-compress and
--texture-format are procgen's options.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from batchsim.bench import report
from batchsim.procgen.build import SCENE_DIR, DatasetConfig, build_dataset_timed

MB = 1e6


def summarize(values: list[float]) -> dict:
    return {
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
    }


def disk_usage(folder: Path, scenes: int) -> dict:
    """Mean MB per scene of the packed scenes, the GLBs and the whole folder; the folder's
    size for 10,000 such scenes in GB."""
    scene_files = folder / SCENE_DIR
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())

    def mean_mb(pattern: str) -> float:
        return sum(p.stat().st_size for p in scene_files.glob(pattern)) / scenes / MB

    return {
        "bsscene_mb": mean_mb("*.bsscene"),
        "glb_mb": mean_mb("*.glb"),
        "dataset_mb_per_scene": total / scenes / MB,
        "gb_for_10000_scenes": total / scenes * 10_000 / 1e9,
    }


def load_seconds(folder: Path) -> list[float]:
    """Scene.load of every packed scene in `folder`, each read once before it is timed."""
    from batchsim.scenes import Scene

    seconds = []
    for path in sorted((folder / SCENE_DIR).glob("*.bsscene")):
        Scene.load(path)
        started = time.perf_counter()
        Scene.load(path)
        seconds.append(time.perf_counter() - started)
    return seconds


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("--num-scenes", type=int, default=100)
    parser.add_argument("--episodes-per-scene", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--workers", type=int, default=1, help="processes generating scenes (default 1)"
    )
    parser.add_argument("--no-glb", dest="write_glb", action="store_false")
    parser.add_argument("--no-compress", dest="compress", action="store_false")
    parser.add_argument("--texture-format", default="rgba8", choices=("rgba8", "bc1"))
    parser.add_argument("--data", help="generate here (default: a temporary folder)")
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args(argv)
    config = DatasetConfig(
        num_scenes=args.num_scenes,
        seed=args.seed,
        episodes_per_scene=args.episodes_per_scene,
        compress=args.compress,
        write_glb=args.write_glb,
        texture_format=args.texture_format,
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.data or tmp)
        started = time.perf_counter()
        manifest, timings = build_dataset_timed(folder, config, args.workers)
        seconds = time.perf_counter() - started
        disk = disk_usage(folder, config.num_scenes)
        loads = load_seconds(folder)
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
        "disk": disk,
        "load_seconds": summarize(loads),
        "per_scene": {k: summarize([float(s[k]) for s in scenes]) for k in stat_keys},
        "mean_geodesic_euclid_ratio": statistics.fmean(
            s["mean_geodesic_euclid_ratio"] for s in scenes
        ),
    }
    report.emit(record, args.out)
    return 0
