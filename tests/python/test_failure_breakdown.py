"""benchmarks/failure_breakdown.py's grouping of episode outcomes, on episodes made up here."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from batchsim.datasets import PointNavEpisode

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "failure_breakdown.py"
SCENES = {"house": {"footprint_m": [10.0, 8.0]}}


@pytest.fixture(scope="module")
def breakdown():
    spec = importlib.util.spec_from_file_location("failure_breakdown", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.breakdown


def episode(start, goal, geodesic):
    return PointNavEpisode("0", "data/house.glb", start, (0, 0, 0, 1), goal, 0.2, geodesic)


def outcomes(*rows):
    """run_outcomes' arrays from (success, stopped, remaining m, steps, collisions) rows."""
    columns = zip(*rows, strict=True)
    names = ("success", "terminated", "distance_to_goal", "episode_step", "collisions")
    return {name: np.array(column) for name, column in zip(names, columns, strict=True)}


def test_groups_and_failure_kinds(breakdown):
    episodes = [
        episode((1, 0, 1), (5, 0, 1), 4.0),  # indoor, short, straight: success
        episode((1, 0, 1), (9, 0, 7), 25.0),  # indoor, long, ratio 2.5: stopped short
        episode((-2, -0.3, 4), (5, 0, 4), 10.0),  # from the garden: step limit, lost
    ]
    rows = [
        (1.0, True, 0.1, 100, 5),
        (0.0, True, 6.0, 100, 5),
        (0.0, False, 12.0, 500, 100),  # the step limit
    ]
    result = breakdown(episodes, outcomes(*rows), SCENES)
    groups = result["groups"]
    assert result["success"] == pytest.approx(1 / 3)
    assert groups["garden"] == {"episodes": 1, "success": 0.0}
    assert groups["indoor"] == {"episodes": 2, "success": 0.5}
    assert groups["geodesic < 8 m"]["success"] == 1.0
    assert groups["geodesic >= 16 m"]["episodes"] == 1
    assert groups["ratio >= 2"] == {"episodes": 1, "success": 0.0}
    stop, limit = result["failures"]["stop_called"], result["failures"]["step_limit"]
    assert stop["episodes"] == 1 and stop["median_remaining_m"] == 6.0
    assert stop["further_than_start"] == 0.0
    assert limit["episodes"] == 1 and limit["further_than_start"] == 1.0  # 12 m > 10 m
    assert result["collisions_per_step"] == {"failed": 105 / 600, "succeeded": 5 / 100}
