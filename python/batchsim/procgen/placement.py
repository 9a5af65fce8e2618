"""Placing furniture in rooms without cutting the free floor apart.

A fine occupancy grid (FINE metres per cell) tracks what is taken. A candidate is kept
only if, within its room, the free floor (obstacles grown by CLEARANCE) is still one
piece that reaches every door: rooms stay connected, yet routes bend around furniture.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from batchsim.procgen.furniture import SIZES
from batchsim.procgen.plan import CELL, Layout

FINE = 0.1  # m per occupancy cell: finer than any gap that matters to a 0.1 m agent
CLEARANCE = 2  # cells obstacles grow by: passages stay >= ~0.4 m wide
DOOR_CLEAR = 1.0  # m kept free in front of each door
WALL_GAP = 0.02  # m between furniture backs and the wall face
TRIES = 12  # placement attempts per piece before giving up on it

# What each room kind holds: (piece, "wall" or "middle", probability).
PROGRAMS = {
    "bedroom": [
        ("bed", "wall", 1),
        ("nightstand", "wall", 0.8),
        ("wardrobe", "wall", 0.9),
        ("desk", "wall", 0.4),
        ("bookshelf", "wall", 0.5),
        ("plant", "wall", 0.5),
    ],
    "living": [
        ("sofa", "wall", 1),
        ("tv_stand", "wall", 0.9),
        ("coffee_table", "middle", 0.9),
        ("dining", "middle", 0.7),
        ("armchair", "wall", 0.6),
        ("bookshelf", "wall", 0.8),
        ("bookshelf", "wall", 0.5),
        ("plant", "wall", 0.7),
        ("plant", "middle", 0.3),
        ("pillar", "middle", 0.25),
    ],
    "kitchen": [
        ("counter", "wall", 1),
        ("counter", "wall", 0.6),
        ("dining", "middle", 0.6),
        ("cabinet", "wall", 0.4),
        ("plant", "wall", 0.4),
    ],
    "bathroom": [
        ("bathtub", "wall", 0.8),
        ("toilet", "wall", 1),
        ("vanity", "wall", 1),
        ("plant", "wall", 0.3),
    ],
    "study": [
        ("desk", "wall", 1),
        ("bookshelf", "wall", 1),
        ("bookshelf", "wall", 0.7),
        ("armchair", "wall", 0.6),
        ("plant", "wall", 0.6),
        ("cabinet", "wall", 0.4),
    ],
    "hallway": [
        ("console", "wall", 0.7),
        ("bookshelf", "wall", 0.5),
        ("plant", "wall", 0.6),
        ("plant", "middle", 0.3),
        ("wardrobe", "wall", 0.4),
    ],
    "corridor": [
        ("plant", "wall", 0.8),
        ("cabinet", "wall", 0.6),
        ("plant", "wall", 0.5),
        ("sofa", "wall", 0.3),
    ],
    "office": [
        ("desk", "wall", 1),
        ("desk", "wall", 0.5),
        ("cabinet", "wall", 0.8),
        ("bookshelf", "wall", 0.7),
        ("plant", "wall", 0.6),
        ("armchair", "middle", 0.3),
    ],
    "meeting": [
        ("meeting_table", "middle", 1),
        ("tv_stand", "wall", 0.8),
        ("plant", "wall", 0.7),
        ("cabinet", "wall", 0.5),
    ],
    "open_plan": [
        ("desk_cluster", "middle", 1),
        ("desk_cluster", "middle", 1),
        ("desk_cluster", "middle", 0.8),
        ("desk_cluster", "middle", 0.6),
        ("sofa", "wall", 0.6),
        ("coffee_table", "middle", 0.4),
        ("cabinet", "wall", 0.8),
        ("cabinet", "wall", 0.6),
        ("bookshelf", "wall", 0.6),
        ("plant", "middle", 0.6),
        ("plant", "wall", 0.6),
    ],
    "stair": [],  # the stairwell stays clear
}


@dataclasses.dataclass(frozen=True)
class Piece:
    kind: str
    width: float
    depth: float
    turns: int  # quarter turns about +y: the local +z (front) ends up facing this way
    origin: tuple[float, float]  # world (x, z) of the local origin (back centre)
    seed: int  # details (book sizes) come from default_rng(seed)
    room: int = -1
    y: float = 0.0  # the floor it stands on (a split level's platform), m


def _shift(a: np.ndarray, dz: int, dx: int) -> np.ndarray:
    """`a` moved by (dz, dx) cells, padding with False."""
    out = np.zeros_like(a)
    h, w = a.shape
    out[max(dz, 0) : h + min(dz, 0), max(dx, 0) : w + min(dx, 0)] = a[
        max(-dz, 0) : h + min(-dz, 0), max(-dx, 0) : w + min(-dx, 0)
    ]
    return out


def _grow(a: np.ndarray, r: int) -> np.ndarray:
    """Square dilation by r cells (separable: rows, then columns)."""
    rows = a.copy()
    for k in range(1, r + 1):
        rows |= _shift(a, 0, k) | _shift(a, 0, -k)
    out = rows.copy()
    for k in range(1, r + 1):
        out |= _shift(rows, k, 0) | _shift(rows, -k, 0)
    return out


def _fill_runs(reached: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Spreads `reached` along each row to the whole run of free cells it touches."""
    padded = np.pad(free, ((0, 0), (0, 1))).ravel()
    starts = padded & ~np.concatenate([[False], padded[:-1]])
    ids = np.cumsum(starts) * padded
    hit = np.zeros(ids.max() + 1, bool)
    hit[ids[np.pad(reached & free, ((0, 0), (0, 1))).ravel()]] = True
    hit[0] = False
    return hit[ids].reshape(free.shape[0], -1)[:, :-1]


def flood(free: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """Cells of `free` connected (4-neighbour) to `seeds`: whole runs per sweep, so the
    sweeps needed grow with the turns of a path, not its length."""
    reached = seeds & free
    while True:
        grown = _fill_runs(reached, free)
        grown = _fill_runs(grown.T, free.T).T
        if (grown == reached).all():
            return reached
        reached = grown


class Occupancy:
    """Which fine cells are taken, per room, with door seeds and door clearances."""

    def __init__(self, layout: Layout):
        k = round(CELL / FINE)
        self.layout = layout
        self.room = np.repeat(np.repeat(layout.labels, k, 0), k, 1)
        self.used = np.zeros(self.room.shape, bool)
        self.reserved = np.zeros(self.room.shape, bool)
        self.doorway = np.zeros(self.room.shape, bool)
        self.raised = np.zeros(self.room.shape, bool)  # a split level's platform
        self.seeds: dict[int, list[tuple[int, int]]] = {i: [] for i in range(len(layout.rooms))}
        for door in (*layout.doors, *(bay.door() for bay in layout.bays)):
            self._add_door(door)  # bays: kept clear like doorways, so they stay reachable
        if layout.split is not None:
            self._add_split(layout.split)
        zc, xc = ((np.arange(n) + 0.5) * FINE for n in self.room.shape)
        for c in layout.angled:  # the corner behind a diagonal wall (and the wall) is taken
            u = c.sx * (xc[None, :] - c.x) - layout.wall_thickness / 2
            v = c.sz * (zc[:, None] - c.z) - layout.wall_thickness / 2
            self.used |= (u > -FINE) & (v > -FINE) & (u + v < c.leg + 0.35)

    def _add_door(self, door) -> None:
        line, s0, s1 = (round(v / FINE) for v in (door.line, door.start, door.end))
        clear, mid = round(DOOR_CLEAR / FINE), (s0 + s1) // 2
        view = (lambda a: a.T) if door.axis == 0 else (lambda a: a)  # rows: across the wall
        view(self.doorway)[line - 1 : line + 1, s0:s1] = True
        view(self.reserved)[max(line - clear, 0) : line + clear, s0 - 1 : s1 + 1] = True
        for across in (line - 3, line + 2):
            if not 0 <= across < view(self.room).shape[0]:
                continue  # the front door: outside the plan
            room = int(view(self.room)[across, mid])
            if room < 0:
                continue
            cell = (across, mid) if door.axis == 1 else (mid, across)
            self.seeds[room].append(cell)

    def _add_split(self, split) -> None:
        """The platform (raised), the ramp and its foot (kept clear), and the balustrades
        (taken: the platform is reached over the ramp only)."""
        self.raised[self._cells(split.platform)] = True
        self.reserved[self._cells(split.ramp)] = True
        self.reserved[self._cells(split.foot)] = True
        for p0, p1 in split.rails:
            for s in np.linspace(0.0, 1.0, 200):
                x, z = p0[0] + s * (p1[0] - p0[0]), p0[2] + s * (p1[2] - p0[2])
                self.used[int(z / FINE), int(x / FINE)] = True

    @staticmethod
    def _cells(rect) -> tuple[slice, slice]:
        x0, z0, x1, z1 = rect
        return (
            slice(int(np.floor(z0 / FINE + 1e-6)), int(np.ceil(z1 / FINE - 1e-6))),
            slice(int(np.floor(x0 / FINE + 1e-6)), int(np.ceil(x1 / FINE - 1e-6))),
        )

    def floor_height(self, lo, hi) -> float:
        """The height of the floor under the world rectangle [lo, hi] (x, z)."""
        split = self.layout.split
        raised = self.raised[self._cells((*lo, *hi))]
        return split.height if split is not None and raised.all() else 0.0

    def window(self, room: int) -> tuple[slice, slice]:
        """The room's bounding box in cells, plus a margin for its doorways."""
        rows, cols = np.nonzero(self.room == room)
        m = CLEARANCE + 2
        return (
            slice(max(rows.min() - m, 0), rows.max() + 1 + m),
            slice(max(cols.min() - m, 0), cols.max() + 1 + m),
        )

    def connected(self, room: int, extra=None) -> bool:
        """Whether the room's free floor (with the cells `extra` (z0, z1, x0, x1) taken too)
        is one piece reaching every door seed."""
        zs, xs = self.window(room)
        here = self.room[zs, xs] == room
        taken = self.used[zs, xs].copy()
        if extra is not None:
            z0, z1, x0, x1 = extra
            taken[z0 - zs.start : z1 - zs.start, x0 - xs.start : x1 - xs.start] = True
        blocked = _grow(~(here | self.doorway[zs, xs]) | taken, CLEARANCE)
        open_ = ~blocked & here
        seeds = np.zeros_like(open_)
        for z, x in self.seeds[room]:
            if not open_[z - zs.start, x - xs.start]:
                return False
        if self.seeds[room]:  # one piece: everything reached from one door (v1 let each
            z, x = self.seeds[room][0]  # door reach its own piece)
            seeds[z - zs.start, x - xs.start] = True
        return int(flood(open_, seeds).sum()) == int(open_.sum())

    def try_take(self, room: int, lo, hi, raised_ok: bool = True) -> bool:
        """Takes the world rectangle [lo, hi] (x, z) if it fits on one level (with
        raised_ok, the split level's platform counts) and keeps the room whole."""
        x0, z0 = (int(np.floor(v / FINE + 1e-6)) for v in lo)
        x1, z1 = (int(np.ceil(v / FINE - 1e-6)) for v in hi)
        if x0 < 0 or z0 < 0 or z1 > self.room.shape[0] or x1 > self.room.shape[1]:
            return False
        window = (slice(z0, z1), slice(x0, x1))
        raised = self.raised[window]
        if raised.any() and not (raised_ok and raised.all()):
            return False
        if (
            (self.room[window] != room).any()
            or self.used[window].any()
            or self.reserved[window].any()
        ):
            return False
        if not self.connected(room, (z0, z1, x0, x1)):
            return False
        self.used[window] = True
        return True


def _candidate(rng, layout, room, kind, where, width, depth):
    """A random pose: against a wall of one of the room's rectangles, or free-standing.
    Returns (turns, origin (x, z), lo (x, z), hi (x, z))."""
    rects = layout.rooms[room].rects
    areas = np.array([(x1 - x0) * (z1 - z0) for x0, z0, x1, z1 in rects])
    x0, z0, x1, z1 = rects[int(rng.choice(len(rects), p=areas / areas.sum()))]
    turns = int(rng.integers(4))
    w, d = (width, depth) if turns % 2 == 0 else (depth, width)
    if where == "wall":
        inset = layout.wall_thickness / 2 + WALL_GAP
        along = rng.uniform(0.0, 1.0)
        cx = x0 + inset + along * max(x1 - x0 - 2 * inset - w, 0.0) + w / 2
        cz = z0 + inset + along * max(z1 - z0 - 2 * inset - d, 0.0) + d / 2
        # The back goes to the wall opposite the front: turns 0 faces +z, so back at z0.
        cx, cz = {
            0: (cx, z0 + inset + d / 2),
            1: (x0 + inset + w / 2, cz),
            2: (cx, z1 - inset - d / 2),
            3: (x1 - inset - w / 2, cz),
        }[turns]
    else:
        margin = 0.6
        cx = rng.uniform(x0 + margin + w / 2, max(x1 - margin - w / 2, x0 + margin + w / 2))
        cz = rng.uniform(z0 + margin + d / 2, max(z1 - margin - d / 2, z0 + margin + d / 2))
    back = {0: (0.0, -d / 2), 1: (-w / 2, 0.0), 2: (0.0, d / 2), 3: (w / 2, 0.0)}[turns]
    origin = (cx + back[0], cz + back[1])
    return turns, origin, (cx - w / 2, cz - d / 2), (cx + w / 2, cz + d / 2)


def _pillars(rng, layout, occupancy, room) -> list[Piece]:
    """Structural columns on a regular grid inside open-plan areas."""
    pieces, spacing = [], rng.uniform(4.0, 6.0)
    size = rng.uniform(*SIZES["pillar"][0])
    for x0, z0, x1, z1 in layout.rooms[room].rects:
        for x in np.arange(x0 + spacing / 2, x1 - 1.0, spacing):
            for z in np.arange(z0 + spacing / 2, z1 - 1.0, spacing):
                lo, hi = (x - size / 2, z - size / 2), (x + size / 2, z + size / 2)
                if occupancy.try_take(room, lo, hi, raised_ok=False):  # pillars: floor to ceiling
                    pieces.append(Piece("pillar", size, size, 0, (x, z - size / 2), 0, room))
    return pieces


def furnish(layout: Layout, rng: np.random.Generator, density: float = 1.0) -> list[Piece]:
    """Furniture for every room, following its kind's program (each piece's chance scaled
    by `density`)."""
    occupancy, pieces = Occupancy(layout), []
    for room in layout.rooms:
        if room.index == layout.void:
            continue
        if room.kind == "open_plan":
            pieces += _pillars(rng, layout, occupancy, room.index)
        for kind, where, chance in PROGRAMS[room.kind]:
            if rng.random() >= chance * density:
                continue
            (w0, w1), (d0, d1) = SIZES[kind]
            width, depth = rng.uniform(w0, w1), rng.uniform(d0, d1)
            for _ in range(TRIES):
                turns, origin, lo, hi = _candidate(
                    rng, layout, room.index, kind, where, width, depth
                )
                if occupancy.try_take(room.index, lo, hi):
                    seed = int(rng.integers(2**31))
                    y = occupancy.floor_height(lo, hi)
                    pieces.append(Piece(kind, width, depth, turns, origin, seed, room.index, y))
                    break
    return pieces
