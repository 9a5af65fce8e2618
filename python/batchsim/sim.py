"""PointNavSim: the batch PointNav simulator without rendering.

N environments advance together in one call, on a pool of C++ threads, with Habitat's
PointNav-v1 rules. Results live in persistent numpy arrays that every ``reset``/``step``
rewrites in place (views of the C++ buffers: no copies, stable addresses):

=================  ==============  =====================================================
array              shape, dtype    meaning
=================  ==============  =====================================================
actions            [N] int32       what ``step()`` applies (0 STOP, 1 MOVE_FORWARD,
                                   2 TURN_LEFT, 3 TURN_RIGHT); writable in place
position           [N, 3] float32  agent on the navmesh (m, y up)
rotation           [N, 4] float32  agent orientation, unit quaternion (x, y, z, w)
goal               [N, 3] float32  the episode's goal
pointgoal          [N, 2] float32  pointgoal_with_gps_compass: distance (m), angle (rad,
                                   positive to the left)
reward             [N] float32     -0.01 + progress + 2.5 on success
terminated         [N] bool        STOP was called
truncated          [N] bool        the episode reached max_episode_steps
success, spl,      [N] float32     Habitat's measures, of the episode that just ended
softspl,                           where terminated | truncated, else running values
distance_to_goal
collisions         [N] int32       moves that hit a wall, this episode
episode_step       [N] int32       steps taken this episode
episode_index      [N] int64       index into ``episodes``
scene_index        [N] int32       index into ``scene_paths``
active             [N] bool        False once evaluation has nothing left to run
camera_position    [N, 3] float32  the renderer's camera: 1.25 m above the agent
camera_rotation    [N, 4] float32
=================  ==============  =====================================================

With ``autoreset="same_step"`` (the default) an environment whose episode ends starts the
next one inside the same step: reward, flags and measures describe the ended episode while
position, rotation, pointgoal and the indices already describe the new one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from batchsim import _core
from batchsim.datasets import PointNavDataset, load_pointnav, packed_scene_path, resolve_scene
from batchsim.errors import MissingFileError

TaskConfig = _core.TaskConfig


def _candidate_models(dataset: PointNavDataset, scene_id: str) -> list[Path]:
    """Where scene_id's model may be: Habitat's resolution, then batchsim's dataset layout
    (<root>/pointnav/<split>/<split>.json.gz beside <root>/scene_datasets/)."""
    models = [dataset.scene_path(scene_id)]
    if dataset.scenes_dir is None and dataset.path is not None:
        layout_dir = Path(dataset.path).resolve().parents[2] / "scene_datasets"
        if layout_dir.is_dir():
            models.append(resolve_scene(scene_id, layout_dir))
    return models


def _scene_file(dataset: PointNavDataset, scene_id: str) -> Path:
    """The packed scene of scene_id, or a bare .navmesh beside it (navigation only)."""
    models = _candidate_models(dataset, scene_id)
    for model in models:
        packed = packed_scene_path(model)
        if packed is not None:
            return packed
        if model.with_suffix(".navmesh").is_file():
            return model.with_suffix(".navmesh")
    tried = ", ".join(str(m.with_suffix(".bsscene")) for m in models)
    raise MissingFileError(
        f"scene {scene_id!r} of {dataset.path or 'the dataset'} has no packed scene: tried "
        f"{tried} (make one with `batchsim import MODEL OUT.bsscene`, or pass scenes_dir to "
        "load_pointnav); a bare .navmesh beside the model also works"
    )


def _episode_columns(episodes, scene_index: dict[str, int]) -> dict[str, np.ndarray]:
    return {
        "episode_scene": np.array([scene_index[e.scene_id] for e in episodes], np.int32),
        "start_position": np.array([e.start_position for e in episodes], np.float32),
        "start_rotation": np.array([e.start_rotation for e in episodes], np.float32),
        "goal": np.array([e.goal_position for e in episodes], np.float32),
    }


class PointNavSim:
    """N PointNav environments stepped together (see the module docstring for the arrays).

    dataset: a :class:`batchsim.datasets.PointNavDataset` or a split path for
        :func:`batchsim.datasets.load_pointnav`; its scenes need packed ``.bsscene`` files.
    mode: "train" samples episodes of the resident scenes with replacement; "eval" runs
        every episode exactly once (environments park when nothing is left; ``finished``).
    num_threads: CPU workers, the calling thread included. Results do not depend on it.
    scenes_resident: K scenes in memory; environment i uses slot i mod K.
    steps_per_scene: training: each slot moves to its next scene this often.
    geodesic: "corridor" (reuses each agent's path; within 1 cm of exact) or "exact".
    autoreset: "same_step", "next_step" or "disabled" (then use ``reset_envs``).
    task: a :class:`TaskConfig`; Habitat's PointNav defaults when omitted.
    """

    def __init__(
        self,
        dataset: PointNavDataset | str | os.PathLike,
        num_envs: int,
        *,
        mode: str = "train",
        seed: int = 0,
        num_threads: int = 1,
        scenes_resident: int = 1,
        steps_per_scene: int = 2000,
        geodesic: str = "corridor",
        autoreset: str = "same_step",
        task: TaskConfig | None = None,
        loader_bytes_per_second: float = 512 * 2**20,
    ):
        if not isinstance(dataset, PointNavDataset):
            dataset = load_pointnav(dataset)
        self.dataset = dataset
        self.episodes = list(dataset)
        scene_ids = list(dict.fromkeys(e.scene_id for e in self.episodes))
        self.scene_ids = scene_ids
        self.scene_paths = [_scene_file(dataset, s) for s in scene_ids]
        columns = _episode_columns(self.episodes, {s: i for i, s in enumerate(scene_ids)})
        self._sim = self._build_core(
            [str(p) for p in self.scene_paths],
            columns,
            dict(
                num_envs=num_envs,
                num_threads=num_threads,
                seed=seed,
                mode=mode,
                scenes_resident=scenes_resident,
                steps_per_scene=steps_per_scene,
                geodesic=geodesic,
                autoreset=autoreset,
                loader_bytes_per_second=loader_bytes_per_second,
                task=task if task is not None else TaskConfig(),
            ),
        )
        self.mode, self.geodesic, self.autoreset = mode, geodesic, autoreset
        self.num_threads = num_threads
        for name, array in self._sim.arrays().items():
            setattr(self, name, array)

    def _build_core(self, scene_paths: list[str], columns: dict, options: dict):
        """The C++ BatchSim; subclasses (batchsim.Simulator) build more around it."""
        return _core.BatchSim(scene_paths, **columns, **options)

    @property
    def num_envs(self) -> int:
        return self._sim.num_envs

    @property
    def task(self) -> TaskConfig:
        return self._sim.task

    @property
    def scenes_resident(self) -> int:
        """K, the number of scene slots (at most the number of scenes)."""
        return self._sim.slot_count

    @property
    def finished(self) -> bool:
        """Evaluation: every episode has run and every environment has parked."""
        return self._sim.finished

    def reset(self, seed: int | None = None) -> None:
        """Starts an episode in every environment; a seed reseeds them first."""
        self._sim.reset(seed)

    def reset_envs(self, mask) -> None:
        """Starts a new episode in the environments where mask ([N] bool) is True."""
        self._sim.reset_envs(np.asarray(mask, dtype=bool))

    def step(self, actions=None) -> None:
        """Advances every environment: by ``actions`` ([N] integers) or by ``self.actions``."""
        self._sim.step(actions)

    def stats(self) -> dict[str, Any]:
        """Counters: steps, episodes, scene swaps, resident scenes and memory, loader stalls."""
        return self._sim.stats()

    def __repr__(self) -> str:
        return (
            f"PointNavSim(num_envs={self.num_envs}, mode={self.mode!r}, "
            f"episodes={len(self.episodes)}, scenes={len(self.scene_paths)}, "
            f"scenes_resident={self.scenes_resident}, num_threads={self.num_threads}, "
            f"geodesic={self.geodesic!r}, autoreset={self.autoreset!r})"
        )


__all__ = ["PointNavSim", "TaskConfig"]
