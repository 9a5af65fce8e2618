"""Generators v7 and v8: a scene keeps a fixed share of episodes touching the garden, the
rest indoors, each still a Habitat-rule episode; v8 spreads the two kinds evenly."""

import numpy as np
import pytest

from batchsim.datasets import PointNavEpisode, load_pointnav
from batchsim.errors import InvalidArgumentError
from batchsim.procgen.build import GENERATOR_VERSION, DatasetConfig
from batchsim.procgen.episode_mix import interleave, mix_episodes, outdoors

FOOTPRINT = (10.0, 8.0)


def fake_generator(outdoor_chance: float, seed: int = 0):
    """generate(n): n episodes whose starts lie in the garden (x < 0, under the floor) with
    `outdoor_chance`, else inside; records every n asked for."""
    asked = []

    def generate(n: int) -> list:
        asked.append(n)
        rng = np.random.default_rng(seed)  # the same stream for any n, as Habitat's
        episodes = []
        for i in range(n):
            garden = rng.random() < outdoor_chance
            start = (-1.0, -0.3, 4.0) if garden else (float(rng.uniform(1, 9)), 0.0, 4.0)
            episodes.append(PointNavEpisode(str(i), "s.glb", start, (0, 0, 0, 1), (5.0, 0.0, 4.0)))
        return episodes

    return generate, asked


def test_outdoors_needs_both_beyond_the_footprint_and_under_the_floor():
    points = [(-1, -0.3, 4), (11, -0.15, 4), (5, 0.0, 4), (5, -0.3, 4), (-0.5, 0.0, 4)]
    assert outdoors(points, FOOTPRINT).tolist() == [True, True, False, False, False]


def test_mix_keeps_the_share_in_every_prefix_and_each_kind_in_order():
    generate, asked = fake_generator(outdoor_chance=0.5)
    kept = mix_episodes(generate, 40, FOOTPRINT, outdoor_share=0.1)
    garden = outdoors([e.start_position for e in kept], FOOTPRINT)
    assert len(kept) == 40 and garden.sum() == 4
    # one garden episode in each run of 10, not the 4 first ones generated
    assert garden.reshape(4, 10).sum(axis=1).tolist() == [1, 1, 1, 1]
    assert [e.episode_id for e in kept] == [str(i) for i in range(40)]
    everything = generate(asked[-1])
    inside = [e.start_position for e in everything if not outdoors([e.start_position], FOOTPRINT)]
    kept_inside = [e.start_position for e, g in zip(kept, garden, strict=True) if not g]
    assert kept_inside == inside[:36]  # the first indoor ones, in order
    assert asked[0] == 40 and asked[-1] > 40  # 40 gave ~20 indoor: it asked for more


def test_interleave_spreads_the_shorter_list_evenly():
    merged = interleave(list("abcdefgh"), ["X", "Y"])
    assert merged == list("abXcdefYgh")  # X at 1/4 of the way, Y at 3/4, ties to the first
    assert interleave([], ["X"]) == ["X"] and interleave(["a"], []) == ["a"]


def test_mix_fills_with_the_other_kind_when_one_runs_out():
    generate, asked = fake_generator(outdoor_chance=1.0)
    kept = mix_episodes(generate, 10, FOOTPRINT, outdoor_share=0.1)
    assert len(kept) == 10 and outdoors([e.start_position for e in kept], FOOTPRINT).all()
    assert asked[-1] == 64 * 10  # it gave up asking at the limit


def test_procgen_scenes_keep_most_episodes_indoors(procgen_dataset):
    out, manifest = procgen_dataset
    assert GENERATOR_VERSION >= 8  # v8's mix; v9 changed only the scene files' format
    share = manifest["config"]["outdoor_episode_share"]
    assert share == DatasetConfig().outdoor_episode_share == 0.1
    for split in ("train", "val", "test"):
        dataset = load_pointnav(out / "pointnav" / split)
        for episode_list in map(dataset.episodes_for, dataset.scene_ids):
            name = episode_list[0].scene_name
            footprint = manifest["scenes"][name]["footprint_m"]
            starts = outdoors([e.start_position for e in episode_list], footprint)
            goals = outdoors([e.goal_position for e in episode_list], footprint)
            assert (starts | goals).sum() == round(share * len(episode_list)), name
            first_ten = (starts | goals)[:10].sum()
            assert first_ten == round(share * 10), name  # a prefix keeps the share
            assert manifest["scenes"][name]["garden_episode_share"] == pytest.approx(share)


def test_outdoor_episode_share_is_checked():
    with pytest.raises(InvalidArgumentError, match=r"outdoor_episode_share must be in \[0, 1\]"):
        DatasetConfig(outdoor_episode_share=1.5).validate()
