"""raycast_reference (the renderer's CPU reference) against scenes with known answers: depth
(z-distance, near and far planes), the camera's conventions (axes, rotations, field of view,
batches of views), and the procedural dataset's scenes (plausible views, culling equal to
brute force). Its colour and textures: test_raycast_reference_textures.py."""

import json
import math
import time

import numpy as np
import pytest

import batchsim
from raycast_reference import Intrinsics, ReferenceScene, render
from raycast_scenes import IDENTITY, WHITE, import_glb, pitch, pixel_ndc, quad, solid, yaw

# --- depth ----------------------------------------------------------------------------------


def test_wall_depth_is_z_distance_and_zero_where_uncovered(tmp_path):
    # a 4 m x 2 m wall 3 m ahead, as 2 x 2 quads (shared edges) in 2-triangle chunks
    meshes = [quad("wall", (x, y, -3), (2, 0, 0), (0, -1, 0)) for x in (-2, 0) for y in (1, 0)]
    geo = import_glb(tmp_path, meshes, {"wall": ((1, 1, 1, 1), WHITE)}, chunk_triangles=2)
    assert len(geo.chunk_lo) == 4
    out = render(geo, [(0, 0, 0)], [IDENTITY], width=32, height=32, hfov=90)
    assert out.depth.shape == (1, 1, 32, 32) and out.depth.dtype == np.float32
    assert out.rgb.shape == (1, 32, 32, 4) and out.rgb.dtype == np.uint8
    x, y = pixel_ndc(32) * 3, -pixel_ndc(32) * 3  # where each pixel's ray is at z = -3
    covered = (np.abs(y)[:, None] < 1) & (np.abs(x)[None, :] < 2)
    depth, tri = out.depth[0, 0], out.triangle[0]
    np.testing.assert_allclose(depth[covered], 3.0, rtol=1e-6)
    assert np.all(depth[~covered] == 0) and np.all(tri[~covered] == -1)
    assert np.all(tri[covered] >= 0)
    rows, cols = np.nonzero(covered)
    corner = (rows.min(), cols.min())  # the ray there is ~25% longer than 3 m
    assert depth[corner] == pytest.approx(3.0, rel=1e-6)
    assert np.all(out.rgb[0][covered] == 255) and np.all(out.rgb[0][~covered] == (0, 0, 0, 255))


def test_floor_at_an_angle_has_the_analytic_depth_per_row(tmp_path):
    height, tilt = 1.5, -30.0  # camera 1.5 m above the floor, pitched 30 degrees down
    floor = quad("floor", (-50, -height, -50), (100, 0, 0), (0, 0, 100))
    geo = import_glb(tmp_path, [floor], {"floor": ((1, 1, 1, 1), WHITE)})
    w, h, hfov = 24, 32, 70.0
    out = render(geo, [(0, 0, 0)], [pitch(tilt)], width=w, height=h, hfov=hfov)
    ty = math.tan(math.radians(hfov) / 2) * h / w
    a = math.radians(tilt)
    # camera ray (x, y_ndc * ty, -1) rotated about x: its world y is y cos a + sin a
    down = -(-pixel_ndc(h) * ty * math.cos(a) + math.sin(a))
    depth = out.depth[0, 0]
    for r in range(h):
        if down[r] <= 0:  # above the horizon: nothing
            assert np.all(depth[r] == 0), r
        elif height / down[r] < 20:  # well inside the 100 m floor
            np.testing.assert_allclose(depth[r], height / down[r], rtol=1e-6)
    assert np.sum(down <= 0) > 0 and np.sum((down > 0) & (height / down < 20)) > 10


def test_near_and_far_planes_clip(tmp_path):
    meshes = [quad("w", (-9, 9, -0.005), (18, 0, 0), (0, -18, 0))]  # closer than near
    meshes.append(quad("w", (-900, 900, -5), (1800, 0, 0), (0, -1800, 0)))
    geo = import_glb(tmp_path, meshes, {"w": ((1, 1, 1, 1), WHITE)})
    out = render(geo, [(0, 0, 0)], [IDENTITY], width=8, height=8)
    np.testing.assert_allclose(out.depth, 5.0, rtol=1e-6)  # the near quad is clipped away
    out = render(geo, [(0, 0, 0)], [IDENTITY], width=8, height=8, far=4.0)
    assert np.all(out.depth == 0)


# --- camera ---------------------------------------------------------------------------------


@pytest.fixture
def colour_room(tmp_path):
    """Red wall 3 m to the left (x = -3), green 3 m ahead (z = -3), blue 3 m to the right,
    grey behind, and a white square up and to the right in front of the green wall."""
    materials = {
        name: ((1, 1, 1, 1), solid(rgb))
        for name, rgb in [
            ("red", (255, 0, 0)),
            ("green", (0, 255, 0)),
            ("blue", (0, 0, 255)),
            ("grey", (128, 128, 128)),
            ("white", (255, 255, 255)),
        ]
    }
    meshes = [
        quad("red", (-3, 5, 5), (0, 0, -10), (0, -10, 0)),
        quad("green", (-5, 5, -3), (10, 0, 0), (0, -10, 0)),
        quad("blue", (3, 5, -5), (0, 0, 10), (0, -10, 0)),
        quad("grey", (5, 5, 3), (-10, 0, 0), (0, -10, 0)),
        quad("white", (0.5, 1.5, -2), (1, 0, 0), (0, -1, 0)),
    ]
    return import_glb(tmp_path, meshes, materials)


def test_camera_looks_along_minus_z_with_x_right_and_y_up(colour_room):
    out = render(colour_room, [(0, 0, 0)], [IDENTITY], width=32, height=32)
    white = np.all(out.rgb[0, :, :, :3] == 255, axis=-1)
    rows, cols = np.nonzero(white)
    # the square spans x, y in [0.5, 1.5] at 2 m: ndc [0.25, 0.75] right and up
    assert (rows.min(), rows.max(), cols.min(), cols.max()) == (4, 11, 20, 27)
    assert tuple(out.rgb[0, 28, 4, :3]) == (0, 255, 0)


@pytest.mark.parametrize(
    ("rotation", "colour"),
    [
        (IDENTITY, (0, 255, 0)),
        (yaw(90), (255, 0, 0)),  # a left turn looks along -x
        (yaw(-90), (0, 0, 255)),
        (yaw(180), (128, 128, 128)),
        ((0.0, 1.0, 0.0, 0.0), (128, 128, 128)),
        ((0.0, 2.0, 0.0, 2.0), (255, 0, 0)),  # normalised: yaw(90)
    ],
)
def test_rotation_convention(colour_room, rotation, colour):
    out = render(colour_room, [(0, 0, 0)], [rotation], width=16, height=16)
    centre = out.rgb[0, 6:10, 6:10, :3].reshape(-1, 3)
    assert np.all(centre == colour)
    np.testing.assert_allclose(out.depth[0, 0, 6:10, 6:10], 3.0, rtol=1e-6)


def test_batch_of_views_matches_single_views(colour_room):
    positions = [(0, 0, 0), (1, 0.5, -1), (-1, 0, 1)]
    rotations = [yaw(90), pitch(20), yaw(-30)]
    batch = render(colour_room, positions, rotations, width=12, height=8)
    for i, (p, q) in enumerate(zip(positions, rotations, strict=True)):
        one = render(colour_room, [p], [q], width=12, height=8)
        np.testing.assert_array_equal(batch.depth[i], one.depth[0])
        np.testing.assert_array_equal(batch.rgb[i], one.rgb[0])


@pytest.mark.parametrize(
    ("width", "height", "hfov", "columns", "rows"),
    [(64, 32, 90.0, 16, 16), (64, 32, 60.0, 28, 28), (32, 32, 90.0, 8, 8), (16, 48, 90.0, 4, 4)],
)
def test_hfov_and_aspect_set_the_footprint(tmp_path, width, height, hfov, columns, rows):
    # a 1 m square 2 m ahead: square pixels make it square on screen whatever W / H is
    geo = import_glb(
        tmp_path,
        [quad("w", (-0.5, 0.5, -2), (1, 0, 0), (0, -1, 0))],
        {"w": ((1, 1, 1, 1), WHITE)},
    )
    out = render(geo, [(0, 0, 0)], [IDENTITY], width=width, height=height, hfov=hfov)
    hit = out.triangle[0] >= 0
    assert (hit.any(axis=0).sum(), hit.any(axis=1).sum()) == (columns, rows)
    tx, ty = Intrinsics(width, height, hfov).tan_half
    assert ty == pytest.approx(tx * height / width)
    expect_cols = np.abs(pixel_ndc(width) * tx * 2) < 0.5
    expect_rows = np.abs(pixel_ndc(height) * ty * 2) < 0.5
    np.testing.assert_array_equal(hit, expect_rows[:, None] & expect_cols[None, :])


# --- the procedural dataset -----------------------------------------------------------------


def procgen_views(procgen_dataset, count, seed=3):
    root, _ = procgen_dataset
    path = sorted((root / "scene_datasets" / "procgen").glob("*.bsscene"))[0]
    scene = batchsim.Scene.load(path)
    navmesh = scene.navmesh()
    navmesh.seed(seed)
    points = np.asarray(navmesh.get_random_navigable_points(50 * count))
    width, depth = json.loads((root / "manifest.json").read_text())["scenes"][path.stem][
        "footprint_m"
    ]
    indoors = (points[:, 1] > -0.05) & (points[:, 0] > 0.3) & (points[:, 0] < width - 0.3)
    indoors &= (points[:, 2] > 0.3) & (points[:, 2] < depth - 0.3)  # not in the garden
    points = points[indoors][:count]
    angles = np.random.default_rng(seed).uniform(0, 360, count)
    return scene, points + np.array([0, 1.25, 0]), [yaw(a) for a in angles]


def test_procgen_scene_renders_plausibly_in_seconds(procgen_dataset):
    scene, positions, rotations = procgen_views(procgen_dataset, 4)
    start = time.perf_counter()
    out = render(scene, positions, rotations, width=64, height=64)
    seconds = time.perf_counter() - start
    print(f"raycast 4 x 64x64 of {scene.triangle_count} triangles: {seconds:.2f} s")
    assert seconds < 30
    assert not np.isnan(out.depth).any()
    hit = out.triangle >= 0
    assert hit.mean() > 0.95  # indoors, under a ceiling
    depth = out.depth[:, 0][hit]
    lo, hi = scene.bounds
    assert depth.min() >= 0.01 and depth.max() <= np.linalg.norm(hi - lo)
    assert np.all(out.depth[:, 0][~hit] == 0)
    assert not np.isnan(out.lod[hit]).any()  # every procgen material is textured
    assert len(np.unique(out.rgb[..., :3].reshape(-1, 3), axis=0)) > 50


def test_culling_matches_brute_force(procgen_dataset):
    scene, positions, rotations = procgen_views(procgen_dataset, 2, seed=8)
    geo = ReferenceScene(scene)
    fast = render(geo, positions, rotations, width=12, height=10)
    slow = render(geo, positions, rotations, width=12, height=10, brute_force=True)
    np.testing.assert_array_equal(fast.triangle, slow.triangle)
    np.testing.assert_array_equal(fast.depth, slow.depth)
    np.testing.assert_array_equal(fast.rgb, slow.rgb)
