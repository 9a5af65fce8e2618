"""Training randomisation: TaskConfig's actuation noise and camera-height jitter (C++,
per environment noise streams) change what they should, leave the episode sequence alone,
and change nothing when off."""

from __future__ import annotations

import numpy as np
import pytest

import batchsim
from test_sim import random_actions, run

STEP, TURN = 0.25, 10.0


@pytest.fixture(scope="module")
def split(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train"


def noisy_run(split, steps=300, envs=16, **task_fields):
    task = batchsim.TaskConfig(max_episode_steps=60, **task_fields)
    sim = batchsim.BatchSim(split, envs, seed=3, task=task)
    actions = random_actions(steps, envs, seed=5)
    return actions, run(sim, actions, envs)


def yaw(rotation: np.ndarray) -> np.ndarray:
    """Heading about +y of x y z w quaternions that rotate about y only."""
    return 2 * np.arctan2(rotation[..., 1], rotation[..., 3])


def within_episodes(out) -> np.ndarray:
    """[T-1, N]: step t+1 continues step t's episode (with SAME_STEP autoreset a step that
    ends an episode already shows the next one)."""
    return ~(out["terminated"][1:] | out["truncated"][1:])


def moves(actions, out, action):
    """(horizontal forward distances, turn angles in degrees) of the steps taking `action`
    within an episode, without a collision."""
    free = out["collisions"][1:] == out["collisions"][:-1]
    chosen = (actions[1:] == action) & within_episodes(out) & free
    delta = out["position"][1:] - out["position"][:-1]
    step = np.hypot(delta[..., 0], delta[..., 2])  # climbing a kerb lengthens the 3D step
    turn = np.degrees(np.angle(np.exp(1j * (yaw(out["rotation"][1:]) - yaw(out["rotation"][:-1])))))
    return step[chosen], np.abs(turn[chosen])


def test_off_by_default_and_exact_when_off(split):
    task = batchsim.TaskConfig()
    assert (task.forward_noise, task.turn_noise, task.camera_height_jitter) == (0, 0, 0)
    actions, out = noisy_run(split)
    forward, _ = moves(actions, out, 1)
    _, turns = moves(actions, out, 2)
    # Exactly one step, but for the few moves Detour lengthens or shortens a little without
    # a collision (a start position off the navmesh snapping onto it, the point nearest a
    # wall corner). Under 1% while 39% of episodes started in the open garden; 1.8% (20 of
    # 1,139) since generator v7 keeps 90% of them indoors, near walls and furniture. Noise
    # (test below, sigma 0.05 m) moves nearly every step by more than 1e-5 m.
    assert np.mean(np.abs(forward - STEP) < 1e-5) > 0.97
    np.testing.assert_allclose(turns, TURN, atol=1e-3)
    height = out["position"][..., 1]
    assert len(forward) > 500 and len(turns) > 200 and np.isfinite(height).all()


def test_actuation_noise_has_the_asked_spread(split):
    actions, out = noisy_run(split, forward_noise=0.05, turn_noise=2.0)
    forward, _ = moves(actions, out, 1)
    _, turns = moves(actions, out, 2)
    # Free forward steps: N(0.25, 0.05); thousands of samples put the estimates within ~5%.
    assert forward.mean() == pytest.approx(STEP, abs=0.005)
    assert forward.std() == pytest.approx(0.05, rel=0.1)
    assert turns.mean() == pytest.approx(TURN, abs=0.2)
    assert turns.std() == pytest.approx(2.0, rel=0.1)


def test_noise_leaves_the_episode_sequence_alone(split):
    _, plain = noisy_run(split)
    _, noisy = noisy_run(split, forward_noise=0.05, turn_noise=2.0, camera_height_jitter=0.1)
    np.testing.assert_array_equal(noisy["episode_index"], plain["episode_index"])
    assert not np.allclose(noisy["position"], plain["position"])
    # And the noise itself is reproducible.
    _, again = noisy_run(split, forward_noise=0.05, turn_noise=2.0, camera_height_jitter=0.1)
    np.testing.assert_array_equal(again["position"], noisy["position"])


def test_camera_height_is_drawn_per_episode(split):
    task = batchsim.TaskConfig(max_episode_steps=20, camera_height_jitter=0.15)
    sim = batchsim.BatchSim(split, 16, seed=3, task=task)
    sim.reset()
    heights, ended = [], []
    for row in random_actions(200, 16, seed=9):
        sim.step(row)
        heights.append(sim.camera_position[:, 1] - sim.position[:, 1])
        ended.append(sim.terminated | sim.truncated)
    heights, ended = np.array(heights), np.array(ended)
    assert np.all(np.abs(heights - task.camera_height) <= 0.15 + 1e-5)
    assert heights.std() > 0.05  # spread over [1.1, 1.4]: uniform's std is 0.087
    same = ~ended[1:]
    np.testing.assert_allclose(heights[1:][same], heights[:-1][same], atol=1e-6)
    assert (np.abs(heights[1:] - heights[:-1])[~same] > 1e-4).mean() > 0.9  # new draws


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("forward_noise", -0.1, "in \\[0, forward_step\\]"),
        ("forward_noise", 0.5, "in \\[0, forward_step\\]"),
        ("turn_noise", float("nan"), "in \\[0, 90\\] degrees"),
        ("camera_height_jitter", 11.0, "in \\[0, 10\\] metres"),
    ],
)
def test_bad_randomisation_values_are_refused(field, value, expected):
    with pytest.raises(batchsim.InvalidArgumentError, match=f"TaskConfig.{field}.*{expected}"):
        batchsim.TaskConfig(**{field: value})
