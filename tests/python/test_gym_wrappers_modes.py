"""Every wrapper of gymnasium.wrappers.vector that applies to BatchNavEnv (a Dict of Boxes,
Discrete actions), in both array modes. In numpy mode each works, and gives what plain
numpy arithmetic on an unwrapped twin's outputs gives. In the default torch mode each either
works, with the numpy mode's values, or is refused with our own TypeError naming the fix
(array="numpy"); which, is stated per wrapper. The gymnasium id gives the numpy mode.

test_env_gym_wrappers.py checks the stateful wrappers' values (RecordEpisodeStatistics,
NormalizeReward, NormalizeObservation, DictInfoToList) in numpy mode in more detail."""

from __future__ import annotations

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
torch = pytest.importorskip("torch")

import gymnasium.wrappers as single  # noqa: E402
from gymnasium.wrappers import vector as wrappers  # noqa: E402

import batchsim  # noqa: E402
from batchsim.env import POINTGOAL  # noqa: E402

N, H, W = 4, 16, 20  # conftest's small_envs, with depth and rgb here
STOP, FORWARD, LEFT, RIGHT = range(4)
ACTIONS = [np.full(N, a) for a in (FORWARD, LEFT, FORWARD, RIGHT)]
ACTIONS.append(np.array([STOP, FORWARD, STOP, LEFT]))  # two episodes end at the last step
MAX_DEPTH = 10.0


def host(x):
    """A host copy: the torch mode rewrites its tensors in place at the next step."""
    return x.detach().cpu().numpy().copy() if isinstance(x, torch.Tensor) else np.array(x)


def depth_box(env):
    """Depth as a Box of finite bounds, converted to numpy by the user's function (which
    the torch mode's guard leaves to the user: above it, numpy wrappers work in both modes)."""
    space = gym.spaces.Box(0.0, MAX_DEPTH, (1, H, W), np.float32)
    return wrappers.TransformObservation(
        env, lambda obs: host(obs["depth"]).clip(0, MAX_DEPTH), single_observation_space=space
    )


def rgb_hwc(env):
    space = gym.spaces.Box(0, 255, (H, W, 3), np.uint8)
    return wrappers.TransformObservation(
        env, lambda obs: host(obs["rgb"]).transpose(0, 2, 3, 1), single_observation_space=space
    )


def depth(raw):
    return raw["depth"].clip(0, MAX_DEPTH)


def grey(rgb):  # gymnasium's GrayscaleObservation: BT.709 luma weights, cast to uint8
    weights = np.array([0.2125, 0.7154, 0.0721])
    return (rgb.transpose(0, 2, 3, 1) * weights).sum(-1).astype(np.uint8)


# name: (wrap(env), expected observation from the raw twin's, expected reward, torch mode)
# An expectation of None is checked elsewhere (test_env_gym_wrappers.py) or not at all.
APPLIES = {
    "RecordEpisodeStatistics": (wrappers.RecordEpisodeStatistics, None, None, "refused"),
    "NormalizeReward": (wrappers.NormalizeReward, None, None, "refused"),
    "DictInfoToList": (wrappers.DictInfoToList, None, None, "refused"),
    "FilterObservation": (
        lambda env: wrappers.FilterObservation(env, [POINTGOAL]),
        lambda raw: {POINTGOAL: raw[POINTGOAL]}, None, "refused",
    ),
    "FlattenObservation": (
        wrappers.FlattenObservation,  # a Dict flattens in key order: depth, pointgoal, rgb
        lambda raw: np.concatenate(
            [raw[k].reshape(N, -1).astype(np.float32) for k in ("depth", POINTGOAL, "rgb")], 1
        ),
        None, "refused",
    ),
    "VectorizeTransformObservation": (
        lambda env: wrappers.VectorizeTransformObservation(
            env, single.FilterObservation, filter_keys=["depth"]
        ),
        lambda raw: {"depth": raw["depth"]}, None, "refused",
    ),
    "NormalizeObservation": (lambda env: wrappers.NormalizeObservation(depth_box(env)),
                             None, None, "works"),
    "RescaleObservation": (
        lambda env: wrappers.RescaleObservation(depth_box(env), -1.0, 1.0),
        lambda raw: depth(raw) / MAX_DEPTH * 2 - 1, None, "works",
    ),
    "DtypeObservation": (
        lambda env: wrappers.DtypeObservation(depth_box(env), np.float64),
        lambda raw: depth(raw).astype(np.float64), None, "works",
    ),
    "ReshapeObservation": (
        lambda env: wrappers.ReshapeObservation(depth_box(env), (H, W)),
        lambda raw: depth(raw).reshape(N, H, W), None, "works",
    ),
    "GrayscaleObservation": (
        lambda env: wrappers.GrayscaleObservation(rgb_hwc(env)),
        lambda raw: grey(raw["rgb"]), None, "works",
    ),
    "ResizeObservation": (  # to its own size: the same image (it needs opencv)
        lambda env: wrappers.ResizeObservation(rgb_hwc(env), (H, W)),
        lambda raw: raw["rgb"].transpose(0, 2, 3, 1), None, "works",
    ),
    "TransformObservation": (
        lambda env: wrappers.TransformObservation(env, lambda obs: {"goal": obs[POINTGOAL]}),
        lambda raw: {"goal": raw[POINTGOAL]}, None, "works",
    ),
    "TransformReward": (
        lambda env: wrappers.TransformReward(env, lambda r: 10 * r), None, lambda r: 10 * r,
        "works",
    ),
    "ClipReward": (
        lambda env: wrappers.ClipReward(env, -0.005, 0.005), None,
        lambda r: np.clip(r, -0.005, 0.005), "works",
    ),
    "VectorizeTransformReward": (
        lambda env: wrappers.VectorizeTransformReward(env, single.TransformReward, func=abs),
        None, np.abs, "works",
    ),
    "TransformAction": (  # every action turned into FORWARD: the twin steps FORWARD too
        lambda env: wrappers.TransformAction(env, lambda a: np.full(N, FORWARD)),
        None, None, "works",
    ),
    "VectorizeTransformAction": (
        lambda env: wrappers.VectorizeTransformAction(
            env, single.TransformAction, func=lambda a: FORWARD, action_space=gym.spaces.Discrete(4)
        ),
        None, None, "works",
    ),
    "NumpyToTorch": (wrappers.NumpyToTorch, None, None, "works"),
    "ArrayConversion": (
        lambda env: wrappers.ArrayConversion(env, env_xp=torch, target_xp=np), None, None, "works"
    ),
}  # fmt: skip
# Why the others do not apply: they need what this env is not.
NOT_APPLICABLE = {
    "ClipAction": "Box actions (the env's are Discrete)",
    "RescaleAction": "Box actions (the env's are Discrete)",
    "JaxToNumpy": "an env of JAX arrays",
    "JaxToTorch": "an env of JAX arrays",
    "RecordVideo": "moviepy: test_record_video_writes_a_video below",
    "HumanRendering": "a display (pygame)",
}
FORWARD_ONLY = {"TransformAction", "VectorizeTransformAction"}
NEEDS = {"ResizeObservation": "cv2", "NumpyToTorch": "array_api_compat",
         "ArrayConversion": "array_api_compat"}  # fmt: skip


def test_every_wrapper_of_gymnasium_is_classified():
    # A wrapper that a new gymnasium adds must be tried here (and in batchsim._gym_wrappers).
    assert set(wrappers.__all__) == set(APPLIES) | set(NOT_APPLICABLE)


@pytest.fixture
def make(small_envs):
    return lambda array="numpy", **options: small_envs(
        array=array, sensors=("depth", "rgb"), **options
    )


def run(env, actions):
    """[(obs, reward)] of reset(seed=3) and a step per action, as host copies."""
    out = [(as_host(env.reset(seed=3)[0]), None)]
    for a in actions:
        obs, reward = env.step(torch.as_tensor(a) if isinstance(env, wrappers.NumpyToTorch) else a)[
            :2
        ]
        out.append((as_host(obs), host(reward)))
    return out


def as_host(obs):
    return {k: host(v) for k, v in obs.items()} if isinstance(obs, dict) else host(obs)


def assert_same(got, want):
    """Equal up to float32 rounding: gymnasium's arithmetic runs in another order
    (RescaleObservation differs by 6e-8 near 0); integers, whose steps are 1, exactly."""
    if isinstance(want, dict):
        assert got.keys() == want.keys()
        for key in want:
            assert_same(got[key], want[key])
    else:
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(APPLIES))
def test_numpy_mode(make, name):
    wrap, want_obs, want_reward, _ = APPLIES[name]
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    actions = [np.full(N, FORWARD)] * len(ACTIONS) if name in FORWARD_ONLY else ACTIONS
    raw = run(make(), actions)
    got = run(wrap(make()), ACTIONS)
    assert len(got) == len(raw)
    for (obs, reward), (raw_obs, raw_reward) in zip(got, raw, strict=True):
        if want_obs is not None:
            assert_same(obs, want_obs(raw_obs))
        if want_reward is not None and raw_reward is not None:
            assert_same(reward, want_reward(raw_reward))
        if name in FORWARD_ONLY:  # the transformed actions moved every environment alike
            np.testing.assert_array_equal(obs[POINTGOAL], raw_obs[POINTGOAL])


@pytest.mark.parametrize("name", sorted(APPLIES))
def test_torch_mode_works_alike_or_is_refused(make, name):
    wrap, _, _, expected = APPLIES[name]
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    env = wrap(make("torch"))
    if expected == "refused":
        fix = (
            r'returns torch tensors \(array="torch", the default\): make the env with array="numpy"'
        )
        with pytest.raises(TypeError, match=rf"^{name} does numpy arithmetic on the env's .*{fix}"):
            env.reset(seed=3)
        return
    got, want = run(env, ACTIONS), run(wrap(make()), ACTIONS)
    for (obs, reward), (want_obs, want_reward) in zip(got, want, strict=True):
        assert_same(obs, want_obs)
        if reward is not None:
            assert_same(reward, want_reward)


def test_refused_under_pass_through_wrappers_and_for_steps_too(make):
    env = wrappers.RecordEpisodeStatistics(wrappers.ClipReward(make("torch"), -1, 1))
    with pytest.raises(TypeError, match=r"^RecordEpisodeStatistics does numpy arithmetic"):
        env.reset(seed=0)
    inner = make("torch")
    inner.reset(seed=0)  # wrapped after its reset: the first step through it is refused
    with pytest.raises(TypeError, match=r"^DictInfoToList does numpy"):
        wrappers.DictInfoToList(inner).step(np.full(N, FORWARD))


def test_a_users_own_function_decides_for_what_it_returns(make):
    # The observations pass through the user's function, the rewards do not: a wrapper of
    # rewards above it is still refused, one of observations is not.
    numpy_obs = depth_box(make("torch"))
    wrappers.NormalizeObservation(numpy_obs).reset(seed=0)
    with pytest.raises(TypeError, match=r"^NormalizeReward does numpy arithmetic"):
        wrappers.NormalizeReward(depth_box(make("torch"))).reset(seed=0)


def test_the_gymnasium_id_gives_numpy_arrays(procgen_dataset):
    split = procgen_dataset[0] / "pointnav" / "train"
    env = gym.make_vec(
        "batchsim/PointNav-v0", num_envs=3, dataset=split, resolution=(8, 8), max_episode_steps=2
    )
    try:
        assert isinstance(env, batchsim.BatchNavEnv) and env.array == "numpy"
        assert env.spec.id == "batchsim/PointNav-v0" and env.device.type == "cpu"
        env = wrappers.RecordEpisodeStatistics(env)
        obs, _ = env.reset(seed=0)
        assert isinstance(obs["depth"], np.ndarray) and obs["depth"].shape == (3, 1, 8, 8)
        env.step(np.full(3, LEFT))
        *_, truncated, info = env.step(np.full(3, LEFT))  # the step limit: 2
        assert truncated.all() and info["_episode"].all()
        np.testing.assert_array_equal(info["episode"]["l"], 2)
    finally:
        env.close()


def test_the_gymnasium_id_is_a_vector_env_only(procgen_dataset):
    with pytest.raises(TypeError, match=r'is a vector env .*gymnasium.make_vec\("batchsim'):
        gym.make("batchsim/PointNav-v0", dataset="unused")
    with pytest.raises(TypeError, match="is a vector env"):
        gym.make_vec("batchsim/PointNav-v0", 2, vectorization_mode="sync", dataset="unused")


@pytest.mark.parametrize("array", ["torch", "numpy"])
def test_record_video_writes_a_video(make, tmp_path, array):
    imageio = pytest.importorskip("imageio")
    pytest.importorskip("moviepy")
    env = wrappers.RecordVideo(make(array), str(tmp_path), episode_trigger=lambda e: True)
    env.reset(seed=3)
    views = env.render()  # the env's frames: one per environment
    rows = [np.concatenate(views[i : i + 2], axis=1) for i in (0, 2)]
    for actions in ACTIONS:
        env.step(actions)
    # RecordVideo tiles the N frames of each step (2 x 2 views of 16 x 20): the reset's, then
    # one per step.
    assert len(env.recorded_frames) == 1 + len(ACTIONS)
    np.testing.assert_array_equal(env.recorded_frames[0], np.concatenate(rows, axis=0))
    env.close()
    (video,) = tmp_path.glob("*.mp4")
    frames = imageio.v3.imread(video)
    # The decoder reads one frame fewer than were written (ffmpeg's last-frame timing).
    assert frames.shape[0] >= len(ACTIONS) and frames.shape[1:] == (2 * H, 2 * W, 3)
