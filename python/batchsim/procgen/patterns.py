"""Per-texel patterns of the procedural textures (numpy, deterministic, a few ms each).

shade(name, rng) gives a brightness [SIZE, SIZE] around 1 and, for two-colour materials
(mortar, grout, wallpaper motifs), a mask [SIZE, SIZE] in 0..1 of the accent colour.
Rows run down the texture (v), columns along it (u): on walls, columns are horizontal.
"""

from __future__ import annotations

import numpy as np

SIZE = 256  # texels per side: sharp at the simulator's small resolutions, small files
_AXIS = np.arange(SIZE)


def noise(rng: np.random.Generator, cells: tuple[int, int], octaves: int = 3) -> np.ndarray:
    """Tileable value noise in [-1, 1] (bilinear over wrapped random grids, summed octaves)."""
    total = np.zeros((SIZE, SIZE))
    for octave in range(octaves):
        gy, gx = cells[0] << octave, cells[1] << octave
        grid = rng.uniform(-1.0, 1.0, (gy, gx))
        y = _AXIS * gy / SIZE
        x = _AXIS * gx / SIZE
        y0, x0 = y.astype(int), x.astype(int)
        fy, fx = (y - y0)[:, None], (x - x0)[None, :]
        y1, x1 = (y0 + 1) % gy, (x0 + 1) % gx
        top = grid[y0][:, x0] * (1 - fx) + grid[y0][:, x1] * fx
        bottom = grid[y1][:, x0] * (1 - fx) + grid[y1][:, x1] * fx
        total += (top * (1 - fy) + bottom * fy) / (2**octave)
    return total / (2 - 2 ** (1 - octaves))


def _planks(rng, rows_per_tile: int = 8) -> np.ndarray:
    """Boards: rows, staggered end joints, per-board tone, streaky grain, dark gaps."""
    n = rows_per_tile
    rows = _AXIS // (SIZE // n)
    offsets = rng.integers(0, SIZE, n)
    x = (_AXIS[None, :] + offsets[rows][:, None]) % SIZE
    board = rows[:, None] * 2 + x // (SIZE // 2)
    tone = rng.uniform(-0.12, 0.12, 2 * n)[board]
    grain = 0.08 * np.sin(noise(rng, (8, 2), 2) * 12.0)
    shade = 1.0 + tone + grain
    shade[_AXIS % (SIZE // n) == 0, :] = 0.45
    shade[(x % (SIZE // 2)) == 0] = 0.5
    return shade


def _tiles(rng, count: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Square tiles (count x count) with a slight per-tile tone; the mask marks grout."""
    i = _AXIS // (SIZE // count)
    tone = rng.uniform(-0.05, 0.05, (count, count))[i[:, None], i[None, :]]
    shade = 1.0 + tone + 0.03 * noise(rng, (16, 16), 2)
    grout = (_AXIS % (SIZE // count)) < 3
    return shade, (grout[:, None] | grout[None, :]).astype(float)


def _fabric(rng) -> np.ndarray:
    """A woven look: crossing threads plus mottling."""
    t = _AXIS * 2 * np.pi / 4
    weave = 0.08 * np.sin(t)[:, None] * np.sin(t)[None, :]
    return 1.0 + weave + 0.08 * noise(rng, (8, 8), 3)


def _books(rng) -> np.ndarray:
    """Rows of spines: vertical bands of random widths; colour comes from the tint."""
    widths = rng.integers(5, 18, SIZE)
    band = np.repeat(_AXIS, widths)[:SIZE]
    shade = rng.uniform(0.5, 1.3, SIZE)[band][None, :].repeat(SIZE, 0)
    shade[:, np.r_[0, np.flatnonzero(np.diff(band))]] *= 0.5
    return shade


def _slabs(rng) -> np.ndarray:
    """Staggered paving or stone slabs with joints."""
    rows = _AXIS // (SIZE // 4)
    x = (_AXIS[None, :] + (rows[:, None] % 2) * (SIZE // 4)) % SIZE
    shade = 1.0 + rng.uniform(-0.06, 0.06, (4, 2))[rows[:, None], x // (SIZE // 2)]
    shade = shade + 0.06 * noise(rng, (16, 16), 3)
    shade[(_AXIS % (SIZE // 4)) < 3, :] = 0.6
    shade[(x % (SIZE // 2)) < 3] = 0.6
    return shade


def _stripes(rng) -> tuple[np.ndarray, np.ndarray]:
    """Wallpaper stripes: 8 vertical bands a tile, the accent share of each drawn per
    texture, a thin pin line beside it."""
    period = SIZE // 8
    phase = _AXIS % period
    share = rng.uniform(0.3, 0.6)
    mask = (phase < share * period).astype(float)
    mask[phase == period - 3] = 0.6
    shade = 1.0 + 0.02 * noise(rng, (16, 16), 2)
    return shade, np.broadcast_to(mask[None, :], (SIZE, SIZE)).copy()


def _motif(rng) -> tuple[np.ndarray, np.ndarray]:
    """Small repeated motifs (diamonds, dots or crosses) on a half-drop grid."""
    cell = SIZE // 8
    y, x = _AXIS[:, None], _AXIS[None, :]
    cx = (x + (y // cell % 2) * (cell // 2)) % cell - cell / 2
    cy = y % cell - cell / 2
    style = int(rng.integers(3))
    if style == 0:
        mask = np.abs(cx) + np.abs(cy) < cell * 0.24
    elif style == 1:
        mask = cx**2 + cy**2 < (cell * 0.16) ** 2
    else:
        mask = (np.minimum(np.abs(cx), np.abs(cy)) < 1.5) & (np.maximum(np.abs(cx), np.abs(cy)) < 6)
    return 1.0 + 0.02 * noise(rng, (16, 16), 2), mask.astype(float)


def _bricks(rng) -> tuple[np.ndarray, np.ndarray]:
    """Running bond: 16 courses a tile, 4 bricks a course, per-brick tone; mask: mortar."""
    course, length = SIZE // 16, SIZE // 4
    rows = _AXIS // course
    x = (_AXIS[None, :] + (rows[:, None] % 2) * (length // 2)) % SIZE
    tone = rng.uniform(-0.12, 0.12, (16, 4))[rows[:, None], x // length]
    shade = 1.0 + tone + 0.08 * noise(rng, (32, 32), 2)
    mortar = ((_AXIS % course) < 2)[:, None] | ((x % length) < 2)
    return shade, mortar.astype(float)


def _panelling(rng) -> np.ndarray:
    """Vertical tongue-and-groove boards: grain along the boards, dark grooves."""
    boards = 8
    width = SIZE // boards
    tone = rng.uniform(-0.08, 0.08, boards)[_AXIS // width][None, :]
    grain = 0.07 * np.sin(noise(rng, (2, 16), 2) * 14.0)
    shade = 1.0 + tone + grain
    shade[:, (_AXIS % width) < 2] = 0.55
    return shade


def _board_concrete(rng) -> np.ndarray:
    """Board-formed concrete: horizontal board imprints, tie holes, pores."""
    board = SIZE // 8
    rows = _AXIS // board
    shade = 1.0 + 0.08 * noise(rng, (8, 8), 4) + rng.uniform(-0.04, 0.04, 8)[rows][:, None]
    shade[(_AXIS % board) == 0, :] *= 0.82
    y, x = _AXIS[:, None] % (SIZE // 2), _AXIS[None, :] % (SIZE // 2)
    shade[(y - SIZE // 4) ** 2 + (x - SIZE // 4) ** 2 < 9] = 0.55  # tie holes
    return shade - (rng.random((SIZE, SIZE)) < 0.003) * 0.3


def _acoustic(rng) -> tuple[np.ndarray, np.ndarray]:
    """Suspended ceiling tiles: 2 x 2 a texture, fissured (random pits); mask: the grid."""
    grid = (_AXIS % (SIZE // 2)) < 4
    pits = (rng.random((SIZE, SIZE)) < 0.02) * -0.18
    shade = 1.0 + 0.04 * noise(rng, (32, 32), 2) + pits
    return shade, (grid[:, None] | grid[None, :]).astype(float)


def _glass(rng) -> np.ndarray:
    """Glazing seen from a room: brighter towards the top, soft diagonal reflections."""
    y, x = _AXIS[:, None], _AXIS[None, :]
    sky = 1.15 - 0.35 * y / SIZE
    streak = 0.12 * (((x + y) % 128) < 24) + 0.06 * (((x + y + 50) % 128) < 10)
    return sky + streak + 0.03 * noise(rng, (4, 4), 2)


def _plain(scale: float, cells=(16, 16), octaves: int = 3):
    return lambda rng: 1.0 + scale * noise(rng, cells, octaves)


_SHADES = {
    "wood_floor": _planks,
    "ceiling_boards": _planks,
    "fabric": _fabric,
    "books": _books,
    "wood": lambda rng: 1.0 + 0.1 * np.sin(noise(rng, (2, 12), 3) * 18.0),
    "metal": lambda rng: 1.0 + 0.08 * noise(rng, (64, 1), 2),  # brushed: streaks
    "carpet": lambda rng: 1.0 + 0.12 * noise(rng, (64, 64), 2) + 0.06 * noise(rng, (4, 4), 2),
    "concrete": lambda rng: (
        1.0 + 0.1 * noise(rng, (8, 8), 4) - (rng.random((SIZE, SIZE)) < 0.004) * 0.3
    ),
    "grass": lambda rng: 1.0 + 0.18 * noise(rng, (128, 32), 2) + 0.1 * noise(rng, (4, 4), 2),
    "paving": _slabs,
    "stone_floor": _slabs,
    "plant": _plain(0.25),
    "wood_panel": _panelling,
    "board_concrete": _board_concrete,
    "render": lambda rng: 1.0 + 0.07 * noise(rng, (64, 64), 2) + 0.04 * noise(rng, (8, 8), 2),
    "glass": _glass,
}
_TWO_COLOUR = {
    "wallpaper_stripes": _stripes,
    "wallpaper_motif": _motif,
    "brick": _bricks,
    "wall_tiles": lambda rng: _tiles(rng, 8),
    "acoustic_tiles": _acoustic,
}


def shade(name: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """(brightness, accent mask or None) of material `name`."""
    if name in _TWO_COLOUR:
        return _TWO_COLOUR[name](rng)
    if name in ("tile_floor", "ceramic"):  # grout darkened, no second colour
        brightness, grout = _tiles(rng)
        return np.where(grout > 0, 0.7, brightness), None
    return _SHADES.get(name, _plain(0.03))(rng), None  # painted plaster, trim, screens
