"""batchsim.BatchSim: arrays, determinism, evaluation coverage, scene swaps, bad input.
(Parity with Habitat's rules: test_sim_parity.py.)"""

from __future__ import annotations

import os

import numpy as np
import pytest

import batchsim
from batchsim.datasets import load_pointnav


@pytest.fixture(scope="module")
def split(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train"


def random_actions(steps: int, n: int, seed: int = 0) -> np.ndarray:
    """Per-env streams, so env i's actions do not depend on n."""
    return np.stack(
        [
            np.random.default_rng([seed, i]).choice(4, steps, p=[0.03, 0.6, 0.2, 0.17])
            for i in range(n)
        ],
        axis=1,
    ).astype(np.int32)


RECORDED = (
    "position",
    "rotation",
    "pointgoal",
    "reward",
    "terminated",
    "truncated",
    "success",
    "spl",
    "softspl",
    "distance_to_goal",
    "collisions",
    "episode_step",
    "episode_index",
    "scene_index",
)


def run(sim, actions: np.ndarray, envs: int) -> dict[str, np.ndarray]:
    sim.reset()
    out = {name: [] for name in RECORDED}
    for row in actions:
        sim.step(row)
        for name in RECORDED:
            out[name].append(getattr(sim, name)[:envs].copy())
    return {name: np.stack(values) for name, values in out.items()}


def test_arrays_are_persistent_views(split):
    sim = batchsim.BatchSim(split, 8, seed=1)
    sim.reset()
    pointers = {name: getattr(sim, name).ctypes.data for name in RECORDED}
    assert sim.pointgoal.shape == (8, 2) and sim.pointgoal.dtype == np.float32
    assert sim.terminated.dtype == np.bool_ and sim.episode_index.dtype == np.int64
    assert sim.camera_position.shape == (8, 3) and sim.camera_rotation.shape == (8, 4)
    np.testing.assert_allclose(sim.camera_position[:, 1] - sim.position[:, 1], 1.25, atol=1e-5)
    before = sim.position.copy()
    sim.step(np.ones(8, np.int32))
    assert {name: getattr(sim, name).ctypes.data for name in RECORDED} == pointers
    assert not np.array_equal(before, sim.position)  # rewritten in place
    with pytest.raises(ValueError):
        sim.position[0, 0] = 1.0  # outputs are read-only
    sim.actions[:] = 2  # in-place actions
    rotation = sim.rotation.copy()
    sim.step()
    assert not np.allclose(rotation, sim.rotation)
    assert "BatchSim(num_envs=8" in repr(sim)


def test_no_nan_and_metrics_in_range(split):
    sim = batchsim.BatchSim(split, 16, seed=2)
    sim.reset()
    for row in random_actions(300, 16):
        sim.step(row)
        for name in ("pointgoal", "reward", "spl", "softspl", "distance_to_goal", "position"):
            assert np.isfinite(getattr(sim, name)).all(), name
        assert ((sim.spl >= 0) & (sim.spl <= 1)).all()
        assert ((sim.softspl >= 0) & (sim.softspl <= 1)).all()
        assert (sim.spl <= sim.success).all()


@pytest.mark.parametrize("threads", [2, 3])
def test_identical_for_any_thread_count(three_scene_split, threads):
    actions = random_actions(600, 24)
    options = dict(seed=3, scenes_resident=2, steps_per_scene=520)
    one = run(batchsim.BatchSim(three_scene_split, 24, num_threads=1, **options), actions, 24)
    many = run(
        batchsim.BatchSim(three_scene_split, 24, num_threads=threads, **options), actions, 24
    )
    for name in RECORDED:
        np.testing.assert_array_equal(one[name], many[name], err_msg=name)
    assert len(np.unique(one["scene_index"])) == 3  # scenes swapped during the run


def test_env_results_do_not_depend_on_batch_size(three_scene_split):
    actions = random_actions(600, 40)
    options = dict(seed=4, scenes_resident=2, steps_per_scene=520)
    small = run(batchsim.BatchSim(three_scene_split, 9, **options), actions[:, :9], 9)
    large = run(batchsim.BatchSim(three_scene_split, 40, num_threads=2, **options), actions, 9)
    for name in RECORDED:
        np.testing.assert_array_equal(small[name], large[name], err_msg=name)


def test_reset_with_seed_is_reproducible(split):
    sim = batchsim.BatchSim(split, 6)
    sim.reset(seed=11)
    first = sim.episode_index.copy()
    sim.reset(seed=12)
    sim.reset(seed=11)
    np.testing.assert_array_equal(first, sim.episode_index)


@pytest.mark.parametrize("num_envs", [1, 5, 16, 100])
def test_evaluation_runs_every_episode_once(three_scene_split, num_envs):
    sim = batchsim.BatchSim(
        three_scene_split, num_envs, mode="eval", scenes_resident=2, num_threads=2
    )
    sim.reset()
    started = list(sim.episode_index[sim.active])
    greedy = np.zeros(num_envs, np.int32)
    for _ in range(len(sim.episodes) * 501):  # enough even if every episode times out
        if sim.finished:
            break
        # Turn towards the goal, walk, stop near it: short episodes.
        angle, distance = sim.pointgoal[:, 1], sim.pointgoal[:, 0]
        greedy[:] = np.where(angle > 0.2, 2, np.where(angle < -0.2, 3, 1))
        greedy[distance < 0.2] = 0
        sim.step(greedy)
        ended = (sim.terminated | sim.truncated) & sim.active
        started.extend(sim.episode_index[ended])
    assert sim.finished
    assert sorted(started) == list(range(len(sim.episodes)))
    assert sim.stats()["resident_scenes"] == 0


def test_scene_swaps_at_episode_ends_within_memory_bound(three_scene_split):
    sim = batchsim.BatchSim(
        three_scene_split, 12, scenes_resident=1, steps_per_scene=502, num_threads=2
    )
    sim.reset()
    scene_sizes = [batchsim.Scene.load(p).loaded_bytes for p in sim.scene_paths]
    before = sim.scene_index.copy()
    resident = []
    for row in random_actions(2200, 12, seed=5):
        sim.step(row)
        moved = sim.scene_index != before
        assert not (moved & ~(sim.terminated | sim.truncated)).any(), "switched mid-episode"
        before = sim.scene_index.copy()
        stats = sim.stats()
        assert stats["resident_scenes"] <= 2
        resident.append(stats["resident_bytes"])
    stats = sim.stats()
    assert stats["scene_swaps"] >= 3 and stats["env_switches"] >= 3 * 12
    assert stats["scenes_freed"] == stats["scene_swaps"]
    bound = 2 * 2 * max(scene_sizes)  # two scenes; loaded sections + navmesh each at most 2x
    assert max(resident) <= bound and stats["peak_resident_bytes"] <= bound


def test_bad_input_is_rejected(split, tmp_path):
    sim = batchsim.BatchSim(split, 4)
    with pytest.raises(batchsim.InvalidArgumentError, match="reset"):
        sim.step([1, 1, 1, 1])
    sim.reset()
    with pytest.raises(ValueError, match=r"actions\[2\] is 7"):
        sim.step([1, 1, 7, 1])
    with pytest.raises(ValueError, match=r"actions: expected an integer dtype, got float32"):
        sim.step(np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"shape \[4\]"):
        sim.step(np.ones(5, np.int64))
    with pytest.raises(ValueError, match="expected an integer array"):
        sim.step("forward")
    with pytest.raises(ValueError, match="mode: expected 'train' or 'eval', got 'test'"):
        batchsim.BatchSim(split, 4, mode="test")
    with pytest.raises(ValueError, match="num_envs must be >= 1"):
        batchsim.BatchSim(split, 0)
    with pytest.raises(ValueError, match=r"TaskConfig\.turn_degrees"):
        batchsim.TaskConfig(turn_degrees=float("nan"))
    dataset = load_pointnav(split)
    (tmp_path / "scene_datasets").mkdir()
    dataset.scenes_dir = tmp_path / "scene_datasets"
    with pytest.raises(batchsim.MissingFileError, match="has no packed scene"):
        batchsim.BatchSim(dataset, 4)


def test_autoreset_modes(split):
    stop = np.zeros(3, np.int32)
    same = batchsim.BatchSim(split, 3)
    same.reset()
    same.step(stop)
    assert same.terminated.all() and (same.episode_step == 1).all()
    nxt = batchsim.BatchSim(split, 3, autoreset="next_step")
    nxt.reset()
    nxt.step(stop)
    assert nxt.terminated.all()
    nxt.step(stop)
    assert not nxt.terminated.any() and (nxt.reward == 0).all() and (nxt.episode_step == 0).all()
    off = batchsim.BatchSim(split, 3, autoreset="disabled")
    off.reset()
    off.step(stop)
    off.step([1, 1, 1])
    assert not off.terminated.any() and (off.episode_step == 1).all()
    off.reset_envs([True, False, False])
    off.step([1, 1, 1])
    assert off.episode_step[0] == 1 and off.episode_step[1] == 1


def test_task_config_round_trips():
    import pickle

    task = batchsim.TaskConfig(turn_degrees=30.0, max_episode_steps=100)
    assert pickle.loads(pickle.dumps(task)) == task
    assert "turn_degrees=30" in repr(task)
    assert batchsim.TaskConfig() != task


def test_corridor_geodesic_matches_exact_mode(three_scene_split):
    """Issue 5's bound: reusing path corridors changes no distance by more than 1 cm (the
    corridor mode is designed to be bit-identical; see src/nav/search_certificate.hpp)."""
    actions = random_actions(1500, 48, seed=6)
    options = dict(seed=6, scenes_resident=3, num_threads=2)
    exact = run(batchsim.BatchSim(three_scene_split, 48, geodesic="exact", **options), actions, 48)
    fast = run(
        batchsim.BatchSim(three_scene_split, 48, geodesic="corridor", **options), actions, 48
    )
    np.testing.assert_array_equal(exact["position"], fast["position"])
    difference = np.abs(exact["distance_to_goal"] - fast["distance_to_goal"])
    assert difference.max() <= 0.01
    assert (difference == 0).mean() > 0.999
    np.testing.assert_array_equal(exact["success"], fast["success"])


def test_sim_tour_example_runs(procgen_dataset, tmp_path, run_example):
    root, _ = procgen_dataset
    assert "compass agent on 20 val episodes" in run_example("sim_tour.py", root, tmp_path)
    assert (tmp_path / "sim-trajectories.png").stat().st_size > 1000


@pytest.mark.parametrize("mode", ["train", "eval"])
@pytest.mark.parametrize("autoreset", ["same_step", "next_step", "disabled"])
def test_random_configurations_keep_the_invariants(three_scene_split, mode, autoreset):
    """Fresh random N, K, threads, geodesic mode and actions each run (the seed is printed on
    failure): finite outputs, metrics in range, and evaluation covering every episode once
    in every autoreset mode."""
    seed = int.from_bytes(os.urandom(4), "little")
    rng = np.random.default_rng(seed)
    n, k, threads = int(rng.integers(1, 40)), int(rng.integers(1, 5)), int(rng.integers(1, 4))
    sim = batchsim.BatchSim(
        three_scene_split,
        n,
        mode=mode,
        scenes_resident=k,
        num_threads=threads,
        autoreset=autoreset,
        geodesic=str(rng.choice(["corridor", "exact"])),
        steps_per_scene=int(rng.integers(502, 900)),
        seed=int(rng.integers(1 << 31)),
    )
    context = f"seed {seed}: {sim!r}"
    sim.reset()
    started = list(sim.episode_index[sim.active])
    for _ in range(len(sim.episodes) * 502 if mode == "eval" else 300):
        if sim.finished:
            break
        before = sim.episode_index.copy()
        sim.step(rng.choice(4, n, p=[0.05, 0.6, 0.2, 0.15]))
        if autoreset == "disabled" and (sim.terminated | sim.truncated).any():
            sim.reset_envs(sim.terminated | sim.truncated)
        for name in ("pointgoal", "reward", "spl", "softspl", "distance_to_goal", "position"):
            assert np.isfinite(getattr(sim, name)).all(), f"{name} not finite; {context}"
        assert (sim.spl >= 0).all() and (sim.spl <= 1).all(), context
        assert (sim.softspl >= 0).all() and (sim.softspl <= 1).all(), context
        started.extend(sim.episode_index[(sim.episode_index != before) & sim.active])
    if mode == "eval":
        assert sim.finished, context
        assert sorted(started) == list(range(len(sim.episodes))), context
        assert sim.stats()["resident_scenes"] == 0, context
    else:
        assert sim.stats()["resident_scenes"] <= 2 * sim.scenes_resident, context
