"""Issue 40, part C: the importer's inputs and misleading messages. One test per class of
input, each on files built here (a GLB by struct, a PNG by zlib), through every way such an
input is read: `batchsim.import_scene`, `batchsim import`, `NavMesh.bake`, `BatchNavEnv`."""

from __future__ import annotations

import gzip
import io
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

import batchsim
from batchsim.cli import main
from glb_writer import GlbWriter, grid


def png(width: int, height: int) -> bytes:
    """A PNG declaring width x height (RGBA8); its image data covers at most 2 rows."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    rows = b"".join(b"\x00" + bytes(4 * width) for _ in range(min(height, 2)))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def floor_glb(path: Path, size: float = 4.0, origin=(0, 0, 0), node=None, image=None) -> Path:
    """A size x size floor (a 4 x 4 grid: 25 vertices) in mesh 'Cube'; `node`: extra node
    fields (a scale); `image`: the base-colour texture's glTF image (a uri, or bytes with
    mimeType image/png in a buffer view)."""
    w = GlbWriter()
    points, triangles, uvs = grid(origin, [0, 0, size], [size, 0, 0], 4)  # facing up
    w.doc["meshes"] = [{"name": "Cube", "primitives": [w.primitive(points, triangles, 0, uvs)]}]
    material = {"pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1]}}
    if image is not None:
        material["pbrMetallicRoughness"]["baseColorTexture"] = {"index": 0}
        w.doc["textures"] = [{"source": 0}]
        if isinstance(image, bytes):
            image = {"bufferView": w.view(image), "mimeType": "image/png"}
        w.doc["images"] = [image]
    w.doc["materials"] = [material]
    w.doc["nodes"] = [{"mesh": 0, **(node or {})}]
    return w.write(path)


def move_vertex(path: Path, vertex: int, position) -> None:
    """Sets one vertex of floor_glb's POSITION accessor (the BIN chunk's first bytes)."""
    data = bytearray(path.read_bytes())
    json_length = struct.unpack_from("<I", data, 12)[0]
    struct.pack_into("<3f", data, 20 + json_length + 8 + 12 * vertex, *position)
    path.write_bytes(bytes(data))


def test_vertices_beyond_the_simulators_bound_are_refused(tmp_path):
    far = floor_glb(tmp_path / "far.glb")
    move_vertex(far, 12, (1e30, 0, 0))
    with pytest.raises(batchsim.FormatError) as error:
        batchsim.import_scene(far, tmp_path / "far.bsscene", bake_navmesh=False)
    assert str(error.value) == (
        f"model '{far}': mesh 'Cube' vertex 12 is at (1e+30, 0, 0); expected finite "
        "coordinates within ±1e+06 m (the navmesh's and simulator's bound)"
    )
    # The bound is in metres: the import's scale counts, and so do node transforms.
    floor = floor_glb(tmp_path / "floor.glb")
    with pytest.raises(batchsim.FormatError, match=r"vertex 2 is at \(0, 0, 2\) before the imp"):
        batchsim.import_scene(floor, tmp_path / "s.bsscene", scale=1e6, bake_navmesh=False)
    scaled = floor_glb(tmp_path / "scaled.glb", node={"scale": [1e6, 1, 1]})
    with pytest.raises(batchsim.FormatError, match=r"its nodes' transforms applied\) is at"):
        batchsim.import_scene(scaled, tmp_path / "n.bsscene", bake_navmesh=False)
    # OBJ (and any format Assimp reads) the same way.
    obj = tmp_path / "far.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 0 1e30\nf 1 2 3\n")
    with pytest.raises(batchsim.FormatError, match=r"vertex 2 is at \(0, 0, 1e\+30\); expected"):
        batchsim.import_scene(obj, tmp_path / "o.bsscene", bake_navmesh=False)
    # Within the bound: imported whole.
    scene = batchsim.import_scene(floor, tmp_path / "ok.bsscene", scale=2e5, bake_navmesh=False)
    assert scene.triangle_count == 32
    assert np.allclose(scene.bounds[1], [8e5, 0, 8e5])


def test_a_navmesh_grid_recast_cannot_bake_is_refused_first(tmp_path):
    huge = floor_glb(tmp_path / "huge.glb", size=8e5)  # 800 km: finite and within 1e6 m
    with pytest.raises(batchsim.InvalidArgumentError) as error:
        batchsim.import_scene(huge, tmp_path / "huge.bsscene")
    message = str(error.value)
    assert "the model spans 800000 x 800000 m (x by z): at cell_size 0.05 m its navmesh" in message
    assert "grid would be 1.6e+07 x 1.6e+07 cells" in message
    assert "(65535 a side, 268435456 in all" in message
    assert "raise cell_size (--cell-size) to at least 48.8281 m" in message
    # NavMesh.bake is the same bake; a tall model is refused by its height in cells.
    tall = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 1], [0, 2000, 0]], np.float32)
    with pytest.raises(batchsim.InvalidArgumentError, match=r"is 2000 m tall: .* 10000 cells"):
        batchsim.NavMesh.bake(tall, np.array([[0, 2, 1], [0, 1, 3]]))
    # A 5 m room modelled in millimetres: refused as it is, baked at the scale the message
    # suggests.
    room = floor_glb(tmp_path / "mm.glb", size=5000)
    with pytest.raises(batchsim.InvalidArgumentError, match=r"grid would be 100000 x 100000 cells"):
        batchsim.import_scene(room, tmp_path / "mm.bsscene")
    scene = batchsim.import_scene(room, tmp_path / "mm.bsscene", scale=0.001)
    assert scene.navmesh().navigable_area == pytest.approx(4.8**2, rel=0.05)


def test_a_navmesh_of_another_scene_is_refused(tmp_path, capsys):
    model = floor_glb(tmp_path / "room.glb")  # 4 x 4 m from the origin
    corners = np.array([[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]], np.float32)
    triangles = np.array([[0, 2, 1], [0, 3, 2]])
    other = tmp_path / "other.navmesh"
    batchsim.NavMesh.bake(corners * 4 + [100, 0, 0], triangles).save(other)
    with pytest.raises(batchsim.InvalidArgumentError) as error:
        batchsim.import_scene(model, tmp_path / "x.bsscene", navmesh=other)
    assert str(error.value).startswith(
        f"navmesh '{other}' does not belong to model '{model}': its walkable surface spans "
        "(100.15, 0.2, 0.15) to (103.85, 0.2, 3.85), beyond the model's bounds (0, 0, 0) to "
        "(4, 0, 4) by more than 0.3 m across or 1 m up or down"
    )
    argv = ["import", str(model), str(tmp_path / "y.bsscene"), "--navmesh", str(other)]
    assert main(argv) == 2
    assert "does not belong to model" in capsys.readouterr().err
    assert not (tmp_path / "y.bsscene").exists()
    # Its own navmesh (baked from the same floor) is embedded as it is.
    own = tmp_path / "own.navmesh"
    batchsim.NavMesh.bake(corners * 4, triangles).save(own)
    scene = batchsim.import_scene(model, tmp_path / "room.bsscene", navmesh=own)
    assert scene.navmesh().to_bytes() == own.read_bytes()


def test_files_that_are_not_what_their_name_says_are_named_for_what_they_are(tmp_path):
    image = png(2, 2)
    for name in ("x.glb", "x.gltf"):
        (tmp_path / name).write_bytes(image)
        with pytest.raises(batchsim.FormatError) as error:
            batchsim.import_scene(tmp_path / name, tmp_path / "x.bsscene")
        assert str(error.value) == f"'{tmp_path / name}' is a PNG image, not a GLB/glTF model"
    (tmp_path / "x.obj").write_bytes(image)
    with pytest.raises(batchsim.FormatError, match=r"is a PNG image, not a model \(its name says"):
        batchsim.import_scene(tmp_path / "x.obj", tmp_path / "x.bsscene")
    (tmp_path / "x.ply").write_bytes(gzip.compress(b"ply\nformat ascii 1.0\n"))
    with pytest.raises(batchsim.FormatError, match=r"is a gzip archive, not a model .*unpack it"):
        batchsim.import_scene(tmp_path / "x.ply", tmp_path / "x.bsscene")
    # Textures: a file whose name says PNG, and an embedded image whose mimeType does.
    (tmp_path / "wood.png").write_bytes(gzip.compress(b"not an image" * 10))
    textured = floor_glb(tmp_path / "t.glb", image={"uri": "wood.png"})
    with pytest.raises(batchsim.FormatError) as error:
        batchsim.import_scene(textured, tmp_path / "t.bsscene", bake_navmesh=False)
    assert str(error.value) == (
        f"model '{textured}': texture 'wood.png' is a gzip archive, not an image; its name or "
        "mimeType says a PNG image (batchsim decodes PNG, JPEG, TGA, BMP, PSD, GIF, HDR, PIC or "
        "PNM)"
    )
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("a.png", image)
    embedded = floor_glb(tmp_path / "e.glb", image=archive.getvalue())
    with pytest.raises(batchsim.FormatError, match=r"'\*0' is a zip archive, not an image; its"):
        batchsim.import_scene(embedded, tmp_path / "e.bsscene", bake_navmesh=False)
    # A real PNG embedded the same way imports.
    fine = floor_glb(tmp_path / "f.glb", image=image)
    assert batchsim.import_scene(fine, tmp_path / "f.bsscene", bake_navmesh=False).texture_count


def test_textures_larger_than_the_renderer_takes_are_refused_with_their_size(tmp_path):
    (tmp_path / "big.png").write_bytes(png(60000, 60000))
    model = floor_glb(tmp_path / "m.glb", image={"uri": "big.png"})
    with pytest.raises(batchsim.FormatError) as error:
        batchsim.import_scene(model, tmp_path / "m.bsscene", bake_navmesh=False)
    assert str(error.value).startswith(
        f"model '{model}': texture 'big.png' is 60000x60000; expected 1 to 16384 pixels per "
        "side (kMaxTextureSize: "
    )
    embedded = floor_glb(tmp_path / "e.glb", image=png(20000, 3))
    with pytest.raises(batchsim.FormatError, match=r"texture '\*0' is 20000x3; expected 1 to"):
        batchsim.import_scene(embedded, tmp_path / "e.bsscene", bake_navmesh=False)


def test_scenes_resident_beyond_the_renderer_names_scenes_resident(procgen_dataset):
    split = procgen_dataset[0] / "pointnav" / "train"
    options = dict(device="cpu", resolution=(8, 8), sensors=("depth",))
    with pytest.raises(batchsim.InvalidArgumentError) as error:
        batchsim.BatchNavEnv(split, 2, scenes_resident=1000, **options)
    assert str(error.value).startswith(
        "scenes_resident: expected 1..128 for a rendering simulator, got 1000: the renderer "
        "holds each resident scene at two places"
    )
    with pytest.raises(batchsim.InvalidArgumentError, match=r"expected 1\.\.128 .*got 129"):
        batchsim.Simulator(split, num_envs=2, scenes_resident=129, **options)
    env = batchsim.BatchNavEnv(split, 2, scenes_resident=128, **options)
    env.reset(seed=0)
    env.close()
