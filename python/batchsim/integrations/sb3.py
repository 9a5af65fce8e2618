"""Stable-Baselines3: :class:`SB3VecEnv` presents a BatchNavEnv as an SB3 ``VecEnv``.

    import stable_baselines3
    from batchsim.integrations.sb3 import SB3VecEnv

    env = batchsim.BatchNavEnv(split, 16, sensors=("depth",), resolution=(32, 32),
                               device="cpu", array="numpy", autoreset_mode="same_step")
    model = stable_baselines3.PPO("MultiInputPolicy", SB3VecEnv(env)).learn(10_000)

SB3 resets ended environments itself within the step and returns the new episode's first
observation, the ended one's last in ``infos[i]["terminal_observation"]``: the env's
SAME_STEP autoreset with final views gives exactly that, so the adapter requires it, and
numpy mode (SB3 takes host arrays). The batch is one simulator, so attributes and methods
are batch-wide: get_attr/env_method answer once per index with the same value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from batchsim.env import BatchNavEnv
from batchsim.integrations import require_modes


class SB3VecEnv(VecEnv):
    """An SB3 VecEnv over `env`, a BatchNavEnv(array="numpy", autoreset_mode="same_step")
    with final views (the default in that mode)."""

    def __init__(self, env: BatchNavEnv):
        _check_env(env)
        self.env = env  # before VecEnv.__init__, which asks get_attr("render_mode")
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    # ---- stepping ----

    def reset(self):
        seed = self._seeds[0]  # one simulator, one seed: SB3's seed(s) gives s, s+1, ...
        obs, info = self.env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = _per_env_infos(info, self.num_envs)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self.env.step_async(np.asarray(actions).reshape(self.num_envs))

    def step_wait(self):
        obs, reward, terminated, truncated, info = self.env.step_wait()
        dones = terminated | truncated
        infos = _per_env_infos(info, self.num_envs)
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = info["final_obs"][i]  # gymnasium's, per env
            # SB3 bootstraps from the terminal observation only where time ran out.
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs, reward.astype(np.float32), dones, infos

    def close(self) -> None:
        self.env.close()

    # ---- batch-wide attributes and methods ----

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self.env, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        if len(self._indices(indices)) != self.num_envs:
            raise ValueError(f"set_attr({attr_name!r}): attributes are batch-wide, set all")
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))  # no per-environment gymnasium wrappers

    def get_images(self) -> Sequence[np.ndarray | None]:
        return list(self.env.render())  # a frame per environment: SB3 tiles them

    def _indices(self, indices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else list(indices)


def _check_env(env: BatchNavEnv) -> None:
    why = "SB3 autoresets within the step that ends an episode"
    require_modes(env, "SB3VecEnv", "numpy", AutoresetMode.SAME_STEP, why)
    if env.sim.final_pointgoal is None:
        raise ValueError("SB3VecEnv: the env needs final_views=True for terminal observations")


def _per_env_infos(info: dict, n: int) -> list[dict]:
    """gymnasium's vector info (arrays with `_key` masks) as SB3's list of dicts."""
    infos: list[dict] = [{} for _ in range(n)]
    for key, value in info.items():
        if key.startswith("_") or key in ("final_obs", "final_info"):
            continue
        for i in np.flatnonzero(info.get(f"_{key}", np.ones(n, bool))):
            infos[i][key] = value[i].item()
    return infos
