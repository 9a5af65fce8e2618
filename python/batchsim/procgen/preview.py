"""`batchsim procgen --preview`: top-down maps of generated scenes with a few episodes;
buildings of several storeys get one map per storey."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from batchsim.viz import draw_disc, draw_path, mosaic, topdown_image, write_png

METERS_PER_PIXEL = 0.05
START, GOAL, PATH = (40, 160, 70), (210, 50, 40), (240, 150, 30)


def scene_tile(scene_path: Path, episodes, meters_per_pixel: float = METERS_PER_PIXEL):
    """One scene's map at its episodes' floor height, each episode's shortest path drawn."""
    from batchsim.scenes import Scene

    navmesh = Scene.load(scene_path).navmesh()
    height = float(episodes[0].start_position[1]) if episodes else None
    image = topdown_image(navmesh, meters_per_pixel, height=height)
    lo = navmesh.get_bounds()[0]
    for episode in episodes:
        path = navmesh.find_path(episode.start_position, episode.goal_position)
        draw_path(image, lo, meters_per_pixel, path, PATH)
        draw_disc(image, lo, meters_per_pixel, episode.start_position, 4, START)
        draw_disc(image, lo, meters_per_pixel, episode.goal_position, 4, GOAL)
    return image


def write_preview(
    out: str | os.PathLike, path: str | os.PathLike, scenes: int = 4, episodes: int = 3
):
    """Writes a PNG mosaic of the first `scenes` training scenes of the dataset in `out`."""
    from batchsim.datasets import load_pointnav

    out = Path(out)
    manifest = json.loads((out / "manifest.json").read_text())
    dataset = load_pointnav(out / "pointnav/train/train.json.gz")
    tiles = []
    for name in manifest["splits"]["train"][:scenes]:
        stats = manifest["scenes"][name]
        scene_path = out / "scene_datasets/procgen" / f"{name}.bsscene"
        ours = [e for e in dataset.episodes if Path(e.scene_id).stem == name]
        height = stats.get("storey_height_m", 0.0)
        for storey in range(stats.get("storeys", 1)):
            on_storey = [
                e for e in ours if height == 0 or round(e.start_position[1] / height) == storey
            ]
            if on_storey or storey == 0:
                tiles.append(scene_tile(scene_path, on_storey[:episodes]))
    write_png(path, mosaic(tiles, columns=min(3, len(tiles))))
    return np.asarray(tiles[0].shape)
