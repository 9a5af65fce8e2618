"""TorchRLEnv: TorchRL's own spec check, a rollout's keys and shapes, its steps against a
twin BatchNavEnv with the same seed and actions, and partial resets through "_reset"."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torchrl")

import torch
from torchrl.envs.utils import check_env_specs

import batchsim
from batchsim.env import POINTGOAL
from batchsim.integrations.torchrl import TorchRLEnv

N = 4  # the environments of conftest's small_envs (SMALL_ENVS)


@pytest.fixture
def make(small_envs):
    """Envs as TorchRLEnv needs them: DISABLED autoreset; episodes end within 5 steps."""

    def make(**options):
        task = batchsim.TaskConfig(max_episode_steps=5)
        return small_envs(**{"autoreset_mode": "disabled", "task": task} | options)

    return make


def test_check_env_specs(make):
    check_env_specs(TorchRLEnv(make()))


def test_rollout_keys_and_shapes(make):
    env = TorchRLEnv(make())
    env.set_seed(3)
    rollout = env.rollout(max_steps=12, break_when_any_done=False)
    assert rollout.batch_size == (N, 12)
    assert rollout["depth"].shape == (N, 12, 1, 16, 20)
    assert rollout[POINTGOAL].shape == (N, 12, 2)
    assert rollout["action"].dtype == torch.int64
    for key in ("reward", "done", "terminated", "truncated"):
        assert rollout["next", key].shape == (N, 12, 1)
    # 12 steps of at most 5 per episode: every environment ended and restarted.
    assert rollout["next", "done"].any(1).all()


def test_steps_match_the_env(make):
    env, twin = TorchRLEnv(make()), make()
    env.set_seed(11)
    td = env.reset()
    obs, _ = twin.reset(seed=11)
    assert torch.equal(td["depth"], obs["depth"])
    for action in (1, 2, 1):
        td["action"] = torch.full((N,), action)
        td = env.step(td)
        obs, reward, terminated, truncated, _ = twin.step(np.full(N, action))
        assert torch.equal(td["next", "depth"], obs["depth"])
        assert torch.equal(td["next", POINTGOAL], obs[POINTGOAL])
        assert torch.equal(td["next", "reward"][:, 0], reward)
        assert torch.equal(td["next", "terminated"][:, 0], terminated)
        assert torch.equal(td["next", "truncated"][:, 0], truncated)
        td = td["next"]


def test_partial_reset_restarts_only_the_masked(make):
    env = TorchRLEnv(make())
    td = env.reset()
    td["action"] = torch.tensor([0, 1, 0, 1])  # STOP ends environments 0 and 2
    td = env.step(td)["next"]
    assert td["done"][:, 0].tolist() == [True, False, True, False]
    kept = td[POINTGOAL].clone()
    td["_reset"] = td["done"].clone()
    fresh = env.reset(td)
    assert not fresh["done"].any()
    assert torch.equal(fresh[POINTGOAL][1], kept[1]) and torch.equal(fresh[POINTGOAL][3], kept[3])


@pytest.mark.parametrize(
    ("options", "message"),
    [({"array": "numpy"}, "torch"), ({"autoreset_mode": "same_step"}, "disabled")],
)
def test_rejects_other_modes(make, options, message):
    with pytest.raises(ValueError, match=message):
        TorchRLEnv(make(**options))


def test_check_env_specs_with_depth_and_rgb(make):
    env = TorchRLEnv(make(sensors=("depth", "rgb")))
    check_env_specs(env)
    spec = env.observation_spec["rgb"]
    assert spec.shape == (N, 3, 16, 20) and spec.dtype == torch.uint8
    assert spec.space.low.shape == (N, 3, 16, 20) and int(spec.space.high.max()) == 255
    env.set_seed(3)
    rollout = env.rollout(max_steps=6, break_when_any_done=False)
    assert rollout["next", "rgb"].shape == (N, 6, 3, 16, 20)
    assert spec.is_in(rollout["next", "rgb"][:, 0])


def gym_wrapper(env):
    from torchrl.envs import GymWrapper

    return GymWrapper(env)


def test_torchrls_own_gym_wrapper_with_depth_and_rgb(make):
    # TorchRL's preferred mode for gymnasium vector envs: DISABLED, resets through "_reset".
    env = gym_wrapper(make(sensors=("depth", "rgb"), array="numpy"))
    check_env_specs(env)
    env.set_seed(3)  # GymWrapper resets with the seed here, and again unseeded in rollout()
    rollout = env.rollout(max_steps=12, break_when_any_done=False)
    twin = make(sensors=("depth", "rgb"), array="numpy")
    twin.reset(seed=3)
    obs, _ = twin.reset()
    np.testing.assert_array_equal(rollout["rgb"][:, 0].numpy(), obs["rgb"])
    for t in range(12):  # every step is the twin's, partial resets included
        if t and rollout["next", "done"][:, t - 1, 0].any():
            twin.reset(options={"reset_mask": rollout["next", "done"][:, t - 1, 0].numpy()})
        actions = rollout["action"][:, t].argmax(-1).numpy()  # one-hot in GymWrapper
        obs, reward, terminated, truncated, _ = twin.step(actions)
        np.testing.assert_array_equal(rollout["next", "truncated"][:, t, 0].numpy(), truncated)
        for key in ("depth", "rgb", POINTGOAL):
            np.testing.assert_array_equal(rollout["next", key][:, t].numpy(), obs[key])
        np.testing.assert_array_equal(rollout["next", "reward"][:, t, 0].numpy(), reward)
        np.testing.assert_array_equal(rollout["next", "terminated"][:, t, 0].numpy(), terminated)
    assert rollout["next", "done"].any()  # episodes of 5 steps: partial resets happened


@pytest.mark.parametrize(
    ("options", "message"),
    [({"array": "torch"}, "keeps the tensors it is handed"),
     ({"array": "numpy", "autoreset_mode": "same_step"}, "reads SAME_STEP final observations")],
)  # fmt: skip
def test_torchrls_gym_wrapper_is_refused_in_modes_it_mishandles(make, options, message):
    env = make(**options)
    with pytest.raises(TypeError, match=rf"^TorchRL's GymWrapper needs BatchNavEnv\(.*{message}"):
        gym_wrapper(env).rollout(max_steps=2)
