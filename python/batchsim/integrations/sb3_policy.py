"""Stable-Baselines3 with a CNN on depth, without knowing SB3's image rules:

    from batchsim.integrations.sb3_policy import make_sb3_env, policy_kwargs
    env = make_sb3_env("data/procgen-demo/pointnav/train", 16, resolution=32)
    model = stable_baselines3.PPO("MultiInputPolicy", env, policy_kwargs=policy_kwargs())

Left to its defaults, SB3's MultiInputPolicy flattens depth into an MLP: it takes only
uint8 Boxes of 0..255 for images unless ``normalize_images=False``, and its NatureCNN needs
views of at least 36x36. ``policy_kwargs()`` gives a features extractor made for this env
(:class:`DepthGoalExtractor`: three convolutions on depth clamped and scaled to [0, 1], any
view of 9x9 pixels or more, beside the goal as log distance, cos and sin of its angle) with
``normalize_images=False``. Frame stacking: ``VecFrameStack(env, n,
channels_order={"depth": "first", POINTGOAL: "last"})`` (SB3 stacks on the last axis unless
told; the env's depth is channels-first), which the extractor takes as n depth channels.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import VecEnv, VecMonitor
from torch import nn

from batchsim.env import POINTGOAL, BatchNavEnv
from batchsim.integrations.sb3 import SB3VecEnv

MAX_DEPTH = 10.0  # metres: depth is clamped here and scaled to [0, 1]


class DepthGoalExtractor(BaseFeaturesExtractor):
    """Features of a {depth [C, H, W], pointgoal [2k]} observation: a small CNN on depth
    (C channels: stacked frames) and the goal in polar form, concatenated."""

    def __init__(self, observation_space: gym.spaces.Dict, features_dim: int = 256):
        super().__init__(observation_space, features_dim)
        depth = observation_space["depth"]
        self.cnn = nn.Sequential(
            nn.Conv2d(depth.shape[0], 16, 5, stride=2),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2),
            nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1),  # padded: views from 9x9 pixels on
            nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            flat = self.cnn(torch.zeros(1, *depth.shape)).shape[1]
        goals = observation_space[POINTGOAL].shape[0] // 2 * 3
        self.head = nn.Sequential(nn.Linear(flat + goals, features_dim), nn.ReLU())

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        depth = observations["depth"].clamp(0.0, MAX_DEPTH) / MAX_DEPTH
        goal = observations[POINTGOAL].reshape(len(depth), -1, 2)  # stacked goals, if any
        distance, angle = goal[..., 0], goal[..., 1]
        polar = torch.cat([torch.log1p(distance), angle.cos(), angle.sin()], 1)
        return self.head(torch.cat([self.cnn(depth), polar], 1))


def policy_kwargs(features_dim: int = 256, **extra: Any) -> dict[str, Any]:
    """SB3 ``policy_kwargs`` for MultiInputPolicy on this env: DepthGoalExtractor, images
    not rescaled as uint8; ``extra`` adds or overrides (net_arch, ...)."""
    return {
        "features_extractor_class": DepthGoalExtractor,
        "features_extractor_kwargs": {"features_dim": features_dim},
        "normalize_images": False,
        **extra,
    }


def make_sb3_env(
    dataset: str | os.PathLike[str], num_envs: int, *, device: str = "cpu", **options: Any
) -> VecEnv:
    """A BatchNavEnv in the modes SB3 needs (numpy arrays, SAME_STEP autoreset with final
    views, depth) as an SB3 VecEnv, under VecMonitor (episode returns and lengths in
    ``infos[i]["episode"]``); ``options`` are BatchNavEnv's (resolution, task, seed, ...)."""
    options = {"sensors": ("depth",)} | options
    env = BatchNavEnv(
        dataset, num_envs, device=device, array="numpy", autoreset_mode="same_step", **options
    )
    return VecMonitor(SB3VecEnv(env))


__all__ = ["MAX_DEPTH", "DepthGoalExtractor", "make_sb3_env", "policy_kwargs"]
