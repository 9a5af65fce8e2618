"""The large-scene benchmark's GPU parts: render throughput with K resident copies of a scene,
and the cost of bringing one scene into a resident slot (load, upload, in-simulator swaps).

- render: a BatchRenderer of `views` views (depth and RGB) over K places, each holding
  the scene (uploaded once per place: K copies in device memory, as K resident scenes take);
  frames/s as in `batchsim bench render` (median over runs, after a warm-up), the upload
  time of each place and `scene_bytes` (device bytes of one place).
- slot: for one scene, `Scene.load` plus its navmesh (what the background loader does for a
  slot, without its read-rate cap) and `BatchRenderer.set_scene` into a place of a one-view
  renderer (what the Simulator does when a loaded scene appears in a slot), as seconds and
  seconds per MB of packed file; then a Simulator with one slot cycling over two names of the
  same file (hard links), SimConfig's steps_per_scene (2,000) and loader read cap (512 MiB/s)
  unless given, random actions and short episodes so that environments follow their slot
  soon after it moves on: per step wall times, the scene loads and the loader's stalls
  (`stats()`), and the time the slow steps (over twice the median) spent beyond the
  median, per load and per MB.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import batchsim
from batchsim.bench import render, report
from batchsim.datasets import PointNavDataset
from batchsim.datasets.generate import generate_episodes

MB, MIB = 1e6, 1024.0 * 1024.0


def synchronizer(context):
    """Waits for the GPU where results are CUDA tensors (render() and step() return once
    submitted); with CPU export they return when done."""
    if not context.exports_cuda:
        return lambda: None
    import torch

    return torch.cuda.synchronize


def figure(samples: list[float]) -> dict:
    return {"seconds": statistics.median(samples), "spread_s": report.spread(samples)}


def make_renderer(context, views: int, size: int, places: int, backend: str):
    config = batchsim.RendererConfig(
        views=views, width=size, height=size, places=places, batches=1, depth=True, rgb=True,
        backend=backend,
    )  # fmt: skip
    return batchsim.BatchRenderer(context, config)


def measure_render(context, scene, views: int, resident: int, backend: str, args) -> dict:
    """Frames/s of depth + RGB views over `resident` places holding `scene`."""
    renderer = make_renderer(context, views, args.resolution, resident, backend)
    uploads = []
    for place in range(resident):
        start = time.perf_counter()
        renderer.set_scene(place, scene)
        uploads.append(time.perf_counter() - start)
    poses = render.cameras([scene] * resident, views, args.seed)
    rates = render.frame_rates(renderer, poses, views, args.steps, args)
    result = {
        "backend": renderer.backend,
        "resident": resident,
        "views": views,
        "resolution": args.resolution,
        "outputs": "depth+rgb",
        "frames_per_s": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "steps": args.steps,
        "scene_bytes": renderer.scene_bytes(0),
        "gpu_bytes": sum(renderer.scene_bytes(p) for p in range(resident)),
        "upload_s": statistics.median(uploads),
        "upload_spread_s": report.spread(uploads),
        "gpu_ms": report.pass_durations(renderer.pass_times(0)),
    }
    del renderer
    print(
        f"render {backend} K={resident} {views} views: {result['frames_per_s']:,.0f} frames/s, "
        f"{result['scene_bytes'] / MB:,.0f} MB a scene, upload {result['upload_s']:.3f} s",
        file=sys.stderr,
    )
    return result


def links(path: Path, count: int) -> list[Path]:
    """`count` names of the packed file `path` beside it (hard links; copies where the file
    system has none): the simulator treats each name as a scene of its own."""
    names = []
    for i in range(count):
        name = path.with_name(f"{path.stem}-{i}{path.suffix}")
        if not name.exists():
            try:
                os.link(path, name)
            except OSError:
                name.write_bytes(path.read_bytes())
        names.append(name)
    return names


def slot_costs(context, path: Path, args) -> dict:
    """What one scene costs to bring into a slot: host load (+ navmesh), GPU upload, and
    swaps in a simulator."""
    scene = batchsim.Scene.load(path)
    mb = path.stat().st_size / MB
    return {
        **load_and_upload(context, path, scene, mb, args),
        "swaps": swap_run(context, path, scene, mb, args),
    }


def load_and_upload(context, path: Path, scene, mb: float, args) -> dict:
    load = report.times(lambda: batchsim.Scene.load(path).navmesh(), args.load_repeats)
    renderer = make_renderer(context, 1, args.resolution, 1, args.swap_backend)
    upload = report.times(lambda: renderer.set_scene(0, scene), args.load_repeats)
    return {
        "file_mb": mb,
        "load": {**figure(load), "s_per_mb": statistics.median(load) / mb},
        "upload": {**figure(upload), "s_per_mb": statistics.median(upload) / mb},
        "scene_bytes": renderer.scene_bytes(0),
        "backend": renderer.backend,
    }


def swap_run(context, path: Path, scene, mb: float, args) -> dict:
    """A Simulator (one slot, two names of the scene) stepped through several swaps."""
    base = generate_episodes(scene.navmesh(), "scene", args.swap_episodes, args.seed)
    names = links(path, 2)
    episodes = [dataclasses.replace(e, scene_id=str(n)) for n in names for e in base]
    config = swap_config(args)
    sim = batchsim.Simulator(
        PointNavDataset(episodes),
        config=config,
        context=context,
        sensors=("depth", "rgb"),
        resolution=args.resolution,
        backend=args.swap_backend,
    )
    sync = synchronizer(context)
    sim.reset(seed=args.seed)
    sync()
    before = sim.stats()
    rng = np.random.default_rng(args.seed)
    steps = config.steps_per_scene * (args.swaps + 1)
    actions = rng.integers(0, 4, (steps, config.num_envs), dtype=np.int32)
    seconds = []
    for row in actions:
        start = time.perf_counter()
        sim.step(row)
        sync()
        seconds.append(time.perf_counter() - start)
    after = sim.stats()
    sim.close()
    settings = {
        "num_envs": config.num_envs,
        "steps_per_scene": config.steps_per_scene,
        "max_episode_steps": config.task.max_episode_steps,
        "loader_mib_per_s": config.loader_bytes_per_second / MIB,
    }
    return {**settings, **swap_figures(seconds, before, after, mb)}


def swap_config(args) -> batchsim.SimConfig:
    """One slot, short episodes (environments follow their slot soon after it moves on);
    steps per scene and the loader's read cap are SimConfig's unless given."""
    fields = {}
    if args.steps_per_scene is not None:
        fields["steps_per_scene"] = args.steps_per_scene
    if args.loader_mib_per_s is not None:
        fields["loader_bytes_per_second"] = args.loader_mib_per_s * MIB
    return batchsim.SimConfig().replace(
        num_envs=args.swap_envs,
        scenes_resident=1,
        num_threads=args.threads,
        seed=args.seed,
        task=batchsim.TaskConfig().replace(max_episode_steps=args.swap_episode_steps),
        **fields,
    )


def swap_figures(seconds: list[float], before: dict, after: dict, mb: float) -> dict:
    median = statistics.median(seconds)
    slow = [s for s in seconds if s > 2 * median]
    loads = after["loads"] - before["loads"]
    excess = sum(s - median for s in slow)
    per_load = excess / loads if loads else None
    return {
        "steps": len(seconds),
        "scene_swaps": after["scene_swaps"] - before["scene_swaps"],
        "loads": loads,
        "bytes_read": after["bytes_read"] - before["bytes_read"],
        "loader_stalls": after["loader_stalls"] - before["loader_stalls"],
        "loader_stall_s": after["loader_stall_seconds"] - before["loader_stall_seconds"],
        "step_s": median,
        "max_step_s": max(seconds),
        "slow_steps": len(slow),
        "slow_excess_s": excess,
        "excess_s_per_load": per_load,
        "excess_s_per_mb": None if per_load is None else per_load / mb,
        "peak_resident_bytes": after["peak_resident_bytes"],
    }


def ratios(large: dict, procedural: dict) -> dict:
    """The large scene's seconds per MB over the procedural scene's (1: scales with size)."""

    def over(a, b):
        return None if a is None or not b else a / b

    return {
        "size": large["file_mb"] / procedural["file_mb"],
        "load_s_per_mb": over(large["load"]["s_per_mb"], procedural["load"]["s_per_mb"]),
        "upload_s_per_mb": over(large["upload"]["s_per_mb"], procedural["upload"]["s_per_mb"]),
        "swap_excess_s_per_mb": over(
            large["swaps"]["excess_s_per_mb"], procedural["swaps"]["excess_s_per_mb"]
        ),
    }


def measure_slots(context, large: Path, procedural: Path, args) -> dict:
    """slot_costs of the large scene and of the procedural one, and their ratios."""
    result = {}
    for name, path in (("large", large), ("procedural", procedural)):
        result[name] = slot_costs(context, path, args)
        s = result[name]
        print(
            f"slot {name}: {s['file_mb']:,.0f} MB, load {s['load']['seconds']:.3f} s, upload "
            f"{s['upload']['seconds']:.3f} s, {s['swaps']['loads']} loads in "
            f"{s['swaps']['steps']} steps, stalls {s['swaps']['loader_stall_s']:.3f} s",
            file=sys.stderr,
        )
    result["large_over_procedural"] = ratios(result["large"], result["procedural"])
    return result
