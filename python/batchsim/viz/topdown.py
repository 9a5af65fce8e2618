"""Top-down navmesh maps and drawing on them in world coordinates (paths, discs)."""

from __future__ import annotations

import itertools

import numpy as np

# Top-down map colours (RGB): free floor, other islands' floor, everything else.
NAVIGABLE = (236, 236, 228)
OTHER_FLOOR = (190, 200, 225)
BLOCKED = (48, 52, 60)
STOREY = 1.5  # metres between floors at least (NavMesh.floor_heights' separation)


def _large_island_levels(navmesh) -> list[tuple[float, int]]:
    """(height, island) of the large islands (>= 25% of the largest's area)."""
    areas = [navmesh.island_area(i) for i in range(navmesh.num_islands)]
    levels = []
    for island, area in enumerate(areas):
        if area >= 0.25 * max(areas):
            navmesh.seed(0)
            levels.append((float(navmesh.get_random_navigable_points(1, island)[0, 1]), island))
    return levels


def ground_island(navmesh) -> tuple[int, float]:
    """The lowest of the large islands (>= 25% of the largest's area), and its height: the
    ground floor rather than a roof that happens to be bigger."""
    height, island = min(_large_island_levels(navmesh))
    return island, height


def topdown_image(
    navmesh, meters_per_pixel: float = 0.05, height: float | None = None
) -> np.ndarray:
    """RGB top-down map of the navmesh at `height` (default: the ground floor's level).

    Rows run along +z from the bounds' minimum, columns along +x (habitat-sim's
    get_topdown_view). The ground island (on an upper floor: the largest island nearest
    that height) is light, other floor at that level blue-grey.
    """
    island, ground = ground_island(navmesh)
    if height is None:
        height = ground
    elif abs(height - ground) >= STOREY:  # an upper floor: its own main island
        _, island = min((abs(h - height), i) for h, i in _large_island_levels(navmesh))
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


def floor_maps(navmesh, meters_per_pixel: float = 0.05) -> list[tuple[float, np.ndarray]]:
    """(height, top-down map) of every floor (NavMesh.floor_heights), lowest first."""
    return [(h, topdown_image(navmesh, meters_per_pixel, h)) for h in navmesh.floor_heights()]


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
