"""Temporal distance, an auxiliary loss that teaches the recurrent core how long ago it saw
a view (`TrainConfig.temporal_distance_coef`).

After Ye et al. ("Auxiliary Tasks Speed Up Learning PointGoal Navigation", 2020, and
"Auxiliary Tasks and Exploration Enable ObjectNav", 2021): from the visual embeddings of two
steps i and j of one episode and the recurrent core's belief at the later of the two, a
small network regresses the signed step distance (j - i) / (T - 1), in [-1, 1] over a
T-step rollout (squared error). The pairs are drawn at random, both steps in the same
episode segment of the rollout, so no pair spans an episode's end. A belief that answers
must hold when it passed what it saw: the sense of progress that long walks with detours
(the failures of benchmarks/failure_breakdown.py) lack.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from batchsim.train.auxiliary import take_rows

PAIRS = 4096  # pairs per minibatch: a random subset, as for CPC|A's start points


def segment_bounds(masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(first step, length) [T, N] of the episode segment that holds each (t, n) within the
    rollout: segments begin at row 0 and wherever masks is 0."""
    steps = masks.shape[0]
    begins = masks == 0
    begins[0] = True
    time = torch.arange(steps, device=masks.device)[:, None].expand_as(masks)
    first = torch.where(begins, time, torch.zeros_like(time)).cummax(0).values
    ends = torch.zeros_like(begins)
    ends[:-1] = begins[1:]
    ends[-1] = True
    # The last step of each segment: the next end at or after t, by a reversed running min.
    last = torch.where(ends, time, torch.full_like(time, steps - 1)).flip(0).cummin(0).values
    return first, last.flip(0) - first + 1


class TemporalDistance(nn.Module):
    """The regressor: one hidden layer on [embedding_i, embedding_j, belief_max(i, j)]
    (split in three, the sum of their projections), then one output."""

    def __init__(self, hidden: int, width: int = 256):
        super().__init__()
        self.first = nn.Linear(hidden, width)
        self.second = nn.Linear(hidden, width, bias=False)
        self.belief = nn.Linear(hidden, width, bias=False)
        self.regress = nn.Linear(width, 1)
        # Where the draws come from (None: torch's default generator), as CPC|A's.
        self.generator: torch.Generator | None = None

    def forward(self, embeddings, beliefs, masks) -> torch.Tensor:
        """Mean squared error (halved) over PAIRS random pairs; embeddings and beliefs
        [T, N, H], masks [T, N] (0 where an episode began)."""
        steps, n = masks.shape
        count = min(PAIRS, steps * n)
        draw = dict(device=masks.device, generator=self.generator)
        anchor = torch.randint(0, steps * n, (count,), **draw)
        fraction = torch.rand(count, **draw)
        return self.loss(embeddings, beliefs, masks, anchor, fraction)

    def loss(self, embeddings, beliefs, masks, anchor, fraction) -> torch.Tensor:
        """The loss for given draws: anchor [P] indexes (i, env) as i * N + env; fraction
        [P] in [0, 1) places j uniformly in the anchor's episode segment."""
        steps, n = masks.shape
        i, env = anchor // n, anchor % n
        first, length = segment_bounds(masks)
        span = length[i, env]
        j = first[i, env] + (fraction * span).long().clamp(max=span - 1)
        later = torch.maximum(i, j)
        target = (j - i).float() / max(steps - 1, 1)
        hidden = (
            self.first(take_rows(embeddings.flatten(0, 1), anchor))
            + self.second(take_rows(embeddings.flatten(0, 1), j * n + env))
            + self.belief(take_rows(beliefs.flatten(0, 1), later * n + env))
        )
        predicted = self.regress(F.relu(hidden)).squeeze(-1).float()
        return 0.5 * (predicted - target).pow(2).mean()
