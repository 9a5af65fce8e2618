"""raycast_reference (the renderer's CPU reference) against scenes with known answers: scenes
are written as glTF (batchsim.procgen.gltf) or OBJ and imported with batchsim.import_scene."""

import json
import math
import time

import numpy as np
import pytest

import batchsim
from batchsim.procgen.geometry import MeshData
from batchsim.procgen.gltf import Material, encode_glb
from batchsim.viz import encode_png
from raycast_reference import (
    Intrinsics,
    ReferenceScene,
    linear_to_srgb8,
    render,
    sample_texture,
    srgb_to_linear,
)

IDENTITY = (0.0, 0.0, 0.0, 1.0)
WHITE = np.full((1, 1, 3), 255, np.uint8)


def yaw(degrees: float) -> tuple[float, float, float, float]:
    """Rotation about +y (counter-clockwise seen from above: positive turns left)."""
    h = math.radians(degrees) / 2
    return (0.0, math.sin(h), 0.0, math.cos(h))


def pitch(degrees: float) -> tuple[float, float, float, float]:
    """Rotation about +x (positive looks up)."""
    h = math.radians(degrees) / 2
    return (math.sin(h), 0.0, 0.0, math.cos(h))


def quad(material, top_left, right, down, uv_top_left=(0, 0), uv_bottom_right=(1, 1)):
    """A parallelogram: corners top_left + {0, right} + {0, down}; UVs spread like an image
    (glTF convention: v grows downwards)."""
    tl = np.asarray(top_left, np.float32)
    right, down = np.asarray(right, np.float32), np.asarray(down, np.float32)
    (u0, v0), (u1, v1) = uv_top_left, uv_bottom_right
    positions = np.stack([tl, tl + right, tl + right + down, tl + down])
    normal = np.cross(right, down)
    return MeshData(
        material,
        positions,
        np.tile(normal / np.linalg.norm(normal), (4, 1)).astype(np.float32),
        np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]], np.float32),
        np.array([[0, 1, 2], [0, 2, 3]], np.uint32),
    )


def import_glb(tmp_path, meshes, materials, chunk_triangles=4096) -> ReferenceScene:
    """materials: name -> (base colour factor, RGB image [h, w, 3] uint8)."""
    mats = {
        name: Material(name, tuple(color), encode_png(image))
        for name, (color, image) in materials.items()
    }
    model = tmp_path / "model.glb"
    model.write_bytes(encode_glb(meshes, mats, "test"))
    scene = batchsim.import_scene(
        model, tmp_path / "model.bsscene", bake_navmesh=False, chunk_triangles=chunk_triangles
    )
    return ReferenceScene(scene)


def solid(rgb) -> np.ndarray:
    return np.array(rgb, np.uint8).reshape(1, 1, 3)


def expected_srgb(factor, byte):
    """Independent expectation: factor * decode(byte / 255), encoded to sRGB, rounded."""
    c = byte / 255
    linear = factor * (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    s = linear * 12.92 if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055
    return math.floor(s * 255 + 0.5)


def pixel_ndc(count: int) -> np.ndarray:
    return (np.arange(count) + 0.5) / count * 2 - 1


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


# --- textures -------------------------------------------------------------------------------


QUADRANTS = {"tl": (200, 0, 0), "tr": (0, 200, 0), "bl": (0, 0, 200), "br": (200, 200, 90)}


def quadrant_image(size: int = 8) -> np.ndarray:
    """An image with a different colour in each quadrant; row 0 is the image's top."""
    image = np.zeros((size, size, 3), np.uint8)
    half = size // 2
    image[:half, :half], image[:half, half:] = QUADRANTS["tl"], QUADRANTS["tr"]
    image[half:, :half], image[half:, half:] = QUADRANTS["bl"], QUADRANTS["br"]
    return image


def check_quadrants(out, factor):
    """A 16 x 16 view of the texture filling the screen: each quadrant's interior (texels
    2 pixels wide, away from the bilinear seams) shows factor * texel in linear space."""
    rgb = out.rgb[0, :, :, :3]
    for name, rows, cols in [
        ("tl", slice(1, 7), slice(1, 7)),
        ("tr", slice(1, 7), slice(9, 15)),
        ("bl", slice(9, 15), slice(1, 7)),
        ("br", slice(9, 15), slice(9, 15)),
    ]:
        want = [expected_srgb(f, b) for f, b in zip(factor, QUADRANTS[name], strict=True)]
        assert np.all(rgb[rows, cols] == want), (name, rgb[rows, cols][0, 0], want)
    assert np.all(out.rgb[0, :, :, 3] == 255)
    np.testing.assert_allclose(out.uv[0, 0, 0], (1 / 32, 1 / 32), atol=1e-6)
    np.testing.assert_allclose(out.uv[0, 15, 15], (31 / 32, 31 / 32), atol=1e-6)
    assert np.all(out.lod[0] == 0)  # magnified: 2 pixels per texel


def test_gltf_texture_orientation_and_linear_base_colour(tmp_path):
    factor = (0.5, 0.25, 1.0, 1.0)
    # the texture exactly fills a 90-degree view 1 m away; glTF uv (0, 0) at the top left
    screen = quad("tex", (-1, 1, -1), (2, 0, 0), (0, -2, 0))
    geo = import_glb(tmp_path, [screen], {"tex": (factor, quadrant_image())})
    stored = geo.scene.texture(0)["pixels"]
    assert tuple(stored[0, 0, :3]) == QUADRANTS["tl"]  # row 0 is the image's top row
    assert tuple(stored[-1, 0, :3]) == QUADRANTS["bl"]
    top_left = np.argmin(np.abs(geo.scene.positions() - (-1, 1, -1)).sum(1))
    np.testing.assert_allclose(geo.uvs[top_left], (0, 0))  # glTF UVs are stored as they are
    out = render(geo, [(0, 0, 0)], [IDENTITY], width=16, height=16)
    check_quadrants(out, factor[:3])
    # the factor multiplies linear light, not sRGB bytes: 0.5 * 200 would be 100
    assert out.rgb[0, 3, 3, 0] == expected_srgb(0.5, 200) == 146


def test_obj_texture_orientation_matches_gltf(tmp_path):
    # OBJ UVs are OpenGL-style (v up from the bottom row): the importer flips them
    (tmp_path / "tex.png").write_bytes(encode_png(quadrant_image()))
    (tmp_path / "quad.mtl").write_text("newmtl tex\nKd 1 1 1\nmap_Kd tex.png\n")
    (tmp_path / "quad.obj").write_text(
        "mtllib quad.mtl\n"
        "v -1 1 -1\nv 1 1 -1\nv 1 -1 -1\nv -1 -1 -1\n"
        "vt 0 1\nvt 1 1\nvt 1 0\nvt 0 0\n"
        "usemtl tex\nf 1/1 2/2 3/3\nf 1/1 3/3 4/4\n"
    )
    scene = batchsim.import_scene(
        tmp_path / "quad.obj", tmp_path / "quad.bsscene", bake_navmesh=False
    )
    geo = ReferenceScene(scene)
    top_left = np.argmin(np.abs(scene.positions() - (-1, 1, -1)).sum(1))
    np.testing.assert_allclose(geo.uvs[top_left], (0, 0))  # stored like glTF
    check_quadrants(render(geo, [(0, 0, 0)], [IDENTITY], width=16, height=16), (1, 1, 1))


def test_untextured_material_shows_its_factor(tmp_path):
    (tmp_path / "quad.mtl").write_text("newmtl plain\nKd 0.2 0.4 0.6\n")
    (tmp_path / "quad.obj").write_text(
        "mtllib quad.mtl\nv -9 9 -2\nv 9 9 -2\nv 9 -9 -2\nv -9 -9 -2\n"
        "usemtl plain\nf 1 2 3\nf 1 3 4\n"
    )
    scene = batchsim.import_scene(
        tmp_path / "quad.obj", tmp_path / "quad.bsscene", bake_navmesh=False
    )
    assert [m["texture"] for m in scene.materials()] == [None]
    out = render(scene, [(0, 0, 0)], [IDENTITY], width=4, height=4)
    want = [expected_srgb(f, 255) for f in (0.2, 0.4, 0.6)]
    assert np.all(out.rgb[0, :, :, :3] == want) and np.all(np.isnan(out.lod))


def test_sample_texture_is_trilinear_between_solid_mips():
    colours = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]], np.float64)
    levels = [np.broadcast_to(c, (s, s, 4)).copy() for c, s in zip(colours, (4, 2, 1), strict=True)]
    uv = np.tile([[0.3, 0.7]], (8, 1))
    lod = np.array([0.0, 0.5, 1.0, 1.25, 2.0, 5.0, -3.0, np.nan])
    got = sample_texture(levels, uv, lod)
    a, b, c = colours
    want = [a, (a + b) / 2, b, 0.75 * b + 0.25 * c, c, c, a, c]
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_bilinear_texel_centres_and_repeat():
    level = np.zeros((1, 2, 4))
    level[0, 1] = 1.0  # [black, white]
    u = np.array([0.25, 0.5, 0.75, 1.0, 0.0, 1.25, -0.75, 0.375])
    got = sample_texture([level], np.stack([u, np.full_like(u, 0.5)], 1), np.zeros(len(u)))
    np.testing.assert_allclose(got[:, 0], [0, 0.5, 1, 0.5, 0.5, 0, 0, 0.25], atol=1e-12)


def test_srgb_round_trip():
    bytes_ = np.arange(256)
    np.testing.assert_array_equal(linear_to_srgb8(srgb_to_linear(bytes_ / 255)), bytes_)


@pytest.mark.parametrize("distance", [0.5, 0.75, 1.0, 1.5, 4.0, 16.0])
def test_far_textured_plane_selects_a_higher_mip(tmp_path, distance):
    # a 2 m quad with a 64 x 64 one-texel checkerboard: level 0 is black / white, every
    # coarser level is the linear average, sRGB 188
    checker = ((np.indices((64, 64)).sum(0) % 2) * 255).astype(np.uint8)
    image = np.repeat(checker[:, :, None], 3, axis=2)
    geo = import_glb(
        tmp_path,
        [quad("c", (-1, 1, -distance), (2, 0, 0), (0, -2, 0))],
        {"c": ((1, 1, 1, 1), image)},
    )
    assert np.all(geo.scene.texture(0, 1)["pixels"][..., :3] == 188)
    out = render(geo, [(0, 0, 0)], [IDENTITY], width=32, height=32)
    hit = out.triangle[0] >= 0
    # a fronto-parallel plane: 2 * distance * tan(45) / 32 m per pixel, 32 texels per metre
    lod = math.log2(2 * distance / 32 * 32)
    np.testing.assert_allclose(out.lod[0][hit], min(max(lod, 0), 6), atol=1e-5)
    values = out.rgb[0, :, :, 0][hit].astype(int)
    if lod <= 0:  # pixel centres on texel centres of level 0
        assert set(np.unique(values)) == {0, 255}
    elif lod < 1:  # blended towards level 1's grey: some contrast remains
        assert values.min() < 188 - 5 and values.max() > 188 + 5 and np.ptp(values) < 255 / 2
    else:
        assert np.all(np.abs(values - 188) <= 1)


# --- the procedural dataset -----------------------------------------------------------------


def procgen_views(procgen_dataset, count, seed=3):
    root, _ = procgen_dataset
    path = sorted((root / "scene_datasets" / "procgen").glob("*.bsscene"))[0]
    scene = batchsim.Scene.load(path)
    navmesh = scene.navmesh()
    navmesh.seed(seed)
    points = np.asarray(navmesh.get_random_navigable_points(50 * count))
    w, d = json.loads((root / "manifest.json").read_text())["scenes"][path.stem]["footprint_m"]
    inside = (np.abs(points[:, [0, 2]] - [w / 2, d / 2]) < [w / 2 - 0.3, d / 2 - 0.3]).all(1)
    points = points[inside & (points[:, 1] > -0.05)][:count]  # indoors: not in the garden
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
