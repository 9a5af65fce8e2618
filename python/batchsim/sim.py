"""BatchSim: the batch PointNav simulator without rendering (the C++ ``sim::BatchSim``).

N environments advance together in one call, on a pool of C++ threads, with Habitat's
PointNav-v1 rules. Results live in persistent numpy arrays, :class:`SimOutputs`, that every
``reset``/``step`` rewrites in place (views of the C++ buffers: no copies, stable addresses);
``sim.outputs.reward`` and its shorthand ``sim.reward`` are the same array.

With ``autoreset="same_step"`` (the default) an environment whose episode ends starts the
next one inside the same step: reward, flags and measures describe the ended episode while
position, rotation, pointgoal and the indices already describe the new one.
"""

from __future__ import annotations

import dataclasses
import numbers
import os
from typing import Any

import numpy as np

from batchsim import _core
from batchsim._value_fields import check_seed
from batchsim.actions import check_actions, check_mask
from batchsim.datasets import EpisodeTable, PointNavDataset, episode_table
from batchsim.errors import InvalidArgumentError
from batchsim.options import SimConfig, TaskConfig, sim_config


@dataclasses.dataclass(frozen=True)
class SimOutputs:
    """The simulator's persistent arrays (index = environment), rewritten in place by every
    reset and step. All are read-only views but ``actions``. The fields after ``actions`` are
    the C++ output table's rows (src/sim/outputs.hpp, ``batchsim._outputs.OUTPUTS``), written
    here by scripts/output_table.py so that type checkers see them."""

    actions: np.ndarray
    """[N] int32: what ``step()`` applies (0 STOP, 1 MOVE_FORWARD, 2 TURN_LEFT, 3 TURN_RIGHT)."""
    # outputs:fields:begin (scripts/output_table.py --write; from src/sim/outputs.hpp)
    position: np.ndarray
    """[N, 3] float32: the agent on the navmesh (m, y up)."""
    rotation: np.ndarray
    """[N, 4] float32: the agent's orientation, a unit quaternion (x, y, z, w)."""
    goal: np.ndarray
    """[N, 3] float32: the episode's goal."""
    pointgoal: np.ndarray
    """[N, 2] float32: pointgoal_with_gps_compass, distance (m) and angle (rad, + to the left)."""
    reward: np.ndarray
    """[N] float32: -0.01 + progress + 2.5 on success."""
    terminated: np.ndarray
    """[N] bool: STOP was called."""
    truncated: np.ndarray
    """[N] bool: the episode reached max_episode_steps."""
    success: np.ndarray
    """[N] float32: Habitat's measure, of the episode that just ended where terminated or truncated,
    else running."""
    spl: np.ndarray
    """[N] float32: as success."""
    softspl: np.ndarray
    """[N] float32: as success."""
    distance_to_goal: np.ndarray
    """[N] float32: geodesic metres to the goal (straight-line where unreachable)."""
    collisions: np.ndarray
    """[N] int32: moves that hit a wall, this episode."""
    geodesic_at_start: np.ndarray
    """[N] float32: geodesic metres from the episode's start to its goal (SPL's shortest path)."""
    episode_step: np.ndarray
    """[N] int32: steps taken this episode."""
    episode_index: np.ndarray
    """[N] int64: index into ``episodes``."""
    scene_index: np.ndarray
    """[N] int32: index into ``scene_paths``."""
    resident_scene: np.ndarray
    """[N] int32: the resident scene place (0 .. 2K-1) the renderer draws the env in."""
    active: np.ndarray
    """[N] bool: False once evaluation has nothing left to run."""
    camera_position: np.ndarray
    """[N, 3] float32: the renderer's camera, camera_height above the agent."""
    camera_rotation: np.ndarray
    """[N, 4] float32: the camera's orientation (x, y, z, w)."""
    # outputs:fields:end


class SimOutputFields:
    """``self.reward`` for ``self.outputs.reward``, for every SimOutputs field (properties
    made below; the annotations tell type checkers, and a test keeps them SimOutputs')."""

    outputs: SimOutputs
    actions: np.ndarray
    # outputs:names:begin (scripts/output_table.py --write; from src/sim/outputs.hpp)
    position: np.ndarray
    rotation: np.ndarray
    goal: np.ndarray
    pointgoal: np.ndarray
    reward: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    success: np.ndarray
    spl: np.ndarray
    softspl: np.ndarray
    distance_to_goal: np.ndarray
    collisions: np.ndarray
    geodesic_at_start: np.ndarray
    episode_step: np.ndarray
    episode_index: np.ndarray
    scene_index: np.ndarray
    resident_scene: np.ndarray
    active: np.ndarray
    camera_position: np.ndarray
    camera_rotation: np.ndarray
    # outputs:names:end


for _field in dataclasses.fields(SimOutputs):
    setattr(
        SimOutputFields,
        _field.name,
        property(lambda self, name=_field.name: getattr(self.outputs, name)),
    )


def geodesic_limit(metres) -> float:
    """``metres`` as a float for set_max_episode_geodesic (which checks its value), or
    InvalidArgumentError naming what was given."""
    if isinstance(metres, bool) or not isinstance(metres, numbers.Real):
        raise InvalidArgumentError(
            f"max_episode_geodesic: expected metres (a number; math.inf: no limit), "
            f"got {type(metres).__name__}"
        )
    return float(metres)


class BatchSim(SimOutputFields):
    """N PointNav environments stepped together (see the module docstring).

    dataset: a :class:`batchsim.datasets.PointNavDataset` or a split path for
        :func:`batchsim.datasets.load_pointnav`; its scenes need packed ``.bsscene`` files.
    num_envs, config, fields: a :class:`SimConfig` (its defaults when None) with ``fields``
        changed, e.g. ``mode="eval"`` (every episode once; environments park when nothing is
        left, see ``finished``), ``num_threads`` (results do not depend on it),
        ``scenes_resident`` (K; environment i in slot i mod K), ``geodesic`` ("corridor" or
        "exact"), ``autoreset`` ("same_step", "next_step" or "disabled": then use
        ``reset_envs``), ``task`` (a :class:`TaskConfig`). ``help(batchsim.SimConfig)`` lists all.
    """

    def __init__(
        self,
        dataset: PointNavDataset | str | os.PathLike,
        num_envs: int | None = None,
        *,
        config: SimConfig | None = None,
        **fields: Any,
    ):
        if num_envs is not None:
            fields["num_envs"] = num_envs
        table = episode_table(dataset)
        self._attach(
            _core.BatchSim(sim_config(config, **fields), table.episode_set()), table, owner=None
        )

    @classmethod
    def of(cls, core: _core.BatchSim, table: EpisodeTable, owner: str) -> BatchSim:
        """The wrapper of a C++ BatchSim that `owner` (e.g. "Simulator") made and steps: it
        reads like any BatchSim, but stepping, resetting and the geodesic limit go through
        the owner, the one door that renders each step and knows whether one is running."""
        sim = cls.__new__(cls)
        sim._attach(core, table, owner)
        return sim

    def _attach(self, core: _core.BatchSim, table: EpisodeTable, owner: str | None) -> None:
        self._core, self.table, self._owner = core, table, owner
        self.outputs = SimOutputs(**core.arrays())

    @property
    def config(self) -> SimConfig:
        return self._core.config

    @property
    def num_envs(self) -> int:
        return self._core.num_envs

    @property
    def task(self) -> TaskConfig:
        return self._core.config.task

    @property
    def mode(self) -> str:
        return self._core.config.mode

    @property
    def num_threads(self) -> int:
        return self._core.config.num_threads

    @property
    def dataset(self) -> PointNavDataset:
        return self.table.dataset

    @property
    def episodes(self) -> list:
        return self.table.episodes

    @property
    def scene_ids(self) -> list[str]:
        return self.table.scene_ids

    @property
    def scene_paths(self) -> list:
        return self.table.scene_paths

    @property
    def scenes_resident(self) -> int:
        """K, the number of scene slots (at most the number of scenes)."""
        return self._core.slot_count

    @property
    def finished(self) -> bool:
        """Evaluation: every episode has run and every environment has parked."""
        return self._core.finished

    @property
    def max_episode_geodesic(self) -> float:
        """Training's limit on the geodesic distance of new episodes (m); inf: none."""
        return self._core.max_episode_geodesic

    def set_max_episode_geodesic(self, metres: float) -> None:
        """Training draws each new episode among its scene's episodes of at most ``metres``
        geodesic distance (info.geodesic_distance; a scene with none that short gives its
        shortest); ``math.inf``, the default, lifts the limit. It holds from the next episode
        start on, across resets; evaluation ignores it. InvalidArgumentError for NaN, a
        negative value, or a limit on episodes without info.geodesic_distance."""
        self._refuse_if_owned("set_max_episode_geodesic()")
        self._apply_geodesic_limit(metres)

    def _apply_geodesic_limit(self, metres: float) -> None:
        """set_max_episode_geodesic for the owner, which has checked that no step runs."""
        self._core.set_max_episode_geodesic(geodesic_limit(metres))

    def reset(self, seed: int | None = None) -> None:
        """Starts an episode in every environment; a seed reseeds them first."""
        self._refuse_if_owned("reset()")
        self._core.reset(check_seed(seed))

    def reset_envs(self, mask) -> None:
        """Starts a new episode in the environments where mask ([N] bool) is True."""
        self._refuse_if_owned("reset_envs()")
        self._core.reset_envs(check_mask(mask, self.num_envs))

    def step(self, actions=None) -> None:
        """Advances every environment: by ``actions`` ([N] integers) or by ``outputs.actions``."""
        self._refuse_if_owned("step()")
        if actions is not None:  # checked here once; the core steps its action buffer
            self.outputs.actions[:] = check_actions(actions, self.num_envs)
        self._core.step()

    def _refuse_if_owned(self, call: str) -> None:
        if self._owner is not None:
            raise InvalidArgumentError(
                f"BatchSim.{call} on a {self._owner}'s simulation ({self._owner}.sim): call "
                f"{self._owner}.{call} instead, which renders the step and checks that no "
                "asynchronous step runs"
            )

    def stats(self) -> dict[str, Any]:
        """Counters: steps, episodes, scene swaps, resident scenes and memory, loader stalls."""
        return self._core.stats()

    def __repr__(self) -> str:
        c = self.config
        return (
            f"BatchSim(num_envs={c.num_envs}, mode={c.mode!r}, episodes={len(self.episodes)}, "
            f"scenes={len(self.scene_paths)}, scenes_resident={self.scenes_resident}, "
            f"num_threads={c.num_threads}, geodesic={c.geodesic!r}, autoreset={c.autoreset!r})"
        )


__all__ = ["BatchSim", "SimOutputFields", "SimOutputs", "TaskConfig"]
