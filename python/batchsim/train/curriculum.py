"""A curriculum over geodesic distance (TrainConfig.curriculum_start_m): training starts on
short episodes, where successes by chance come early, and widens to all of them.

After f frames of all ranks, each simulator draws new episodes of at most

    L(f) = start * (longest / start) ** (f / curriculum_frames)    (f < curriculum_frames)

metres of geodesic distance (BatchSim.set_max_episode_geodesic), where longest is the
training split's longest info.geodesic_distance; from curriculum_frames on there is no limit.

Geometric rather than linear growth: the limit takes as many frames to go from 2 to 4 m as
from 8 to 16 m, so the short episodes, where the policy first learns to follow the goal
vector, get the early frames, and each later step asks the same relative stretch of the
skill. A linear schedule from 2 to 30 m would pass 4 m after 7% of curriculum_frames.

The trainer sets the limit for the frames done after each update (and when it starts, from
its checkpoint's count), so every rollout and segment start draws under L(frames done). The
limit is a function of the frame count alone, which checkpoints hold: a resumed run applies
the same limits at the same updates and stays exact."""

from __future__ import annotations

import math

import numpy as np


def curriculum_limit(frames: int, start_m: float, longest_m: float, span_frames: int) -> float:
    """The limit (m) after `frames` frames: start_m growing geometrically to longest_m over
    span_frames, then inf (no limit; also where start_m already covers longest_m)."""
    if frames >= span_frames or start_m >= longest_m:
        return math.inf
    return start_m * (longest_m / start_m) ** (frames / span_frames)


def check_curriculum(start_m: float | None, span_frames: int) -> None:
    """ValueError naming a bad curriculum_start_m or curriculum_frames."""
    if start_m is None:
        return
    if isinstance(start_m, bool) or not (isinstance(start_m, int | float) and start_m >= 0):
        raise ValueError(
            f"curriculum_start_m: expected None, 0 (off) or metres > 0, got {start_m!r}"
        )
    if start_m > 0 and not (math.isfinite(start_m) and span_frames >= 1):
        raise ValueError(
            f"curriculum_start_m, curriculum_frames: expected finite metres and frames >= 1, "
            f"got {start_m!r} and {span_frames!r}"
        )


class Curriculum:
    """One run's schedule, applied to its envs: set_max_episode_geodesic(L(frames))."""

    def __init__(self, envs, start_m: float, span_frames: int, geodesics: np.ndarray, frames: int):
        missing = int(np.isnan(geodesics).sum())
        if missing:
            raise ValueError(
                f"curriculum_start_m: a curriculum needs every training episode's "
                f"info.geodesic_distance, but {missing} of {len(geodesics)} episodes lack it"
            )
        self.envs, self.start_m, self.span_frames = envs, float(start_m), int(span_frames)
        self.longest_m = float(geodesics.max())
        self.limit = math.inf
        self._set(frames)

    def limit_at(self, frames: int) -> float:
        return curriculum_limit(frames, self.start_m, self.longest_m, self.span_frames)

    def advance(self, frames: int) -> dict[str, float]:
        """After an update, with `frames` now done: sets the limit of the next rollouts and
        returns {"curriculum_m": the limit the rollouts so far drew under} while there was
        one, else {} (no inf in the logs)."""
        used = self.limit
        self._set(frames)
        return {"curriculum_m": used} if math.isfinite(used) else {}

    def _set(self, frames: int) -> None:
        self.limit = self.limit_at(frames)
        for env in self.envs:
            env.set_max_episode_geodesic(self.limit)


class NoCurriculum:
    """curriculum_start_m None or 0: the envs are never limited (nor called)."""

    limit = math.inf

    def advance(self, frames: int) -> dict[str, float]:
        return {}


def make_curriculum(config, envs, frames: int) -> Curriculum | NoCurriculum:
    """The run's curriculum over its BatchNavEnvs (one training split), its first limit set
    for the `frames` done (0, or a checkpoint's): before the segment's first episodes."""
    if not config.curriculum_start_m:
        return NoCurriculum()
    geodesics = envs[0].sim.sim.table.geodesic_distances()
    return Curriculum(envs, config.curriculum_start_m, config.curriculum_frames, geodesics, frames)
