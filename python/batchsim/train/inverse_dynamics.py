"""Inverse dynamics, an auxiliary loss that teaches the visual encoder what an action
changes in the view (`TrainConfig.inverse_dynamics_coef`).

After Pathak et al. (2017) and, for PointNav, Ye et al. ("Auxiliary Tasks Speed Up Learning
PointGoal Navigation", 2020): a classifier predicts the action a_t from the visual
embeddings of steps t and t + 1 of one episode (cross-entropy). Only the embeddings are
given, not the recurrent core's belief at t: the policy's own logits are a function of that
belief, so a head that saw it could read off the policy's action distribution instead of
learning what moving and turning do to the view. Pairs that straddle an episode's end (the
step after it is the next episode's first view, same-step autoreset) are masked out; so is
STOP, which always ends its episode, so in practice three actions are told apart.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class InverseDynamics(nn.Module):
    """The classifier: one hidden layer on [embedding_t, embedding_t+1], split in two so
    that each step's embedding is projected once, then logits over the actions."""

    def __init__(self, hidden: int, actions: int, width: int = 256):
        super().__init__()
        self.before = nn.Linear(hidden, width)
        self.after = nn.Linear(hidden, width, bias=False)
        self.classify = nn.Linear(width, actions)
        # Small logits at the start (a loss near ln A), yet a gradient for the encoder.
        nn.init.orthogonal_(self.classify.weight, gain=0.01)
        nn.init.zeros_(self.classify.bias)

    def forward(self, embeddings, actions, masks) -> torch.Tensor:
        """Mean cross-entropy over the valid pairs (t, t + 1): embeddings [T, N, H] (the
        encoder's output at each step), actions [T, N] (taken at each step), masks [T, N]
        (0 where an episode began). Zero, still in the graph, where no pair is valid."""
        logits = self.logits(embeddings)  # [T - 1, N, A]
        valid = masks[1:]  # step t + 1 continues step t's episode
        loss = F.cross_entropy(
            logits.flatten(0, 1).float(), actions[:-1].flatten(), reduction="none"
        )
        return (loss * valid.flatten()).sum() / valid.sum().clamp(min=1.0)

    def logits(self, embeddings: torch.Tensor) -> torch.Tensor:
        """[T - 1, N, A]: the logits of a_t for each t < T - 1 from steps t and t + 1."""
        return self.classify(F.relu(self.before(embeddings[:-1]) + self.after(embeddings[1:])))
