"""BatchNavEnv(array="numpy") under gymnasium 1.x's vector wrappers: each wrapper's output
is checked against an unwrapped twin env stepped with the same seed and actions (the
simulator is deterministic), and NumpyToTorch against the default torch mode."""

from __future__ import annotations

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
torch = pytest.importorskip("torch")

from gymnasium.wrappers import vector as wrappers  # noqa: E402

from batchsim.env import POINTGOAL  # noqa: E402

N = 4  # the environments of conftest's small_envs (SMALL_ENVS)
STOP, FORWARD, LEFT, RIGHT = range(4)
# Turns and moves for every environment, then STOP in environments 0 and 2: two
# episodes end at the last step, so RecordEpisodeStatistics and the info masks have work.
ACTIONS = [np.full(N, a) for a in (FORWARD, LEFT, FORWARD, RIGHT, FORWARD)]
ACTIONS.append(np.array([STOP, FORWARD, STOP, LEFT]))


@pytest.fixture
def make(small_envs):
    """Envs in numpy mode unless told otherwise."""
    return lambda array="numpy", **options: small_envs(array=array, **options)


def keep(tree):
    """A result kept past the next step: torch mode rewrites its tensors in place."""
    if isinstance(tree, torch.Tensor):
        return tree.clone()
    if isinstance(tree, dict):
        return {key: keep(value) for key, value in tree.items()}
    if isinstance(tree, tuple | list):
        return type(tree)(keep(value) for value in tree)
    return tree


def rollout(env, seed=3):
    """[reset results, step results...] of ACTIONS from reset(seed)."""
    results = [keep(env.reset(seed=seed))]
    results += [keep(env.step(actions)) for actions in ACTIONS]
    return results


def test_numpy_mode_outputs_and_spaces(make):
    env = make(sensors=("depth", "rgb"))
    assert repr(env).endswith("array='numpy')") and env.array == "numpy"
    assert env.single_action_space == gym.spaces.Discrete(4)
    assert env.action_space.contains(env.action_space.sample())
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    for _ in range(2):
        previous = {k: v.copy() for k, v in obs.items()}
        kept = obs
        obs, reward, terminated, truncated, info = env.step(np.full(N, FORWARD))
        assert env.observation_space.contains(obs)
        # Fresh arrays: the next step neither reuses nor rewrites what it handed out.
        for key in obs:
            assert not np.shares_memory(obs[key], kept[key])
            np.testing.assert_array_equal(kept[key], previous[key])
    assert isinstance(reward, np.ndarray) and reward.dtype == np.float32
    assert reward.shape == (N,) and np.isfinite(reward).all()
    assert terminated.dtype == np.bool_ and truncated.dtype == np.bool_
    assert info["_distance_to_goal"].dtype == np.bool_ and info["_distance_to_goal"].all()
    assert all(isinstance(v, np.ndarray) for v in info.values())


def test_numpy_mode_matches_the_torch_mode(make):
    numpy_results = rollout(make("numpy"))
    torch_results = rollout(make("torch"))
    for got, want in zip(numpy_results, torch_results, strict=True):
        obs, want_obs = got[0], want[0]
        for key in want_obs:
            np.testing.assert_array_equal(obs[key], want_obs[key].cpu().numpy())
        for value, want_value in zip(got[1:-1], want[1:-1], strict=True):  # reward, flags
            np.testing.assert_array_equal(value, want_value.cpu().numpy())
        assert got[-1].keys() == want[-1].keys()


def test_unknown_array_mode_is_refused(make):
    with pytest.raises(ValueError, match=r"array: expected one of \['torch', 'numpy'\], got 'jax'"):
        make(array="jax")


def test_record_episode_statistics(make):
    env = wrappers.RecordEpisodeStatistics(make())
    results = rollout(env)
    returns = sum(step[1].astype(np.float64) for step in results[1:])
    info = results[-1][-1]
    ended = np.array([True, False, True, False])
    np.testing.assert_array_equal(results[-1][2], ended)  # STOP terminates
    np.testing.assert_array_equal(info["_episode"], ended)
    np.testing.assert_allclose(info["episode"]["r"][ended], returns[ended], rtol=1e-6)
    np.testing.assert_array_equal(info["episode"]["l"][ended], len(ACTIONS))
    assert len(env.return_queue) == 2 and len(env.length_queue) == 2


def test_normalize_reward_scales_every_reward_alike(make):
    raw = rollout(make())
    normalized = rollout(wrappers.NormalizeReward(make(), gamma=0.99))
    for step, want in zip(normalized[1:], raw[1:], strict=True):
        reward, raw_reward = step[1], want[1]
        assert np.isfinite(reward).all() and not np.allclose(reward, raw_reward)
        # One running scale for the batch: reward / raw is the same in every environment.
        scale = reward / raw_reward
        np.testing.assert_allclose(scale, scale[0], rtol=1e-5)
        assert scale[0] > 0


def test_clip_reward(make):
    raw = rollout(make())
    clipped = rollout(wrappers.ClipReward(make(), min_reward=-0.005, max_reward=0.005))
    for step, want in zip(clipped[1:], raw[1:], strict=True):
        np.testing.assert_allclose(step[1], np.clip(want[1], -0.005, 0.005))
        assert step[1].min() >= -0.005 and step[1].max() <= 0.005
    assert any((np.abs(step[1]) > 0.005).any() for step in raw[1:])  # some were clipped


def flat_depth(env):
    """TransformObservation: each environment's depth as one flat Box vector."""
    height, width = env.single_observation_space["depth"].shape[1:]
    space = gym.spaces.Box(0.0, np.inf, (height * width,), np.float32)
    return wrappers.TransformObservation(
        env, lambda obs: obs["depth"].reshape(N, -1), single_observation_space=space
    )


def test_transform_observation(make):
    raw = rollout(make())
    flat = flat_depth(make())
    assert flat.single_observation_space.shape == (16 * 20,)
    for step, want in zip(rollout(flat), raw, strict=True):
        assert flat.observation_space.contains(step[0])
        np.testing.assert_array_equal(step[0], want[0]["depth"].reshape(N, -1))


def test_normalize_observation(make):
    raw = rollout(make())
    env = wrappers.NormalizeObservation(flat_depth(make()))
    env.reset(seed=3)
    for actions, want in zip(ACTIONS, raw[1:], strict=True):
        obs, rms = env.step(actions)[0], env.obs_rms
        assert np.isfinite(obs).all()
        # The raw depth under the running statistics, which this step updated.
        depth = want[0]["depth"].reshape(N, -1)
        expected = (depth - rms.mean) / np.sqrt(rms.var + env.epsilon)
        np.testing.assert_allclose(obs, expected, rtol=1e-4, atol=1e-4)
    assert rms.count > len(ACTIONS) and (rms.var > 0).any()


def test_dict_info_to_list(make):
    raw = rollout(make())
    listed = rollout(wrappers.DictInfoToList(make()))
    for step, want in zip(listed, raw, strict=True):
        info, dict_info = step[-1], want[-1]
        assert isinstance(info, list) and len(info) == N
        for i, env_info in enumerate(info):
            keys = {k for k in dict_info if not k.startswith("_") and dict_info[f"_{k}"][i]}
            assert env_info.keys() == keys  # success/spl only where an episode ended
            for key in keys:
                assert env_info[key] == dict_info[key][i]
    ended_info = listed[-1][-1]
    assert "success" in ended_info[0] and "success" not in ended_info[1]


def test_dict_info_to_list_with_final_observations(make):
    env = wrappers.DictInfoToList(make(autoreset_mode="same_step"))
    info = rollout(env)[-1][-1]
    assert [("final_obs" in i) for i in info] == [True, False, True, False]
    assert info[0]["final_obs"][POINTGOAL].shape == (2,)
    assert info[0]["final_obs"]["depth"].shape == (1, 16, 20)
    assert info[2]["final_info"]["spl"] == info[2]["spl"]


def test_numpy_to_torch_gives_the_torch_modes_values(make):
    pytest.importorskip("array_api_compat")  # gymnasium's array conversion needs it
    env = wrappers.NumpyToTorch(wrappers.RecordEpisodeStatistics(make()))
    want = rollout(make("torch"))
    got = [env.reset(seed=3)]
    got += [env.step(torch.as_tensor(actions)) for actions in ACTIONS]  # torch actions
    for step, expected in zip(got, want, strict=True):
        obs, want_obs = step[0], expected[0]
        for key in want_obs:
            assert isinstance(obs[key], torch.Tensor)
            torch.testing.assert_close(obs[key], want_obs[key].cpu(), rtol=0, atol=0)
    reward, terminated = got[-1][1], got[-1][2]
    assert isinstance(reward, torch.Tensor) and terminated.dtype == torch.bool
    torch.testing.assert_close(reward, want[-1][1].cpu())
    assert isinstance(got[-1][-1]["episode"]["r"], torch.Tensor)
