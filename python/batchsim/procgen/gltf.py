"""A minimal glTF 2.0 binary (GLB) writer: one mesh with one primitive per material,
embedded PNG (or JPEG) textures, deterministic bytes (fixed order, sorted JSON keys)."""

from __future__ import annotations

import dataclasses
import json
import struct

import numpy as np

from batchsim.procgen.geometry import MeshData

GLB_MAGIC, GLB_VERSION = 0x46546C67, 2
CHUNK_JSON, CHUNK_BIN = 0x4E4F534A, 0x004E4942
FLOAT, UNSIGNED_INT = 5126, 5125  # accessor componentType
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963  # bufferView target
LINEAR, LINEAR_MIPMAP_LINEAR, REPEAT = 9729, 9987, 10497


@dataclasses.dataclass(frozen=True)
class Material:
    name: str
    base_color: tuple[float, float, float, float]
    png: bytes  # the encoded base-colour image: PNG, or what mime_type names
    metallic: float = 0.0
    roughness: float = 0.8
    mime_type: str = "image/png"  # or "image/jpeg"


class _Buffer:
    """The BIN chunk under construction: views 4-byte aligned (every accessor type here
    has 4-byte components, so that alignment satisfies the spec)."""

    def __init__(self):
        self.parts, self.length, self.views = [], 0, []

    def view(self, data: bytes, target: int | None) -> int:
        pad = -self.length % 4
        self.parts.append(b"\x00" * pad)
        self.length += pad
        entry = {"buffer": 0, "byteOffset": self.length, "byteLength": len(data)}
        if target is not None:
            entry["target"] = target
        self.views.append(entry)
        self.parts.append(data)
        self.length += len(data)
        return len(self.views) - 1


def _accessor(buffer, accessors, array, kind, target, bounds=False) -> int:
    array = np.ascontiguousarray(array)
    entry = {
        "bufferView": buffer.view(array.tobytes(), target),
        "componentType": UNSIGNED_INT if array.dtype == np.uint32 else FLOAT,
        "count": int(array.shape[0]),
        "type": kind,
    }
    if bounds:  # POSITION must carry min and max
        entry["min"] = [float(v) for v in array.min(0)]
        entry["max"] = [float(v) for v in array.max(0)]
    accessors.append(entry)
    return len(accessors) - 1


def encode_glb(meshes: list[MeshData], materials: dict[str, Material], name: str) -> bytes:
    """GLB bytes for `meshes` (one primitive each) with their `materials`."""
    buffer, accessors, primitives, used = _Buffer(), [], [], []
    for mesh in meshes:
        if mesh.material not in used:
            used.append(mesh.material)
        primitives.append(
            {
                "attributes": {
                    "POSITION": _accessor(
                        buffer, accessors, mesh.positions, "VEC3", ARRAY_BUFFER, True
                    ),
                    "NORMAL": _accessor(buffer, accessors, mesh.normals, "VEC3", ARRAY_BUFFER),
                    "TEXCOORD_0": _accessor(buffer, accessors, mesh.uvs, "VEC2", ARRAY_BUFFER),
                },
                "indices": _accessor(
                    buffer, accessors, mesh.indices.reshape(-1), "SCALAR", ELEMENT_ARRAY_BUFFER
                ),
                "material": used.index(mesh.material),
                "mode": 4,
            }
        )
    images = [
        {"bufferView": buffer.view(materials[m].png, None), "mimeType": materials[m].mime_type}
        for m in used
    ]
    doc = {
        "asset": {"version": "2.0", "generator": "batchsim.procgen"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "name": name}],
        "meshes": [{"name": name, "primitives": primitives}],
        "materials": [_material_json(materials[m], i) for i, m in enumerate(used)],
        "textures": [{"sampler": 0, "source": i} for i in range(len(used))],
        "images": images,
        "samplers": [
            {
                "magFilter": LINEAR,
                "minFilter": LINEAR_MIPMAP_LINEAR,
                "wrapS": REPEAT,
                "wrapT": REPEAT,
            }
        ],
        "accessors": accessors,
        "bufferViews": buffer.views,
        "buffers": [{"byteLength": buffer.length}],
    }
    return _pack(
        json.dumps(doc, sort_keys=True, separators=(",", ":")).encode(), b"".join(buffer.parts)
    )


def _material_json(material: Material, texture: int) -> dict:
    return {
        "name": material.name,
        "pbrMetallicRoughness": {
            "baseColorFactor": [float(c) for c in material.base_color],
            "baseColorTexture": {"index": texture},
            "metallicFactor": float(material.metallic),
            "roughnessFactor": float(material.roughness),
        },
    }


def _pack(json_bytes: bytes, bin_bytes: bytes) -> bytes:
    """Header + JSON chunk (space-padded) + BIN chunk (zero-padded), 4-byte aligned."""
    json_bytes += b" " * (-len(json_bytes) % 4)
    bin_bytes += b"\x00" * (-len(bin_bytes) % 4)
    total = 12 + 8 + len(json_bytes) + 8 + len(bin_bytes)
    return b"".join(
        [
            struct.pack("<III", GLB_MAGIC, GLB_VERSION, total),
            struct.pack("<II", len(json_bytes), CHUNK_JSON),
            json_bytes,
            struct.pack("<II", len(bin_bytes), CHUNK_BIN),
            bin_bytes,
        ]
    )
