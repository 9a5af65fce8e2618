"""Vertex colours (glTF COLOR_0) multiply the base colour: the reference ray caster on a known
answer, then both renderer backends against it on a room of coloured, partly textured walls."""

from __future__ import annotations

import numpy as np
import pytest

import batchsim
from batchsim.viz import encode_png
from glb_writer import GlbWriter, grid
from raycast_reference import ReferenceScene, linear_to_srgb8, render, srgb_to_linear
from test_render import compare, render_both, yaw_rotations


def import_glb(writer: GlbWriter, tmp_path) -> batchsim.Scene:
    writer.doc["nodes"] = [{"mesh": 0}]
    model = writer.write(tmp_path / "model.glb")
    return batchsim.import_scene(model, tmp_path / "model.bsscene", bake_navmesh=False)


def test_colours_are_stored_srgb_and_white_without_color_0(tmp_path):
    w = GlbWriter()
    points, triangles, _ = grid((-1, 1, -1), (2, 0, 0), (0, -2, 0), 1)
    linear = np.array([[1, 0, 0, 1], [0.5, 0.5, 0.5, 1], [0, 0, 1, 1], [0.2, 1, 0, 1]], np.float32)
    plain = points + np.float32([0, 0, -1])
    w.doc["meshes"] = [
        {
            "primitives": [
                w.primitive(points, triangles, 0, colors=linear),
                w.primitive(plain, triangles, 0),
            ]
        }
    ]
    w.doc["materials"] = [{}]
    scene = import_glb(w, tmp_path)
    colors, positions = scene.colors(), scene.positions()
    assert colors.dtype == np.uint8 and colors.shape == (len(positions), 4)
    for point, want in zip(points, linear, strict=True):
        row = np.flatnonzero(np.all(positions == point, axis=1))[0]
        np.testing.assert_array_equal(colors[row, :3], linear_to_srgb8(want[:3]))
    assert np.all(colors[positions[:, 2] == -2] == 255)  # the plain quad: white


def test_reference_interpolates_linear_vertex_colours(tmp_path):
    # a quad filling a 90-degree view 1 m away: red on the left edge, green on the right
    w = GlbWriter()
    points, triangles, _ = grid((-1, 1, -1), (2, 0, 0), (0, -2, 0), 1)
    colors = np.array([[255, 0, 0], [0, 255, 0], [255, 0, 0], [0, 255, 0]], np.uint8)
    w.doc["meshes"] = [{"primitives": [w.primitive(points, triangles, 0, colors=colors)]}]
    w.doc["materials"] = [{"pbrMetallicRoughness": {"baseColorFactor": [1, 1, 0.5, 1]}}]
    out = render(ReferenceScene(import_glb(w, tmp_path)), [(0, 0, 0)], [(0, 0, 0, 1)], 16, 16)
    t = (np.arange(16) + 0.5) / 16  # each pixel centre's share of the way to the right edge
    want = linear_to_srgb8(np.stack([1 - t, t, np.zeros(16)], 1))
    for row in out.rgb[0]:
        np.testing.assert_array_equal(row[:, :3], want)
    assert srgb_to_linear(want[8, 0] / 255) == pytest.approx(1 - t[8], abs=0.005)


def coloured_room(tmp_path) -> batchsim.Scene:
    """A 4 x 2 x 4 m room: every wall a 6 x 6 grid with random vertex colours (8-bit on
    some walls, float on others); alternate walls textured, all with a base colour factor."""
    rng = np.random.default_rng(7)
    walls = [
        ((-2, 2, -2), (4, 0, 0), (0, -2, 0)),
        ((2, 2, 2), (-4, 0, 0), (0, -2, 0)),
        ((-2, 2, 2), (0, 0, -4), (0, -2, 0)),
        ((2, 2, -2), (0, 0, 4), (0, -2, 0)),
        ((-2, 0, -2), (4, 0, 0), (0, 0, 4)),
        ((-2, 2, 2), (4, 0, 0), (0, 0, -4)),
    ]
    w = GlbWriter()
    primitives = []
    for i, corner in enumerate(walls):
        points, triangles, uvs = grid(*corner, cells=6)
        if i % 2:
            colors = rng.uniform(0.1, 1.0, (len(points), 4)).astype(np.float32)
        else:
            colors = rng.integers(30, 256, (len(points), 3), dtype=np.uint8)
        primitives.append(w.primitive(points, triangles, i % 2, uvs=uvs * 2, colors=colors))
    image = rng.integers(40, 256, (8, 8, 3), dtype=np.uint8)
    w.doc["meshes"] = [{"primitives": primitives}]
    w.doc["materials"] = [
        {"pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.7, 1.0, 1]}},
        {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}},
    ]
    w.doc["textures"] = [{"source": 0}]
    w.doc["images"] = [{"mimeType": "image/png", "bufferView": w.view(encode_png(image))}]
    return import_glb(w, tmp_path)


def test_backends_match_the_reference_with_vertex_colours(tmp_path, cpu_context, backend):
    scene = coloured_room(tmp_path)
    views = 6
    positions = np.tile(np.float32([[0.3, 1.0, -0.2]]), (views, 1))
    rotations = yaw_rotations(np.linspace(0, 2 * np.pi, views, endpoint=False) + 0.3)
    renderer, reference = render_both(cpu_context, scene, positions, rotations, (64, 48), backend)
    assert reference.rgb[..., :3].std() > 20  # the colours show: not a flat wall
    compare(renderer, reference, f"{backend}: vertex-coloured room")
