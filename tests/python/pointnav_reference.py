"""A plain-Python reference of Habitat's PointNav-v1 task over a batch of environments.

Written from the task's rules (habitat-sim's agent controls, habitat-lab's measures and
sensors; DESIGN.md "Task semantics"), not from batchsim's C++ simulator, so that the two can
be checked against each other. Only numpy and batchsim.NavMesh (try_steps,
geodesic_distances) are used; every environment's own math runs in float64.

>>> ref = PointNavReference([navmesh], episodes, episode_scene=[0] * len(episodes), num_envs=8)
>>> ref.reset(np.arange(8))                 # env i starts episode i
>>> done = ref.step(actions)                # outputs of the step; done envs wait for ...
>>> ref.start_episodes(np.flatnonzero(done), next_episode_indices)  # ... their next episode

The published arrays mirror batchsim.BatchSim's (position, rotation, pointgoal, reward,
terminated, truncated, success, spl, softspl, distance_to_goal, collisions, episode_step,
episode_index, scene_index), plus collided (this step's MOVE_FORWARD hit a wall). After an
episode ends, step()'s outputs describe the finished episode; start_episodes() then
rewrites position, rotation, pointgoal, episode_index and scene_index with the next
episode's start state ("same_step" autoreset).

For lockstep comparison with a float32 simulator, adopt_poses() continues from the other
simulator's poses after each step, and rotation_from_turns() gives the heading each episode
should have from its turn count alone, free of per-step rounding.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

STOP, MOVE_FORWARD, TURN_LEFT, TURN_RIGHT = 0, 1, 2, 3


@dataclasses.dataclass(frozen=True)
class ReferenceConfig:
    """The task's constants; defaults are Habitat PointNav-v1's."""

    forward_step: float = 0.25
    """MOVE_FORWARD distance in metres, along the agent's -z."""
    turn_degrees: float = 10.0
    """TURN_LEFT / TURN_RIGHT angle about +y."""
    success_distance: float = 0.2
    """STOP succeeds when the distance to the goal is below this."""
    slack_reward: float = -0.01
    """Reward added every step."""
    success_reward: float = 2.5
    """Reward added on success."""
    max_episode_steps: int = 500
    """Episodes that reach this many steps without STOP are truncated."""
    allow_sliding: bool = True
    """MOVE_FORWARD slides along walls (habitat-sim's default)."""
    collision_epsilon: float = 1e-5
    """habitat-sim ObjectControls: collided when |moved|^2 + eps < |wanted|^2."""


# --- quaternions (x, y, z, w), float64, batched over the leading axis -------------------


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The cross product a x b over the last axis (np.cross is slow on small batches)."""
    ax, ay, az = a[..., 0], a[..., 1], a[..., 2]
    bx, by, bz = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx], axis=-1)


def quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a ⊗ b."""
    au, aw = a[..., :3], a[..., 3:]
    bu, bw = b[..., :3], b[..., 3:]
    u = aw * bu + bw * au + cross(au, bu)
    w = aw * bw - np.sum(au * bu, axis=-1, keepdims=True)
    return np.concatenate([u, w], axis=-1)


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """q v q^-1 for unit quaternions q."""
    u, w = q[..., :3], q[..., 3:]
    t = 2.0 * cross(u, v)
    return v + w * t + cross(u, t)


def quat_conjugate(q: np.ndarray) -> np.ndarray:
    return q * np.array([-1.0, -1.0, -1.0, 1.0])


def quat_normalize(q: np.ndarray) -> np.ndarray:
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quat_about_y(degrees: float) -> np.ndarray:
    half = math.radians(degrees) / 2
    return np.array([0.0, math.sin(half), 0.0, math.cos(half)])


def polar_pointgoal(position: np.ndarray, rotation: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """Habitat's IntegratedPointGoalGPSAndCompassSensor (POLAR, 2-D): (rho, -phi) with
    phi = atan2(v.x, -v.z) of the goal v in the agent frame; a goal on the left is positive."""
    v = quat_rotate(quat_conjugate(rotation), goal - position)
    rho = np.hypot(v[..., 0], v[..., 2])
    phi = np.arctan2(v[..., 0], -v[..., 2])
    return np.stack([rho, -phi], axis=-1)


# --- the batch ----------------------------------------------------------------------------


class PointNavReference:
    """num_envs PointNav environments on navmeshes[scene] with float64 state.

    episodes: objects with start_position, start_rotation (x, y, z, w) and goal_position
    (batchsim.datasets.PointNavEpisode). episode_scene[e]: the index into navmeshes of
    episode e's scene.
    """

    def __init__(
        self,
        navmeshes: Sequence,
        episodes: Sequence,
        episode_scene: Sequence[int],
        num_envs: int,
        config: ReferenceConfig | None = None,
    ) -> None:
        self.config = config or ReferenceConfig()
        self.navmeshes = list(navmeshes)
        self.num_envs = n = int(num_envs)
        self._starts = np.array([e.start_position for e in episodes], np.float64).reshape(-1, 3)
        self._start_rotations = np.array([e.start_rotation for e in episodes], np.float64)
        self._goals_of = np.array([e.goal_position for e in episodes], np.float64).reshape(-1, 3)
        self._scene_of = np.asarray(episode_scene, np.int64)
        if len(self._scene_of) != len(self._starts):
            raise ValueError("episode_scene must give one scene per episode")
        # Published outputs (the simulator's arrays, in float64).
        self.position = np.zeros((n, 3))
        self.rotation = np.zeros((n, 4))
        self.pointgoal = np.zeros((n, 2))
        self.reward = np.zeros(n)
        self.terminated = np.zeros(n, bool)
        self.truncated = np.zeros(n, bool)
        self.success = np.zeros(n)
        self.spl = np.zeros(n)
        self.softspl = np.zeros(n)
        self.distance_to_goal = np.zeros(n)
        self.collisions = np.zeros(n, np.int64)
        self.collided = np.zeros(n, bool)  # this step's MOVE_FORWARD hit a wall
        self.episode_step = np.zeros(n, np.int64)
        self.episode_index = np.full(n, -1, np.int64)
        self.scene_index = np.full(n, -1, np.int64)
        # Per-episode state (differs from the published outputs after an autoreset).
        self._goal = np.zeros((n, 3))
        self._start_rotation = np.zeros((n, 4))
        self._net_turns = np.zeros(n, np.int64)  # left turns minus right turns
        self._steps = np.zeros(n, np.int64)
        self._path_length = np.zeros(n)
        self._collision_count = np.zeros(n, np.int64)
        self._d0 = np.zeros(n)
        self._d_prev = np.zeros(n)
        self._turn_left = quat_about_y(self.config.turn_degrees)
        self._turn_right = quat_about_y(-self.config.turn_degrees)

    # --- episodes ---------------------------------------------------------------------

    def start_episodes(self, envs: np.ndarray, episode_indices: np.ndarray) -> None:
        """Starts episode_indices[k] in envs[k]: the agent at the start position exactly (no
        snapping), the normalised start rotation, counters at zero. Rewrites the published
        position, rotation, pointgoal, episode_index and scene_index only."""
        envs = np.asarray(envs, np.int64)
        episodes = np.asarray(episode_indices, np.int64)
        if len(envs) == 0:
            return
        self.episode_index[envs] = episodes
        self.scene_index[envs] = self._scene_of[episodes]
        self.position[envs] = self._starts[episodes]
        self.rotation[envs] = quat_normalize(self._start_rotations[episodes])
        self._start_rotation[envs] = self.rotation[envs]
        self._net_turns[envs] = 0
        self._goal[envs] = self._goals_of[episodes]
        self._steps[envs] = 0
        self._path_length[envs] = 0.0
        self._collision_count[envs] = 0
        d0 = self._distances(envs)
        self._d0[envs] = d0
        self._d_prev[envs] = d0
        self.pointgoal[envs] = polar_pointgoal(
            self.position[envs], self.rotation[envs], self._goal[envs]
        )

    def reset(self, episode_indices: np.ndarray) -> None:
        """Every env starts episode_indices[env]; outputs are those of a fresh episode."""
        envs = np.arange(self.num_envs)
        self.start_episodes(envs, episode_indices)
        zero_path = np.zeros(self.num_envs)
        d0 = self._d0.copy()
        success = np.zeros(self.num_envs, bool)
        self._publish_metrics(envs, d0, success, zero_path)
        self.reward[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        self.collisions[:] = 0
        self.collided[:] = False
        self.episode_step[:] = 0

    def rotation_from_turns(self) -> np.ndarray:
        """[N, 4]: each episode's start rotation turned once by the net number of turns (all
        turns are about +y, so they commute). Free of the rounding that accumulates when
        turns are applied one at a time, so a slightly wrong turn angle shows here."""
        degrees = self._net_turns * self.config.turn_degrees
        half = np.radians(degrees)[:, None] / 2
        turn = np.concatenate(
            [np.zeros_like(half), np.sin(half), np.zeros_like(half), np.cos(half)], axis=1
        )
        return quat_normalize(quat_multiply(self._start_rotation, turn))

    def adopt_poses(self, position: np.ndarray, rotation: np.ndarray) -> None:
        """Continues from another simulator's agent poses (for lockstep comparison: a float32
        simulator's headings and positions drift from float64 ones by ~1e-7 per step, which
        a long slide along a wall accumulates past any tight tolerance)."""
        self.position[:] = position
        self.rotation[:] = rotation

    # --- one step ---------------------------------------------------------------------

    def step(self, actions: np.ndarray) -> np.ndarray:
        """Applies actions [N] in 0..3 and publishes the step's outputs. Returns the mask of
        envs whose episode ended (terminated or truncated); call start_episodes for them."""
        cfg = self.config
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or ((actions < 0) | (actions > 3)).any():
            raise ValueError(f"expected actions in 0..3 of shape [{self.num_envs}]")
        envs = np.arange(self.num_envs)
        old = self.position.copy()

        left, right = actions == TURN_LEFT, actions == TURN_RIGHT
        self.rotation[left] = quat_normalize(quat_multiply(self.rotation[left], self._turn_left))
        self.rotation[right] = quat_normalize(quat_multiply(self.rotation[right], self._turn_right))
        self._net_turns += left.astype(np.int64) - right

        collided = np.zeros(self.num_envs, bool)
        forward = np.flatnonzero(actions == MOVE_FORWARD)
        if len(forward):
            step = np.array([0.0, 0.0, -cfg.forward_step])
            target = old[forward] + quat_rotate(self.rotation[forward], step)
            reached = self._try_steps(forward, old[forward], target)
            self.position[forward] = reached
            moved2 = np.sum((reached - old[forward]) ** 2, axis=1)
            wanted2 = np.sum((target - old[forward]) ** 2, axis=1)
            collided[forward] = moved2 + cfg.collision_epsilon < wanted2

        stop = actions == STOP
        self._steps += 1
        self._path_length += np.linalg.norm(self.position - old, axis=1)
        self._collision_count += collided
        # The geodesic distance is a function of the position: only agents that moved need
        # a new query.
        d = self._d_prev.copy()
        moved = np.flatnonzero((self.position != old).any(axis=1))
        if len(moved):
            d[moved] = self._distances(moved)
        success = stop & (d < cfg.success_distance)

        self._publish_metrics(envs, d, success, self._path_length)
        self.reward[:] = cfg.slack_reward + (self._d_prev - d) + cfg.success_reward * success
        self._d_prev = d
        self.terminated[:] = stop
        self.truncated[:] = ~stop & (self._steps >= cfg.max_episode_steps)
        self.collisions[:] = self._collision_count
        self.collided[:] = collided
        self.episode_step[:] = self._steps
        self.pointgoal[:] = polar_pointgoal(self.position, self.rotation, self._goal)
        return self.terminated | self.truncated

    def _publish_metrics(
        self, envs: np.ndarray, d: np.ndarray, success: np.ndarray, path_length: np.ndarray
    ) -> None:
        """distance_to_goal, success, spl and softspl of envs (d etc. indexed by env)."""
        d0, d, path = self._d0[envs], d[envs], path_length[envs]
        longest = np.maximum(d0, path)
        ratio = np.divide(d0, longest, out=np.ones_like(d0), where=longest > 0)
        soft = np.where(
            d0 > 0,
            np.maximum(0.0, 1.0 - np.divide(d, d0, out=np.zeros_like(d), where=d0 > 0)),
            (d == 0).astype(np.float64),
        )
        self.distance_to_goal[envs] = d
        self.success[envs] = success[envs]
        self.spl[envs] = success[envs] * ratio
        self.softspl[envs] = soft * ratio

    # --- the navmesh, one batched call per scene --------------------------------------

    def _by_scene(self, envs: np.ndarray):
        scenes = self.scene_index[envs]
        for scene in np.unique(scenes):
            picked = scenes == scene
            yield self.navmeshes[scene], picked

    def _try_steps(self, envs: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        out = np.empty_like(starts)
        for navmesh, picked in self._by_scene(envs):
            out[picked] = navmesh.try_steps(
                starts[picked].astype(np.float32),
                ends[picked].astype(np.float32),
                allow_sliding=self.config.allow_sliding,
            )
        return out

    def _distances(self, envs: np.ndarray) -> np.ndarray:
        """Geodesic distance from each env's position to its goal; the 3-D Euclidean
        distance where the goal is unreachable (batchsim's rule, never inf)."""
        p, g = self.position[envs], self._goal[envs]
        out = np.empty(len(envs))
        for navmesh, picked in self._by_scene(envs):
            out[picked] = navmesh.geodesic_distances(
                p[picked].astype(np.float32), g[picked].astype(np.float32)
            )
        unreachable = ~np.isfinite(out)
        out[unreachable] = np.linalg.norm(p[unreachable] - g[unreachable], axis=1)
        return out
