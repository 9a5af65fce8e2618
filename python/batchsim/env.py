"""BatchNavEnv: N PointNav environments as one gymnasium vector env (gymnasium 1.x).

    env = batchsim.BatchNavEnv("data/procgen/pointnav/train", 1024, device="cuda:0")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(actions)

Observations are a dict of torch tensors on the env's device: ``depth`` [N, 1, H, W]
float32 and ``rgb`` [N, 3, H, W] uint8 (a view of the renderer's [N, H, W, 4] output: no
copy) as asked for by ``sensors``, and ``pointgoal_with_gps_compass`` [N, 2] float32.
Rewards, flags and ``info`` are tensors on the same device; ``info`` follows gymnasium's
vector convention, each key with a ``_key`` mask of the environments it holds for:
success, spl and softspl for the episodes that ended this step; distance_to_goal,
collisions, episode_id and scene_id for every environment.

Tensor lifetimes: every tensor returned is rewritten in place by the next reset or step
(the addresses never change), so keep what must outlive it with ``.clone()``. Between
``step_async`` and ``step_wait`` none of them may be read.

Autoreset (``metadata["autoreset_mode"]``): NEXT_STEP (gymnasium's default) starts a new
episode at the step after one ends, ignoring that step's action; SAME_STEP starts it within
the step that ended it and puts the final observation and info in
``info["final_obs"]``/``info["final_info"]`` (masked by ``info["_final_obs"]``; this renders
twice in steps where an episode ends); DISABLED leaves ended environments to
``reset(options={"reset_mask": mask})``.

Double-buffered half-batches: two envs of N/2 sharing one context (:func:`make_env_halves`)
let a trainer run the policy on one half while the other simulates and renders::

    envs = batchsim.make_env_halves(dataset, 2048, device="cuda:0")
    obs = [env.reset(seed=0)[0] for env in envs]
    envs[0].step_async(policy(obs[0]))
    while training:
        for half in (1, 0):
            envs[half].step_async(policy(obs[half]))      # runs while the other half steps
            obs[1 - half], *rest = envs[1 - half].step_wait()
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import ClassVar

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from batchsim import _core
from batchsim._staging import Staging
from batchsim.datasets import PointNavDataset
from batchsim.simulator import Simulator, make_context

POINTGOAL = "pointgoal_with_gps_compass"
_CORE_AUTORESET = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "disabled",  # the env resets after rendering the final view
    AutoresetMode.DISABLED: "disabled",
}
_EPISODE_METRICS = ("success", "spl", "softspl")
_STEP_METRICS = {
    "distance_to_goal": "distance_to_goal",
    "collisions": "collisions",
    "episode_id": "episode_index",
    "scene_id": "scene_index",
}


def _autoreset_mode(mode) -> AutoresetMode:
    if isinstance(mode, AutoresetMode):
        return mode
    # "next_step", "NEXT_STEP" and "NextStep" all name AutoresetMode.NEXT_STEP.
    names = {m.name.replace("_", "").lower(): m for m in AutoresetMode}
    key = str(mode).replace("_", "").lower()
    if key not in names:
        raise ValueError(
            "autoreset_mode: expected an AutoresetMode or one of "
            f"{[m.name.lower() for m in AutoresetMode]}, got {mode!r}"
        )
    return names[key]


def actions_to_numpy(actions, num_envs: int, action_count: int) -> np.ndarray:
    """[N] int32 from a torch tensor (any device), numpy array or list; ValueError naming
    what was expected and what was given otherwise."""
    expected = f"{num_envs} integer actions in 0..{action_count - 1}"
    if isinstance(actions, torch.Tensor):
        actions = actions.detach().cpu().numpy()
    elif not isinstance(actions, np.ndarray):
        try:
            actions = np.asarray(actions)
        except (TypeError, ValueError):
            raise ValueError(
                f"actions: expected {expected}, got {type(actions).__name__}"
            ) from None
    if actions.shape != (num_envs,):
        raise ValueError(f"actions: expected shape [{num_envs}], got {list(actions.shape)}")
    if actions.dtype.kind == "f":
        if np.isnan(actions).any():
            raise ValueError(f"actions: expected {expected}, got NaN")
        raise ValueError(f"actions: expected an integer dtype, got {actions.dtype}")
    if actions.dtype.kind not in "iu":
        raise ValueError(f"actions: expected an integer dtype, got {actions.dtype}")
    bad = (actions < 0) | (actions >= action_count)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"actions: expected {expected}, got {actions[i]} at index {i}")
    return actions.astype(np.int32, copy=False)


class BatchNavEnv(gym.vector.VectorEnv):
    """See the module docstring. dataset: a PointNavDataset or a split path; sensors:
    "depth" and/or "rgb"; resolution: (height, width); device: "cpu", "cuda:N" or None
    (CUDA where the Vulkan device is an NVIDIA GPU); autoreset_mode: an AutoresetMode or
    its name; the other options are batchsim.Simulator's (mode, scenes_resident,
    num_threads, task, geodesic, steps_per_scene, context, hfov)."""

    metadata: ClassVar[dict] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["rgb_array"],
    }

    def __init__(
        self,
        dataset: PointNavDataset | str | os.PathLike,
        num_envs: int,
        *,
        sensors: Sequence[str] = ("depth",),
        resolution: int | tuple[int, int] = (64, 64),
        device: str | None = None,
        seed: int = 0,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = "rgb_array",
        **options,
    ):
        mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.render_mode = render_mode
        self.sim = Simulator(
            dataset,
            num_envs,
            sensors=sensors,
            resolution=resolution,
            device=device,
            seed=seed,
            autoreset=_CORE_AUTORESET[mode],
            **options,
        )
        self.num_envs = self.sim.num_envs
        self.device = torch.device(self.sim.device)
        self._closed_env = False
        self._build_spaces()
        self._observations = self._observation_views()
        self._staging = Staging(self._staged_fields(), self.device)
        self._all = torch.ones(self.num_envs, dtype=torch.bool, device=self.device)

    # ---- spaces and outputs ----

    def _build_spaces(self) -> None:
        spaces = {}
        if self.sim.depth is not None:
            shape = tuple(self.sim.depth.shape[1:])
            spaces["depth"] = gym.spaces.Box(0.0, np.inf, shape, np.float32)
        if self.sim.rgb is not None:
            _, height, width, _ = self.sim.rgb.shape
            spaces["rgb"] = gym.spaces.Box(0, 255, (3, height, width), np.uint8)
        spaces[POINTGOAL] = gym.spaces.Box(
            np.float32([0.0, -math.pi]), np.float32([np.inf, math.pi]), (2,), np.float32
        )
        self.single_observation_space = gym.spaces.Dict(spaces)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = gym.spaces.Discrete(len(_core.ACTIONS))
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def _observation_views(self) -> dict[str, torch.Tensor]:
        views = {}
        if self.sim.depth is not None:
            views["depth"] = torch.from_dlpack(self.sim.depth)
        if self.sim.rgb is not None:
            views["rgb"] = torch.from_dlpack(self.sim.rgb)[..., :3].permute(0, 3, 1, 2)
        return views

    def _staged_fields(self) -> dict:
        n = self.num_envs
        fields = {
            POINTGOAL: (np.float32, (n, 2)),
            "reward": (np.float32, (n,)),
            "terminated": (np.bool_, (n,)),
            "truncated": (np.bool_, (n,)),
        }
        fields |= {name: (np.float32, (n,)) for name in _EPISODE_METRICS}
        fields |= {
            "distance_to_goal": (np.float32, (n,)),
            "collisions": (np.int32, (n,)),
            "episode_id": (np.int64, (n,)),
            "scene_id": (np.int32, (n,)),
        }
        return fields

    def _host_results(self) -> dict[str, np.ndarray]:
        sim = self.sim
        out = {POINTGOAL: sim.pointgoal, "reward": sim.reward}
        out |= {"terminated": sim.terminated, "truncated": sim.truncated}
        out |= {name: getattr(sim, name) for name in _EPISODE_METRICS}
        out |= {key: getattr(sim, attr) for key, attr in _STEP_METRICS.items()}
        return out

    def _results(self, host: dict[str, np.ndarray] | None = None):
        staged = self._staging.upload(host or self._host_results())
        obs = dict(self._observations)
        obs[POINTGOAL] = staged[POINTGOAL]
        return obs, staged

    def _info(self, staged: dict[str, torch.Tensor], ended: torch.Tensor) -> dict:
        info = {}
        for name in _EPISODE_METRICS:
            info[name], info[f"_{name}"] = staged[name], ended
        for key in _STEP_METRICS:
            info[key], info[f"_{key}"] = staged[key], self._all
        return info

    # ---- the gymnasium API ----

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._require_open()
        mask = (options or {}).get("reset_mask")
        if mask is not None:
            self.sim.reset_envs(self._mask(mask))
        else:
            self.sim.reset(seed)
        obs, staged = self._results()
        return obs, self._info(staged, torch.zeros_like(self._all))

    def step(self, actions):
        self.step_async(actions)
        return self.step_wait()

    def step_async(self, actions) -> None:
        self._require_open()
        if self.sim.stepping:
            raise RuntimeError("step_async() while a step is running: call step_wait() first")
        chosen = actions_to_numpy(actions, self.num_envs, len(_core.ACTIONS))
        np.copyto(self.sim.actions, chosen)
        self.sim.step_async()

    def step_wait(self, **kwargs):
        self._require_open()
        self.sim.step_wait()
        if self.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP:
            return self._same_step_results()
        obs, staged = self._results()
        ended = staged["terminated"] | staged["truncated"]
        return (
            obs,
            staged["reward"],
            staged["terminated"],
            staged["truncated"],
            self._info(staged, ended),
        )

    def _same_step_results(self):
        host = {k: np.array(v) for k, v in self._host_results().items()}
        ended = host["terminated"] | host["truncated"]
        final_obs, final_info = None, None
        if ended.any():
            final_obs = {k: v.clone() for k, v in self._observations.items()}
            final_obs[POINTGOAL] = torch.from_numpy(host[POINTGOAL]).to(self.device)
            self.sim.reset_envs(ended)
            fresh = self._host_results()  # the new episodes' observation and ids
            for key in (POINTGOAL, *_STEP_METRICS):
                host[key] = fresh[key]
        obs, staged = self._results(host)
        ended_t = staged["terminated"] | staged["truncated"]
        info = self._info(staged, ended_t)
        if final_obs is not None:
            final_info = {k: v.clone() for k, v in info.items()}
            info |= {"final_obs": final_obs, "_final_obs": ended_t}
            info |= {"final_info": final_info, "_final_info": ended_t}
        return obs, staged["reward"], staged["terminated"], staged["truncated"], info

    def _mask(self, mask) -> np.ndarray:
        if isinstance(mask, torch.Tensor):
            mask = mask.detach().cpu().numpy()
        mask = np.asarray(mask)
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(
                f"reset_mask: expected bool [{self.num_envs}], got {mask.dtype} {list(mask.shape)}"
            )
        return mask

    def render(self):
        """A mosaic of every environment's current view (RGB, else shaded depth) as an
        [H, W, 3] uint8 array."""
        from batchsim.viz import observation_mosaic

        self._require_open()
        return observation_mosaic(self._observations)

    def close_extras(self, **kwargs) -> None:
        if not self._closed_env:
            self._closed_env = True
            self._observations = {}
            self.sim.close()

    def _require_open(self) -> None:
        if self._closed_env:
            raise RuntimeError("this BatchNavEnv is closed")

    def __repr__(self) -> str:
        if self._closed_env:
            return f"BatchNavEnv(closed, num_envs={self.num_envs})"
        sensors = ", ".join(self.sim.sensors)
        height, width = self.sim.resolution
        return (
            f"BatchNavEnv(num_envs={self.num_envs}, sensors=[{sensors}], "
            f"resolution={height}x{width}, device={str(self.device)!r}, "
            f"autoreset_mode={self.metadata['autoreset_mode'].name}, "
            f"scenes={len(self.sim.scene_paths)}, episodes={len(self.sim.episodes)})"
        )


def make_env_halves(
    dataset, num_envs: int, *, device: str | None = None, seed: int = 0, **options
) -> tuple[BatchNavEnv, BatchNavEnv]:
    """Two BatchNavEnv of num_envs / 2 environments on one shared context, for
    double-buffered stepping (module docstring); the second half's seed is seed + 1."""
    if num_envs < 2 or num_envs % 2:
        raise ValueError(f"num_envs: expected an even number >= 2, got {num_envs}")
    context = options.pop("context", None) or make_context(device)
    return tuple(
        BatchNavEnv(dataset, num_envs // 2, seed=seed + half, context=context, **options)
        for half in (0, 1)
    )


__all__ = ["POINTGOAL", "BatchNavEnv", "actions_to_numpy", "make_env_halves"]
