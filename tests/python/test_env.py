"""BatchNavEnv against gymnasium's vector-env conventions: spaces, the step tuple, info
masks, the three autoreset modes, determinism, zero-copy outputs and input checks."""

from __future__ import annotations

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
torch = pytest.importorskip("torch")

import batchsim  # noqa: E402
from batchsim.env import POINTGOAL, AutoresetMode  # noqa: E402

STOP, FORWARD, LEFT, RIGHT = range(4)


@pytest.fixture(scope="module")
def dataset(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train" / "train.json.gz"


@pytest.fixture(scope="module")
def shared_context():
    return batchsim.Context(export="cpu")


def make(dataset, context, num_envs=4, **options):
    options.setdefault("resolution", (16, 20))
    return batchsim.BatchNavEnv(dataset, num_envs, context=context, **options)


def host(obs: dict) -> dict:
    return {k: v.cpu().numpy() for k, v in obs.items()}


def test_spaces_and_the_step_tuple(dataset, shared_context):
    env = make(dataset, shared_context, sensors=("depth", "rgb"))
    assert env.single_action_space == gym.spaces.Discrete(4)
    assert env.action_space.shape == (4,)
    assert env.single_observation_space["depth"].shape == (1, 16, 20)
    assert env.single_observation_space["rgb"].shape == (3, 16, 20)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(host(obs))
    obs, reward, terminated, truncated, info = env.step(np.full(4, FORWARD))
    assert env.observation_space.contains(host(obs))
    assert reward.dtype == torch.float32 and reward.shape == (4,)
    assert terminated.dtype == torch.bool and truncated.dtype == torch.bool
    assert obs["rgb"].shape == (4, 3, 16, 20) and obs["rgb"].dtype == torch.uint8
    for key in (
        "success",
        "spl",
        "softspl",
        "distance_to_goal",
        "collisions",
        "episode_id",
        "scene_id",
    ):
        assert info[key].shape == (4,) and info[f"_{key}"].dtype == torch.bool
    assert info["_distance_to_goal"].all() and not info["_success"].any()
    assert torch.isfinite(reward).all() and torch.isfinite(obs["depth"]).all()
    env.close()


def test_outputs_are_zero_copy_and_persistent(dataset, shared_context):
    env = make(dataset, shared_context, sensors=("depth", "rgb"))
    obs, _ = env.reset(seed=1)
    pointers = {k: v.data_ptr() for k, v in obs.items()}
    depth = torch.from_dlpack(env.sim.depth)
    assert obs["depth"].data_ptr() == depth.data_ptr()  # the renderer's own memory
    assert obs["rgb"].data_ptr() == torch.from_dlpack(env.sim.rgb).data_ptr()
    _, reward, *_ = env.step(np.full(4, LEFT))
    reward_pointer = reward.data_ptr()
    for _ in range(3):
        obs, reward, *_ = env.step(np.full(4, FORWARD))
        assert {k: v.data_ptr() for k, v in obs.items()} == pointers
        assert reward.data_ptr() == reward_pointer
    env.close()


def test_next_step_autoreset(dataset, shared_context):
    env = make(dataset, shared_context, num_envs=3)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    env.reset(seed=2)
    _, _, _, _, info = env.step(np.full(3, FORWARD))
    first_episode = info["episode_id"].clone()
    _, reward, terminated, truncated, info = env.step(np.array([STOP, FORWARD, FORWARD]))
    assert terminated.tolist() == [True, False, False]
    assert info["_success"].tolist() == [True, False, False]
    assert env.sim.episode_step.tolist() == [2, 2, 2]
    _, reward, terminated, truncated, info = env.step(np.full(3, FORWARD))
    # Env 0 began its next episode: no reward, no flags, its action ignored.
    assert reward[0] == 0 and not terminated[0] and not truncated[0]
    assert env.sim.episode_step.tolist() == [0, 3, 3]
    assert (info["episode_id"][1:] == first_episode[1:]).all()
    env.close()


def test_same_step_autoreset_reports_the_final_observation(dataset, shared_context):
    env = make(dataset, shared_context, num_envs=3, autoreset_mode="same_step")
    env.reset(seed=3)
    obs, *_ = env.step(np.full(3, LEFT))
    before = obs["depth"].clone()
    _, _, _, _, info = env.step(np.full(3, LEFT))
    final_view = obs["depth"].clone()
    obs, _, terminated, _, info = env.step(np.array([RIGHT, STOP, RIGHT]))
    assert terminated.tolist() == [False, True, False]
    assert info["_final_obs"].tolist() == [False, True, False]
    # The final observation is the ended episode's last view (a RIGHT turn after two LEFTs
    # sees what the first LEFT saw); the returned one already shows the new episode.
    # gymnasium's layout (its SyncVectorEnv's): an object array of one observation dict per
    # environment, None where no episode ended, so CleanRL's info["final_obs"][i] works.
    final = info["final_obs"]
    assert isinstance(final, np.ndarray) and final.dtype == object and final.shape == (3,)
    assert final[0] is None and final[2] is None
    assert set(final[1]) == {"depth", POINTGOAL}
    torch.testing.assert_close(final[1]["depth"], final_view[1])  # STOP does not move
    np.testing.assert_array_equal(final[1][POINTGOAL].numpy(), env.sim.final_pointgoal[1])
    torch.testing.assert_close(obs["depth"][0], before[0], atol=1e-3, rtol=0)
    # The simulator's same_step autoreset: the ended episode's counters (3 steps) are
    # reported, while env 1 already stands at its new episode's start.
    assert env.sim.episode_step.tolist() == [3, 3, 3]
    started = env.sim.episodes[int(env.sim.episode_index[1])].start_position
    np.testing.assert_allclose(env.sim.position[1], started, atol=1e-5)
    env0_start = env.sim.episodes[int(env.sim.episode_index[0])].start_rotation
    assert not np.allclose(env.sim.rotation[0], env0_start, atol=1e-3)  # still turned
    assert info["final_info"]["_success"].tolist() == [False, True, False]
    # final_info is the ended environments' info: every mask narrowed to them.
    assert info["final_info"]["_distance_to_goal"].tolist() == [False, True, False]
    assert info["_distance_to_goal"].tolist() == [True, True, True]
    assert info["final_obs"][1][POINTGOAL].shape == (2,)
    env.close()


def test_disabled_autoreset_waits_for_a_reset_mask(dataset, shared_context):
    env = make(dataset, shared_context, num_envs=3, autoreset_mode=AutoresetMode.DISABLED)
    _, info = env.reset(seed=4)
    episodes = info["episode_id"].clone()
    _, _, terminated, _, _ = env.step(np.array([STOP, STOP, FORWARD]))
    assert terminated.tolist() == [True, True, False]
    _, reward, terminated, _, info = env.step(np.full(3, FORWARD))
    assert reward[:2].tolist() == [0.0, 0.0] and not terminated.any()
    assert torch.equal(info["episode_id"], episodes)
    _, info = env.reset(options={"reset_mask": np.array([True, False, False])})
    assert env.sim.episode_step.tolist()[:2] == [0, 1]
    with pytest.raises(ValueError, match=r"reset_mask: expected bool \[3\]"):
        env.reset(options={"reset_mask": [1, 0]})
    env.close()


def test_same_seed_same_trajectories_over_1000_steps(dataset, shared_context):
    envs = [make(dataset, shared_context, num_envs=3, resolution=(8, 8), seed=5) for _ in range(2)]
    results = [[], []]
    for env, out in zip(envs, results, strict=True):
        rng = np.random.default_rng(9)
        obs, _ = env.reset(seed=5)
        checksum = np.zeros(2)
        for _ in range(1000):
            obs, reward, *_ = env.step(rng.choice(4, 3, p=[0.02, 0.68, 0.15, 0.15]))
            checksum += [obs["depth"].double().sum().item(), reward.double().sum().item()]
            out.append(obs["depth"].numpy().copy() if len(out) < 5 else None)
        out.append(checksum)
        env.close()
    np.testing.assert_array_equal(results[0][-1], results[1][-1])
    for a, b in zip(results[0][:5], results[1][:5], strict=True):
        np.testing.assert_array_equal(a, b)


def test_actions_are_checked_at_the_boundary(dataset, shared_context):
    env = make(dataset, shared_context, num_envs=3)
    env.reset(seed=0)
    env.step([1, 2, 3])  # a list
    env.step(torch.tensor([1, 1, 1]))  # a tensor
    env.step(np.array([0, 1, 2], np.uint8))
    cases = [
        (np.ones(4, int), r"expected shape \[3\], got \[4\]"),
        (np.ones((3, 1), int), r"expected shape \[3\], got \[3, 1\]"),
        (np.ones(3, np.float32), "expected an integer dtype, got float32"),
        (np.array([1.0, np.nan, 1.0]), "got NaN"),
        (np.array([1, 4, 1]), r"actions\[1\] is 4; expected 0 \(STOP\)"),
        (np.array([-1, 1, 1]), r"actions\[0\] is -1"),
        ("forward", r"expected an integer array of shape \[3\], got str"),
        (None, r"expected an integer array of shape \[3\], got NoneType"),
    ]
    for actions, message in cases:
        with pytest.raises(ValueError, match=message):
            env.step(actions)
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.step([1, 1, 1])
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()


def test_actions_are_checked_once_per_step(dataset, shared_context, monkeypatch):
    calls = []
    check = batchsim.actions.check_actions
    for module in (batchsim.simulator, batchsim.env):  # every layer that might check them
        if hasattr(module, "check_actions"):
            monkeypatch.setattr(module, "check_actions", lambda *a: calls.append(a) or check(*a))
    env = make(dataset, shared_context, num_envs=3)
    env.reset(seed=0)
    env.step(torch.tensor([1, 2, 3]))
    env.step_async(np.array([1, 1, 1]))
    env.step_wait()
    assert len(calls) == 2
    env.close()


def test_cuda_actions_are_checked_by_their_metadata():
    # What can be known of a CUDA tensor without waiting for the GPU (shown on CPU tensors).
    from batchsim.actions import check_cuda_actions

    check_cuda_actions(torch.tensor([0, 3, 9]), 3)  # values: the step checks them later
    for dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64):
        check_cuda_actions(torch.ones(3, dtype=dtype), 3)
    cases = [
        (torch.ones(4, dtype=torch.int64), r"expected shape \[3\], got \[4\]"),
        (torch.ones(3, 1, dtype=torch.int64), r"expected shape \[3\], got \[3, 1\]"),
        (torch.ones(3), r"expected an integer dtype \(int8, .*int64\), got torch.float32"),
        (torch.ones(3, dtype=torch.bool), "got torch.bool"),
    ]
    for actions, message in cases:
        with pytest.raises(ValueError, match=message):
            check_cuda_actions(actions, 3)


def test_repr_and_render(dataset, shared_context):
    env = make(dataset, shared_context, num_envs=5, sensors=("depth",))
    env.reset(seed=0)
    assert repr(env).startswith("BatchNavEnv(num_envs=5, sensors=[depth], resolution=16x20")
    frames = env.render()  # gymnasium's vector layout: a frame per environment
    assert isinstance(frames, tuple) and len(frames) == 5
    for frame in frames:
        assert frame.shape == (16, 20, 3) and frame.dtype == np.uint8
    # Shaded depth: near is light, nothing (0) is black; the three channels alike.
    views = torch.from_dlpack(env.sim.depth)[:, 0].numpy()
    expected = 255 * (1 - np.clip(views / 8.0, 0, 1))
    expected[views == 0] = 0
    np.testing.assert_array_equal(np.stack(frames)[..., 1], expected.astype(np.uint8))
    image = env.render_mosaic()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] >= 2 * 16 and image.shape[1] >= 3 * 20  # a 3 x 2 grid of views
    env.close()
    assert "closed" in repr(env)


def test_halves_share_a_context_and_step_in_turn(dataset):
    own = batchsim.make_env_halves(dataset, 4, device="cpu", shared_context=False)
    assert own[0].sim.context is not own[1].sim.context
    for env in own:
        env.close()
    halves = batchsim.make_env_halves(dataset, 4, device="cpu", resolution=(8, 8))
    # One context (one queue renders both in turn) unless shared_context=False (docs/env.md).
    assert halves[0].sim.context is halves[1].sim.context
    obs = [env.reset(seed=0)[0] for env in halves]
    halves[0].step_async(np.full(2, FORWARD))
    for _ in range(3):
        for half in (1, 0):
            halves[half].step_async(np.full(2, LEFT))
            obs[1 - half], *_ = halves[1 - half].step_wait()
    halves[0].step_wait()
    assert all(o[POINTGOAL].shape == (2, 2) for o in obs)
    for env in halves:
        env.close()
    with pytest.raises(ValueError, match="even number"):
        batchsim.make_env_halves(dataset, 3)


def test_double_buffer_reaches_the_simulator_and_changes_no_observation(dataset):
    envs = [
        batchsim.BatchNavEnv(dataset, 4, device="cpu", resolution=(8, 8), double_buffer=double)
        for double in (False, True)
    ]
    assert [env.sim.renderer.batches for env in envs] == [1, 2]
    depth = [env.reset(seed=2)[0]["depth"] for env in envs]  # rewritten in place by step()
    for _ in range(5):
        for env in envs:
            env.step(np.full(4, FORWARD))
        assert torch.equal(depth[0], depth[1]) and depth[0].count_nonzero() > 0
    for env in envs:
        env.close()


def test_a_call_while_a_step_runs_gets_the_simulators_one_error(small_envs):
    # The env has no check of its own: its calls reach the Simulator's one check, so every
    # door raises the same InvalidArgumentError (a RuntimeError too, as the env's own was).
    env = small_envs()
    env.reset(seed=0)
    ones = np.ones(env.num_envs, np.int64)
    env.step_async(ones)
    refusals = [
        ("step_async()", lambda: env.step_async(ones)),
        ("step_async()", lambda: env.step(ones)),  # env.step is step_async + step_wait
        ("reset()", lambda: env.reset(seed=1)),
    ]
    for call, refused in refusals:
        with pytest.raises(batchsim.InvalidArgumentError) as raised:
            refused()
        assert isinstance(raised.value, RuntimeError)
        assert str(raised.value) == (
            f"{call} while an asynchronous step is running: call step_wait() first"
        )
    obs, reward, *_ = env.step_wait()  # the step that ran, untouched by the refused calls
    assert reward.shape == (env.num_envs,) and POINTGOAL in obs
