"""CPC|A, the auxiliary loss that teaches the recurrent core to remember where it has been.

Action-conditioned contrastive predictive coding (Guo et al., 2018; for PointNav, Ye et al.,
"Auxiliary Tasks Speed Up Learning PointGoal Navigation", 2020): from the belief after step
t and the actions the agent then took, a small GRU predicts the visual embedding of each of
the next k steps; a classifier tells the true embedding from those of random other steps.
Succeeding needs a belief that holds the layout around the agent — what the failed episodes
(long walks and detours, benchmarks/failure_breakdown.py) show the reward alone does not
teach in the time we train.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

START_POINTS = 4096  # (t, env) pairs per minibatch the prediction starts from: a random
# subset, as every pair would cost a k-step GRU over T * N rows for little extra signal
NEGATIVES = 4  # random other steps each prediction is told apart from


def take_rows(table: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """table[index] for a 2-D table, as index_select: its backward (index_add) sums repeated
    rows in a fixed order, where advanced indexing's does not on a multi-threaded CPU (and
    a resumed run must reproduce the uninterrupted one bit for bit)."""
    return table.index_select(0, index.flatten()).view(*index.shape, table.shape[-1])


class ActionCPC(nn.Module):
    """The CPC|A loss: a GRU imagines the next `steps` actions from a belief and a classifier
    scores each imagined step against the true and NEGATIVES other embeddings."""

    def __init__(self, hidden: int, actions: int, steps: int, width: int = 256):
        super().__init__()
        if steps < 1:
            raise ValueError(f"cpca_steps: expected >= 1 to build CPC|A, got {steps}")
        self.steps = steps
        self.action = nn.Embedding(actions, 32)
        self.imagine = nn.GRU(32, hidden)
        # The classifier's first layer on [prediction, embedding], split in two so that
        # each side is projected once and only the sum is formed per pair.
        self.predicted = nn.Linear(hidden, width)
        self.observed = nn.Linear(hidden, width, bias=False)
        self.score = nn.Linear(width, 1)
        # Where the draws come from (None: torch's default generator); the overlapped update
        # sets its own so that it never shares a stream with the rollouts' sampling.
        self.generator: torch.Generator | None = None

    def forward(self, embeddings, beliefs, actions, masks) -> torch.Tensor:
        """Mean binary cross-entropy over valid (start, horizon) pairs. embeddings and
        beliefs [T, N, H] (the encoder's and the recurrent core's outputs at each step),
        actions [T, N] (taken at each step), masks [T, N] (0 where an episode began)."""
        steps, n = masks.shape
        horizon = min(self.steps, steps - 1)
        if horizon < 1:
            return embeddings.sum() * 0.0  # a 1-step rollout has no future to predict
        count = min(START_POINTS, (steps - 1) * n)
        draw = dict(device=masks.device, generator=self.generator)
        start = torch.randint(0, (steps - 1) * n, (count,), **draw)
        negative = torch.randint(0, steps * n, (count, horizon, NEGATIVES), **draw)
        return self.loss(embeddings, beliefs, actions, masks, start, negative)

    def loss(self, embeddings, beliefs, actions, masks, start, negative) -> torch.Tensor:
        """The loss for given draws: start [S] indexes (t0, env) as t0 * N + env with
        t0 < T - 1; negative [S, k, M] indexes the steps of all T * N the same way."""
        steps, n = masks.shape
        horizon = negative.shape[1]
        t0, env = start // n, start % n
        times = t0[:, None] + torch.arange(1, horizon + 1, device=masks.device)  # [S, k]
        inside = times < steps
        times = times.clamp(max=steps - 1)
        rows = env[:, None].expand_as(times)
        # Step t0 + j is the same episode while no mask from t0 + 1 to t0 + j is 0.
        valid = (masks[times, rows] * inside).cumprod(1)

        taken = self.action(actions[times - 1, rows]).transpose(0, 1)  # a_{t0 .. t0+k-1}
        initial = take_rows(beliefs.flatten(0, 1), start)[None]
        imagined, _ = self.imagine(taken, initial)
        predicted = self.predicted(imagined.transpose(0, 1))  # [S, k, W]
        observed = self.observed(embeddings).flatten(0, 1)  # [T * N, W]
        positive = self.score(F.relu(predicted + take_rows(observed, times * n + rows))).squeeze(-1)
        others = take_rows(observed, negative)  # [S, k, M, W]
        negative_score = self.score(F.relu(predicted[:, :, None] + others)).squeeze(-1)
        loss = F.softplus(-positive.float()) + F.softplus(negative_score.float()).mean(-1)
        return (loss * valid).sum() / valid.sum().clamp(min=1.0)
