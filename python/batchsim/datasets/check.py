"""Re-checking an episode against the generator's rules through a NavMesh (for tests, and for
datasets from elsewhere)."""

from __future__ import annotations

import math

import numpy as np

from batchsim.datasets.episode import PointNavEpisode
from batchsim.datasets.generate import EpisodeRules
from batchsim.scenes import NavMesh

# The stored geodesic may come from another navmesh build of the same scene; a centimetre
# separates "recomputed with float rounding" from "wrong".
GEODESIC_TOLERANCE = 0.01
YAW_TOLERANCE = 1e-6  # a yaw-only quaternion has x = z = 0


def check_episode(
    navmesh: NavMesh, episode: PointNavEpisode, rules: EpisodeRules | None = None
) -> list[str]:
    """The rules `episode` breaks on `navmesh`, as short sentences; [] when it passes.

    Near-straight episodes (geodesic/euclidean below the minimum ratio) are not flagged:
    the generator admits a few of them on purpose.
    """
    rules = rules or EpisodeRules()
    s, t = np.array(episode.start_position), np.array(episode.goal_position)
    problems = _placement(navmesh, s, t, rules)
    d = navmesh.geodesic_distance(s, t)
    if not math.isfinite(d):
        problems.append("goal unreachable from start (infinite geodesic)")
    elif not rules.closest_dist_limit <= d <= rules.furthest_dist_limit:
        problems.append(
            f"geodesic {d:.3f} m outside [{rules.closest_dist_limit}, {rules.furthest_dist_limit}]"
        )
    stored = episode.geodesic_distance
    if stored is not None and not abs(stored - d) <= GEODESIC_TOLERANCE:
        problems.append(f"info.geodesic_distance {stored:.3f} m but navmesh says {d:.3f} m")
    return problems + _goal_and_rotation(episode, rules)


def _placement(navmesh: NavMesh, s: np.ndarray, t: np.ndarray, rules: EpisodeRules) -> list[str]:
    problems = []
    for name, p in (("start", s), ("goal", t)):
        if not navmesh.is_navigable(p):
            problems.append(f"{name} {p.tolist()} not navigable")
        radius = navmesh.island_radius(p)
        if radius < rules.island_radius_limit:
            problems.append(f"{name} island radius {radius:.2f} m < {rules.island_radius_limit}")
    if navmesh.get_island(s) != navmesh.get_island(t):
        problems.append("start and goal on different islands")
    dy = abs(s[1] - t[1])
    if dy > rules.same_floor_max_dy:
        problems.append(f"start and goal heights differ by {dy:.3f} m > {rules.same_floor_max_dy}")
    return problems


def _goal_and_rotation(episode: PointNavEpisode, rules: EpisodeRules) -> list[str]:
    problems = []
    if episode.goal_radius is not None and episode.goal_radius != rules.success_distance:
        problems.append(
            f"goal radius {episode.goal_radius} != success_distance {rules.success_distance}"
        )
    x, _, z, _ = episode.start_rotation
    if abs(x) > YAW_TOLERANCE or abs(z) > YAW_TOLERANCE:
        problems.append(f"start_rotation {episode.start_rotation} is not a yaw-only quaternion")
    return problems
