"""What BatchNavEnv reads from its Simulator, without copies: the views and per-environment
results as torch tensors (DLPack), one environment's observation space, and the names of the
autoreset modes. The env (batchsim.env) owns the stepping and the gymnasium API."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode

from batchsim._outputs import env_outputs
from batchsim.simulator import Simulator

# The env's keys, from the output table (batchsim._outputs): env key -> Simulator.results key.
OBSERVED = {spec.env_key: spec.name for spec in env_outputs("observation")}
# The one observation output; the Simulator keeps its value before the autoreset as "final_".
(POINTGOAL,) = OBSERVED
EPISODE_METRICS = {spec.env_key: spec.name for spec in env_outputs("info_ended")}
STEP_METRICS = {spec.env_key: spec.name for spec in env_outputs("info")}
# step()'s own return after the observations, in gymnasium's order (reward, then the flags).
STEP_RETURNS = tuple(spec.env_key for spec in env_outputs("step"))
_RESULTS = {  # env key: Simulator.results key, for what is neither a view nor a metric
    **OBSERVED,
    **{spec.env_key: spec.name for spec in env_outputs("step")},
    "final_" + POINTGOAL: "final_" + OBSERVED[POINTGOAL],
}


def parse_autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    """An AutoresetMode from itself or its name ("next_step", "NEXT_STEP", "NextStep")."""
    if isinstance(mode, AutoresetMode):
        return mode
    names = {m.name.replace("_", "").lower(): m for m in AutoresetMode}
    key = str(mode).replace("_", "").lower()
    if key not in names:
        raise ValueError(
            "autoreset_mode: expected an AutoresetMode or one of "
            f"{[m.name.lower() for m in AutoresetMode]}, got {mode!r}"
        )
    return names[key]


def visual_observations(sim: Simulator, final: bool = False) -> dict[str, torch.Tensor]:
    """A Simulator's views as torch tensors without a copy: depth [N, 1, H, W] float32 and
    rgb [N, 3, H, W] uint8 (the alpha channel dropped), where it renders them; ``final``:
    the views before the autoreset (final_views)."""
    depth, rgb = (sim.final_depth, sim.final_rgb) if final else (sim.depth, sim.rgb)
    views = {}
    if depth is not None:
        views["depth"] = torch.from_dlpack(depth)
    if rgb is not None:
        views["rgb"] = torch.from_dlpack(rgb)[..., :3].permute(0, 3, 1, 2)
    return views


def result_tensors(sim: Simulator) -> dict[str, torch.Tensor]:
    """The Simulator's per-environment results as torch tensors without a copy, by the env's
    names (pointgoal, reward, flags, info's metrics)."""
    names = {**_RESULTS, **EPISODE_METRICS, **STEP_METRICS}
    results = sim.results
    return {key: torch.from_dlpack(results[name]) for key, name in names.items() if name in results}


def observation_space(sim: Simulator) -> gym.spaces.Dict:
    """One environment's observation space, from what the simulator renders."""
    height, width = sim.resolution
    spaces = {}
    if "depth" in sim.sensors:
        spaces["depth"] = gym.spaces.Box(0.0, np.inf, (1, height, width), np.float32)
    if "rgb" in sim.sensors:
        spaces["rgb"] = gym.spaces.Box(0, 255, (3, height, width), np.uint8)
    for spec in env_outputs("observation"):
        low, high = spec.bounds
        dtype = np.dtype(spec.dtype)
        spaces[spec.env_key] = gym.spaces.Box(
            np.array(low, dtype), np.array(high, dtype), (spec.columns,), dtype=dtype
        )
    return gym.spaces.Dict(spaces)


__all__ = [
    "POINTGOAL",
    "observation_space",
    "parse_autoreset_mode",
    "result_tensors",
    "visual_observations",
]
