"""Pictures of what batchsim computes: PNG writing and top-down navmesh maps."""

from __future__ import annotations

import itertools
import os
import struct
import zlib

import numpy as np

from batchsim._files import write_bytes_atomically

# Top-down map colours (RGB): free floor, other islands' floor, everything else.
NAVIGABLE = (236, 236, 228)
OTHER_FLOOR = (190, 200, 225)
BLOCKED = (48, 52, 60)


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


def ground_island(navmesh) -> tuple[int, float]:
    """The lowest of the large islands (>= 25% of the largest's area), and its height: the
    ground floor rather than a roof that happens to be bigger."""
    areas = [navmesh.island_area(i) for i in range(navmesh.num_islands)]
    levels = []
    for island, area in enumerate(areas):
        if area >= 0.25 * max(areas):
            navmesh.seed(0)
            levels.append((float(navmesh.get_random_navigable_points(1, island)[0, 1]), island))
    height, island = min(levels)
    return island, height


def topdown_image(
    navmesh, meters_per_pixel: float = 0.05, height: float | None = None
) -> np.ndarray:
    """RGB top-down map of the navmesh at `height` (default: the ground floor's level).

    Rows run along +z from the bounds' minimum, columns along +x (habitat-sim's
    get_topdown_view). The ground island is light, other floor at that level blue-grey.
    """
    island, ground = ground_island(navmesh)
    height = ground if height is None else height
    navigable = navmesh.get_topdown_view(meters_per_pixel, height)
    image = np.empty((*navigable.shape, 3), np.uint8)
    image[:] = BLOCKED
    image[navigable] = OTHER_FLOOR
    lo, _ = navmesh.get_bounds()
    rows, cols = np.nonzero(navigable)
    x, z = lo[0] + cols * meters_per_pixel, lo[2] + rows * meters_per_pixel
    points = np.stack([x, np.full(len(rows), height), z], 1).astype(np.float32)
    on_island = np.array([navmesh.get_island(p) == island for p in points], bool)
    image[rows[on_island], cols[on_island]] = NAVIGABLE
    return image


def _pixel(lo, meters_per_pixel: float, point) -> tuple[int, int]:
    """(row, col) of a world point on a top-down map whose corner is `lo` (bounds min)."""
    return int((point[2] - lo[2]) / meters_per_pixel), int((point[0] - lo[0]) / meters_per_pixel)


def draw_disc(image: np.ndarray, lo, meters_per_pixel: float, point, radius: int, colour) -> None:
    """A filled disc of `radius` pixels at a world point."""
    row, col = _pixel(lo, meters_per_pixel, point)
    rr, cc = np.ogrid[: image.shape[0], : image.shape[1]]
    image[(rr - row) ** 2 + (cc - col) ** 2 <= radius**2] = colour


def draw_path(image: np.ndarray, lo, meters_per_pixel: float, path, colour, width: int = 1) -> None:
    """A polyline through world points (e.g. NavMesh.find_path), sampled every half pixel."""
    path = np.asarray(path, np.float64)
    for a, b in itertools.pairwise(path):
        steps = max(2, int(2 * np.linalg.norm(b - a) / meters_per_pixel))
        for t in np.linspace(0, 1, steps):
            row, col = _pixel(lo, meters_per_pixel, a + t * (b - a))
            image[max(row - width, 0) : row + width + 1, max(col - width, 0) : col + width + 1] = (
                colour
            )


def mosaic(
    images: list[np.ndarray], columns: int, pad: int = 8, background=(255, 255, 255)
) -> np.ndarray:
    """Tiles RGB images of any sizes in a grid (row-major), each cell as large as the largest."""
    rows = -(-len(images) // columns)
    cell_h = max(i.shape[0] for i in images) + pad
    cell_w = max(i.shape[1] for i in images) + pad
    out = np.empty((rows * cell_h + pad, columns * cell_w + pad, 3), np.uint8)
    out[:] = background
    for index, image in enumerate(images):
        top, left = pad + (index // columns) * cell_h, pad + (index % columns) * cell_w
        out[top : top + image.shape[0], left : left + image.shape[1]] = image
    return out


def depth_image(depth: np.ndarray, range_m: float = 8.0) -> np.ndarray:
    """[H, W] metres as RGB: near is light, far or nothing (0) dark."""
    shade = 255 * (1 - np.clip(depth / range_m, 0, 1))
    shade[depth == 0] = 0
    return np.repeat(shade[..., None], 3, -1).astype(np.uint8)


def observation_mosaic(observations: dict, max_views: int = 64) -> np.ndarray:
    """The first max_views environments' views as one RGB image: ``rgb`` [N, 3, H, W]
    where present, else shaded ``depth`` [N, 1, H, W] (torch tensors or numpy arrays)."""
    if "rgb" in observations:
        views = [np.asarray(v).transpose(1, 2, 0) for v in _host(observations["rgb"], max_views)]
    else:
        views = [depth_image(np.asarray(v)[0]) for v in _host(observations["depth"], max_views)]
    return mosaic(views, columns=int(np.ceil(np.sqrt(len(views)))), pad=2)


def _host(tensor, count: int) -> np.ndarray:
    head = tensor[:count]
    return head.cpu().numpy() if hasattr(head, "cpu") else np.asarray(head)
