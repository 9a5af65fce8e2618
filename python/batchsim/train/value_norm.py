"""Value normalisation with PopArt's output-preserving rescale (`TrainConfig.value_normalization`).

Habitat's rewards (-0.01 per step, geodesic progress, +2.5 on success) give returns of
~15-20 late in training and near zero early, so the critic's regression target moves over
two orders of magnitude and its squared error can dominate the total loss, whose gradient
norm is clipped to 1.0 as a whole. PopArt (van Hasselt et al., 2016; Hessel et al., 2019)
keeps running statistics of the return targets, has the critic learn the normalised
targets, and de-normalises its output wherever a value is used (the rollout's values, the
bootstrap, GAE). When the statistics move, the critic's last layer is rescaled so that the
de-normalised predictions stay what they were (Preserving Outputs Precisely).

Statistics: exponential moving averages of the batch's first and second moments, one step
per PPO update (`value_norm_decay`), with Adam's debiasing so the first updates are not
pulled toward the initial zero. Under torchrun every rank's batch moments are all-reduced
first, so the statistics, and the rescaled critic, are the same on every rank.
"""

from __future__ import annotations

import torch
from torch import nn

from batchsim.train import distributed

MIN_STD = 1e-2  # the std's floor: constant early returns must not blow the targets up
MIN_VARIANCE = MIN_STD**2


class ValueNormalizer(nn.Module):
    """The running statistics (buffers: checkpointed with the policy, copied to its acting
    copy, read in place by CUDA graphs) and the maps between the two scales."""

    def __init__(self, decay: float = 0.99):
        super().__init__()
        if not 0.0 < decay < 1.0:
            raise ValueError(f"value_norm_decay: expected a number in (0, 1), got {decay}")
        self.decay = decay
        # The moments' moving averages and the weight of all steps so far (debiasing), in
        # float64 as they accumulate; the mean and std that forward passes read, in float32.
        self.register_buffer("first", torch.zeros((), dtype=torch.float64))
        self.register_buffer("second", torch.zeros((), dtype=torch.float64))
        self.register_buffer("weight", torch.zeros((), dtype=torch.float64))
        self.register_buffer("mean", torch.zeros(()))
        self.register_buffer("std", torch.ones(()))

    def normalize(self, values: torch.Tensor) -> torch.Tensor:
        return (values - self.mean) / self.std

    def denormalize(self, values: torch.Tensor) -> torch.Tensor:
        return values * self.std + self.mean

    @torch.no_grad()
    def update(self, targets: torch.Tensor, head: nn.Linear | None = None) -> None:
        """One step of the statistics with the batch `targets` (every rank's, all-reduced);
        `head`, the linear layer whose output is the normalised value, is rescaled so that
        its de-normalised output is unchanged (PopArt)."""
        targets = targets.double()
        count = targets.new_tensor(float(targets.numel()))
        moments = torch.stack([targets.sum(), targets.pow(2).sum(), count])
        moments = distributed.all_reduce_sum(moments)
        count = moments[2].clamp(min=1.0)
        batch_first, batch_second = moments[0] / count, moments[1] / count
        self.first.mul_(self.decay).add_((1.0 - self.decay) * batch_first)
        self.second.mul_(self.decay).add_((1.0 - self.decay) * batch_second)
        self.weight.mul_(self.decay).add_(1.0 - self.decay)
        old_mean, old_std = self.mean.clone(), self.std.clone()
        mean = self.first / self.weight
        variance = (self.second / self.weight - mean.pow(2)).clamp(min=MIN_VARIANCE)
        self.mean.copy_(mean)
        self.std.copy_(variance.sqrt())
        if head is not None:
            preserve_outputs(head, old_mean, old_std, self.mean, self.std)


@torch.no_grad()
def preserve_outputs(head: nn.Linear, old_mean, old_std, new_mean, new_std) -> None:
    """W' = W s / s', b' = (s b + m - m') / s' with the old (m, s) and new (m', s') mean and
    std, so that s' (W' x + b') + m' = s (W x + b) + m. In place, so optimiser state and
    captured CUDA graphs keep the same tensors."""
    head.weight.mul_(old_std / new_std)
    head.bias.mul_(old_std).add_(old_mean - new_mean).div_(new_std)
