"""Checking every scene a dataset names before a run starts, so that a missing or damaged
file stops the run at once with a list of every bad scene, not hours in at its first swap.

Each scene goes through the same validator the simulator's loader runs (C++
PackedScene::load: magic, version, file size, header, table and section CRC32s, the
sections' structure) plus the loader's one extra rule, a navmesh inside; bare .navmesh files
are parsed as the loader parses them. Then its episodes' starts go through the simulator's
rules (C++ sim/episode_starts.hpp, NavMesh.start_problems): a rotation about the vertical
axis only, a position on the navmesh (not in the air, not inside a wall). Loads and checks
release the GIL, so the check runs on a thread per core.

>>> check_scenes(load_pointnav("data/procgen/pointnav/train"))   # SceneCheckError if any is bad
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from batchsim._progress import progress
from batchsim.datasets.episode import PointNavEpisode
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


def check_scene_file(path: Path, episodes: Sequence[PointNavEpisode] = ()) -> str | None:
    """Why the simulator could not load `path`, or run one of `episodes` (on that scene)
    from its start; None when it could."""
    try:
        if path.suffix == PACKED_SCENE_SUFFIX:
            scene = Scene.load(path)
            if not scene.has_navmesh:
                return "has no navmesh (re-import it with `batchsim import`)"
            navmesh = scene.navmesh()
        else:
            navmesh = NavMesh.load(path)
        return _start_problems(navmesh, episodes)
    except (Error, OSError) as error:
        return str(error)


def _start_problems(navmesh: NavMesh, episodes: Sequence[PointNavEpisode]) -> str | None:
    """The simulator's rules for episode starts (it would refuse the scene at its first
    load): every episode that breaks one, the first few spelled out."""
    if not episodes:
        return None
    positions = np.array([e.start_position for e in episodes], np.float32)
    rotations = np.array([e.start_rotation for e in episodes], np.float32)
    problems = navmesh.start_problems(start_positions=positions, start_rotations=rotations)
    if not problems:
        return None
    listed = "; ".join(f"episode {episodes[row].episode_id!r}: {why}" for row, why in problems[:3])
    more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
    return (
        f"{len(problems)} of its {len(episodes)} episodes start where the simulator cannot run "
        f"them (fix or drop them): {listed}{more}"
    )


def _check_one(
    dataset: PointNavDataset, scene_id: str, episodes: Sequence[PointNavEpisode]
) -> SceneProblem | None:
    try:
        path = simulator_scene_file(dataset, scene_id)
    except Error as error:
        return SceneProblem(scene_id, None, str(error))
    reason = check_scene_file(path, episodes)
    return None if reason is None else SceneProblem(scene_id, path, reason)


def scene_problems(
    dataset: PointNavDataset | str | os.PathLike,
    *,
    show_progress: bool = True,
    workers: int | None = None,
) -> list[SceneProblem]:
    """Every scene of `dataset` (a PointNavDataset or a split path) that the simulator could
    not load, or whose episodes it could not start, in scene_id order; [] when all pass."""
    if not isinstance(dataset, PointNavDataset):
        dataset = load_pointnav(dataset)
    by_scene: dict[str, list[PointNavEpisode]] = {}
    for episode in dataset.episodes:
        by_scene.setdefault(episode.scene_id, []).append(episode)
    scene_ids = sorted(by_scene)
    workers = workers or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = pool.map(lambda s: _check_one(dataset, s, by_scene[s]), scene_ids)
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
        "cannot be loaded, or hold episodes the simulator cannot start; fix or re-import them "
        f"(--skip-scene-check, or check_scenes=False in Python, skips this check):\n{listed}{tail}"
    )
