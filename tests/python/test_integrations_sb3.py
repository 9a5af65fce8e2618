"""SB3VecEnv against a twin BatchNavEnv stepped with the same seed and actions (the simulator
is deterministic), its autoreset contract (new episode's obs, the ended one's in infos), the
batch-wide attribute calls, and a short PPO run."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

import stable_baselines3
from stable_baselines3.common.vec_env import VecMonitor

import batchsim
from batchsim.integrations.sb3 import SB3VecEnv

N = 4  # the environments of conftest's small_envs (SMALL_ENVS)
STOP, FORWARD, LEFT = 0, 1, 2
# Moves, then STOP in environments 0 and 2: two episodes end (terminated) at the last step.
ACTIONS = [np.full(N, a) for a in (FORWARD, LEFT, FORWARD)]
ACTIONS.append(np.array([STOP, FORWARD, STOP, LEFT]))


@pytest.fixture
def make(small_envs):
    """Envs as SB3VecEnv needs them: numpy mode, SAME_STEP autoreset."""
    return lambda **options: small_envs(
        **{"array": "numpy", "autoreset_mode": "same_step"} | options
    )


def test_steps_match_the_env(make):
    env, twin = SB3VecEnv(make()), make()
    env.seed(7)
    obs = env.reset()
    expected, _ = twin.reset(seed=7)
    assert obs.keys() == expected.keys()
    for key in obs:
        np.testing.assert_array_equal(obs[key], expected[key])
    for actions in ACTIONS:
        obs, rewards, dones, infos = env.step(actions)
        expected, reward, terminated, truncated, info = twin.step(actions)
        for key in obs:
            np.testing.assert_array_equal(obs[key], expected[key])  # the new episode's
        np.testing.assert_array_equal(rewards, reward)
        np.testing.assert_array_equal(dones, terminated | truncated)
        assert rewards.dtype == np.float32 and dones.dtype == np.bool_
        assert len(infos) == N
        for i in range(N):
            assert infos[i]["distance_to_goal"] == info["distance_to_goal"][i]
            assert ("terminal_observation" in infos[i]) == dones[i]
            assert ("success" in infos[i]) == dones[i]
    ended = np.flatnonzero(dones)
    assert list(ended) == [0, 2]
    for i in ended:
        assert infos[i]["TimeLimit.truncated"] is False  # STOP terminates
        for key, value in infos[i]["terminal_observation"].items():
            np.testing.assert_array_equal(value, info["final_obs"][i][key])


def test_time_limit_is_truncation(make):
    env = SB3VecEnv(make(task=batchsim.TaskConfig(max_episode_steps=2)))
    env.reset()
    env.step(np.full(N, LEFT))
    _, _, dones, infos = env.step(np.full(N, LEFT))
    assert dones.all()
    assert all(info["TimeLimit.truncated"] for info in infos)
    assert infos[0]["terminal_observation"]["depth"].shape == (1, 16, 20)


def test_batch_wide_attributes(make):
    env = SB3VecEnv(make())
    assert env.get_attr("num_envs") == [N] * N
    assert env.get_attr("render_mode", indices=[1, 2]) == ["rgb_array"] * 2
    assert env.env_is_wrapped(object) == [False] * N
    env.set_attr("custom", 3)
    assert env.get_attr("custom", 0) == [3]
    with pytest.raises(ValueError, match="batch-wide"):
        env.set_attr("custom", 4, indices=[0])
    env.reset()
    (frames,) = env.env_method("render", indices=[0])  # the env's: a frame per environment
    assert len(frames) == N and frames[0].shape == (16, 20, 3) and frames[0].dtype == np.uint8
    images = env.get_images()  # SB3 tiles these (VecVideoRecorder)
    assert len(images) == N and all(
        np.array_equal(a, b) for a, b in zip(images, frames, strict=True)
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [({"array": "torch"}, "numpy"), ({"autoreset_mode": "next_step"}, "same_step"),
     ({"final_views": False}, "final_views")],
)  # fmt: skip
def test_rejects_other_modes(make, options, message):
    with pytest.raises(ValueError, match=message):
        SB3VecEnv(make(**options))


def test_ppo_learns_without_error(make):
    env = VecMonitor(SB3VecEnv(make(task=batchsim.TaskConfig(max_episode_steps=20))))
    model = stable_baselines3.PPO(
        "MultiInputPolicy", env, n_steps=32, batch_size=64, n_epochs=2, seed=0, device="cpu"
    )
    model.learn(total_timesteps=384)
    assert model.num_timesteps >= 384
    assert len(model.ep_info_buffer) > 0  # VecMonitor saw the episodes end
