"""Rollout storage, allocated once on the training device: T steps of N environments'
observations, actions, log-probabilities, values, rewards and episode boundaries, plus the
recurrent state at the start of the rollout. Row t holds what the policy saw at step t;
rows T (observations, values) seed the next rollout and bootstrap the returns."""

from __future__ import annotations

import numpy as np
import torch

from batchsim.train.models import NO_ACTION

# The torch dtype of each observation's numpy dtype (the env's observation space).
TORCH_DTYPES = {np.dtype(np.float32): torch.float32, np.dtype(np.uint8): torch.uint8}


class RolloutStorage:
    def __init__(self, steps: int, envs: int, observation_shapes: dict, state_shape, device):
        self.steps, self.envs = steps, envs
        self.obs = {
            key: torch.zeros((steps + 1, envs, *shape), dtype=dtype, device=device)
            for key, (shape, dtype) in observation_shapes.items()
        }
        zeros = dict(device=device)
        self.previous_action = torch.full((steps + 1, envs), NO_ACTION, dtype=torch.long, **zeros)
        self.masks = torch.zeros(steps + 1, envs, **zeros)  # 0: the episode begins here
        self.actions = torch.zeros(steps, envs, dtype=torch.long, **zeros)
        self.log_probs = torch.zeros(steps, envs, **zeros)
        self.values = torch.zeros(steps + 1, envs, **zeros)
        self.rewards = torch.zeros(steps, envs, **zeros)
        self.dones = torch.zeros(steps, envs, **zeros)
        self.advantages = torch.zeros(steps, envs, **zeros)
        self.returns = torch.zeros(steps, envs, **zeros)
        self.initial_state = torch.zeros(state_shape, **zeros)

    def insert_observation(
        self, t: int, obs: dict, previous_action, mask, envs: slice = slice(None)
    ) -> None:
        """Row t of environments `envs`: what the policy sees at step t."""
        for key, tensor in self.obs.items():
            tensor[t, envs].copy_(obs[key], non_blocking=True)
        self.previous_action[t, envs].copy_(previous_action, non_blocking=True)
        self.masks[t, envs].copy_(mask, non_blocking=True)

    def insert_step(
        self, t: int, action, log_prob, value, reward, done, envs: slice = slice(None)
    ) -> None:
        """What environments `envs` did at step t and what it earned."""
        self.actions[t, envs].copy_(action)
        self.log_probs[t, envs].copy_(log_prob)
        self.values[t, envs].copy_(value)
        self.rewards[t, envs].copy_(reward, non_blocking=True)
        self.dones[t, envs].copy_(done, non_blocking=True)

    def compute_returns(self, last_value, gamma: float, lam: float) -> None:
        """Generalised advantage estimation; an ended episode (terminated or truncated)
        does not bootstrap from the next one."""
        self.values[-1].copy_(last_value)
        running = torch.zeros_like(last_value)
        for t in reversed(range(self.steps)):
            carry = 1.0 - self.dones[t]
            delta = self.rewards[t] + gamma * self.values[t + 1] * carry - self.values[t]
            running = delta + gamma * lam * carry * running
            self.advantages[t] = running
        self.returns.copy_(self.advantages + self.values[:-1])

    def start_next(self, final_state, previous: RolloutStorage | None = None) -> None:
        """The last row of `previous` (this storage by default) becomes this one's first,
        and `final_state` its initial recurrent state."""
        previous = previous if previous is not None else self
        for key, tensor in self.obs.items():
            tensor[0].copy_(previous.obs[key][-1])
        self.previous_action[0].copy_(previous.previous_action[-1])
        self.masks[0].copy_(previous.masks[-1])
        self.initial_state.copy_(final_state)
