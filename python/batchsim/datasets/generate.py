"""PointNav episode generation with the rules of habitat-lab's pointnav_generator.py.

Habitat walks one target at a time: sample a target, drop it if its island is small, then
try up to 10 sources, taking the first compatible one. Points are i.i.d., so the same
episodes (in distribution) come from doing this for a batch of targets at once, retry by
retry, with one batched geodesic query per retry over the targets still unmatched. Cheap
tests (height, island, straight-line distance) run first so that only candidates that could
pass cost a path search.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from batchsim.datasets.episode import PointNavEpisode
from batchsim.errors import InvalidArgumentError
from batchsim.scenes import NavMesh

# A generation run gives up once this many targets were tried per episode it still lacks
# (plus a floor): a navmesh where fewer than 1 in 1,000 targets works is not worth waiting on.
TARGETS_PER_EPISODE_LIMIT = 1000
TARGETS_LIMIT_FLOOR = 100_000
# Targets per batch: from the observed yield, clamped so that a batch stays quick yet
# amortises the Python overhead of the per-point island lookups.
MIN_BATCH, MAX_BATCH = 64, 16384


@dataclasses.dataclass(frozen=True)
class EpisodeRules:
    """Habitat's generator constants (habitat-lab pointnav_generator.py), one per field."""

    closest_dist_limit: float = 1.0  # shortest geodesic start-goal distance (m)
    furthest_dist_limit: float = 30.0  # longest geodesic start-goal distance (m)
    # Episodes with geodesic/euclidean below this are nearly straight; most are rejected.
    geodesic_to_euclid_min_ratio: float = 1.1
    number_retries_per_target: int = 10  # sources tried per target before a new target
    island_radius_limit: float = 1.5  # start and goal islands at least this big (m)
    success_distance: float = 0.2  # written as the goal radius
    same_floor_max_dy: float = 0.5  # start and goal heights differ at most this (m)

    def validate(self) -> EpisodeRules:
        if not 0 <= self.closest_dist_limit <= self.furthest_dist_limit:
            raise InvalidArgumentError(
                "expected 0 <= closest_dist_limit <= furthest_dist_limit, got "
                f"{self.closest_dist_limit} and {self.furthest_dist_limit}"
            )
        if self.number_retries_per_target < 1:
            raise InvalidArgumentError(
                f"number_retries_per_target must be >= 1, got {self.number_retries_per_target}"
            )
        for name in ("island_radius_limit", "same_floor_max_dy", "geodesic_to_euclid_min_ratio"):
            if not getattr(self, name) >= 0:
                raise InvalidArgumentError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not self.success_distance > 0:
            raise InvalidArgumentError(f"success_distance must be > 0, got {self.success_distance}")
        return self


def ratio_sample_rate(ratio: np.ndarray) -> np.ndarray:
    """Habitat's _ratio_sample_rate: the chance of keeping a near-straight episode, 0.008 at
    ratio 1 rising to 0.288 at 1.1."""
    return 20.0 * (ratio - 0.98) ** 2


class _Sampler:
    """The navmesh, its island radii and the seeded streams of one generation run."""

    def __init__(self, navmesh: NavMesh, rules: EpisodeRules, seed: int):
        self.navmesh, self.rules = navmesh, rules
        navmesh.seed(seed)  # points: the navmesh's own stream
        self.rng = np.random.default_rng(seed)  # ratio tests and start angles
        radii = [navmesh.island_radius(i) for i in range(navmesh.num_islands)]
        # Index -1 (off the navmesh) reads the trailing 0: never big enough.
        self.radii = np.array([*radii, 0.0], np.float64)

    def points(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """n random navigable points and their islands."""
        points = self.navmesh.get_random_navigable_points(n)
        islands = np.fromiter((self.navmesh.get_island(p) for p in points), np.int64, n)
        return points, islands

    def compatible(self, s, s_island, t, t_island) -> tuple[np.ndarray, np.ndarray]:
        """Habitat's is_compatible_episode for each source/target row: (ok, geodesic)."""
        rules = self.rules
        euclid = np.linalg.norm(s.astype(np.float64) - t, axis=1)
        keep = self.rng.random(len(s))  # one draw per candidate, used only if near-straight
        cheap = (
            (np.abs(s[:, 1] - t[:, 1]) <= rules.same_floor_max_dy)
            & (s_island == t_island)
            & (self.radii[s_island] >= rules.island_radius_limit)
            & (euclid <= rules.furthest_dist_limit)  # geodesic >= euclid
        )
        d = np.full(len(s), np.inf)
        if cheap.any():
            d[cheap] = self.navmesh.geodesic_distances(s[cheap], t[cheap])
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(euclid > 0, d / euclid, np.inf)
        straight = ratio < rules.geodesic_to_euclid_min_ratio
        ok = (
            np.isfinite(d)
            & (d >= rules.closest_dist_limit)
            & (d <= rules.furthest_dist_limit)
            & ~(straight & (keep > ratio_sample_rate(ratio)))
        )
        return ok, d

    def batch(self, n_targets: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
        """(source, target, geodesic) for each of n_targets targets that found a source, in
        target order."""
        t, t_island = self.points(n_targets)
        live = np.flatnonzero(self.radii[t_island] >= self.rules.island_radius_limit)
        sources = np.zeros_like(t)
        distances = np.full(n_targets, np.nan)
        for _ in range(self.rules.number_retries_per_target):
            if not len(live):
                break
            s, s_island = self.points(len(live))
            ok, d = self.compatible(s, s_island, t[live], t_island[live])
            sources[live[ok]], distances[live[ok]] = s[ok], d[ok]
            live = live[~ok]
        found = np.flatnonzero(~np.isnan(distances))
        return [(sources[i], t[i], float(distances[i])) for i in found]


def _episode(index: int, scene_id: str, s, t, d: float, angle: float, radius: float):
    return PointNavEpisode(
        episode_id=str(index),
        scene_id=scene_id,
        start_position=tuple(float(x) for x in s),
        start_rotation=(0.0, math.sin(angle / 2), 0.0, math.cos(angle / 2)),
        goal_position=tuple(float(x) for x in t),
        goal_radius=radius,
        geodesic_distance=d,
    )


def generate_episodes(
    navmesh: NavMesh,
    scene_id: str,
    num_episodes: int,
    seed: int,
    *,
    closest_dist_limit: float = 1.0,
    furthest_dist_limit: float = 30.0,
    geodesic_to_euclid_min_ratio: float = 1.1,
    number_retries_per_target: int = 10,
    island_radius_limit: float = 1.5,
    success_distance: float = 0.2,
    same_floor_max_dy: float = 0.5,
) -> list[PointNavEpisode]:
    """num_episodes PointNav episodes on `navmesh`, ids "0", "1", ..., by Habitat's rules.

    Deterministic for a seed: points come from navmesh.seed(seed)'s stream and the ratio
    tests and start angles from numpy.random.default_rng(seed). Raises InvalidArgumentError
    when the navmesh cannot give that many episodes (no island big enough, say).
    """
    rules = EpisodeRules(
        closest_dist_limit,
        furthest_dist_limit,
        geodesic_to_euclid_min_ratio,
        number_retries_per_target,
        island_radius_limit,
        success_distance,
        same_floor_max_dy,
    ).validate()
    if isinstance(num_episodes, bool) or not isinstance(num_episodes, int) or num_episodes < 0:
        raise InvalidArgumentError(f"num_episodes: expected an int >= 0, got {num_episodes!r}")
    sampler = _Sampler(navmesh, rules, seed)
    if num_episodes and not (sampler.radii >= rules.island_radius_limit).any():
        raise InvalidArgumentError(
            f"navmesh for {scene_id!r} has no island of radius >= island_radius_limit="
            f"{rules.island_radius_limit} m (radii {_radii(sampler)}); no episode can start there"
        )
    found: list[tuple[np.ndarray, np.ndarray, float]] = []
    tried = 0
    while len(found) < num_episodes:
        missing = num_episodes - len(found)
        if tried >= TARGETS_LIMIT_FLOOR + TARGETS_PER_EPISODE_LIMIT * missing:
            raise InvalidArgumentError(
                f"navmesh gave only {len(found)} of {num_episodes} episodes from {tried} "
                f"targets for {scene_id!r}; are its islands smaller than "
                f"island_radius_limit={rules.island_radius_limit} m (radii {_radii(sampler)})?"
            )
        n = _batch_size(missing, len(found), tried)
        found += sampler.batch(n)[:missing]
        tried += n
    angles = sampler.rng.uniform(0, 2 * np.pi, num_episodes)
    return [
        _episode(i, scene_id, s, t, d, float(a), rules.success_distance)
        for i, ((s, t, d), a) in enumerate(zip(found, angles, strict=True))
    ]


def _batch_size(missing: int, found: int, tried: int) -> int:
    """Targets for the next batch: enough for the missing episodes at the yield seen so far
    (a fixed function of earlier results, so runs stay deterministic)."""
    rate = found / tried if tried else 0.5
    return int(np.clip(math.ceil(1.2 * missing / max(rate, 0.01)), MIN_BATCH, MAX_BATCH))


def _radii(sampler: _Sampler) -> list[float]:
    return [round(float(r), 2) for r in sampler.radii[:-1]]
