"""The SB3 recipe for a CNN on depth (batchsim.integrations.sb3_policy, examples/sb3_ppo.py):
SB3's defaults flatten depth into an MLP, the recipe's policy convolves it, frames stack
channels-first, and the example trains and evaluates end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest

stable_baselines3 = pytest.importorskip("stable_baselines3")
torch = pytest.importorskip("torch")

from stable_baselines3.common.vec_env import VecFrameStack  # noqa: E402
from torch import nn  # noqa: E402

import batchsim  # noqa: E402
from batchsim.env import POINTGOAL  # noqa: E402
from batchsim.integrations.sb3_policy import (  # noqa: E402
    MAX_DEPTH,
    DepthGoalExtractor,
    make_sb3_env,
    policy_kwargs,
)

N = 4


@pytest.fixture
def make(procgen_dataset):
    split = procgen_dataset[0] / "pointnav" / "train"
    envs = []

    def make(**options):
        options = {"resolution": 16, "task": batchsim.TaskConfig(max_episode_steps=20)} | options
        envs.append(make_sb3_env(split, N, **options))
        return envs[-1]

    yield make
    for env in envs:
        env.close()


def ppo(env, **kwargs):
    return stable_baselines3.PPO(
        "MultiInputPolicy", env, n_steps=8, batch_size=16, device="cpu", seed=0, **kwargs
    )


def test_sb3_defaults_flatten_depth_into_an_mlp(make):
    # The pitfall the recipe avoids: float depth is no image to SB3 by default.
    extractor = ppo(make()).policy.features_extractor
    assert isinstance(extractor.extractors["depth"], nn.Flatten)


def test_the_recipe_convolves_depth(make):
    model = ppo(make(), policy_kwargs=policy_kwargs())
    extractor = model.policy.features_extractor
    assert isinstance(extractor, DepthGoalExtractor) and not model.policy.normalize_images
    assert any(isinstance(layer, nn.Conv2d) for layer in extractor.cnn)
    model.learn(32)  # one rollout and update
    assert model.num_timesteps == 32


def test_extractor_features_by_hand():
    space = make_space(channels=1)
    extractor = DepthGoalExtractor(space, features_dim=8)
    obs = {"depth": torch.full((2, 1, 16, 16), 25.0), POINTGOAL: torch.tensor([[2.0, 0.5]] * 2)}
    # Depth beyond MAX_DEPTH reads as MAX_DEPTH: clamped, then scaled to 1.
    clamped = {**obs, "depth": torch.full((2, 1, 16, 16), MAX_DEPTH)}
    torch.testing.assert_close(extractor(obs), extractor(clamped))
    cnn = extractor.cnn(torch.ones(2, 1, 16, 16))
    polar = torch.tensor([[np.log1p(2.0), np.cos(0.5), np.sin(0.5)]] * 2, dtype=torch.float32)
    torch.testing.assert_close(extractor(obs), extractor.head(torch.cat([cnn, polar], 1)))


def make_space(channels: int):
    import gymnasium as gym

    return gym.spaces.Dict(
        {
            "depth": gym.spaces.Box(0.0, np.inf, (channels, 16, 16), np.float32),
            POINTGOAL: gym.spaces.Box(-np.inf, np.inf, (2 * channels,), np.float32),
        }
    )


def test_frames_stack_channels_first(make):
    order = {"depth": "first", POINTGOAL: "last"}
    env = VecFrameStack(make(), 3, channels_order=order)
    obs = env.reset()
    assert obs["depth"].shape == (N, 3, 16, 16) and obs[POINTGOAL].shape == (N, 6)
    model = ppo(env, policy_kwargs=policy_kwargs())
    assert model.policy.features_extractor.cnn[0].in_channels == 3
    model.learn(32)


def test_example_trains_and_evaluates(procgen_dataset, tmp_path, run_example):
    root, _ = procgen_dataset
    out = run_example(
        "sb3_ppo.py",
        *("--data", root, "--num-envs", N, "--n-steps", 16, "--total-timesteps", 64),
        *("--resolution", 16, "--max-episode-steps", 20, "--frame-stack", 2),
        *("--json", tmp_path / "eval.json"),
    )
    assert "trained 64 frames" in out
    results = json.loads((tmp_path / "eval.json").read_text())
    for agent in ("ppo", "random"):
        assert results[agent]["success"]["episodes"] == 20  # every val episode, once
        assert results[agent]["success"]["method"] == "wilson"
        assert 0.0 <= results[agent]["spl"]["mean"] <= results[agent]["success"]["mean"] + 1e-6
