"""Habitat PointNav-v1 datasets: the episode record, reading and writing json.gz splits
(with or without per-scene content/ files), scene resolution, the episode table a simulator
is built from, episode generation with habitat-lab's pointnav_generator rules, and folders of
scene models imported into packed scenes (import_dataset).

>>> navmesh = batchsim.NavMesh.load("Adrian.navmesh")
>>> episodes = generate_episodes(navmesh, "gibson/Adrian.glb", 1000, seed=0)
>>> write_pointnav("data/pointnav", "train", {"Adrian": episodes})
>>> load_pointnav("data/pointnav/train").episodes_for("Adrian")
>>> import_dataset("data/scene_datasets", "data/batchsim_scenes")   # models -> packed scenes
"""

from __future__ import annotations

from batchsim.datasets.check import check_episode
from batchsim.datasets.episode import PointNavEpisode, scene_name
from batchsim.datasets.episode_table import EpisodeTable, episode_table
from batchsim.datasets.generate import EpisodeRules, generate_episodes, ratio_sample_rate
from batchsim.datasets.import_dataset import ImportSettings, SceneResult, import_dataset
from batchsim.datasets.pointnav import (
    ALL_SCENES_MASK,
    PointNavDataset,
    load_pointnav,
    split_file,
    write_pointnav,
)
from batchsim.datasets.scenes import DEFAULT_SCENE_PATH_PREFIX, packed_scene_path, resolve_scene

__all__ = [
    "ALL_SCENES_MASK",
    "DEFAULT_SCENE_PATH_PREFIX",
    "EpisodeRules",
    "EpisodeTable",
    "ImportSettings",
    "PointNavDataset",
    "PointNavEpisode",
    "SceneResult",
    "check_episode",
    "episode_table",
    "generate_episodes",
    "import_dataset",
    "load_pointnav",
    "packed_scene_path",
    "ratio_sample_rate",
    "resolve_scene",
    "scene_name",
    "split_file",
    "write_pointnav",
]
