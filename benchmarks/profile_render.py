"""A short, fixed render workload to run under a profiler (Nsight Compute's `ncu`, or the
renderer's own timestamps): `--renders` calls of BatchRenderer.render() at one setting,
after one warm-up call, on the default procedural scenes. Prints one JSON record with the
GPU time per pass of the last call.

    ncu --clock-control none --target-processes all -o trace \\
        python benchmarks/profile_render.py --backend compute --views 4096
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import batchsim
from batchsim.bench.data import DATA_HELP
from batchsim.bench.render import cameras, make_renderer, scene_paths
from batchsim.bench.report import emit, header


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["raster", "compute"], default="compute")
    parser.add_argument("--views", type=int, default=4096)
    parser.add_argument("--resolution", type=int, default=64)
    parser.add_argument("--outputs", choices=["depth", "rgb", "both"], default="depth")
    parser.add_argument("--scenes", type=int, default=4)
    parser.add_argument("--renders", type=int, default=3)
    parser.add_argument("--data", type=Path, help=DATA_HELP)
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    paths = scene_paths(args.data, args.scenes)
    scenes = [batchsim.Scene.load(p) for p in paths]
    context = batchsim.Context()
    renderer = make_renderer(
        context, scenes, args.views, args.resolution, args.outputs, 1, args.backend
    )
    poses = cameras(scenes, args.views, seed=0)
    renderer.render(*poses)
    context.wait_idle()
    started = time.perf_counter()
    for _ in range(args.renders):
        renderer.render(*poses)
    context.wait_idle()
    seconds = time.perf_counter() - started
    emit(
        {
            "benchmark": "profile_render",
            **header(args, context),
            "device": context.device_info["name"],
            "backend": renderer.backend,
            "views": args.views,
            "resolution": args.resolution,
            "outputs": args.outputs,
            "renders": args.renders,
            "frames_per_s": args.views * args.renders / seconds,
            "gpu_ms": renderer.pass_times(0),
            "bvh_nodes": [s.bvh_node_count for s in scenes],
            "bvh_depth": [s.bvh_depth for s in scenes],
        },
        args.out,
    )


if __name__ == "__main__":
    main()
