"""raycast_reference's colour: textures and base colours against scenes with known answers
(orientation of glTF and OBJ UVs, base colour factors in linear light), its trilinear and
bilinear sampling and sRGB conversion against numpy, and the mip level a distance selects."""

import math

import numpy as np
import pytest

import batchsim
from batchsim.viz import encode_png
from raycast_reference import (
    ReferenceScene,
    linear_to_srgb8,
    render,
    sample_texture,
    srgb_to_linear,
)
from raycast_scenes import IDENTITY, expected_srgb, import_glb, quad

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
