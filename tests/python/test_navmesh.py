"""batchsim.NavMesh from Python: habitat-sim's PathFinder API on analytic scenes."""

import contextlib
import math

import numpy as np
import pytest

import batchsim

# Floor-only scenes lose one Recast cell (ledge filter) plus the agent radius at each edge.
MARGIN = 0.15


def floor(x0, z0, x1, z1, y=0.0):
    vertices = np.array([[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]], np.float32)
    return vertices, np.array([[0, 2, 1], [0, 3, 2]], np.uint32)


def floors(*rects):
    vertices, indices = [], []
    for rect in rects:
        v, i = floor(*rect)
        indices.append(i + sum(len(x) for x in vertices))
        vertices.append(v)
    return np.concatenate(vertices), np.concatenate(indices)


@pytest.fixture(scope="module")
def room():
    return batchsim.NavMesh.bake(*floor(0, 0, 10, 10))


@pytest.fixture(scope="module")
def two_rooms():
    return batchsim.NavMesh.bake(*floors((0, 0, 4, 4), (6, 0, 14, 4)))


def test_room_geodesic_is_euclidean_and_batch_matches_single(room):
    rng = np.random.default_rng()
    starts = rng.uniform(0.5, 9.5, (64, 3)).astype(np.float32)
    ends = rng.uniform(0.5, 9.5, (64, 3)).astype(np.float32)
    starts[:, 1] = ends[:, 1] = 0
    batch = room.geodesic_distances(starts, ends)
    assert batch.dtype == np.float32 and batch.shape == (64,)
    np.testing.assert_allclose(batch, np.linalg.norm(starts - ends, axis=1), atol=1e-3)
    single = [room.geodesic_distance(a, b) for a, b in zip(starts, ends, strict=False)]
    np.testing.assert_array_equal(batch, np.array(single, np.float32))


def test_unreachable_is_inf_never_nan(two_rooms):
    assert two_rooms.num_islands == 2
    assert math.isinf(two_rooms.geodesic_distance([2, 0, 2], [10, 0, 2]))
    assert two_rooms.get_island([2, 0, 2]) != two_rooms.get_island([10, 0, 2])
    assert two_rooms.find_path([2, 0, 2], [10, 0, 2]).shape == (0, 3)
    far = two_rooms.geodesic_distances(
        np.array([[2, 0, 2], [2, 0, 2]], np.float32),
        np.array([[99, 0, 99], [1e30, 0, 1]], np.float32),
    )
    assert np.isinf(far).all()
    # A NaN point has no answer at all: refused (test_wrong_outputs.py), not "unreachable".
    with pytest.raises(batchsim.InvalidArgumentError, match="starts row 1: expected finite"):
        two_rooms.geodesic_distances(
            np.array([[2, 0, 2], [np.nan, 0, 0]], np.float32), np.zeros((2, 3), np.float32)
        )


def test_snap_and_navigability_follow_habitat_conventions(room):
    assert room.is_navigable([5, 0, 5])
    assert not room.is_navigable([0.05, 0, 5])
    snapped = room.snap_point([11, 0, 5])
    assert snapped[0] == pytest.approx(10 - MARGIN, abs=0.01)
    assert np.isnan(room.snap_point([40, 0, 40])).all()  # nothing within 2 m: NaNs, as Habitat
    assert room.get_island([40, 0, 40]) == -1
    assert room.island_radius([40, 0, 40]) == 0.0


def test_try_step_slides_or_stops(room):
    start, end = [9.5, 0, 5], [9.5 + math.sqrt(0.5), 0, 5 + math.sqrt(0.5)]
    slid = room.try_step(start, end)
    stopped = room.try_step_no_sliding(start, end)
    assert slid[0] == pytest.approx(10 - MARGIN, abs=0.01)
    assert slid[2] == pytest.approx(end[2], abs=0.01)
    assert stopped[2] == pytest.approx(5 + (10 - MARGIN - 9.5), abs=0.01)
    batch = room.try_steps(
        np.array([start], np.float32), np.array([end], np.float32), allow_sliding=False
    )
    np.testing.assert_array_equal(batch[0], stopped)


def test_seeded_random_points(two_rooms):
    two_rooms.seed(11)
    first = two_rooms.get_random_navigable_points(100)
    two_rooms.seed(11)
    second = np.stack([two_rooms.get_random_navigable_point() for _ in range(100)])
    np.testing.assert_array_equal(first, second)
    assert all(two_rooms.is_navigable(p) for p in first)
    island = two_rooms.get_island([2, 0, 2])
    points = two_rooms.get_random_navigable_points(50, island_index=island)
    assert {two_rooms.get_island(p) for p in points} == {island}


def test_topdown_view_and_obstacle_distance(room):
    view = room.get_topdown_view(0.5, 0.0)
    assert view.shape == (20, 20) and view.dtype == bool
    assert view[10, 10] and not view[0, 0]
    assert view.mean() == pytest.approx(((10 - 2 * MARGIN) / 10) ** 2, abs=0.1)
    assert room.distance_to_closest_obstacle([5, 0, 5], 10.0) == pytest.approx(5 - MARGIN, abs=0.01)


def test_save_load_round_trip_is_byte_identical(room, tmp_path):
    path = tmp_path / "room.navmesh"
    room.save(path)
    assert path.read_bytes() == room.to_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["room.navmesh"]  # no temporary left
    loaded = batchsim.NavMesh.load(path)
    assert loaded.to_bytes() == room.to_bytes()
    assert loaded.navigable_area == room.navigable_area
    assert loaded.settings.agent_radius == pytest.approx(0.1)
    assert loaded.geodesic_distance([1, 0, 1], [8, 0, 3]) == room.geodesic_distance(
        [1, 0, 1], [8, 0, 3]
    )


def test_settings_are_habitat_defaults_and_overridable():
    s = batchsim.navmesh_settings()
    assert (s.cell_size, s.cell_height, s.agent_height, s.agent_radius) == pytest.approx(
        (0.05, 0.2, 1.5, 0.1)
    )
    assert (s.agent_max_climb, s.agent_max_slope, s.verts_per_poly) == pytest.approx((0.2, 45, 6))
    assert (s.region_min_size, s.edge_max_len, s.edge_max_error) == pytest.approx((20, 12, 1.3))
    wide = batchsim.NavMesh.bake(*floor(0, 0, 10, 10), batchsim.navmesh_settings(agent_radius=0.5))
    assert not wide.is_navigable([0.4, 0, 5]) and wide.is_navigable([0.7, 0, 5])
    with pytest.raises(batchsim.InvalidArgumentError, match="unknown navmesh setting 'radius'"):
        batchsim.navmesh_settings(radius=1)
    with pytest.raises(batchsim.InvalidArgumentError, match="verts_per_poly must be in"):
        batchsim.navmesh_settings(verts_per_poly=9)


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (lambda b: b"XXXX" + b[4:], "bad magic"),
        (lambda b: b[:4] + (7).to_bytes(4, "little") + b[8:], "unsupported .navmesh version 7"),
        (lambda b: b[:100], "truncated"),
        (lambda b: b[:20], "truncated"),
    ],
)
def test_corrupted_navmesh_raises_format_error(room, corrupt, message):
    with pytest.raises(batchsim.FormatError, match=message):
        batchsim.NavMesh.from_bytes(corrupt(room.to_bytes()))


def test_random_corruption_never_crashes(room):
    data = bytearray(room.to_bytes())
    rng = np.random.default_rng()
    for _ in range(300):
        broken = bytearray(data)
        for position in rng.integers(0, len(data), 4):
            broken[position] = rng.integers(0, 256)
        with contextlib.suppress(batchsim.FormatError):
            batchsim.NavMesh.from_bytes(bytes(broken))


def test_bad_input_errors(tmp_path):
    with pytest.raises(batchsim.MissingFileError, match="does not exist"):
        batchsim.NavMesh.load(tmp_path / "missing.navmesh")
    v, i = floor(0, 0, 10, 10)
    with pytest.raises(batchsim.InvalidArgumentError, match=r"expected an array of shape \[N, 3\]"):
        batchsim.NavMesh.bake(v[:, :2], i)
    bad = v.copy()
    bad[1, 0] = np.nan
    with pytest.raises(batchsim.FormatError, match="not finite"):
        batchsim.NavMesh.bake(bad, i)
    with pytest.raises(batchsim.FormatError, match="out of range"):
        batchsim.NavMesh.bake(v, i + 10)
    with pytest.raises(batchsim.FormatError, match="no walkable surface"):  # a vertical wall
        batchsim.NavMesh.bake(
            np.array([[0, 0, 0], [1, 0, 1], [1, 2, 1]], np.float32), np.array([[0, 1, 2]])
        )
    with pytest.raises(batchsim.InvalidArgumentError, match="island index 5 out of range"):
        batchsim.NavMesh.bake(v, i).island_radius(5)
