"""TorchRL: :class:`TorchRLEnv` presents a BatchNavEnv as a batched TorchRL ``EnvBase``.

    from batchsim.integrations.torchrl import TorchRLEnv

    env = batchsim.BatchNavEnv(split, 16, sensors=("depth",), resolution=(32, 32),
                               device="cpu", autoreset_mode="disabled")
    rollout = TorchRLEnv(env).rollout(max_steps=100, break_when_any_done=False)
    rollout["next", "reward"]          # [16, 100, 1]

TorchRL resets ended environments itself, through ``reset()`` with a ``"_reset"`` mask: the
env's DISABLED autoreset (ended environments wait, frozen) with ``reset_mask`` is exactly
that, so the adapter requires it, and the torch array mode (TorchRL takes tensors; they
are cloned, since the env rewrites its own in place at the next step).
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium.vector import AutoresetMode
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from batchsim.env import BatchNavEnv
from batchsim.integrations import require_modes


class TorchRLEnv(EnvBase):
    """A TorchRL env of batch size [num_envs] over `env`, a BatchNavEnv(array="torch",
    autoreset_mode="disabled"). Observations keep the env's keys (depth, rgb,
    pointgoal_with_gps_compass); "action" is an int64 in {0 stop, 1 forward, 2 left, 3 right}."""

    def __init__(self, env: BatchNavEnv):
        _check_env(env)
        super().__init__(device=env.device, batch_size=torch.Size([env.num_envs]))
        self.env = env
        self._seed: int | None = None
        self._make_specs()

    def _make_specs(self) -> None:
        n, device = self.batch_size, self.device
        observations = {}
        for key, space in self.env.single_observation_space.spaces.items():
            shape, dtype = n + space.shape, _torch_dtype(space.dtype)
            # One environment's bounds, repeated over the batch: a spec's bounds have its shape.
            low = torch.as_tensor(space.low).expand(shape)
            high = torch.as_tensor(space.high).expand(shape)
            bounded = bool(torch.isfinite(high.float()).all())
            observations[key] = (
                Bounded(low, high, shape, device, dtype)
                if bounded
                else Unbounded(shape, device, dtype)
            )
        self.observation_spec = Composite(observations, shape=n)
        self.action_spec = Categorical(4, n, device, torch.int64)
        self.reward_spec = Unbounded((*n, 1), device, torch.float32)
        flag = Categorical(2, (*n, 1), device, torch.bool)
        self.done_spec = Composite(
            done=flag.clone(), terminated=flag.clone(), truncated=flag.clone(), shape=n
        )

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs) -> TensorDictBase:
        mask = None if tensordict is None else tensordict.get("_reset", None)
        if mask is not None and not bool(mask.all()):
            obs, _ = self.env.reset(options={"reset_mask": mask.reshape(-1)})
        else:  # everything: a fresh start, seeded by set_seed() if it was called
            obs, _ = self.env.reset(seed=self._seed)
            self._seed = None
        out = _observations(obs)
        flags = torch.zeros((*self.batch_size, 1), dtype=torch.bool, device=self.device)
        return out.update({"done": flags, "terminated": flags.clone(), "truncated": flags})

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        obs, reward, terminated, truncated, _ = self.env.step(tensordict["action"])
        out = _observations(obs)
        out["reward"] = reward.clone().float().unsqueeze(-1)
        out["terminated"] = terminated.clone().unsqueeze(-1)
        out["truncated"] = truncated.clone().unsqueeze(-1)
        out["done"] = out["terminated"] | out["truncated"]
        return out

    def _set_seed(self, seed: int | None) -> None:
        self._seed = seed  # the simulator takes it at the next full reset

    def close(self, *, raise_if_closed: bool = True) -> None:
        self.env.close()
        super().close(raise_if_closed=raise_if_closed)


def _observations(obs: dict) -> TensorDict:
    """Copies of the env's tensors (it rewrites its own at the next step), contiguous."""
    first = next(iter(obs.values()))
    return TensorDict(
        {key: value.contiguous().clone() for key, value in obs.items()},
        batch_size=first.shape[:1],
        device=first.device,
    )


def _torch_dtype(dtype) -> torch.dtype:
    return torch.from_numpy(np.zeros(0, dtype)).dtype


def _check_env(env: BatchNavEnv) -> None:
    why = 'TorchRL resets ended environments itself, through the "_reset" mask'
    require_modes(env, "TorchRLEnv", "torch", AutoresetMode.DISABLED, why)
