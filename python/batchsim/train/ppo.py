"""One PPO update over a rollout: epochs over recurrent minibatches (environments split
into groups, each replaying its whole T-step sequences from the rollout's initial state),
the clipped surrogate objective, a value loss (on the normalised scale with a value
normaliser, whose statistics and PopArt rescale come first), an entropy bonus and the
policy's auxiliary heads' losses (CPC|A, inverse dynamics, temporal distance); gradients
clipped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import torch
from torch.distributions import Categorical

from batchsim.env import POINTGOAL
from batchsim.train.models import Policy, preprocess
from batchsim.train.storage import RolloutStorage
from batchsim.train.value_norm import ValueNormalizer

# The statistic each auxiliary head's loss is logged as (losses/<name> in TensorBoard).
AUXILIARY_STATS = {"cpca": "cpca_loss", "id": "id_loss", "td": "td_loss"}


@dataclass
class PPOSettings:
    epochs: int = 1
    minibatches: int = 2
    clip: float = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    max_grad_norm: float = 1.0
    normalize_advantage: bool = False
    cpca_coef: float = 0.1  # weight of the CPC|A loss, where the policy has the head
    inverse_dynamics_coef: float = 0.0  # weight of the inverse-dynamics loss (with its head)
    temporal_distance_coef: float = 0.0  # weight of the temporal-distance loss (with its head)
    max_depth: float = 10.0
    depth_bins: int = 0
    autocast_dtype: torch.dtype | None = None  # bf16 / fp16 on CUDA, None: full precision


def evaluate(policy: Policy, storage: RolloutStorage, envs: torch.Tensor, s: PPOSettings):
    """Log-probabilities, entropies and values of the stored actions of `envs` ([M] index),
    replaying their sequences: each [T * M]; and the auxiliary heads' losses by name."""
    steps = storage.steps
    obs = {k: v[:steps, envs].flatten(0, 1) for k, v in storage.obs.items()}
    device_type = storage.masks.device.type
    with torch.autocast(
        device_type, dtype=s.autocast_dtype or torch.float32, enabled=s.autocast_dtype is not None
    ):
        actions = storage.actions[:, envs].flatten()
        out = policy(
            preprocess(obs, s.max_depth, s.depth_bins),
            obs[POINTGOAL],
            storage.previous_action[:steps, envs].flatten(),
            storage.initial_state[:, envs],
            storage.masks[:steps, envs],
            actions=actions,
        )
    dist = Categorical(logits=out.logits.float())
    return dist.log_prob(actions), dist.entropy(), out.values.float(), out.auxiliary_losses


def auxiliary_coef(s: PPOSettings, name: str) -> float:
    """The weight of the auxiliary head `name` ("cpca", "id", "td") in the total loss."""
    return {
        "cpca": s.cpca_coef,
        "id": s.inverse_dynamics_coef,
        "td": s.temporal_distance_coef,
    }[name]


def value_loss_of(returns, values, value_norm: ValueNormalizer | None) -> torch.Tensor:
    """Half the mean squared error of the values, on the normalised scale with a value
    normaliser (the scale the critic's output lives on)."""
    if value_norm is None:
        return 0.5 * (returns - values).pow(2).mean()
    return 0.5 * (value_norm.normalize(returns) - value_norm.normalize(values)).pow(2).mean()


def _unwrapped(policy) -> Policy:
    """The Policy inside a DistributedDataParallel wrapper (or the policy itself)."""
    return (
        policy.module if isinstance(policy, torch.nn.parallel.DistributedDataParallel) else policy
    )


class MinibatchLoss(NamedTuple):
    """The loss one minibatch's step descends, and what its statistics are made of."""

    loss: torch.Tensor
    policy_loss: torch.Tensor
    value_loss: torch.Tensor
    entropy: torch.Tensor  # [T * M]
    ratio: torch.Tensor  # [T * M], new / old probability of the stored actions
    log_probs: torch.Tensor  # [T * M]
    old_log_probs: torch.Tensor  # [T * M], from the rollout
    auxiliaries: dict[str, torch.Tensor]


def minibatch_loss(
    policy: Policy, storage: RolloutStorage, envs: torch.Tensor, advantages, s: PPOSettings
) -> MinibatchLoss:
    """PPO's loss on the sequences of `envs`: the clipped surrogate, the value loss, the
    entropy bonus and the auxiliary heads' weighted losses."""
    log_probs, entropy, values, auxiliaries = evaluate(policy, storage, envs, s)
    old = storage.log_probs[:, envs].flatten()
    adv = advantages[:, envs].flatten()
    returns = storage.returns[:, envs].flatten()
    ratio = torch.exp(log_probs - old)
    clipped = ratio.clamp(1 - s.clip, 1 + s.clip)
    policy_loss = -torch.min(ratio * adv, clipped * adv).mean()
    value_loss = value_loss_of(returns, values, _unwrapped(policy).value_norm)
    loss = policy_loss + s.value_coef * value_loss - s.entropy_coef * entropy.mean()
    for name, auxiliary in auxiliaries.items():
        loss = loss + auxiliary_coef(s, name) * auxiliary.float()
    return MinibatchLoss(loss, policy_loss, value_loss, entropy, ratio, log_probs, old, auxiliaries)


def update(
    policy: Policy, optimizer, storage: RolloutStorage, s: PPOSettings, scaler=None, generator=None
) -> dict[str, float]:
    """`generator`: where the minibatch order is drawn from (None: torch's default). A
    value normaliser first takes this rollout's returns into its statistics (PopArt)."""
    value_norm = _unwrapped(policy).value_norm
    if value_norm is not None:
        value_norm.update(storage.returns, _unwrapped(policy).critic)
    advantages = storage.advantages
    if s.normalize_advantage:
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-5)
    totals = {
        "policy_loss": 0.0,
        "value_loss": 0.0,
        "entropy": 0.0,
        "clip_fraction": 0.0,
        "approx_kl": 0.0,
    }
    count = 0
    for _ in range(s.epochs):
        order = torch.randperm(storage.envs, device=advantages.device, generator=generator)
        for envs in order.chunk(s.minibatches):
            out = minibatch_loss(policy, storage, envs, advantages, s)
            for name, auxiliary in out.auxiliaries.items():
                stat = AUXILIARY_STATS[name]
                totals[stat] = totals.get(stat, 0.0) + auxiliary.item()
            optimizer.zero_grad(set_to_none=True)
            if scaler is not None:
                scaler.scale(out.loss).backward()
                scaler.unscale_(optimizer)
            else:
                out.loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), s.max_grad_norm)
            if scaler is not None:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            with torch.no_grad():
                totals["policy_loss"] += out.policy_loss.item()
                totals["value_loss"] += out.value_loss.item()
                totals["entropy"] += out.entropy.mean().item()
                totals["clip_fraction"] += ((out.ratio - 1).abs() > s.clip).float().mean().item()
                totals["approx_kl"] += (out.old_log_probs - out.log_probs).mean().item()
            count += 1
    stats = {k: v / count for k, v in totals.items()}
    if value_norm is not None:
        stats |= {
            "value_norm_mean": float(value_norm.mean),
            "value_norm_std": float(value_norm.std),
        }
    return stats
