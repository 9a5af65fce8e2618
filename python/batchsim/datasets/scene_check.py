"""Checking every scene a dataset names before a run starts, so that a missing or damaged
file stops the run at once with a list of every bad scene, not hours in at its first swap.

Each scene goes through the same validator the simulator's loader runs (C++
PackedScene::load: magic, version, file size, header, table and section CRC32s, the
sections' structure) plus the loader's one extra rule, a navmesh inside; bare .navmesh files
are parsed as the loader parses them. Loads release the GIL, so the check runs on a thread
per core.

>>> check_scenes(load_pointnav("data/procgen/pointnav/train"))   # SceneCheckError if any is bad
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from batchsim._progress import progress
from batchsim.datasets.pointnav import PointNavDataset, load_pointnav
from batchsim.datasets.scenes import PACKED_SCENE_SUFFIX, simulator_scene_file
from batchsim.errors import Error, SceneCheckError
from batchsim.scenes import NavMesh, Scene

# At most this many problems are spelled out in the exception's message (all are in
# .problems): a dataset whose every scene is stale would otherwise print thousands of lines.
MAX_LISTED = 50


@dataclass(frozen=True)
class SceneProblem:
    scene_id: str
    path: Path | None  # None: no file found for the scene
    reason: str

    def __str__(self) -> str:
        where = str(self.path or self.scene_id)
        return self.reason if where in self.reason else f"{where}: {self.reason}"


def check_scene_file(path: Path) -> str | None:
    """Why the simulator could not load `path`, or None when it could."""
    try:
        if path.suffix == PACKED_SCENE_SUFFIX:
            if not Scene.load(path).has_navmesh:
                return "has no navmesh (re-import it with `batchsim import`)"
        else:
            NavMesh.load(path)
    except (Error, OSError) as error:
        return str(error)
    return None


def _check_one(dataset: PointNavDataset, scene_id: str) -> SceneProblem | None:
    try:
        path = simulator_scene_file(dataset, scene_id)
    except Error as error:
        return SceneProblem(scene_id, None, str(error))
    reason = check_scene_file(path)
    return None if reason is None else SceneProblem(scene_id, path, reason)


def scene_problems(
    dataset: PointNavDataset | str | os.PathLike,
    *,
    show_progress: bool = True,
    workers: int | None = None,
) -> list[SceneProblem]:
    """Every scene of `dataset` (a PointNavDataset or a split path) that the simulator could
    not load, in dataset order; [] when all pass."""
    if not isinstance(dataset, PointNavDataset):
        dataset = load_pointnav(dataset)
    scene_ids = dataset.scene_ids
    workers = workers or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = pool.map(lambda s: _check_one(dataset, s), scene_ids)
        if show_progress:
            results = progress(results, total=len(scene_ids), desc="checking scenes")
        return [problem for problem in results if problem is not None]


def check_scenes(
    dataset: PointNavDataset | str | os.PathLike,
    *,
    show_progress: bool = True,
    workers: int | None = None,
) -> int:
    """The number of scenes checked; SceneCheckError listing every bad one otherwise."""
    if not isinstance(dataset, PointNavDataset):
        dataset = load_pointnav(dataset)
    problems = scene_problems(dataset, show_progress=show_progress, workers=workers)
    if problems:
        raise SceneCheckError(_message(dataset, problems), problems)
    return len(dataset.scene_ids)


def _message(dataset: PointNavDataset, problems: list[SceneProblem]) -> str:
    listed = "\n".join(f"  {p}" for p in problems[:MAX_LISTED])
    more = len(problems) - MAX_LISTED
    tail = f"\n  ... and {more} more" if more > 0 else ""
    return (
        f"{len(problems)} of {len(dataset.scene_ids)} scenes of {dataset.path or 'the dataset'} "
        "cannot be loaded; fix or re-import them (--skip-scene-check, or check_scenes=False "
        f"in Python, skips this check):\n{listed}{tail}"
    )
