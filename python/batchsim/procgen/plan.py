"""The building plan's data: a label grid of rooms (CELL metres per cell), the doors, the
stairwell, diagonal walls, the split level and bay windows. layout.py draws a plan; the
later stages (ramps.py, bays.py) add their parts; the rest of procgen reads it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from batchsim.procgen.materials import FLOOR_CHOICES

CELL = 0.5  # plan grid (m): coarse enough for quick wall extraction, fine enough for rooms
SLAB = 0.2  # m: floor slab between storeys

Rect = tuple[float, float, float, float]  # x0, z0, x1, z1
Point = tuple[float, float, float]  # x, y, z


@dataclasses.dataclass(frozen=True)
class Room:
    index: int
    kind: str  # hallway, living, kitchen, bathroom, bedroom, corridor, office, ...
    rects: tuple[tuple[float, float, float, float], ...]  # (x0, z0, x1, z1) metres

    @property
    def area(self) -> float:
        return sum((x1 - x0) * (z1 - z0) for x0, z0, x1, z1 in self.rects)


@dataclasses.dataclass(frozen=True)
class Door:
    rooms: tuple[int, int]
    axis: int  # 0: the wall is the line x = `line` (door spans z); 1: the line z = `line`
    line: float
    start: float  # along the wall (m)
    end: float


@dataclasses.dataclass(frozen=True)
class Stairwell:
    """Straight stairs in the annex: stair k (storey k to k + 1) climbs lane k, towards +x
    for even k (bottom at xs) and -x for odd k; each leaves an opening in the slab above."""

    lanes: tuple[tuple[float, float], ...]  # z range of each stair lane
    walkway: tuple[float, float]  # z range of the walkway along the lanes (building side)
    xs: float
    xe: float
    risers: int
    rect: tuple[float, float, float, float]  # the annex room's rectangle (wall centre lines)
    rise: float  # the storey height each stair climbs

    @property
    def riser(self) -> float:
        return self.rise / self.risers

    def opening(self, k: int) -> tuple[float, float, float, float]:
        """The hole (x0, z0, x1, z1) stair k leaves in the slab of storey k + 1 (the outer
        lane's reaches into the outer wall)."""
        z0, z1 = self.lanes[k]
        return (self.xs, self.rect[1] if k == len(self.lanes) - 1 else z0, self.xe, z1)


@dataclasses.dataclass(frozen=True)
class Chamfer:
    """A diagonal wall cutting a room's corner at 45 degrees: the corner (x, z) where the
    two walls' centre lines meet, the directions (sx, sz) into the room, and the legs
    (m) along each wall's face."""

    x: float
    z: float
    sx: int
    sz: int
    leg: float


@dataclasses.dataclass(frozen=True)
class SplitLevel:
    """A platform against one end wall of a room rectangle, and a ramp climbing to it
    along a side wall. Walls close the platform on three sides; balustrades its edge."""

    room: int
    height: float  # m above the storey's floor
    platform: Rect  # to the wall centre lines on its walled sides
    ramp: Rect
    foot: Rect  # floor kept clear at the ramp's foot
    climb: tuple[int, int]  # (axis, sign): the ramp rises towards sign along x (0) or z (1)
    rails: tuple[tuple[Point, Point], ...]  # balustrade lines on the floor (y: its height)
    surface: tuple[Point, ...]  # the ramp's top: foot at the wall, foot, top, top at the wall


@dataclasses.dataclass(frozen=True)
class Bay:
    room: int
    axis: int  # the wall: axis 0 the line x = `line`, 1 the line z = `line`
    line: float
    outward: int  # the side (-1 or +1 along the other axis) the bay juts out to
    start: float  # the opening along the wall
    end: float
    depth: float  # m from the wall's centre line to the front's
    sill: float  # m: glazing from the sill to the head

    def door(self) -> Door:
        """The opening, for furniture placement (kept clear like a doorway)."""
        return Door((self.room, -1), self.axis, self.line, self.start, self.end)

    def world(self, s: float, w: float) -> tuple[float, float]:
        """(x, z) of the point s along the wall, w out from its centre line."""
        out = self.line + self.outward * w
        return (out, s) if self.axis == 0 else (s, out)

    def outline(self) -> np.ndarray:
        """The centre line of the bay's walls as (s, w) rows: the sides turn 45 degrees."""
        s0, s1, p = self.start, self.end, self.depth
        return np.array([(s0, 0.0), (s0 + p, p), (s1 - p, p), (s1, 0.0)])


@dataclasses.dataclass(frozen=True)
class Layout:
    kind: str
    labels: np.ndarray  # [nz, nx] int32 room index per CELL, -1 outside
    rooms: tuple[Room, ...]
    doors: tuple[Door, ...]
    wall_thickness: float
    wall_height: float
    storeys: int = 1
    stair: Stairwell | None = None
    entrance: Door | None = None  # the front door (ground storey, x = 0 wall of the hub)
    angled: tuple[Chamfer, ...] = ()  # diagonal walls across room corners
    loft: int = -1  # a double-height room: storeys 0 and 1, no slab between (-1: none)
    void: int = -1  # in storey 1's plan: the loft's upper half (no floor, doors, furniture)
    floors: tuple[tuple[str, str], ...] = ()  # (room kind, floor material) of this building
    walls: tuple[tuple[str, str], ...] = ()  # (room kind, wall material)
    ceilings: tuple[tuple[str, str], ...] = ()  # (room kind, ceiling material)
    facade: str = "render"  # the outside faces of outer walls
    split: SplitLevel | None = None  # a raised part of a ground-storey room and its ramp
    bays: tuple[Bay, ...] = ()  # bay windows (on every storey)

    def floor_material(self, kind: str) -> str:
        return dict(self.floors).get(kind, FLOOR_CHOICES[kind][0])

    def wall_material(self, room: int) -> str:
        """The material of wall faces towards `room` (-1: outside)."""
        return self.facade if room < 0 else dict(self.walls).get(self.rooms[room].kind, "wall")

    def ceiling_material(self, kind: str) -> str:
        return dict(self.ceilings).get(kind, "ceiling")

    @property
    def size(self) -> tuple[float, float]:
        """Footprint (m) along x and z."""
        return self.labels.shape[1] * CELL, self.labels.shape[0] * CELL

    @property
    def storey_height(self) -> float:
        return self.wall_height + SLAB

    def storey(self, k: int) -> Layout:
        """The plan of storey k: the ground storey also has the front door and the split
        level."""
        plan = self if k == 0 or self.split is None else dataclasses.replace(self, split=None)
        if k == 0 and self.entrance is not None:
            return dataclasses.replace(plan, doors=(*self.doors, self.entrance))
        if k == 1 and self.loft >= 0:
            doors = tuple(d for d in self.doors if self.loft not in d.rooms)
            return dataclasses.replace(plan, doors=doors, void=self.loft)
        return plan


def room_at(labels: np.ndarray, i: int, j: int) -> int:
    """The room index of plan cell (i, j) (row along z, column along x); -1 outside the grid."""
    inside = 0 <= i < labels.shape[0] and 0 <= j < labels.shape[1]
    return int(labels[i, j]) if inside else -1
