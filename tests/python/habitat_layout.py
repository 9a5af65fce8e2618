"""Test data in Habitat's layout: scene models with .navmesh files beside them (as
`batchsim import-dataset` takes them), and PointNav episodes whose scene_ids read
"data/scene_datasets/<scene>", so that they resolve only through a scenes_dir."""

from __future__ import annotations

import shutil
from pathlib import Path

import batchsim
from batchsim.datasets import generate_episodes, write_pointnav

PROCGEN_AS_GIBSON = {"apartment": "apartment_0005_0000", "office": "office_0005_0001"}
"""Habitat-style names for the cached procedural test scenes (conftest's procgen_dataset)."""


def gibson_scenes(procgen_root: Path, root: Path, names=tuple(PROCGEN_AS_GIBSON)) -> None:
    """root/gibson/<name>.glb + <name>.navmesh for each name, from the procedural test
    dataset: a Habitat scene_datasets folder in miniature."""
    procgen = procgen_root / "scene_datasets/procgen"
    (root / "gibson").mkdir(parents=True, exist_ok=True)
    for name in names:
        stem = PROCGEN_AS_GIBSON[name]
        shutil.copy(procgen / f"{stem}.glb", root / f"gibson/{name}.glb")
        navmesh = batchsim.Scene.load(procgen / f"{stem}.bsscene").navmesh()
        navmesh.save(root / f"gibson/{name}.navmesh")


def habitat_split(packed: Path, folder: Path, scenes, per_scene: int = 4) -> Path:
    """A val split under folder (Habitat's pointnav/<dataset>/v1 layout) with per_scene
    episodes on each scene, a model path relative to import-dataset's OUT `packed`;
    scene_id "data/scene_datasets/<scene>". Returns the split file."""
    episodes = {}
    for scene in scenes:
        navmesh = batchsim.Scene.load(packed / Path(scene).with_suffix(".bsscene")).navmesh()
        scene_id = f"data/scene_datasets/{scene}"
        episodes[scene_id] = generate_episodes(navmesh, scene_id, per_scene, seed=1)
    return write_pointnav(folder, "val", episodes)
