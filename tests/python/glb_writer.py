"""A small GLB writer for tests that need what batchsim.procgen.gltf does not write: vertex
colours (COLOR_0), several primitives sharing a mesh, any material or image JSON."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

FLOAT, UNSIGNED_BYTE, UNSIGNED_INT = 5126, 5121, 5125
TYPES = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4"}


class GlbWriter:
    """Accessors and buffer views of one BIN chunk; the caller adds glTF objects as dicts."""

    def __init__(self):
        self.bin, self.views, self.accessors = bytearray(), [], []
        self.doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}]}

    def view(self, data: bytes) -> int:
        self.bin += b"\x00" * (-len(self.bin) % 4)
        self.views.append({"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)})
        self.bin += data
        return len(self.views) - 1

    def accessor(self, array: np.ndarray, normalized: bool = False) -> int:
        array = np.ascontiguousarray(array)
        kind = {np.float32: FLOAT, np.uint8: UNSIGNED_BYTE, np.uint32: UNSIGNED_INT}
        entry = {
            "bufferView": self.view(array.tobytes()),
            "componentType": kind[array.dtype.type],
            "count": len(array),
            "type": TYPES[1 if array.ndim == 1 else array.shape[1]],
        }
        if normalized:
            entry["normalized"] = True
        if array.ndim == 2 and array.shape[1] == 3 and array.dtype == np.float32:
            entry["min"], entry["max"] = array.min(0).tolist(), array.max(0).tolist()
        self.accessors.append(entry)
        return len(self.accessors) - 1

    def primitive(self, positions, indices, material, uvs=None, colors=None) -> dict:
        """colors: float32 [N, 4] linear, or uint8 [N, 3] (normalized)."""
        attributes = {"POSITION": self.accessor(np.asarray(positions, np.float32))}
        if uvs is not None:
            attributes["TEXCOORD_0"] = self.accessor(np.asarray(uvs, np.float32))
        if colors is not None:
            attributes["COLOR_0"] = self.accessor(colors, normalized=colors.dtype == np.uint8)
        index = self.accessor(np.asarray(indices, np.uint32).reshape(-1))
        return {"attributes": attributes, "indices": index, "material": material}

    def write(self, path: Path) -> Path:
        doc = dict(self.doc, accessors=self.accessors, bufferViews=self.views)
        doc["buffers"] = [{"byteLength": len(self.bin)}]
        text = json.dumps(doc).encode()
        text += b" " * (-len(text) % 4)
        data = bytes(self.bin) + b"\x00" * (-len(self.bin) % 4)
        total = 12 + 8 + len(text) + 8 + len(data)
        path.write_bytes(
            struct.pack("<III", 0x46546C67, 2, total)
            + struct.pack("<II", len(text), 0x4E4F534A)
            + text
            + struct.pack("<II", len(data), 0x004E4942)
            + data
        )
        return path


def grid(origin, right, down, cells: int):
    """A (cells + 1)^2 grid of points origin + i/cells right + j/cells down, its triangles
    and UVs spread like an image (v down)."""
    t = np.linspace(0, 1, cells + 1)
    u, v = np.meshgrid(t, t)
    points = (
        np.asarray(origin)
        + u.reshape(-1, 1) * np.asarray(right)
        + v.reshape(-1, 1) * np.asarray(down)
    )
    a = (np.arange(cells)[None, :] + (cells + 1) * np.arange(cells)[:, None]).reshape(-1)
    b, c, d = a + 1, a + cells + 1, a + cells + 2
    triangles = np.concatenate([np.stack([a, b, d], 1), np.stack([a, d, c], 1)])
    return points.astype(np.float32), triangles, np.stack([u, v], -1).reshape(-1, 2)
