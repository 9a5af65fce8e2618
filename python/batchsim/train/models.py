"""Policies for PointNav from depth (and/or RGB) and pointgoal_with_gps_compass.

- ``se_resnet9``: the paper's visual encoder. A space-to-depth stem, then three stages of
  residual blocks with squeeze-and-excitation, Fixup initialisation and no normalisation
  layers (normalisation statistics drift with the policy in RL and cost time at large
  batch). Followed by a 2-layer LSTM of 512.
- ``simple_cnn``: a three-convolution encoder and a 1-layer GRU, for quick runs on a CPU.

Both see depth clamped to ``max_depth`` and scaled to [0, 1], optionally with ``depth_bins``
one-hot channels (which bin of [0, max_depth] each pixel falls in), and RGB scaled to [0, 1].
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import nn
from torch.nn import functional as F

from batchsim.train import recurrence
from batchsim.train.auxiliary import ActionCPC
from batchsim.train.inverse_dynamics import InverseDynamics
from batchsim.train.temporal_distance import TemporalDistance
from batchsim.train.value_norm import ValueNormalizer

NO_ACTION = 4  # the previous-action embedding's "none yet" (after the 4 actions)


def preprocess(obs: dict, max_depth: float, depth_bins: int) -> torch.Tensor:
    """[N, C, H, W] float input of the visual encoder."""
    channels = []
    if "depth" in obs:
        depth = obs["depth"].float().clamp(0.0, max_depth) / max_depth
        channels.append(depth)
        if depth_bins > 0:
            index = (depth * depth_bins).long().clamp(max=depth_bins - 1)[:, 0]
            channels.append(F.one_hot(index, depth_bins).permute(0, 3, 1, 2).float())
    if "rgb" in obs:
        channels.append(obs["rgb"].float() / 255.0)
    return torch.cat(channels, 1)


def input_channels(sensors, depth_bins: int) -> int:
    """Channels `preprocess` makes from these sensors: depth 1 (+ bins), RGB 3."""
    channels = 0
    if "depth" in sensors:
        channels += 1 + depth_bins
    if "rgb" in sensors:
        channels += 3
    return channels


def goal_features(pointgoal: torch.Tensor) -> torch.Tensor:
    """(distance, angle) as (log distance, cos, sin): smooth, bounded inputs."""
    distance, angle = pointgoal[:, 0:1], pointgoal[:, 1:2]
    return torch.cat([torch.log1p(distance), torch.cos(angle), torch.sin(angle)], 1)


class SqueezeExcite(nn.Module):
    """Squeeze-and-excitation: rescales each channel by a gate computed from the channel
    means of the whole image."""

    def __init__(self, channels: int, reduction: int = 4):
        super().__init__()
        self.down = nn.Linear(channels, channels // reduction)
        self.up = nn.Linear(channels // reduction, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = torch.sigmoid(self.up(F.relu(self.down(x.mean((2, 3))))))
        return x * scale[:, :, None, None]


class FixupBlock(nn.Module):
    """conv-relu-conv residual block with SE; Fixup: scalar biases, a scalar multiplier, the
    second convolution zero-initialised and the first scaled by depth^(-1/2)."""

    def __init__(self, channels: int, total_blocks: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.se = SqueezeExcite(channels)
        self.bias = nn.Parameter(torch.zeros(4))
        self.scale = nn.Parameter(torch.ones(1))
        fan_in = channels * 9
        nn.init.normal_(self.conv1.weight, 0, math.sqrt(2 / fan_in) * total_blocks**-0.5)
        nn.init.zeros_(self.conv2.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.conv1(x + self.bias[0])
        out = F.relu(out + self.bias[1])
        out = self.conv2(out + self.bias[2]) * self.scale + self.bias[3]
        return F.relu(x + self.se(out))


class SEResNet9(nn.Module):
    """Space-to-depth stem (4x4 blocks to channels), then per stage a strided convolution
    and residual blocks; global average pooling to `out_features`."""

    def __init__(
        self,
        in_channels: int,
        widths=(32, 64, 128),
        blocks_per_stage: int = 1,
        out_features: int = 512,
    ):
        super().__init__()
        total = len(widths) * blocks_per_stage
        layers: list[nn.Module] = [nn.PixelUnshuffle(4)]
        channels = in_channels * 16
        for width in widths:
            layers += [nn.Conv2d(channels, width, 3, stride=2, padding=1), nn.ReLU()]
            layers += [FixupBlock(width, total) for _ in range(blocks_per_stage)]
            channels = width
        self.features = nn.Sequential(*layers)
        self.out = nn.Linear(channels, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.out(self.features(x).mean((2, 3))))


class SimpleCNN(nn.Module):
    """Three strided convolutions, 4x4 pooling and a linear layer: the `simple_cnn` encoder."""

    def __init__(self, in_channels: int, out_features: int = 256):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 32, 5, stride=2, padding=2),
            nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(4),
            nn.Flatten(),
        )
        self.out = nn.Linear(64 * 16, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.out(self.features(x)))


class PolicyOutput(NamedTuple):
    logits: torch.Tensor  # [T*N, A]
    values: torch.Tensor  # [T*N], on the returns' scale (de-normalised with value_norm)
    state: torch.Tensor  # the recurrent state after the last step
    # The auxiliary heads' losses by name ("cpca", "id", "td"), when asked for with the
    # actions taken; empty without heads or actions.
    auxiliary_losses: dict[str, torch.Tensor]


class Policy(nn.Module):
    """Encoder + (goal, previous action) embeddings + recurrent core + actor and critic,
    and the optional auxiliary heads: CPC|A with cpca_steps > 0 (batchsim.train.auxiliary),
    inverse dynamics and temporal distance (their modules). With value_normalization the
    critic learns normalised returns and `values` are de-normalised (batchsim.train.value_norm).

    The recurrent state is one tensor [layers * (2 if LSTM else 1), N, hidden]; `masks`
    ([N] float, 0 where an episode just began) reset it, as in habitat-baselines."""

    def __init__(
        self,
        encoder: str,
        in_channels: int,
        actions: int = 4,
        hidden: int = 512,
        layers: int = 2,
        rnn: str = "lstm",
        cpca_steps: int = 0,
        inverse_dynamics: bool = False,
        temporal_distance: bool = False,
        value_normalization: bool = False,
        value_norm_decay: float = 0.99,
    ):
        super().__init__()
        if encoder == "se_resnet9":
            self.encoder = SEResNet9(in_channels, out_features=hidden)
        elif encoder == "simple_cnn":
            self.encoder = SimpleCNN(in_channels, out_features=hidden)
        else:
            raise ValueError(f"encoder: expected 'se_resnet9' or 'simple_cnn', got {encoder!r}")
        if rnn not in ("lstm", "gru"):
            raise ValueError(f"rnn: expected 'lstm' or 'gru', got {rnn!r}")
        self.actions, self.hidden, self.layers, self.rnn_kind = actions, hidden, layers, rnn
        self.goal = nn.Linear(3, 32)
        self.previous_action = nn.Embedding(actions + 1, 32)  # index `actions`: NO_ACTION
        rnn_type = nn.LSTM if rnn == "lstm" else nn.GRU
        self.rnn = rnn_type(hidden + 64, hidden, num_layers=layers)
        self.actor = nn.Linear(hidden, actions)
        self.critic = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.actor.weight, gain=0.01)
        nn.init.zeros_(self.actor.bias)
        nn.init.orthogonal_(self.critic.weight)
        nn.init.zeros_(self.critic.bias)
        self.cpca = ActionCPC(hidden, actions, cpca_steps) if cpca_steps > 0 else None
        self.inverse_dynamics = InverseDynamics(hidden, actions) if inverse_dynamics else None
        self.temporal_distance = TemporalDistance(hidden) if temporal_distance else None
        self.value_norm = ValueNormalizer(value_norm_decay) if value_normalization else None
        self.sequence = "segments"  # or "stepwise": how rollouts run (batchsim.train.recurrence)
        self.channels_last = False

    def use_channels_last(self) -> None:
        """NHWC convolutions: the encoder's kernels and, at each call, its input."""
        self.encoder.to(memory_format=torch.channels_last)
        self.channels_last = True

    @property
    def state_layers(self) -> int:
        return self.layers * (2 if self.rnn_kind == "lstm" else 1)

    def initial_state(self, n: int, device) -> torch.Tensor:
        return torch.zeros(self.state_layers, n, self.hidden, device=device)

    def _split(self, state: torch.Tensor):
        if self.rnn_kind == "lstm":
            return state[: self.layers].contiguous(), state[self.layers :].contiguous()
        return state.contiguous()

    def _join(self, state) -> torch.Tensor:
        return torch.cat(state, 0) if self.rnn_kind == "lstm" else state

    def forward(
        self,
        visual: torch.Tensor,
        pointgoal: torch.Tensor,
        previous_action: torch.Tensor,
        state: torch.Tensor,
        masks: torch.Tensor,
        actions: torch.Tensor | None = None,
    ) -> PolicyOutput:
        """Sequences: visual [T*N, C, H, W], pointgoal [T*N, 2], previous_action [T*N],
        masks [T, N]; state [L, N, H] at the start. With `actions` ([T*N], taken at each
        step) the output carries the auxiliary heads' losses too."""
        steps, n = masks.shape
        if self.channels_last:
            visual = visual.contiguous(memory_format=torch.channels_last)
        embeddings = self.encoder(visual)
        x = torch.cat(
            [
                embeddings,
                F.relu(self.goal(goal_features(pointgoal))),
                self.previous_action(previous_action),
            ],
            1,
        ).view(steps, n, -1)
        segments = self.sequence == "segments" and steps > 1  # one step: nothing to cut
        run = recurrence.by_segments if segments else recurrence.stepwise
        beliefs, rnn_state = run(self.rnn, x, self._split(state), masks)
        state = self._join(rnn_state)
        features = beliefs.view(steps * n, -1)
        auxiliary = {}
        if actions is not None:
            auxiliary = self._auxiliary_losses(
                embeddings.view(steps, n, -1), beliefs, actions.view(steps, n), masks
            )
        logits = self.actor(features)  # after the heads, before the critic: the order of
        values = self.critic(features).squeeze(-1)  # the graph, so gradients sum as before
        if self.value_norm is not None:
            values = self.value_norm.denormalize(values)
        return PolicyOutput(logits, values, state, auxiliary)

    def _auxiliary_losses(self, embeddings, beliefs, actions, masks) -> dict[str, torch.Tensor]:
        """Each head's loss on sequences [T, N, ...], in a fixed order (the update adds them
        in it)."""
        losses = {}
        if self.cpca is not None:
            losses["cpca"] = self.cpca(embeddings, beliefs, actions, masks)
        if self.inverse_dynamics is not None:
            losses["id"] = self.inverse_dynamics(embeddings, actions, masks)
        if self.temporal_distance is not None:
            losses["td"] = self.temporal_distance(embeddings, beliefs, masks)
        return losses

    def set_update_generator(self, generator: torch.Generator | None) -> None:
        """Where the auxiliary heads' random draws come from (None: torch's default)."""
        for head in (self.cpca, self.temporal_distance):
            if head is not None:
                head.generator = generator


def build_policy(config) -> Policy:
    """The Policy a TrainConfig describes (its shape, inputs, heads and value scale)."""
    return Policy(
        config.encoder,
        input_channels(config.sensors, config.depth_bins),
        hidden=config.hidden_size,
        layers=config.rnn_layers,
        rnn=config.rnn,
        cpca_steps=config.cpca_steps,
        inverse_dynamics=config.inverse_dynamics_coef > 0,
        temporal_distance=config.temporal_distance_coef > 0,
        value_normalization=config.value_normalization,
        value_norm_decay=config.value_norm_decay,
    )
