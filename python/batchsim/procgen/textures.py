"""Procedural textures (numpy, deterministic): 256x256 RGB images per material, PNG-encoded.

Each material has a few colour variants; a scene picks one per material, and encoded
images are cached, so generating many scenes pays for each texture once.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from batchsim.viz import encode_png

SIZE = 256  # texels per side: sharp at the simulator's small resolutions, small files
VARIANTS = 4  # colour variants per material


@dataclasses.dataclass(frozen=True)
class MaterialInfo:
    tile: float  # metres per texture repeat (world-scale UVs)
    colours: tuple[tuple[float, float, float], ...]  # base colours of the variants (0..1)
    metallic: float = 0.0
    roughness: float = 0.8


MATERIALS = {
    "wood_floor": MaterialInfo(
        2.0, ((0.62, 0.45, 0.3), (0.75, 0.6, 0.42), (0.45, 0.3, 0.2), (0.8, 0.72, 0.58))
    ),
    "tile_floor": MaterialInfo(
        1.2,
        ((0.85, 0.85, 0.82), (0.6, 0.62, 0.65), (0.78, 0.72, 0.62), (0.4, 0.42, 0.45)),
        0.0,
        0.4,
    ),
    "carpet": MaterialInfo(
        1.0, ((0.35, 0.38, 0.45), (0.5, 0.45, 0.4), (0.3, 0.42, 0.38), (0.55, 0.3, 0.3))
    ),
    "wall": MaterialInfo(
        2.0, ((0.92, 0.9, 0.85), (0.8, 0.86, 0.9), (0.9, 0.84, 0.74), (0.78, 0.85, 0.76))
    ),
    "ceiling": MaterialInfo(
        2.0, ((0.96, 0.96, 0.95), (0.93, 0.93, 0.9), (0.97, 0.95, 0.92), (0.9, 0.92, 0.94))
    ),
    "trim": MaterialInfo(
        1.0, ((0.97, 0.97, 0.95), (0.55, 0.4, 0.28), (0.3, 0.3, 0.32), (0.85, 0.82, 0.75)), 0.0, 0.5
    ),
    "wood": MaterialInfo(
        1.0, ((0.55, 0.38, 0.24), (0.7, 0.55, 0.38), (0.35, 0.24, 0.16), (0.82, 0.7, 0.52))
    ),
    "fabric": MaterialInfo(
        0.5, ((0.3, 0.35, 0.5), (0.55, 0.5, 0.45), (0.45, 0.25, 0.25), (0.35, 0.45, 0.35))
    ),
    "metal": MaterialInfo(
        1.0,
        ((0.7, 0.7, 0.72), (0.25, 0.25, 0.27), (0.75, 0.65, 0.45), (0.5, 0.52, 0.55)),
        0.9,
        0.35,
    ),
    "concrete": MaterialInfo(
        2.0, ((0.6, 0.6, 0.58), (0.7, 0.68, 0.64), (0.5, 0.52, 0.54), (0.75, 0.75, 0.74))
    ),
    "ceramic": MaterialInfo(
        0.6, ((0.95, 0.95, 0.95), (0.85, 0.9, 0.95), (0.95, 0.92, 0.85), (0.9, 0.9, 0.88)), 0.0, 0.2
    ),
    "books": MaterialInfo(
        0.5, ((0.6, 0.4, 0.3), (0.3, 0.4, 0.6), (0.5, 0.5, 0.3), (0.6, 0.3, 0.4))
    ),
    "plant": MaterialInfo(
        0.5, ((0.25, 0.5, 0.2), (0.35, 0.55, 0.25), (0.2, 0.42, 0.25), (0.4, 0.5, 0.2))
    ),
    "stone_floor": MaterialInfo(
        2.4,
        ((0.78, 0.76, 0.72), (0.55, 0.55, 0.58), (0.82, 0.74, 0.62), (0.35, 0.36, 0.38)),
        0.0,
        0.5,
    ),
    "grass": MaterialInfo(
        1.5, ((0.3, 0.5, 0.2), (0.38, 0.52, 0.25), (0.45, 0.5, 0.28), (0.28, 0.42, 0.22))
    ),
    "paving": MaterialInfo(
        1.6, ((0.62, 0.6, 0.56), (0.7, 0.55, 0.45), (0.5, 0.5, 0.52), (0.75, 0.7, 0.6)), 0.0, 0.9
    ),
    "screen": MaterialInfo(
        1.0, ((0.05, 0.05, 0.07), (0.08, 0.08, 0.1), (0.04, 0.05, 0.06), (0.1, 0.1, 0.12)), 0.2, 0.1
    ),
}


FLOOR_CHOICES = {  # floor materials each room kind draws from (one per kind and building)
    "hallway": ("wood_floor", "tile_floor", "stone_floor"),
    "living": ("wood_floor", "carpet", "stone_floor"),
    "bedroom": ("carpet", "wood_floor"),
    "study": ("wood_floor", "carpet"),
    "kitchen": ("tile_floor", "stone_floor"),
    "bathroom": ("ceramic", "tile_floor"),
    "corridor": ("tile_floor", "stone_floor", "carpet"),
    "office": ("carpet", "wood_floor"),
    "meeting": ("wood_floor", "carpet"),
    "open_plan": ("carpet", "stone_floor", "wood_floor"),
    "stair": ("concrete", "stone_floor"),
}


def _noise(rng: np.random.Generator, cells: tuple[int, int], octaves: int = 3) -> np.ndarray:
    """Tileable value noise in [-1, 1] (bilinear over wrapped random grids, summed octaves)."""
    total = np.zeros((SIZE, SIZE))
    for octave in range(octaves):
        gy, gx = cells[0] << octave, cells[1] << octave
        grid = rng.uniform(-1.0, 1.0, (gy, gx))
        y = np.arange(SIZE) * gy / SIZE
        x = np.arange(SIZE) * gx / SIZE
        y0, x0 = y.astype(int), x.astype(int)
        fy, fx = (y - y0)[:, None], (x - x0)[None, :]
        y1, x1 = (y0 + 1) % gy, (x0 + 1) % gx
        top = grid[y0][:, x0] * (1 - fx) + grid[y0][:, x1] * fx
        bottom = grid[y1][:, x0] * (1 - fx) + grid[y1][:, x1] * fx
        total += (top * (1 - fy) + bottom * fy) / (2**octave)
    return total / (2 - 2 ** (1 - octaves))


def _planks(rng) -> np.ndarray:
    """Floor boards: 8 rows, staggered end joints, per-board tone, streaky grain, dark gaps."""
    rows = np.arange(SIZE) // (SIZE // 8)
    offsets = rng.integers(0, SIZE, 8)
    x = (np.arange(SIZE)[None, :] + offsets[rows][:, None]) % SIZE
    board = rows[:, None] * 2 + x // (SIZE // 2)
    tone = rng.uniform(-0.12, 0.12, 16)[board]
    grain = 0.08 * np.sin(_noise(rng, (8, 2), 2) * 12.0)
    shade = 1.0 + tone + grain
    shade[np.arange(SIZE) % (SIZE // 8) == 0, :] = 0.45
    shade[(x % (SIZE // 2)) == 0] = 0.5
    return shade


def _tiles(rng) -> np.ndarray:
    """Square tiles (4 x 4) with grout lines and a slight per-tile tone."""
    i = np.arange(SIZE) // (SIZE // 4)
    tone = rng.uniform(-0.05, 0.05, (4, 4))[i[:, None], i[None, :]]
    shade = 1.0 + tone + 0.03 * _noise(rng, (16, 16), 2)
    grout = (np.arange(SIZE) % (SIZE // 4)) < 3
    shade[grout, :] = 0.7
    shade[:, grout] = 0.7
    return shade


def _fabric(rng) -> np.ndarray:
    """A woven look: crossing threads plus mottling."""
    t = np.arange(SIZE) * 2 * np.pi / 4
    weave = 0.08 * np.sin(t)[:, None] * np.sin(t)[None, :]
    return 1.0 + weave + 0.08 * _noise(rng, (8, 8), 3)


def _books(rng) -> np.ndarray:
    """Rows of spines: vertical bands of random widths; colour comes from `_tint`."""
    widths = rng.integers(5, 18, SIZE)
    band = np.repeat(np.arange(SIZE), widths)[:SIZE]
    shade = rng.uniform(0.5, 1.3, SIZE)[band][None, :].repeat(SIZE, 0)
    shade[:, np.r_[0, np.flatnonzero(np.diff(band))]] *= 0.5
    return shade


def _shade(name: str, rng: np.random.Generator) -> np.ndarray:
    """A per-texel brightness pattern [SIZE, SIZE] around 1 for each material."""
    if name == "wood_floor":
        return _planks(rng)
    if name in ("tile_floor", "ceramic"):
        return _tiles(rng)
    if name == "fabric":
        return _fabric(rng)
    if name == "books":
        return _books(rng)
    if name == "wood":
        return 1.0 + 0.1 * np.sin(_noise(rng, (2, 12), 3) * 18.0)
    if name == "metal":  # brushed: streaks along one direction
        return 1.0 + 0.08 * _noise(rng, (64, 1), 2)
    if name == "carpet":
        return 1.0 + 0.12 * _noise(rng, (64, 64), 2) + 0.06 * _noise(rng, (4, 4), 2)
    if name == "concrete":
        pores = (rng.random((SIZE, SIZE)) < 0.004) * -0.3
        return 1.0 + 0.1 * _noise(rng, (8, 8), 4) + pores
    if name == "grass":  # blades: fine streaks plus patches
        return 1.0 + 0.18 * _noise(rng, (128, 32), 2) + 0.1 * _noise(rng, (4, 4), 2)
    if name in ("paving", "stone_floor"):  # staggered slabs
        rows = np.arange(SIZE) // (SIZE // 4)
        x = (np.arange(SIZE)[None, :] + (rows[:, None] % 2) * (SIZE // 4)) % SIZE
        shade = 1.0 + rng.uniform(-0.06, 0.06, (4, 2))[rows[:, None], x // (SIZE // 2)]
        shade = shade + 0.06 * _noise(rng, (16, 16), 3)
        shade[(np.arange(SIZE) % (SIZE // 4)) < 3, :] = 0.6
        shade[(x % (SIZE // 2)) < 3] = 0.6
        return shade
    if name == "plant":
        return 1.0 + 0.25 * _noise(rng, (16, 16), 3)
    return 1.0 + 0.03 * _noise(rng, (16, 16), 3)  # painted plaster, trim, screens


def _tint(name: str, variant: int, shade: np.ndarray, rng) -> np.ndarray:
    colour = np.asarray(MATERIALS[name].colours[variant])
    image = shade[..., None] * colour
    if name == "books":  # every spine its own hue
        hues = rng.uniform(0.3, 1.0, (SIZE, 3))
        widths = np.maximum(1, rng.integers(5, 18, SIZE))
        image = image * hues[np.repeat(np.arange(SIZE), widths)[:SIZE]][None, :, :] * 1.6
    return np.clip(image * 255.0 + 0.5, 0, 255).astype(np.uint8)


@functools.cache
def texture_png(name: str, variant: int) -> bytes:
    """PNG bytes of material `name`'s texture in colour `variant` (fixed, cached)."""
    rng = np.random.default_rng([sorted(MATERIALS).index(name), variant])
    return encode_png(_tint(name, variant, _shade(name, rng), rng))


def texture_image(name: str, variant: int) -> np.ndarray:
    """The RGB image [SIZE, SIZE, 3] uint8 (for tests and previews)."""
    rng = np.random.default_rng([sorted(MATERIALS).index(name), variant])
    return _tint(name, variant, _shade(name, rng), rng)
