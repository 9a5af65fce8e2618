"""BatchNavEnv: N PointNav environments as one gymnasium vector env (gymnasium 1.x).

    env = batchsim.BatchNavEnv("data/procgen/pointnav/train", 1024, device="cuda:0")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(actions)

Observations are a dict of torch tensors on the env's device: ``depth`` [N, 1, H, W]
float32 and ``rgb`` [N, 3, H, W] uint8 (a view of the renderer's [N, H, W, 4] output: no
copy) as asked for by ``sensors``, and ``pointgoal_with_gps_compass`` [N, 2] float32.
Rewards, flags and ``info`` are tensors on the same device; ``info`` follows gymnasium's
vector convention, each key with a ``_key`` mask of the environments it holds for: the
episode measures for the episodes that ended this step, the step's metrics and ids for
every environment, as the C++ output table declares them (src/sim/outputs.hpp; docs/env.md
lists the keys).

Array modes (``array=``): "torch", the default, returns the tensors above, zero-copy.
"numpy" returns the same outputs as fresh host numpy arrays (a copy per key each step, never
a loop over environments; rgb [N, 3, H, W] contiguous, info's masks bool arrays): gymnasium's
own vector convention, so its numpy vector wrappers (RecordEpisodeStatistics,
NormalizeReward, NormalizeObservation, ClipReward, TransformObservation, DictInfoToList, ...)
work unchanged, and ``gymnasium.wrappers.vector.NumpyToTorch`` turns them back into torch
(it needs array-api-compat). Those wrappers do numpy arithmetic on what the env returns,
which torch tensors on a device cannot take: the torch mode refuses them with a TypeError
naming the fix (batchsim._gym_wrappers). ``gymnasium.make_vec("batchsim/PointNav-v0", ...)``
(batchsim.registration) makes the numpy mode.

Actions: an integer torch tensor on any device, numpy array or list of shape [N]. CUDA
actions are not waited for: their shape and dtype are checked at once, their values when
the C++ step reads them after their copy to pinned memory, so a value out of range raises
from ``step_wait()`` (from ``step()`` alike) with the same message as host actions get.

Tensor lifetimes: every tensor returned is rewritten in place by the next reset or step
(the addresses never change), so keep what must outlive it with ``.clone()``. Between
``step_async`` and ``step_wait`` none of them may be read.

Autoreset (``metadata["autoreset_mode"]``) is the simulator's own (``SimConfig.autoreset``):
NEXT_STEP (gymnasium's default) starts a new episode at the step after one ends, ignoring
that step's action; SAME_STEP starts it within the step that ended it, and
``info["final_obs"]``/``info["final_info"]`` (masked by ``info["_final_obs"]``) hold the
ended episodes' last observation and info (final_obs in gymnasium's layout: an object array
of one observation dict per environment, None where none ended; final_info the step's info,
masks narrowed to the ended): the simulator renders those views before the
autoreset (``final_views``, on by default here; a second render in steps where an episode
ends; pass ``final_views=False`` to skip it, as the trainer does). In SAME_STEP, info's
distance_to_goal and collisions of an ended environment are its ended episode's; episode_id
and scene_id already name the new one. DISABLED leaves ended environments to
``reset(options={"reset_mask": mask})``.

Double-buffered half-batches (:func:`make_env_halves`, the trainer's pipelining too): two
envs of N/2 on one context let a trainer run the policy on one half while the other
simulates and renders::

    envs = batchsim.make_env_halves(dataset, 2048, device="cuda:0")
    obs = [env.reset(seed=0)[0] for env in envs]
    envs[0].step_async(policy(obs[0]))
    while training:
        for half in (1, 0):
            envs[half].step_async(policy(obs[half]))      # runs while the other half steps
            obs[1 - half], *rest = envs[1 - half].step_wait()
"""

from __future__ import annotations

import os
import sys
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import torch
from gymnasium.error import ClosedEnvironmentError, NoAsyncCallError
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from batchsim._env_views import (
    EPISODE_METRICS,
    POINTGOAL,
    STEP_METRICS,
    STEP_RETURNS,
    observation_space,
    parse_autoreset_mode,
    result_tensors,
    visual_observations,
)
from batchsim._gym_wrappers import WrapperGuard
from batchsim._lifetime import Lifetime, Released, while_open
from batchsim._numpy_env import parse_array_mode, per_env_observations, to_numpy
from batchsim._value_fields import check_instance, check_integer
from batchsim.actions import ACTIONS, check_mask
from batchsim.datasets import PointNavDataset
from batchsim.errors import ClosedError, InvalidArgumentError
from batchsim.options import RenderOptions
from batchsim.sensor_noise import SensorNoise
from batchsim.sensor_randomizer import SensorRandomizer
from batchsim.simulator import Simulator, make_context

# An observation or info dict: torch tensors (array="torch") or numpy arrays ("numpy").
Observations = dict[str, Any]
Info = dict[str, Any]
# (observations, reward, terminated, truncated, info); reward and flags are [N] arrays.
StepResult = tuple[Observations, Any, Any, Any, Info]


class BatchNavEnv(gym.vector.VectorEnv):
    """See the module docstring. dataset: a PointNavDataset or a split path; num_envs and
    ``fields``: batchsim.Simulator's (sensors, resolution, backend, seed, mode,
    scenes_resident, num_threads, task, final_views, ...; ``help(batchsim.Simulator)``);
    device: "cpu", "cuda:N" or None (CUDA where the Vulkan device is an NVIDIA GPU), or a
    shared ``context``; autoreset_mode: an AutoresetMode or its name; sensor_noise: a
    :class:`batchsim.SensorNoise` applied to every observation (training only); array:
    "torch" (zero-copy tensors) or "numpy" (host arrays for gymnasium's numpy wrappers)."""

    metadata: ClassVar[dict] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["rgb_array"],
    }

    def __init__(
        self,
        dataset: PointNavDataset | str | os.PathLike,
        num_envs: int | None = None,
        *,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = "rgb_array",
        sensor_noise: SensorNoise | None = None,
        array: str = "torch",
        **fields: Any,
    ):
        self._lifetime = Lifetime("BatchNavEnv", EnvClosedError)  # first: close() reads it
        mode = parse_autoreset_mode(autoreset_mode)
        self.array = parse_array_mode(array)  # checked before the simulator is built
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise InvalidArgumentError(
                f"render_mode: expected None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        check_instance("sensor_noise", sensor_noise, SensorNoise)
        noise = sensor_noise if sensor_noise is not None else SensorNoise()
        hfov = _nominal_hfov(fields)
        if noise.fov_jitter_degrees:  # render wide, crop each view to its own field of view
            _set_hfov(fields, hfov + noise.fov_jitter_degrees)
        if "autoreset" in fields:
            raise TypeError("BatchNavEnv: pass autoreset_mode, not autoreset")
        if "render" not in fields:  # a RenderOptions object says final_views itself
            fields.setdefault("final_views", mode == AutoresetMode.SAME_STEP)
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.render_mode = render_mode
        if fields.get("config") is not None:  # the env's autoreset_mode decides, not config's
            fields["config"] = fields["config"].replace(autoreset=mode.name.lower())
        else:
            fields["autoreset"] = mode.name.lower()
        self.sim = Simulator(dataset, num_envs, **fields)
        self.num_envs = self.sim.num_envs
        self.device = torch.device(self.sim.device)
        self.single_observation_space = observation_space(self.sim)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = gym.spaces.Discrete(len(ACTIONS))
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._observations = visual_observations(self.sim)
        self._final_views = visual_observations(self.sim, final=True)
        self._results = result_tensors(self.sim)  # rewritten in place by every step
        self._all = torch.ones(self.num_envs, dtype=torch.bool, device=self.device)
        self._noise = (
            SensorRandomizer(noise, self.num_envs, self.device, hfov, self.sim.config.seed)
            if noise.active
            else None
        )
        self._wrappers = WrapperGuard(self)

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """``metadata["autoreset_mode"]``, as gymnasium's own vector envs also name it (TorchRL's
        GymWrapper reads this attribute)."""
        return self.metadata["autoreset_mode"]

    # ---- outputs ----

    def _observe(self) -> dict[str, torch.Tensor]:
        views = self._observations
        if self._noise is not None:
            self._noise.new_episodes(self._results["episode_id"])
            views = self._noise.apply(views)
        return {**views, POINTGOAL: self._results[POINTGOAL]}

    def _info(self, ended: torch.Tensor) -> dict:
        info = {}
        for name in EPISODE_METRICS:
            info[name], info[f"_{name}"] = self._results[name], ended
        for key in STEP_METRICS:
            info[key], info[f"_{key}"] = self._results[key], self._all
        return info

    # ---- the gymnasium API ----

    @while_open
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observations, Info]:
        """Starts new episodes; returns ``(observations, info)`` for every environment.

        seed: seeds the simulator (its episode order and any randomness), as gymnasium's
        ``reset(seed=)``; None continues from the current state. ``options={"reset_mask":
        mask}`` (a bool [N] numpy array or tensor) restarts only the masked environments and
        keeps the others' episodes running, as DISABLED autoreset needs; seed is then
        ignored. Outputs are torch tensors on the env's device (array="torch", rewritten in
        place by the next reset or step: ``.clone()`` what you keep) or fresh numpy arrays
        (array="numpy"); info's metrics each come with a ``_key`` mask (module docstring)."""
        self._wrappers.check(sys._getframe(2), reset=True)
        mask = (options or {}).get("reset_mask")
        if mask is not None:
            self.sim.reset_envs(self._mask(mask))
        else:
            self.sim.reset(seed)
        return self._out((self._observe(), self._info(torch.zeros_like(self._all))))

    @while_open  # held across both halves: a close() from another thread waits for them
    def step(self, actions: Any) -> StepResult:
        """Advances every environment by one action; returns ``(observations, reward,
        terminated, truncated, info)``, reward [N] float32 and the flags [N] bool.

        actions: [N] integers in 0..3 (STOP, MOVE_FORWARD, TURN_LEFT, TURN_RIGHT) as a torch
        tensor on any device, a numpy array or a list. Ended episodes restart as
        ``autoreset_mode`` says (module docstring). In array="torch" every output is a
        tensor that the next step rewrites in place: ``.clone()`` what you keep; in
        array="numpy" they are fresh host arrays."""
        self._wrappers.check(sys._getframe(2), reset=False)
        self.step_async(actions)
        return self.step_wait()

    @while_open
    def step_async(self, actions: Any) -> None:
        """Starts the step on a C++ thread and returns at once; step_wait() ends it. In
        between, read no output of the env: the step is writing them."""
        if actions is None:  # the Simulator would step its own outputs.actions instead
            raise ValueError(
                f"actions: expected an integer array of shape [{self.num_envs}], got NoneType"
            )
        self.sim.step_async(actions)  # it checks them and that no step runs, once

    @while_open
    def step_wait(self, **kwargs: Any) -> StepResult:
        """Waits for the step that step_async() started; returns what step() returns."""
        if not self.sim.stepping:  # it would hand back the previous step's results again
            raise NoAsyncCallError(
                "step_wait() without step_async() before it: there is no step to wait for",
                "step_wait",
            )
        self.sim.step_wait()
        obs, results = self._observe(), self._results
        ended = results["terminated"] | results["truncated"]
        info = self._info(ended)
        # Asked of the host arrays: the device's answer would wait for the GPU.
        host_ended = self.sim.outputs.terminated | self.sim.outputs.truncated
        final_obs = self._final_observations() if host_ended.any() else None
        if final_obs is not None:
            info |= {"final_info": _final_info(info, ended), "_final_info": ended}
            info |= {"final_obs": final_obs, "_final_obs": ended}
        out = self._out((obs, *(results[key] for key in STEP_RETURNS)))
        info = self._out(info)
        if final_obs is not None:  # gymnasium's layout: one observation per environment
            info["final_obs"] = per_env_observations(info["final_obs"], host_ended)
        return (*out, info)

    def _final_observations(self) -> dict[str, torch.Tensor] | None:
        """The ended episodes' last observations, batched, where final views are on."""
        final_views = self._final_views
        if not final_views:
            return None
        if self._noise is not None:  # with the ended episodes' draws
            final_views = self._noise.apply(final_views)
        return {**final_views, POINTGOAL: self._results["final_" + POINTGOAL]}

    def _out(self, results: Any) -> Any:
        """The results in the env's array mode: the tensors themselves, or numpy copies."""
        return to_numpy(results) if self.array == "numpy" else results

    def _mask(self, mask) -> np.ndarray:
        return check_mask(mask, self.num_envs, "reset_mask")

    @property
    def max_episode_geodesic(self) -> float:
        """Training's limit on the geodesic distance of new episodes (m); inf: none."""
        self._lifetime.check("max_episode_geodesic")
        return self.sim.max_episode_geodesic

    @while_open
    def set_max_episode_geodesic(self, metres: float) -> None:
        """New episodes (training) of at most ``metres`` geodesic, from the next episode start
        on (Simulator.set_max_episode_geodesic; ``math.inf`` lifts the limit): a curriculum."""
        self.sim.set_max_episode_geodesic(metres)

    @while_open
    def render(self) -> tuple[np.ndarray, ...]:
        """Every environment's current view as an RGB frame, gymnasium's vector layout: a
        tuple of N [H, W, 3] uint8 arrays (RGB where rendered, else shaded depth), which
        gymnasium's RecordVideo tiles into a video. render_mosaic() gives one image."""
        from batchsim.viz import observation_frames

        return tuple(observation_frames(self._observations))

    @while_open
    def render_mosaic(self, max_views: int = 64) -> np.ndarray:
        """The first max_views environments' current views tiled into one [H, W, 3] uint8
        image (RGB where rendered, else shaded depth): for notebooks."""
        from batchsim.viz import observation_mosaic

        return observation_mosaic(self._observations, max_views)

    def close_extras(self, **kwargs) -> None:
        """Closes the simulator, after a step another thread has in flight; every call after
        it raises EnvClosedError (gymnasium's ClosedEnvironmentError)."""
        with self._lifetime.lock:
            if self._lifetime.closed:
                return
            self._lifetime.closed = True
            released: Any = Released("BatchNavEnv", EnvClosedError)
            self._observations = self._final_views = self._results = released
            self.sim.close()

    def __repr__(self) -> str:
        if self._lifetime.closed:
            return f"BatchNavEnv(closed, num_envs={self.num_envs})"
        sensors = ", ".join(self.sim.sensors)
        height, width = self.sim.resolution
        array = "" if self.array == "torch" else f", array={self.array!r}"
        return (
            f"BatchNavEnv(num_envs={self.num_envs}, sensors=[{sensors}], "
            f"resolution={height}x{width}, device={str(self.device)!r}, "
            f"autoreset_mode={self.metadata['autoreset_mode'].name}, "
            f"scenes={len(self.sim.scene_paths)}, episodes={len(self.sim.episodes)}{array})"
        )


class EnvClosedError(ClosedError, ClosedEnvironmentError):
    """A BatchNavEnv used after close(): batchsim's ClosedError and the
    ClosedEnvironmentError gymnasium's own vector envs raise."""


def _final_info(info: Info, ended: torch.Tensor) -> Info:
    """gymnasium's ``final_info``: the step's info for the environments that ended, each
    ``_key`` mask narrowed to them."""
    return {key: value & ended if key.startswith("_") else value for key, value in info.items()}


def _nominal_hfov(fields: dict) -> float:
    """The field of view `fields` ask for (RenderOptions' default if none)."""
    if "render" in fields and fields["render"] is not None:
        return fields["render"].hfov_degrees
    return fields.get("hfov_degrees", RenderOptions().hfov_degrees)


def _set_hfov(fields: dict, hfov: float) -> None:
    if "render" in fields and fields["render"] is not None:
        fields["render"] = fields["render"].replace(hfov_degrees=hfov)
    else:
        fields["hfov_degrees"] = hfov


def make_env_halves(
    dataset, num_envs: int, *, seed: int = 0, shared_context: bool = True, **options: Any
) -> tuple[BatchNavEnv, BatchNavEnv]:
    """Two BatchNavEnv of num_envs / 2 environments for double-buffered stepping (module
    docstring); the second half's seed is seed + 1. Both share one context made on
    ``device=`` (one Vulkan queue renders them in turn and their host steps take turns, so
    one half simulates while the other renders), or the ``context=``
    given; ``shared_context=False`` makes each half its own."""
    num_envs = check_integer("num_envs", num_envs, 2, 2**31 - 1)
    if num_envs % 2:
        raise ValueError(f"num_envs: expected an even number >= 2, got {num_envs}")
    if shared_context and options.get("context") is None:
        options["context"] = make_context(options.pop("device", None))
    return tuple(
        BatchNavEnv(dataset, num_envs // 2, seed=seed + half, **options) for half in (0, 1)
    )


__all__ = [
    "POINTGOAL",
    "BatchNavEnv",
    "EnvClosedError",
    "make_env_halves",
    "parse_autoreset_mode",
    "visual_observations",
]
