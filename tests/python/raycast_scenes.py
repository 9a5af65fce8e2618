"""Scenes with known answers for the raycast_reference tests: quads written as glTF
(batchsim.procgen.gltf) and imported with batchsim.import_scene, camera rotations, and the
independent expectations (sRGB bytes, pixel-centre NDC) the tests compare against."""

import math

import numpy as np

import batchsim
from batchsim.procgen.geometry import MeshData
from batchsim.procgen.gltf import Material, encode_glb
from batchsim.viz import encode_png
from raycast_reference import ReferenceScene

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
