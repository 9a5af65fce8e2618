"""Image writers: PNG (our own deterministic encoder) and animated GIF (through Pillow).
Both write atomically: a reader never sees half a file, and a failed write leaves the old one."""

from __future__ import annotations

import io
import os
import struct
import zlib
from collections.abc import Sequence

import numpy as np

from batchsim._files import write_bytes_atomically
from batchsim.viz._pillow import pillow


def write_png(path: str | os.PathLike, image: np.ndarray) -> None:
    """Writes an 8-bit grayscale [H, W] or RGB [H, W, 3] array as PNG, atomically."""
    write_bytes_atomically(path, encode_png(image))


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes of an 8-bit grayscale [H, W] or RGB [H, W, 3] array (deterministic)."""
    image = np.ascontiguousarray(image)
    if (
        image.dtype != np.uint8
        or image.ndim not in (2, 3)
        or (image.ndim == 3 and image.shape[2] != 3)
    ):
        raise ValueError(
            f"expected uint8 [H, W] or [H, W, 3], got {image.dtype} {list(image.shape)}"
        )
    height, width = image.shape[:2]
    colour_type = 2 if image.ndim == 3 else 0
    rows = image.reshape(height, -1)
    raw = b"".join(b"\x00" + row.tobytes() for row in rows)  # filter type 0 per row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6))
    return data + chunk(b"IEND", b"")


def write_gif(frames: Sequence[np.ndarray], path: str | os.PathLike, fps: float = 8) -> None:
    """An endlessly looping GIF of RGB frames, written atomically."""
    if not frames:
        raise ValueError("write_gif: expected at least one frame")
    if fps <= 0:
        raise ValueError(f"fps: expected > 0, got {fps}")
    Image, _, _ = pillow()
    pictures = [Image.fromarray(np.ascontiguousarray(f, dtype=np.uint8)) for f in frames]
    buffer = io.BytesIO()
    pictures[0].save(
        buffer,
        format="GIF",
        save_all=True,
        append_images=pictures[1:],
        duration=max(20, round(1000 / fps)),  # browsers play shorter delays as 100 ms
        loop=0,
    )
    write_bytes_atomically(path, buffer.getvalue())
