"""batchsim.import_scene / `batchsim import` / batchsim.Scene on real models from Debian's
assimp-testmodels package (nobody here wrote them)."""

import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import batchsim
from batchsim.cli import main
from batchsim.viz import encode_png
from glb_writer import GlbWriter, grid

MODELS = Path(os.environ.get("BATCHSIM_ASSIMP_MODELS", "/usr/share/assimp/models"))
pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason="assimp-testmodels not installed")
BOX_GLTF = MODELS / "glTF2/BoxTextured-glTF/BoxTextured.gltf"
SPIDER_OBJ = MODELS / "OBJ/spider.obj"
KTX = "KHR_texture_basisu"


def gltf_triangle_count(path: Path) -> int:
    """Independent count: the index accessors of every primitive, from the glTF JSON."""
    doc = json.loads(path.read_text())
    return sum(
        doc["accessors"][p["indices"]]["count"] // 3 for m in doc["meshes"] for p in m["primitives"]
    )


def test_gltf_import_keeps_triangles_texture_and_chunks(tmp_path):
    out = tmp_path / "box.bsscene"
    scene = batchsim.import_scene(BOX_GLTF, out, bake_navmesh=False)
    assert scene.triangle_count == gltf_triangle_count(BOX_GLTF) == 12
    assert not scene.has_navmesh
    texture = scene.texture(0)
    assert texture["name"].endswith("CesiumLogoFlat.png")
    assert texture["pixels"].shape == (texture["height"], texture["width"], 4)
    assert texture["mip_count"] == int(np.log2(max(texture["width"], texture["height"]))) + 1
    assert scene.texture(0, level=texture["mip_count"] - 1)["pixels"].shape == (1, 1, 4)
    chunks = scene.chunks()
    assert chunks["index_count"].sum() == 3 * scene.triangle_count
    positions, indices = scene.positions(), scene.indices()
    assert indices.max() < len(positions)
    lo, hi = scene.bounds
    np.testing.assert_allclose(lo, positions.min(0))
    np.testing.assert_allclose(hi, positions.max(0))
    assert [m["texture"] for m in scene.materials()] == [0]
    again = batchsim.Scene.load(out)
    np.testing.assert_array_equal(again.positions(), positions)


def test_imported_scenes_carry_a_bvh_within_the_gpu_stack_depth(tmp_path):
    scene = batchsim.import_scene(SPIDER_OBJ, tmp_path / "spider.bsscene", bake_navmesh=False)
    assert 1 <= scene.bvh_node_count < scene.triangle_count  # leaves hold 1-4 triangles
    assert 1 < scene.bvh_depth <= 64
    # The 4-wide collapse the compute renderer uploads: about a third as many nodes, and
    # its leaves (count with the leaf bit) cover every triangle once.
    wide = scene.bvh4_nodes()
    assert wide.shape[1] == 32 and scene.bvh_node_count / 4 < len(wide) < scene.bvh_node_count
    counts = wide[:, 28:].view(np.uint32)
    assert (counts[counts != 0] & 0x7FFFFFFF).sum() == scene.triangle_count
    box = batchsim.import_scene(BOX_GLTF, tmp_path / "box.bsscene", bake_navmesh=False)
    assert box.bvh_node_count >= 1 and 1 <= box.bvh_depth <= 64


@pytest.mark.parametrize("version", [1, 2])
def test_older_scene_files_ask_for_a_reimport(tmp_path, version):
    path = tmp_path / "old.bsscene"
    batchsim.import_scene(BOX_GLTF, path, bake_navmesh=False)
    data = path.read_bytes()
    path.write_bytes(data[:8] + struct.pack("<I", version) + data[12:])
    pattern = rf"unsupported version {version} .*re-import the scene"
    with pytest.raises(batchsim.FormatError, match=pattern):
        batchsim.Scene.load(path)


def test_obj_import_bakes_a_navmesh_that_survives_the_packed_file(tmp_path):
    faces = sum(
        len(line.split()) - 3
        for line in SPIDER_OBJ.read_text().splitlines()
        if line.startswith("f ")
    )
    scene = batchsim.import_scene(SPIDER_OBJ, tmp_path / "spider.bsscene")
    assert 0 < scene.triangle_count <= faces  # the importer drops zero-area triangles
    assert scene.texture_count == 4
    navmesh = scene.navmesh()
    assert navmesh.num_islands >= 1 and navmesh.navigable_area > 0
    point = navmesh.get_random_navigable_point()
    assert navmesh.is_navigable(point)


def test_z_up_import_rotates_to_y_up(tmp_path):
    y_up = batchsim.import_scene(BOX_GLTF, tmp_path / "a.bsscene", bake_navmesh=False)
    z_up = batchsim.import_scene(BOX_GLTF, tmp_path / "b.bsscene", up="z", bake_navmesh=False)
    p, q = y_up.positions(), z_up.positions()
    # x,z,-y: new y is old z, new z is -old y (compare as point sets: order may differ)
    expected = np.stack([p[:, 0], p[:, 2], -p[:, 1]], 1)
    assert sorted(map(tuple, np.round(expected, 5))) == sorted(map(tuple, np.round(q, 5)))


def test_embedding_a_habitat_navmesh(tmp_path):
    source = tmp_path / "room.navmesh"
    # The box's floor (it spans -0.5..0.5): a navmesh must lie within its model's bounds.
    vertices = np.array([[-1, -1, -1], [1, -1, -1], [1, -1, 1], [-1, -1, 1]], np.float32) / 2
    settings = batchsim.navmesh_settings(region_min_size=1)  # keep the 0.64 m² floor
    room = batchsim.NavMesh.bake(vertices, np.array([[0, 2, 1], [0, 3, 2]]), settings)
    room.save(source)
    scene = batchsim.import_scene(BOX_GLTF, tmp_path / "s.bsscene", navmesh=source)
    assert scene.navmesh().to_bytes() == source.read_bytes()


def test_cli_import(tmp_path, capsys):
    out = tmp_path / "spider.bsscene"
    assert (
        main(["import", str(SPIDER_OBJ), str(out), "--agent-radius", "0.2", "--cell-size", "0.1"])
        == 0
    )
    assert "textures" in capsys.readouterr().out
    assert batchsim.Scene.load(out).navmesh().settings.agent_radius == pytest.approx(0.2)
    assert main(["import", str(tmp_path / "missing.glb"), str(tmp_path / "x.bsscene")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["import", str(MODELS / "PLY/Wuson.ply"), str(tmp_path / "w.bsscene")]) == 2
    assert "--no-navmesh" in capsys.readouterr().err
    assert (
        main(["import", str(MODELS / "PLY/Wuson.ply"), str(tmp_path / "w.bsscene"), "--no-navmesh"])
        == 0
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spider.bsscene", "w.bsscene"]


@pytest.mark.parametrize(
    ("source", "error", "message"),
    [
        ("missing.obj", batchsim.MissingFileError, "does not exist"),
        ("garbage.obj", batchsim.FormatError, "cannot import model"),
        ("nan.obj", batchsim.FormatError, "finite"),
        ("points.obj", batchsim.FormatError, "no faces|no triangles"),
        ("flat.obj", batchsim.FormatError, "zero"),
        ("empty.glb", batchsim.FormatError, r"empty \(0 bytes\)"),
        ("ktx2.glb", batchsim.UnsupportedError, "KHR_texture_basisu.*gltf-transform ktxdecompress"),
        ("cut_png.glb", batchsim.FormatError, r"cut_png\.glb.*cannot decode texture '\*0'"),
        ("no_texture.glb", batchsim.MissingFileError, "texture 'wall.png' does not exist"),
    ],
)
def test_bad_models_raise_and_write_nothing(tmp_path, source, error, message):
    models = tmp_path / "models"
    models.mkdir()
    write_bad_gltf(models)
    (models / "garbage.obj").write_bytes(bytes(range(256)) * 4)
    (models / "nan.obj").write_text("v 0 0 0\nv nan 0 0\nv 0 0 1\nf 1 2 3\n")
    (models / "points.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 0 1\n")
    (models / "flat.obj").write_text("v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n")
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(error, match=message):
        batchsim.import_scene(models / source, out / "scene.bsscene", bake_navmesh=False)
    assert list(out.iterdir()) == []


def write_bad_gltf(folder):
    """GLB quads whose texture is KTX2 only, a cut PNG or a missing file; an empty GLB."""
    (folder / "empty.glb").write_bytes(b"")
    png = encode_png(np.full((4, 4, 3), 90, np.uint8))
    for name, image, texture in [
        ("ktx2.glb", b"\xabKTX 20\xbb\r\n\x1a\n" + bytes(64), {"extensions": {KTX: {"source": 0}}}),
        ("cut_png.glb", png[:-16], {"source": 0}),
        ("no_texture.glb", None, {"source": 0}),
    ]:
        w = GlbWriter()
        points, triangles, uvs = grid((0, 0, 0), (1, 0, 0), (0, 0, 1), 1)
        w.doc["meshes"] = [{"primitives": [w.primitive(points, triangles, 0, uvs=uvs)]}]
        w.doc["nodes"] = [{"mesh": 0}]
        w.doc["materials"] = [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]
        w.doc["textures"] = [texture]
        embedded = {"bufferView": w.view(image or b""), "mimeType": "image/png"}
        w.doc["images"] = [{"uri": "wall.png"} if image is None else embedded]
        w.doc["extensionsUsed"] = [KTX] if "extensions" in texture else []
        w.write(folder / name)


def test_corrupted_scene_files_raise_format_error(tmp_path):
    good = tmp_path / "box.bsscene"
    batchsim.import_scene(BOX_GLTF, good, bake_navmesh=False)
    data = good.read_bytes()
    cases = {
        "magic": b"NOTSCENE" + data[8:],
        "version": data[:8] + struct.pack("<I", 99) + data[12:],
        "truncated": data[: len(data) // 2],
        "checksum": data[:-10] + bytes(b ^ 0xFF for b in data[-10:]),
        "tiny": data[:10],
    }
    for name, broken in cases.items():
        path = tmp_path / f"{name}.bsscene"
        path.write_bytes(broken)
        with pytest.raises(batchsim.FormatError):
            batchsim.Scene.load(path)
    with pytest.raises(batchsim.MissingFileError):
        batchsim.Scene.load(tmp_path / "missing.bsscene")


def test_bad_import_arguments(tmp_path):
    with pytest.raises(batchsim.InvalidArgumentError, match="up must be"):
        batchsim.import_scene(BOX_GLTF, tmp_path / "x", up="w")
    with pytest.raises(batchsim.InvalidArgumentError):
        batchsim.import_scene(BOX_GLTF, tmp_path / "x", axes="x,x,z", bake_navmesh=False)
    with pytest.raises(batchsim.InvalidArgumentError):
        batchsim.import_scene(BOX_GLTF, tmp_path / "x", scale=0, bake_navmesh=False)


def test_fbx_matches_the_same_model_in_obj(tmp_path):
    # spider.fbx and spider.obj are one model in two formats: an independent count.
    fbx = batchsim.import_scene(
        MODELS / "FBX/spider.fbx", tmp_path / "f.bsscene", bake_navmesh=False
    )
    obj = batchsim.import_scene(SPIDER_OBJ, tmp_path / "o.bsscene", bake_navmesh=False)
    assert fbx.triangle_count == obj.triangle_count == 1312


def test_ifc_building_gets_a_walkable_navmesh(tmp_path):
    # A real two-storey house (IFC, y up after Assimp): its floors and the ground are walkable.
    scene = batchsim.import_scene(MODELS / "IFC/AC14-FZK-Haus.ifc", tmp_path / "haus.bsscene")
    assert scene.triangle_count > 30000
    lo, hi = scene.bounds
    assert 5 < hi[1] - lo[1] < 10  # about 7 m tall
    navmesh = scene.navmesh()
    assert navmesh.navigable_area > 100
    navmesh.seed(1)
    a, b = navmesh.get_random_navigable_points(2, island_index=0)
    distance = navmesh.geodesic_distance(a, b)
    assert np.isfinite(distance) and distance >= np.linalg.norm(a - b) - 1e-3
