"""Renderer throughput: frames/s of BatchRenderer.render() (one frame = one view), for each
backend (raster, compute) in the same run.

Cameras sit 1.25 m above random navigable points of the procedural scenes with random
headings; every run renders the same poses `--steps` times after a warm-up and waits for
the results (CPU export: render() returns when done; CUDA export: torch synchronises).
Reports the median frames/s over `--runs` runs for each output set (depth, rgb, both) in
two modes, measured one after the other in the same process:

  batched  every view in one submission (batches=1)
  naive    one submission per view (batches=views), as one renderer per environment makes;
           the scenes are still shared, so this isolates the cost of not batching

and the batched/naive ratio. `gpu_ms` is the batched mode's GPU time per pass of one
render() (timestamps around the passes; the compute backend's trace and shading count as
draw_ms) and `draw_statistics_per_view` what the raster draw pass processed per view
(pipeline statistics): the profile of where the time goes. `rays_per_s` is the batched
frames/s times the pixels of a frame (one primary ray each), and `gpu_rays_per_s` the rays
of one render() over its draw pass's GPU time (for the compute backend: the trace, plus
shading with rgb), to compare traversal kernels on the same rays. `compute_over_raster` lists the
compute backend's batched frames/s over the raster backend's for each configuration.
`--plot PNG` draws frames/s against the number of views.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import batchsim
from batchsim.bench import data, report


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


def scene_paths(folder: Path | None, count: int) -> list[Path]:
    """The first `count` packed scenes of the dataset at `folder` (data.ensure's rules)."""
    folder, _ = data.ensure(folder)
    return sorted((folder / "scene_datasets" / "procgen").glob("*.bsscene"))[:count]


OUTPUTS = {"depth": (True, False), "rgb": (False, True), "both": (True, True)}


def make_renderer(context, scenes, views: int, size: int, outputs: str, batches: int, backend):
    depth, rgb = OUTPUTS[outputs]
    renderer = batchsim.BatchRenderer(
        context,
        batchsim.RendererConfig(
            views=views,
            width=size,
            height=size,
            places=len(scenes),
            batches=batches,
            depth=depth,
            rgb=rgb,
            backend=backend,
        ),
    )
    for place, scene in enumerate(scenes):
        renderer.set_scene(place, scene)
    return renderer


def frame_rates(renderer, poses, views: int, steps: int, args) -> list[float]:
    sync = _synchronizer(renderer)
    for _ in range(args.warmup):
        renderer.render(*poses)
    sync()
    rates = []
    for _ in range(args.runs):
        started = time.perf_counter()
        for _ in range(steps):
            renderer.render(*poses)
        sync()
        rates.append(views * steps / (time.perf_counter() - started))
    return rates


def measure(context, scenes, views: int, size: int, outputs: str, backend: str, args) -> dict:
    poses = cameras(scenes, views, args.seed)
    result = {"backend": backend, "views": views, "resolution": size, "outputs": outputs}
    for mode in args.modes:
        batches = 1 if mode == "batched" else views
        steps = args.steps if mode == "batched" else max(1, args.steps // args.naive_divisor)
        renderer = make_renderer(context, scenes, views, size, outputs, batches, backend)
        rates = frame_rates(renderer, poses, views, steps, args)
        result[mode] = {
            "frames_per_s": statistics.median(rates),
            "min": min(rates),
            "max": max(rates),
            "steps": steps,
        }
        if mode == "batched":
            result["batched"]["rays_per_s"] = result["batched"]["frames_per_s"] * size * size
            result["gpu_ms"] = report.pass_durations(renderer.pass_times(0))
            result["gpu_rays_per_s"] = gpu_rays_per_s(result["gpu_ms"], views * size * size)
            result["draw_statistics_per_view"] = per_view(renderer.draw_statistics(0), views)
            result["scene_bytes"] = [renderer.scene_bytes(p) for p in range(len(scenes))]
        del renderer
    if {"batched", "naive"} <= set(result):
        result["batched_over_naive"] = (
            result["batched"]["frames_per_s"] / result["naive"]["frames_per_s"]
        )
    print(_summary(result), file=sys.stderr)
    return result


def gpu_rays_per_s(gpu_ms: dict | None, rays: int) -> float | None:
    """Primary rays per second of the draw pass, or None without GPU timestamps."""
    if not gpu_ms or gpu_ms["draw_ms"] <= 0:
        return None
    return rays / (gpu_ms["draw_ms"] / 1e3)


def per_view(counts: dict | None, views: int) -> dict | None:
    return None if counts is None else {k: v / views for k, v in counts.items()}


def _summary(result: dict) -> str:
    rates = ", ".join(
        f"{mode} {result[mode]['frames_per_s']:,.0f}"
        for mode in ("batched", "naive")
        if mode in result
    )
    ratio = result.get("batched_over_naive")
    tail = f" (x{ratio:.1f})" if ratio else ""
    if "batched" in result:
        tail += f", {result['batched']['rays_per_s'] / 1e6:,.1f} Mrays/s"
    if result.get("gpu_rays_per_s"):
        tail += f" (draw pass {result['gpu_rays_per_s'] / 1e6:,.1f} Mrays/s)"
    return (
        f"{result['backend']} {result['views']} views {result['resolution']}px "
        f"{result['outputs']}: {rates} fps{tail}"
    )


def compute_over_raster(results: list[dict]) -> list[dict]:
    """The compute backend's batched frames/s over the raster backend's, per configuration."""
    key = ("views", "resolution", "outputs")
    raster = {tuple(r[k] for k in key): r for r in results if r["backend"] == "raster"}
    ratios = []
    for r in results:
        other = raster.get(tuple(r[k] for k in key))
        if r["backend"] == "compute" and other and "batched" in r and "batched" in other:
            ratio = r["batched"]["frames_per_s"] / other["batched"]["frames_per_s"]
            ratios.append({**{k: r[k] for k in key}, "ratio": ratio})
    return ratios


def rechunked(path: Path, chunk_triangles: int) -> Path:
    """The scene re-imported from its glTF source with another chunk size (cached)."""
    out = path.parent.parent / f"chunks-{chunk_triangles}" / path.name
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        batchsim.import_scene(path.with_suffix(".glb"), out, chunk_triangles=chunk_triangles)
    return out


def _synchronizer(renderer):
    tensor = renderer.depth if renderer.depth is not None else renderer.rgb
    if tensor.__dlpack_device__()[0] != 2:  # not kDLCUDA
        return lambda: None
    import torch

    return torch.cuda.synchronize


def parse_args(argv: list[str] | None, prog: str | None):
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--views", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--resolution", type=int, nargs="+", default=[64])
    parser.add_argument("--outputs", nargs="+", choices=list(OUTPUTS), default=list(OUTPUTS))
    parser.add_argument(
        "--modes", nargs="+", choices=["batched", "naive"], default=["batched", "naive"]
    )
    parser.add_argument(
        "--naive-divisor",
        type=int,
        default=4,
        help="the naive mode renders steps / this many times per run",
    )
    parser.add_argument(
        "--backends", nargs="+", choices=["raster", "compute"], default=["raster", "compute"]
    )
    parser.add_argument("--scenes", type=int, default=4, help="resident scenes")
    parser.add_argument(
        "--chunk-triangles",
        type=int,
        help="re-import the scenes with chunks of at most this many triangles (culling grain)",
    )
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="", help="batchsim.Context device selector")
    parser.add_argument("--data", type=Path, help=data.DATA_HELP)
    return report.parse_sweep_args(parser, argv)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    args = parse_args(argv, prog)
    folder, manifest = data.ensure(args.data)
    paths = scene_paths(folder, args.scenes)
    if args.chunk_triangles:
        paths = [rechunked(p, args.chunk_triangles) for p in paths]
    scenes = [batchsim.Scene.load(p) for p in paths]
    context = batchsim.Context(device=args.device)
    results = [
        measure(context, scenes, views, size, outputs, backend, args)
        for views in args.views
        for size in args.resolution
        for outputs in args.outputs
        for backend in args.backends
    ]
    record = {
        "benchmark": "render",
        **report.header(args, context),
        "backends": args.backends,
        "device": context.device_info,
        "export": "cuda" if context.exports_cuda else "cpu",
        "dataset": data.describe(folder, manifest),
        "scenes": [p.name for p in paths],
        "chunks": [s.chunk_count for s in scenes],
        "triangles": [s.triangle_count for s in scenes],
        "results": results,
        "compute_over_raster": compute_over_raster(results),
    }
    report.emit(record, args.out, args.plot)
    return 0
