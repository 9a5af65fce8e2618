"""batchsim.procgen: deterministic, budgeted, valid GLB scenes whose navmesh is one large,
connected island with routes that bend, and whose wall and ceiling materials vary by
building and room kind. GLB files are parsed independently here."""

import json
import struct

import numpy as np
import pytest

import batchsim
from batchsim.errors import InvalidArgumentError
from batchsim.procgen import build_scene_files, generate_scene, plan_scene, write_scene
from batchsim.procgen.textures import CEILING_MATERIALS, WALL_MATERIALS

SMALL = 30_000  # triangles: keeps the import and navmesh bake quick


def parse_glb(data: bytes) -> tuple[dict, bytes]:
    magic, version, length = struct.unpack_from("<III", data, 0)
    assert (magic, version, length) == (0x46546C67, 2, len(data))
    json_length, json_type = struct.unpack_from("<II", data, 12)
    assert json_type == 0x4E4F534A and json_length % 4 == 0
    doc = json.loads(data[20 : 20 + json_length])
    bin_offset = 20 + json_length
    bin_length, bin_type = struct.unpack_from("<II", data, bin_offset)
    assert bin_type == 0x004E4942 and bin_length % 4 == 0
    assert bin_offset + 8 + bin_length == len(data)
    return doc, data[bin_offset + 8 :]


def read_accessor(doc: dict, blob: bytes, index: int) -> np.ndarray:
    accessor = doc["accessors"][index]
    view = doc["bufferViews"][accessor["bufferView"]]
    width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3}[accessor["type"]]
    dtype = {5126: np.float32, 5125: np.uint32}[accessor["componentType"]]
    assert view["byteLength"] == accessor["count"] * width * 4
    assert view["byteOffset"] % 4 == 0
    assert view["byteOffset"] + view["byteLength"] <= doc["buffers"][0]["byteLength"]
    data = np.frombuffer(blob, dtype, accessor["count"] * width, view["byteOffset"])
    return data.reshape(accessor["count"], width)


@pytest.fixture(scope="module")
def apartment():
    return generate_scene(3, "apartment", SMALL)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """Both kinds written and imported once for the navmesh tests."""
    directory = tmp_path_factory.mktemp("procgen")
    out = {}
    for seed, kind in ((1, "apartment"), (2, "office")):
        stats = build_scene_files(seed, directory, kind, kind, SMALL)
        out[kind] = (stats, batchsim.Scene.load(directory / f"{kind}.bsscene").navmesh())
    return out


def test_same_seed_same_bytes_and_different_seeds_differ(apartment, tmp_path):
    again = generate_scene(3, "apartment", SMALL)
    assert again.glb_bytes() == apartment.glb_bytes()
    path = write_scene(again, tmp_path, "a")
    assert path.read_bytes() == apartment.glb_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["a.glb"]  # no temporary left behind
    assert generate_scene(4, "apartment", SMALL).glb_bytes() != apartment.glb_bytes()


@pytest.mark.parametrize(
    ("kind", "budget"), [("apartment", 150_000), ("office", 150_000), ("office", 10_000)]
)
def test_triangle_budget_without_degenerate_triangles(kind, budget):
    scene = generate_scene(11, kind, budget)
    assert abs(scene.triangle_count - budget) <= 0.15 * budget
    for mesh in scene.meshes:
        p = mesh.positions.astype(np.float64)
        t = mesh.indices
        assert (
            np.isfinite(p).all() and np.isfinite(mesh.normals).all() and np.isfinite(mesh.uvs).all()
        )
        area = 0.5 * np.linalg.norm(
            np.cross(p[t[:, 1]] - p[t[:, 0]], p[t[:, 2]] - p[t[:, 0]]), axis=1
        )
        assert area.min() > 1e-8, mesh.material
        np.testing.assert_allclose(np.linalg.norm(mesh.normals, axis=1), 1.0, atol=1e-5)


def test_footprint_and_rooms(apartment):
    assert 5 <= apartment.rooms <= 9
    assert all(8.0 <= side <= 25.0 for side in apartment.footprint)
    office = generate_scene(5, "office", SMALL)
    assert office.rooms >= 5 and all(10.0 <= side <= 26.0 for side in office.footprint)


def test_glb_structure_parsed_independently(apartment):
    doc, blob = parse_glb(apartment.glb_bytes())
    assert doc["asset"]["version"] == "2.0"
    (mesh,) = doc["meshes"]
    triangles = 0
    for primitive in mesh["primitives"]:
        attributes = primitive["attributes"]
        positions = read_accessor(doc, blob, attributes["POSITION"])
        normals = read_accessor(doc, blob, attributes["NORMAL"])
        uvs = read_accessor(doc, blob, attributes["TEXCOORD_0"])
        indices = read_accessor(doc, blob, primitive["indices"])
        assert len(positions) == len(normals) == len(uvs) and uvs.shape[1] == 2
        assert indices.max() < len(positions) and len(indices) % 3 == 0
        accessor = doc["accessors"][attributes["POSITION"]]
        np.testing.assert_array_equal(accessor["min"], positions.min(0))
        np.testing.assert_array_equal(accessor["max"], positions.max(0))
        triangles += len(indices) // 3
        material = doc["materials"][primitive["material"]]
        texture = doc["textures"][material["pbrMetallicRoughness"]["baseColorTexture"]["index"]]
        assert doc["samplers"][texture["sampler"]]["wrapS"] == 10497
        image = doc["images"][texture["source"]]
        view = doc["bufferViews"][image["bufferView"]]
        assert image["mimeType"] == "image/png"
        assert blob[view["byteOffset"] : view["byteOffset"] + 8] == b"\x89PNG\r\n\x1a\n"
    assert triangles == apartment.triangle_count
    assert len({m["name"] for m in doc["materials"]}) >= 8  # distinct textured materials


def test_wall_and_ceiling_materials_vary_by_building_and_room_kind():
    walls, ceilings, per_scene = set(), set(), []
    for seed in range(20):
        scene = generate_scene(seed, ("apartment", "office")[seed % 2], 10_000)
        used = {m.material: m for m in scene.meshes}
        wall = WALL_MATERIALS & used.keys()
        for name in wall:  # wall materials only ever on vertical faces
            assert np.abs(used[name].normals[:, 1]).max() < 1e-6, name
        for name in CEILING_MATERIALS & used.keys():  # ceilings face down
            assert np.allclose(used[name].normals, [0.0, -1.0, 0.0]), name
        walls |= wall
        ceilings |= CEILING_MATERIALS & used.keys()
        per_scene.append(len(wall))
        assert len(scene.materials) <= 32  # textures per scene stay few
    assert len(walls) >= 8 and len(ceilings) >= 3
    assert np.mean(per_scene) >= 3.5  # rooms of one building differ too
    layout, _ = plan_scene(0, "apartment")
    assert dict(layout.walls)["bathroom"] in ("wall_tiles", "paint_accent")
    assert layout.wall_material(-1) == layout.facade  # outer faces: the facade


@pytest.mark.parametrize("kind", ["apartment", "office"])
def test_navmesh_one_large_connected_island(imported, kind):
    stats, navmesh = imported[kind]
    areas = np.array([navmesh.island_area(i) for i in range(navmesh.num_islands)])
    assert stats["navigable_area"] > 40.0
    largest = int(areas.argmax())
    assert areas[largest] >= 0.8 * areas.sum()
    navmesh.seed(0)
    points = navmesh.get_random_navigable_points(64, island_index=largest)
    starts, ends = points[:32], points[32:]
    geodesic = navmesh.geodesic_distances(starts, ends)
    assert np.isfinite(geodesic).all()  # every room of the main island reachable
    euclid = np.linalg.norm(ends - starts, axis=1)
    assert (geodesic / np.maximum(euclid, 1e-6)).max() > 1.2  # walls and furniture bend routes


def test_bad_arguments_raise(tmp_path):
    with pytest.raises(InvalidArgumentError, match="kind must be one of apartment, office"):
        generate_scene(0, "castle")
    with pytest.raises(InvalidArgumentError, match="triangle_budget"):
        generate_scene(0, "apartment", 5_000)
    with pytest.raises(InvalidArgumentError, match="seed"):
        generate_scene(-1)
    with pytest.raises(InvalidArgumentError, match="kind"):
        build_scene_files(0, tmp_path, "x", "house")
