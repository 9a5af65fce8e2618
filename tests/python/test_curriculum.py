"""A curriculum over geodesic distance: set_max_episode_geodesic on BatchSim, Simulator and
BatchNavEnv draws training episodes within the limit (checked against the dataset's own
episode records), falls back to each scene's shortest, leaves the draws alone without a
limit and refuses bad values; the trainer's schedule and how it applies it."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

import batchsim
from batchsim.datasets import PointNavDataset, load_pointnav
from batchsim.errors import InvalidArgumentError
from batchsim.train.curriculum import curriculum_limit


@pytest.fixture(scope="module")
def records(three_scene_split):
    """(geodesic [M] float32, scene id of each) from the split's records, in file order."""
    episodes = list(load_pointnav(three_scene_split))
    geodesic = np.array([e.geodesic_distance for e in episodes], np.float32)
    return geodesic, np.array([e.scene_id for e in episodes])


def make_sim(split, **options) -> batchsim.BatchSim:
    task = batchsim.TaskConfig(max_episode_steps=50)
    return batchsim.BatchSim(
        split, 12, seed=3, scenes_resident=2, steps_per_scene=60, task=task, **options
    )


def started(sim: batchsim.BatchSim, steps: int, reset: bool = True, seed: int = 0) -> list[int]:
    """Episodes started over `steps` random steps (after a reset), in order of starting."""
    rng = np.random.default_rng(seed)
    out = []
    if reset:
        sim.reset(seed=3)
        out += sim.episode_index.tolist()
    for _ in range(steps):
        sim.step(rng.integers(0, 4, sim.num_envs).astype(np.int32))
        out += sim.episode_index[sim.terminated | sim.truncated].tolist()
    return out


def test_training_draws_every_episode_within_the_limit_and_no_other(three_scene_split, records):
    geodesic, _ = records
    sim = make_sim(three_scene_split)
    assert sim.max_episode_geodesic == math.inf
    sim.set_max_episode_geodesic(8.0)
    assert sim.max_episode_geodesic == 8.0
    drawn = started(sim, 400)
    within = set(np.flatnonzero(geodesic <= np.float32(8.0)).tolist())
    assert 0 < len(within) < len(geodesic) // 2  # the limit excludes most episodes
    assert set(drawn) == within  # over ~1,400 starts every eligible one came up
    assert sim.stats()["scene_swaps"] > 0
    sim.set_max_episode_geodesic(math.inf)  # lifted: longer ones start from now on
    later = started(sim, 200, reset=False, seed=1)
    assert max(geodesic[later]) > 8.0


def test_a_scene_with_nothing_that_short_gives_its_shortest(three_scene_split, records):
    geodesic, scene = records
    expected = set()
    for s in set(scene):
        mine = np.flatnonzero(scene == s)
        within = mine[geodesic[mine] <= np.float32(2.0)]
        shortest = mine[geodesic[mine] == geodesic[mine].min()]
        expected |= set((within if len(within) else shortest).tolist())
    sim = make_sim(three_scene_split)
    sim.set_max_episode_geodesic(2.0)
    assert set(started(sim, 300)) == expected
    assert len(expected) < len(set(scene)) + 2  # most scenes fell back to one episode


def test_no_limit_draws_what_a_sim_never_limited_draws(three_scene_split, records):
    reference = started(make_sim(three_scene_split), 300)
    sim = make_sim(three_scene_split, num_threads=2)
    for limit in (math.inf, 1000.0, float(records[0].max())):  # none, or one all meet
        sim.set_max_episode_geodesic(limit)
        assert started(sim, 300) == reference
    sim.set_max_episode_geodesic(5.0)
    assert started(sim, 300) != reference  # the comparison can fail


def test_bad_limits_are_refused_and_leave_the_limit(three_scene_split):
    sim = make_sim(three_scene_split)
    sim.set_max_episode_geodesic(6)
    for bad, message in [
        (math.nan, "expected metres >= 0 (inf: no limit), got nan"),
        (-1.0, "expected metres >= 0 (inf: no limit), got -1"),
        (-math.inf, "expected metres >= 0 (inf: no limit), got -inf"),
        ("3", "expected metres (a number; math.inf: no limit), got str"),
        (None, "got NoneType"),
        (True, "got bool"),
    ]:
        with pytest.raises(InvalidArgumentError, match=re.escape(message)):
            sim.set_max_episode_geodesic(bad)
        assert sim.max_episode_geodesic == 6.0


def test_a_limit_needs_every_geodesic_in_the_dataset(three_scene_split):
    dataset = load_pointnav(three_scene_split)
    stripped = [
        dataclasses.replace(e, geodesic_distance=None) if i % 3 == 0 else e
        for i, e in enumerate(dataset.episodes)
    ]
    sim = make_sim(PointNavDataset(stripped, dataset.scenes_dir, dataset.path))
    with pytest.raises(InvalidArgumentError, match="but 20 of 60 episodes lack it"):
        sim.set_max_episode_geodesic(5.0)
    sim.set_max_episode_geodesic(math.inf)  # no limit needs none
    sim.reset()


def test_the_env_sets_it_between_steps_only(small_envs, procgen_dataset):
    split = procgen_dataset[0] / "pointnav" / "train"
    geodesic = np.array([e.geodesic_distance for e in load_pointnav(split)], np.float32)
    env = small_envs()
    env.set_max_episode_geodesic(5.0)
    assert env.max_episode_geodesic == env.sim.max_episode_geodesic == 5.0
    _, info = env.reset(seed=0)
    ids = info["episode_id"].tolist()
    for _ in range(60):
        _, _, terminated, truncated, info = env.step(np.zeros(env.num_envs, np.int64))  # STOP
        ids += info["episode_id"][terminated | truncated].tolist()
    assert len(ids) > 100 and max(geodesic[ids]) <= 5.0 and min(geodesic) < 5.0 < max(geodesic)
    env.step_async(np.ones(env.num_envs, np.int64))
    with pytest.raises(InvalidArgumentError, match="call step_wait\\(\\) first"):
        env.set_max_episode_geodesic(3.0)
    env.step_wait()
    env.set_max_episode_geodesic(math.inf)
    assert env.max_episode_geodesic == math.inf


def test_the_schedule_grows_geometrically_then_lifts():
    # start 2 m, longest 32 m, over 100 frames: doubling every 25 frames.
    for frames, limit in [(0, 2.0), (25, 4.0), (50, 8.0), (75, 16.0), (99, 2 * 16**0.99)]:
        assert curriculum_limit(frames, 2.0, 32.0, 100) == pytest.approx(limit, rel=1e-12)
    assert curriculum_limit(100, 2.0, 32.0, 100) == math.inf
    assert curriculum_limit(10**9, 2.0, 32.0, 100) == math.inf
    assert curriculum_limit(0, 40.0, 32.0, 100) == math.inf  # covers every episode already
