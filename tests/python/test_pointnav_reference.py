"""The plain-Python PointNav reference (pointnav_reference.py) on analytic navmeshes: the
rules it implements, checked by hand-computed values."""

import math

import numpy as np
import pytest

import batchsim
from batchsim.datasets import PointNavEpisode
from pointnav_reference import (
    MOVE_FORWARD,
    STOP,
    TURN_LEFT,
    TURN_RIGHT,
    PointNavReference,
    ReferenceConfig,
    quat_about_y,
    quat_rotate,
)

IDENTITY = (0.0, 0.0, 0.0, 1.0)
EDGE = 10 - 0.15  # a 10 m floor's navmesh ends one Recast cell plus the agent radius inside
Y = 0.2  # the navmesh surface of a floor at y = 0 (Recast's voxel top)


def floor_mesh(*rects):
    vertices, indices = [], []
    for x0, z0, x1, z1 in rects:
        base = 4 * len(vertices)
        vertices.append([[x0, 0, z0], [x1, 0, z0], [x1, 0, z1], [x0, 0, z1]])
        indices.append(np.array([[0, 2, 1], [0, 3, 2]]) + base)
    navmesh = batchsim.NavMesh.bake(
        np.array(vertices, np.float32).reshape(-1, 3), np.concatenate(indices).astype(np.uint32)
    )
    x0, z0, x1, z1 = rects[0]
    assert navmesh.snap_point([(x0 + x1) / 2, 0, (z0 + z1) / 2])[1] == pytest.approx(Y)
    return navmesh


@pytest.fixture(scope="module")
def room():
    return floor_mesh((0, 0, 10, 10))


@pytest.fixture(scope="module")
def two_rooms():
    return floor_mesh((0, 0, 4, 4), (6, 0, 14, 4))


def episode(start, goal, rotation=IDENTITY):
    return PointNavEpisode("0", "room.glb", tuple(start), tuple(rotation), tuple(goal))


def single(navmesh, start, goal, rotation=IDENTITY, **config):
    ref = PointNavReference(
        [navmesh], [episode(start, goal, rotation)], [0], 1, ReferenceConfig(**config)
    )
    ref.reset(np.array([0]))
    return ref


def act(ref, *actions):
    done = None
    for a in actions:
        done = ref.step(np.array([a]))
    return done


def heading(ref):
    return quat_rotate(ref.rotation[0], np.array([0.0, 0.0, -1.0]))


def test_forward_moves_a_quarter_metre_along_minus_z(room):
    ref = single(room, (5, Y, 5), (5, Y, 1))
    assert ref.distance_to_goal[0] == pytest.approx(4.0, abs=1e-5)
    act(ref, MOVE_FORWARD)
    np.testing.assert_allclose(ref.position[0], [5, Y, 4.75], atol=1e-6)
    assert ref.collisions[0] == 0 and ref.episode_step[0] == 1
    assert ref.distance_to_goal[0] == pytest.approx(3.75, abs=1e-5)
    assert ref.reward[0] == pytest.approx(-0.01 + 0.25, abs=1e-5)
    assert not ref.terminated[0] and not ref.truncated[0]


def test_turns_follow_habitat_conventions(room):
    ref = single(room, (5, Y, 5), (5, Y, 1))
    act(ref, TURN_LEFT)
    angle = math.radians(10)
    np.testing.assert_allclose(heading(ref), [-math.sin(angle), 0, -math.cos(angle)], atol=1e-12)
    act(ref, TURN_RIGHT, TURN_RIGHT)
    np.testing.assert_allclose(heading(ref), [math.sin(angle), 0, -math.cos(angle)], atol=1e-12)
    act(ref, TURN_LEFT, *[TURN_LEFT] * 36)  # back to the start, then a full circle
    np.testing.assert_allclose(heading(ref), [0, 0, -1], atol=1e-12)
    assert abs(ref.rotation[0] @ np.array(IDENTITY)) == pytest.approx(1, abs=1e-12)
    np.testing.assert_array_equal(ref.position[0], [5, Y, 5])
    assert ref.collisions[0] == 0 and ref.episode_step[0] == 40
    assert ref.reward[0] == pytest.approx(-0.01)


def test_pointgoal_is_polar_with_left_positive(room):
    ahead = single(room, (5, Y, 5), (5, Y, 2))
    np.testing.assert_allclose(ahead.pointgoal[0], [3, 0], atol=1e-12)
    left = single(room, (5, Y, 5), (3, Y, 5))
    np.testing.assert_allclose(left.pointgoal[0], [2, math.pi / 2], atol=1e-12)
    right = single(room, (5, Y, 5), (6, Y, 4))
    np.testing.assert_allclose(right.pointgoal[0], [math.sqrt(2), -math.pi / 4], atol=1e-12)
    # A goal behind the agent turns to ahead after 18 left turns; the height never counts.
    behind = single(room, (5, Y, 5), (5, 1, 7), rotation=quat_about_y(180))
    np.testing.assert_allclose(behind.pointgoal[0], [2, 0], atol=1e-12)
    act(behind, TURN_LEFT)
    np.testing.assert_allclose(behind.pointgoal[0], [2, -math.radians(10)], atol=1e-12)


def test_walking_into_a_wall_slides_and_counts_a_collision(room):
    # Facing 30 degrees right of -z, i.e. towards the +x edge.
    ref = single(room, (EDGE - 0.05, Y, 5), (1, Y, 1), rotation=quat_about_y(-30))
    act(ref, MOVE_FORWARD)
    x, _, z = ref.position[0]
    assert x == pytest.approx(EDGE, abs=0.01)
    assert z == pytest.approx(5 - 0.25 * math.cos(math.radians(30)), abs=0.01)
    assert ref.collisions[0] == 1
    act(ref, TURN_LEFT, TURN_LEFT, TURN_LEFT, MOVE_FORWARD)  # now along -z: free again
    assert ref.collisions[0] == 1
    act(ref, TURN_RIGHT, TURN_RIGHT, TURN_RIGHT, TURN_RIGHT, TURN_RIGHT, MOVE_FORWARD)
    assert ref.collisions[0] == 2 and ref.episode_step[0] == 11


def test_stop_near_the_goal_succeeds_with_spl(room):
    ref = single(room, (5, Y, 5), (5, Y, 4.1))
    assert ref.distance_to_goal[0] == pytest.approx(0.9, abs=1e-5)
    assert ref.spl[0] == 0 and ref.softspl[0] == 0 and ref.reward[0] == 0
    done = act(ref, *[MOVE_FORWARD] * 4)  # ends 0.1 m past the goal
    assert not done[0]
    assert ref.distance_to_goal[0] == pytest.approx(0.1, abs=1e-5)
    assert ref.reward[0] == pytest.approx(-0.01 + 0.05, abs=1e-5)
    assert ref.success[0] == 0 and ref.spl[0] == 0
    assert ref.softspl[0] == pytest.approx((1 - 0.1 / 0.9) * 0.9 / 1.0, abs=1e-5)
    done = act(ref, STOP)
    assert done[0] and ref.terminated[0] and not ref.truncated[0]
    assert ref.success[0] == 1
    assert ref.spl[0] == pytest.approx(0.9 / 1.0, abs=1e-5)  # d0 / path length
    assert ref.reward[0] == pytest.approx(-0.01 + 2.5, abs=1e-5)
    assert ref.episode_step[0] == 5


def test_stop_far_from_the_goal_fails(room):
    ref = single(room, (5, Y, 5), (5, Y, 4.5))
    done = act(ref, STOP)
    assert done[0] and ref.terminated[0]
    assert ref.success[0] == 0 and ref.spl[0] == 0
    assert ref.reward[0] == pytest.approx(-0.01)
    np.testing.assert_array_equal(ref.position[0], [5, Y, 5])


def test_truncation_at_max_steps(room):
    ref = single(room, (5, Y, 5), (5, Y, 1), max_episode_steps=5)
    assert not act(ref, *[TURN_LEFT] * 4)[0]
    done = act(ref, TURN_LEFT)
    assert done[0] and ref.truncated[0] and not ref.terminated[0]
    assert ref.episode_step[0] == 5
    # STOP on the last step terminates instead.
    ref = single(room, (5, Y, 5), (5, Y, 1), max_episode_steps=5)
    done = act(ref, *[TURN_LEFT] * 4, STOP)
    assert done[0] and ref.terminated[0] and not ref.truncated[0]


def test_unreachable_goal_falls_back_to_euclidean(two_rooms):
    ref = single(two_rooms, (2, Y, 2), (10, Y, 2))
    assert ref.distance_to_goal[0] == pytest.approx(8, abs=1e-5)
    act(ref, TURN_RIGHT, *[TURN_RIGHT] * 8, MOVE_FORWARD)  # face +x, step towards it
    assert ref.distance_to_goal[0] == pytest.approx(7.75, abs=1e-4)
    assert np.isfinite([ref.spl[0], ref.softspl[0], ref.reward[0]]).all()


def test_zero_length_episode_metrics_are_finite(room):
    ref = single(room, (5, Y, 5), (5, Y, 5))
    assert ref.distance_to_goal[0] == 0 and ref.softspl[0] == 1
    act(ref, STOP)
    assert ref.success[0] == 1 and ref.spl[0] == 1 and ref.softspl[0] == 1


def test_autoreset_keeps_the_finished_episode_outputs(room):
    episodes = [episode((5, Y, 5), (5, Y, 4.9)), episode((2, Y, 2), (2, Y, 8), quat_about_y(90))]
    ref = PointNavReference([room], episodes, [0, 0], 2)
    ref.reset(np.array([0, 1]))
    ref.step(np.array([MOVE_FORWARD, MOVE_FORWARD]))
    done = ref.step(np.array([STOP, TURN_LEFT]))
    np.testing.assert_array_equal(done, [True, False])
    ref.start_episodes(np.flatnonzero(done), np.array([1]))
    assert ref.success[0] == 1 and ref.episode_step[0] == 2 and ref.terminated[0]
    np.testing.assert_array_equal(ref.position[0], [2, Y, 2])
    np.testing.assert_allclose(ref.rotation[0], quat_about_y(90))
    assert ref.episode_index[0] == 1 and ref.scene_index[0] == 0
    np.testing.assert_allclose(ref.pointgoal[0], [6, math.pi / 2], atol=1e-12)
    ref.step(np.array([TURN_LEFT, TURN_LEFT]))
    assert ref.episode_step[0] == 1 and not ref.terminated[0] and ref.collisions[0] == 0
    assert ref.distance_to_goal[0] == pytest.approx(6, abs=1e-5)
    assert ref.reward[0] == pytest.approx(-0.01, abs=1e-6)
