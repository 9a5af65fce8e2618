"""Render mosaic: one batch of views from the raster BatchRenderer, RGB above depth.

Puts 12 cameras 1.25 m above random navigable points of the procedural validation scenes
(as the simulator would), renders them in one submission and writes a PNG mosaic.
Usage: python examples/render_mosaic.py [DATASET_DIR] [OUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import batchsim
from batchsim.viz import depth_image, mosaic, write_png

VIEWS, SIZE, DEPTH_RANGE_M = 12, 96, 8.0


def cameras(scene: batchsim.Scene, count: int, seed: int):
    navmesh = scene.navmesh()
    navmesh.seed(seed)
    positions = navmesh.get_random_navigable_points(count) + np.float32([0, 1.25, 0])
    yaw = np.random.default_rng(seed).uniform(0, 2 * np.pi, count)
    zeros = np.zeros(count)
    rotations = np.stack([zeros, np.sin(yaw / 2), zeros, np.cos(yaw / 2)], 1)
    return positions.astype(np.float32), rotations.astype(np.float32)


def main() -> None:
    data = Path(sys.argv[1] if len(sys.argv) > 1 else "data/procgen")
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "build/demo")
    out.mkdir(parents=True, exist_ok=True)
    paths = sorted((data / "scene_datasets" / "procgen").glob("*.bsscene"))[:2]
    scenes = [batchsim.Scene.load(p) for p in paths]
    renderer = batchsim.BatchRenderer(
        batchsim.Context(),
        batchsim.RendererConfig(views=VIEWS, width=SIZE, height=SIZE, places=len(scenes)),
    )
    per_scene = VIEWS // len(scenes)
    poses = [cameras(scene, per_scene, seed=place) for place, scene in enumerate(scenes)]
    for place, scene in enumerate(scenes):
        renderer.set_scene(place, scene)
    places = np.repeat(np.arange(len(scenes), dtype=np.uint32), per_scene)
    renderer.render(
        np.concatenate([p[0] for p in poses]), np.concatenate([p[1] for p in poses]), places
    )
    import torch

    rgb = torch.from_dlpack(renderer.rgb).cpu().numpy()[..., :3]
    depth = torch.from_dlpack(renderer.depth).cpu().numpy()[:, 0]
    tiles = [*rgb, *(depth_image(d, DEPTH_RANGE_M) for d in depth)]
    write_png(out / "render-mosaic.png", mosaic(tiles, columns=VIEWS // 2))
    print(f"{VIEWS} views of {len(scenes)} scenes in one submission: {out / 'render-mosaic.png'}")


if __name__ == "__main__":
    main()
