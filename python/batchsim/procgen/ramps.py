"""Ramps: a split level (part of a ground-storey room raised 0.45-0.6 m, too high for a
step, reached only by a gentle ramp along a wall) and a ramp from the garden up to the
front door. Habitat's agent climbs 0.2 m and slopes up to 45 degrees; the ramps rise 1:8
to 1:11 and are at least 1 m wide, with balustrades or kerbs on their open sides.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from batchsim.procgen.geometry import NO_BOTTOM, MeshBuilder
from batchsim.procgen.plan import CELL, Layout, Point, Rect, SplitLevel, room_at
from batchsim.procgen.stairs import BALUSTER, HANDRAIL, RAIL, SPACING

SPLIT_ROOMS = ("living", "open_plan", "meeting")
SPLIT_SHARE = 0.7  # of buildings try for a split level (where a room has space for it)
HEADROOM = 2.0  # m kept between the raised floor and the ceiling
FOOT = 1.0  # m of level floor kept clear at a ramp's foot
RAIL_BAND = 0.06  # m of the ramp's width its balustrade stands on
DOOR_GAP = 0.3  # m kept between a door and the walls round the raised part
KERB = (0.1, 0.1)  # m: width, height above the ramp (the entrance ramp's kerbs)


@dataclasses.dataclass(frozen=True)
class _Frame:
    """A room rectangle seen from its platform end: u runs from the end wall into the room
    (downhill), v from the ramp's side wall across; both along x or z."""

    axis: int  # the axis u runs along
    line: float  # the end wall's centre line
    sign: int  # the end wall lies towards this sign: u = (line - coordinate) * sign
    across: float  # the ramp wall's centre line
    across_sign: int

    def coords(self, u: float, v: float) -> tuple[float, float]:
        c = [0.0, 0.0]
        c[self.axis] = self.line - self.sign * u
        c[1 - self.axis] = self.across - self.across_sign * v
        return c[0], c[1]

    def rect(self, u0, u1, v0, v1) -> Rect:
        (a0, b0), (a1, b1) = self.coords(u0, v0), self.coords(u1, v1)
        return (min(a0, a1), min(b0, b1), max(a0, a1), max(b0, b1))

    def point(self, u, v, y) -> Point:
        x, z = self.coords(u, v)
        return (x, y, z)


def find_split(rng: np.random.Generator, layout: Layout) -> SplitLevel | None:
    """Half the time, a split level in a living room, meeting room or open-plan area with
    room for it (none when no room fits, or the ceiling is too low)."""
    if rng.random() >= SPLIT_SHARE:
        return None
    height = min(rng.uniform(0.45, 0.6), layout.wall_height - HEADROOM)
    length = height * rng.uniform(8.0, 10.0)
    width, depth = rng.uniform(1.0, 1.3), rng.uniform(1.6, 2.8)
    if height < 0.42:
        return None
    options = [
        (room.index, rect, axis, sign, across_sign)
        for room in layout.rooms
        if room.kind in SPLIT_ROOMS and room.index != layout.loft
        for rect in room.rects
        for axis in (0, 1)
        for sign in (-1, 1)
        for across_sign in (-1, 1)
    ]
    for k in rng.permutation(len(options)):
        room, rect, axis, sign, across_sign = options[int(k)]
        line = rect[axis] if sign < 0 else rect[axis + 2]
        across = rect[1 - axis] if across_sign < 0 else rect[3 - axis]
        frame = _Frame(axis, line, sign, across, across_sign)
        split = _fit(layout, room, rect, frame, (height, length, width, depth))
        if split is not None:
            return split
    return None


def _fit(layout, room, rect, frame, size) -> SplitLevel | None:
    """The split level in `frame`, if the rectangle is big enough and walls without doors
    bound the platform and the ramp."""
    height, length, width, depth = size
    t = layout.wall_thickness
    span_u = rect[frame.axis + 2] - rect[frame.axis]
    span_v = rect[3 - frame.axis] - rect[1 - frame.axis]
    if span_u < depth + length + FOOT + 0.5 or span_v < t / 2 + width + RAIL_BAND + 1.2:
        return None
    if any(c.x in (rect[0], rect[2]) and c.z in (rect[1], rect[3]) for c in layout.angled):
        return None
    other = rect[1 - frame.axis] if frame.across_sign > 0 else rect[3 - frame.axis]
    walls = (
        (frame.axis, frame.line, frame.sign, frame.rect(0, 0, 0, span_v)),
        (
            1 - frame.axis,
            frame.across,
            frame.across_sign,
            frame.rect(0, depth + length + FOOT, 0, 0),
        ),
        (1 - frame.axis, other, -frame.across_sign, frame.rect(0, depth, 0, 0)),
    )
    for axis, line, outward, r in walls:
        a, b = (r[1], r[3]) if axis == 0 else (r[0], r[2])
        if not _closed(layout, room, axis, line, outward, a, b):
            return None
    v_rail, v_ramp = t / 2 + width + RAIL_BAND / 2, t / 2 + width + RAIL_BAND
    edge = depth - RAIL_BAND / 2
    rails = (
        (frame.point(depth + length, v_rail, 0.0), frame.point(depth, v_rail, height)),
        (frame.point(edge, v_rail, height), frame.point(edge, span_v - t / 2 - 0.02, height)),
    )
    return SplitLevel(
        room,
        height,
        frame.rect(0, depth, 0, span_v),
        frame.rect(depth, depth + length, 0, v_ramp),
        frame.rect(depth + length, depth + length + FOOT, 0, v_ramp + 0.3),
        (frame.axis, frame.sign),
        rails,
        (
            frame.point(depth + length, 0.0, 0.0),
            frame.point(depth + length, v_ramp, 0.0),
            frame.point(depth, v_ramp, height),
            frame.point(depth, 0.0, height),
        ),
    )


def _closed(layout, room, axis, line, outward, a, b) -> bool:
    """Whether a wall bounds `room` along the line (axis 0: x = line) over [a, b]: the cells
    beyond it (towards `outward`) belong elsewhere, and no door is near."""
    k = round(line / CELL) - (outward < 0)
    for c in range(int(np.floor(a / CELL + 1e-6)), int(np.ceil(b / CELL - 1e-6))):
        i, j = (c, k) if axis == 0 else (k, c)
        if room_at(layout.labels, i, j) == room:
            return False
    doors = (*layout.doors, *((layout.entrance,) if layout.entrance else ()))
    return not any(
        d.axis == axis
        and abs(d.line - line) < 1e-6
        and d.start < b + DOOR_GAP
        and d.end > a - DOOR_GAP
        for d in doors
    )


def emit_split(builder: MeshBuilder, layout: Layout) -> None:
    """The platform, the ramp and their balustrades (storey frame, y = 0 the floor)."""
    split = layout.split
    floor = layout.floor_material(layout.rooms[split.room].kind)
    axis, sign = split.climb
    x0, z0, x1, z1 = split.platform
    front = ("-" if sign > 0 else "+") + ("x" if axis == 0 else "z")  # faces the room
    builder.box(floor, (x0, 0.0, z0), (x1, split.height, z1), {"+y", front})
    foot_wall, foot, top, top_wall = np.array(split.surface)
    across, up = foot - foot_wall, top_wall - foot_wall  # across: from the wall outwards
    cells = max(1, int(np.ceil(np.linalg.norm(up))))
    if np.cross(across, up)[1] > 0:
        builder.grid(floor, foot_wall, across, up, 1, cells)
    else:
        builder.grid(floor, foot, -across, up, 1, cells)
    side = (foot, top, top * [1.0, 0.0, 1.0])  # the open side, down to the floor
    builder.polygon("trim", side, across / np.linalg.norm(across))
    for p0, p1 in split.rails:
        balustrade(builder, p0, p1)


def balustrade(builder: MeshBuilder, p0: Point, p1: Point) -> None:
    """Balusters (gaps narrower than the 0.1 m-radius agent) standing on the floor line
    p0 -> p1 ((x, y, z), y the floor's height, which may slope), and a handrail above."""
    p0, p1 = np.asarray(p0, np.float64), np.asarray(p1, np.float64)
    d = p1 - p0
    length = float(np.hypot(d[0], d[2]))
    s = np.arange(SPACING / 2, length, SPACING) / length
    points = p0 + s[:, None] * d
    h = BALUSTER / 2
    builder.boxes(
        "metal", points - np.array([h, 0.02, h]), points + np.array([h, RAIL, h]), NO_BOTTOM
    )
    w, t = HANDRAIL
    across = np.array([-d[2], 0.0, d[0]]) / length * w
    start = p0 + np.array([0.0, RAIL, 0.0]) - across / 2
    builder.prism("wood", start, d, (0.0, t, 0.0), across)


def entrance_ramp(builder: MeshBuilder, x0, x1, z0, z1, y0, y1) -> None:
    """A paved ramp rising along +x from (x0, y0) to (x1, y1) between z0 and z1, its side
    faces down to y0 (sunk into what it crosses) and kerbs along both edges."""
    builder.grid("paving", (x0, y0, z1), (x1 - x0, y1 - y0, 0.0), (0.0, 0.0, z0 - z1), 3, 2)
    for z, n in ((z0, -1.0), (z1, 1.0)):
        builder.polygon("paving", [(x0, y0, z), (x1, y0, z), (x1, y1, z)], (0.0, 0.0, n))
    w, h = KERB
    for z in (z0, z1 - w):
        builder.prism(
            "concrete", (x0, y0 - 0.05, z), (x1 - x0, y1 - y0, 0.0), (0, h + 0.05, 0), (0, 0, w)
        )
