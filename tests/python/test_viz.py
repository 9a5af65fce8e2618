"""batchsim.viz: PNG files decoded independently (chunk by chunk) and top-down maps."""

import struct
import zlib

import numpy as np
import pytest

import batchsim
from batchsim.viz import BLOCKED, NAVIGABLE, topdown_image, write_png


def decode_png(data: bytes) -> tuple[tuple, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + length
    return struct.unpack(">IIBBBBB", chunks[b"IHDR"]), zlib.decompress(chunks[b"IDAT"])


def test_png_round_trip(tmp_path):
    image = np.random.default_rng().integers(0, 256, (5, 7, 3), dtype=np.uint8)
    write_png(tmp_path / "a.png", image)
    header, raw = decode_png((tmp_path / "a.png").read_bytes())
    assert (tmp_path / "a.png").stat().st_mode & 0o044  # readable by others, like any file
    assert [p.name for p in tmp_path.iterdir()] == ["a.png"]
    assert header == (7, 5, 8, 2, 0, 0, 0)
    rows = np.frombuffer(raw, np.uint8).reshape(5, 1 + 7 * 3)
    assert (rows[:, 0] == 0).all()
    np.testing.assert_array_equal(rows[:, 1:].reshape(5, 7, 3), image)
    with pytest.raises(ValueError, match="expected uint8"):
        write_png(tmp_path / "b.png", image.astype(np.float32))


def test_topdown_image_of_a_room():
    vertices = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], np.float32)
    room = batchsim.NavMesh.bake(vertices, np.array([[0, 2, 1], [0, 3, 2]]))
    image = topdown_image(room, meters_per_pixel=0.5)
    assert image.shape == (20, 20, 3)
    assert tuple(image[10, 10]) == NAVIGABLE
    assert tuple(image[0, 0]) == BLOCKED
