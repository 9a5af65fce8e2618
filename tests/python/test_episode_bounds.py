"""How far an episode's start or goal may lie: the Python parser refuses exactly what the C++
EpisodeSet refuses (|coordinate| beyond MAX_NAV_COORDINATE as float32, NaN, inf), naming the
file, the episode and the field, so a bad file fails when it is read, not when BatchSim is
built from it."""

from __future__ import annotations

import dataclasses
import gzip
import json
import math

import numpy as np
import pytest

import batchsim
from batchsim import _core
from batchsim.datasets import episode_table, load_pointnav
from batchsim.datasets.parse import MAX_COORDINATE
from batchsim.options import sim_config

ABOVE_BOUND = float(np.nextafter(np.float32(MAX_COORDINATE), np.float32(np.inf)))  # 1000000.0625

# (coordinate, accepted): the float32 grid around the bound, the far start fuzz_episodes found
# (SoftSPL became NaN), a finite double that is inf as float32, and the non-finite ones.
BOUNDARY = [
    (MAX_COORDINATE, True),
    (-MAX_COORDINATE, True),
    (1000000.03125, True),  # rounds to 1e6 in float32, the value both sides compare
    (math.nextafter(1000000.03125, math.inf), False),  # rounds up to 1000000.0625
    (ABOVE_BOUND, False),
    (-ABOVE_BOUND, False),
    (4.08e20, False),
    (1e39, False),
    (math.nan, False),
    (math.inf, False),
    (-math.inf, False),
]
FIELDS = ["start_position", "goal"]


def test_the_bound_is_the_simulators():
    assert MAX_COORDINATE == _core.MAX_NAV_COORDINATE == 1e6


def episode_json(field: str, value: float) -> dict:
    episode = {
        "episode_id": "e7",
        "scene_id": "gibson/Adrian.glb",
        "start_position": [1.0, 0.0, 1.0],
        "start_rotation": [0.0, 0.0, 0.0, 1.0],
        "goals": [{"position": [2.0, 0.0, 1.0], "radius": 0.2}],
    }
    goal = episode["goals"][0]["position"]
    (episode["start_position"] if field == "start_position" else goal)[2] = value
    return episode


def python_accepts(tmp_path, field: str, value: float) -> bool:
    path = tmp_path / "v1" / "val" / "val.json.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    episodes = [episode_json(field, 0.5), episode_json(field, value)]
    path.write_bytes(gzip.compress(json.dumps({"episodes": episodes}).encode()))
    try:
        load_pointnav(path)
    except batchsim.FormatError as error:
        where = "start_position[2]" if field == "start_position" else "goals[0].position[2]"
        assert f"{path}: episode 1 (id 'e7'): {where}: expected " in str(error)
        return False
    return True


@pytest.fixture(scope="module")
def table(procgen_dataset):
    """One real episode of the procedural test dataset, alone with its scene."""
    root, _ = procgen_dataset
    full = episode_table(root / "pointnav" / "train")
    first = full.episodes[0]
    return dataclasses.replace(
        full, episodes=[first], scene_ids=[first.scene_id], scene_paths=full.scene_paths[:1]
    )


def cpp_accepts(table, field: str, value: float) -> bool:
    episode = table.episodes[0]
    if field == "start_position":
        episode = dataclasses.replace(episode, start_position=(*episode.start_position[:2], value))
    else:
        episode = dataclasses.replace(episode, goal_position=(*episode.goal_position[:2], value))
    one = dataclasses.replace(table, episodes=[episode])
    try:
        _core.BatchSim(sim_config(num_envs=1), one.episode_set())
    except batchsim.InvalidArgumentError as error:
        assert "non-finite start_position or goal, or one beyond 1e+06 m" in str(error)
        return False
    return True


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize(("value", "accepted"), BOUNDARY)
def test_parser_and_simulator_agree_on_the_bound(tmp_path, table, field, value, accepted):
    with np.errstate(over="ignore"):  # 1e39 as float32 is inf: that is the point
        assert cpp_accepts(table, field, value) == accepted
    assert python_accepts(tmp_path, field, value) == accepted


def test_far_coordinates_are_named_with_what_was_expected(tmp_path):
    path = tmp_path / "v1" / "val" / "val.json.gz"
    path.parent.mkdir(parents=True)
    episode = episode_json("goal", 0.0)
    episode["goals"].append({"position": [4.08e20, 0.0, 0.0], "radius": None})
    path.write_bytes(gzip.compress(json.dumps({"episodes": [episode]}).encode()))
    with pytest.raises(batchsim.FormatError) as error:
        load_pointnav(path)
    assert str(error.value) == (
        f"{path}: episode 0 (id 'e7'): goals[1].position[0]: expected a coordinate within "
        "±1e+06 m (as float32, what the simulator reads; no navmesh reaches farther), got 4.08e+20"
    )
