"""A PointNav dataset as a simulator takes it: the episodes, the scenes in order of first use
with the file each loads from, and the columns of the C++ EpisodeSet."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from batchsim import _core
from batchsim.datasets.episode import PointNavEpisode
from batchsim.datasets.pointnav import PointNavDataset, load_pointnav
from batchsim.datasets.scenes import simulator_scene_file
from batchsim.errors import ArgumentTypeError, FormatError


@dataclass(frozen=True)
class EpisodeTable:
    dataset: PointNavDataset
    episodes: list[PointNavEpisode]
    scene_ids: list[str]
    """Scenes in order of first use; an episode's scene index points here."""
    scene_paths: list[Path]
    """The packed scene (or bare .navmesh) of each scene id."""

    def episode_set(self) -> _core.EpisodeSet:
        """The C++ EpisodeSet: scene index, start position and rotation, goal and geodesic
        distance of each episode."""
        index = {scene: i for i, scene in enumerate(self.scene_ids)}
        episodes = self.episodes
        return _core.EpisodeSet(
            scene_paths=[str(p) for p in self.scene_paths],
            episode_scene=np.array([index[e.scene_id] for e in episodes], np.int32),
            start_position=np.array([e.start_position for e in episodes], np.float32),
            start_rotation=np.array([e.start_rotation for e in episodes], np.float32),
            goal=np.array([e.goal_position for e in episodes], np.float32),
            geodesic=self.geodesic_distances(),
        )

    def geodesic_distances(self) -> np.ndarray:
        """[M] float32: each episode's info.geodesic_distance (m), NaN where it has none."""
        return np.array(
            [np.nan if e.geodesic_distance is None else e.geodesic_distance for e in self.episodes],
            np.float32,
        )


def episode_table(dataset: PointNavDataset | str | os.PathLike) -> EpisodeTable:
    """The table of a PointNavDataset, or of a split path for load_pointnav; MissingFileError
    where a scene has no packed file, FormatError for a dataset without episodes."""
    if not isinstance(dataset, PointNavDataset):
        if not isinstance(dataset, str | os.PathLike):
            raise ArgumentTypeError(
                "dataset: expected a PointNavDataset or a split path (str or os.PathLike), "
                f"got {type(dataset).__name__} {dataset!r}"
            )
        dataset = load_pointnav(dataset)
    episodes = list(dataset)
    if not episodes:
        raise FormatError(
            f"{dataset.path or 'the dataset'}: no episodes, and a simulator needs at least one "
            "(an empty split file, an empty content/ folder, or content_scenes matching no "
            "scene)"
        )
    scene_ids = list(dict.fromkeys(e.scene_id for e in episodes))
    paths = [simulator_scene_file(dataset, s) for s in scene_ids]
    return EpisodeTable(dataset, episodes, scene_ids, paths)
