"""What every case of scripts/probe_inputs.py starts with: the probe's dataset and trained
run, and small makers of bad inputs (models, images, pipes, bombs, splits). Run inside the
case's own process, in its own empty folder; BATCHSIM_PROBE names the shared fixtures."""

from __future__ import annotations

import gzip
import json
import os
import struct
import zlib
from pathlib import Path

import numpy as np

import batchsim  # noqa: F401  (every case uses it)

FIXTURES = Path(os.environ["BATCHSIM_PROBE"])
DATA = FIXTURES / "data"
SPLIT = DATA / "pointnav" / "train"
RUN = FIXTURES / "run"  # a two-update training run with its checkpoint
SCENE = sorted((DATA / "scene_datasets").rglob("*.bsscene"))[0]
NAVMESH = FIXTURES / "scene.navmesh"  # the scene's own navmesh, saved by the driver
W = Path.cwd()


def episodes(split: Path = SPLIT) -> list[dict]:
    """The split's episodes as JSON dicts (its content files, or the split file itself)."""
    found = []
    for path in sorted((split / "content").glob("*.json.gz")) or [split / f"{split.name}.json.gz"]:
        found += json.loads(gzip.decompress(path.read_bytes()))["episodes"]
    return found


def write_split(folder: Path, episode_list: list[dict]) -> Path:
    """A one-file split under ``folder``, its scene paths pointing into the probe's data."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{folder.name}.json.gz"
    for episode in episode_list:  # Habitat's scene_id is relative to data/'s parent
        episode["scene_id"] = str(DATA.parent / episode["scene_id"])
    path.write_bytes(gzip.compress(json.dumps({"episodes": episode_list}).encode()))
    return folder


def one_episode(**changes) -> Path:
    """A split of one of the probe's episodes with ``changes`` applied."""
    episode = episodes()[0] | changes
    return write_split(W / "one", [episode])


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def png(width: int, height: int) -> bytes:
    """A PNG header declaring width x height (one row of pixel data)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\0" * (3 * min(width, 64) + 1))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def glb(positions, indices=None, extra_json: dict | None = None) -> bytes:
    """A GLB of one triangle mesh: float32 positions [V, 3], uint32 indices."""
    positions = np.asarray(positions, np.float32).reshape(-1, 3)
    indices = np.arange(len(positions), dtype=np.uint32) if indices is None else indices
    index_bytes = np.asarray(indices, np.uint32).tobytes()
    blob = positions.tobytes() + index_bytes
    finite = np.where(np.isfinite(positions), positions, 0)
    gltf = {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [
            {"name": "probe", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}
        ],
        "buffers": [{"byteLength": len(blob)}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": positions.nbytes},
            {"buffer": 0, "byteOffset": positions.nbytes, "byteLength": len(index_bytes)},
        ],
        "accessors": [
            {
                "bufferView": 0,
                "componentType": 5126,
                "count": len(positions),
                "type": "VEC3",
                "min": finite.min(0).tolist(),
                "max": finite.max(0).tolist(),
            },
            {"bufferView": 1, "componentType": 5125, "count": len(indices), "type": "SCALAR"},
        ],
    } | (extra_json or {})
    text = json.dumps(gltf).encode()
    text += b" " * (-len(text) % 4)
    blob += b"\0" * (-len(blob) % 4)
    body = (
        struct.pack("<II", len(text), 0x4E4F534A)
        + text
        + struct.pack("<II", len(blob), 0x004E4942)
        + blob
    )
    return struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body


def floor(size: float = 6.0, at: float = 0.0) -> list:
    """Two triangles of a square floor, ``size`` metres across, at x = z = ``at``."""
    a, b = at - size / 2, at + size / 2
    return [[a, 0, a], [a, 0, b], [b, 0, b], [a, 0, a], [b, 0, b], [b, 0, a]]
