"""Bay windows: three-sided bump-outs of outer walls (45-degree sides, 0.5-1 m deep) on
every storey, glazed from a sill to a head between solid bands. The wall they replace is
open from floor to ceiling, so the bay's floor continues the room's (one navmesh island).
"""

from __future__ import annotations

import numpy as np

from batchsim.procgen.architecture import OVERLAP
from batchsim.procgen.geometry import MeshBuilder
from batchsim.procgen.layout import DOOR_HEIGHT, PATH_WIDTH, runs
from batchsim.procgen.plan import CELL, Bay, Layout, room_at

BAY_ROOMS = ("living", "bedroom", "study", "kitchen", "office", "meeting", "open_plan")
BAY_SHARE = 0.4  # of those rooms get a bay where one fits
END_MARGIN = 0.6  # m of straight wall kept at each side of the opening
CLEAR = 0.6  # m kept free of the building round a bay
GLASS = 0.02  # m: pane thickness
POST = 0.08  # m: frame posts at the bay's corners


def find_bays(rng: np.random.Generator, layout: Layout) -> tuple[Bay, ...]:
    """Bays on outer walls of some rooms (not the loft, the split level's room or rooms with
    diagonal walls), clear of the rest of the building and of the front path."""
    skip = {layout.loft, layout.split.room if layout.split else -1}
    for c in layout.angled:
        i, j = int((c.z + c.sz * CELL / 2) // CELL), int((c.x + c.sx * CELL / 2) // CELL)
        skip.add(room_at(layout.labels, i, j))
    bays = []
    for room in layout.rooms:
        if room.kind not in BAY_ROOMS or room.index in skip or rng.random() >= BAY_SHARE:
            continue
        width, depth, sill = rng.uniform(1.8, 3.0), rng.uniform(0.5, 1.0), rng.uniform(0.7, 0.95)
        spans = _outer_spans(layout.labels, room.index)
        for k in rng.permutation(len(spans)):
            axis, line, outward, a, b = spans[int(k)]
            w = min(width, b - a - 2 * END_MARGIN)
            if w < 2 * depth + 0.8:  # the front at least 0.8 m
                continue
            s = a + END_MARGIN + rng.random() * max(0.0, b - a - 2 * END_MARGIN - w)
            bay = Bay(room.index, axis, line, outward, s, s + w, depth, sill)
            if _clear(layout, bay):
                bays.append(bay)
                break
    return tuple(bays)


def _outer_spans(labels: np.ndarray, room: int) -> list[tuple]:
    """Runs of the room's outer walls: (axis, line, outward, start, end), metres."""
    padded = np.pad(labels, 1, constant_values=-1)
    inside = padded == room
    spans = []
    for axis in (0, 1):
        for outward in (-1, 1):
            beyond = np.roll(padded, -outward, axis=1 - axis)  # the cell across the wall
            edge = inside & (beyond == -1)
            lines = edge if axis == 0 else edge.T  # rows: along the wall; columns: lines
            for index in np.flatnonzero(lines.any(0)):
                line = float((index - 1 + (outward > 0)) * CELL)
                for r0, r1 in runs(lines[:, index]):
                    spans.append((axis, line, outward, (r0 - 1) * CELL, (r1 - 1) * CELL))
    return spans


def _clear(layout: Layout, bay: Bay) -> bool:
    """Whether only the outside lies within CLEAR of the bay, and the front path is away."""
    reach = bay.depth + layout.wall_thickness / 2 + CLEAR
    for s in np.arange(bay.start - CLEAR, bay.end + CLEAR, CELL / 2):
        for w in np.arange(CELL / 2, reach, CELL / 2):
            x, z = bay.world(s, w)
            if room_at(layout.labels, int(z // CELL), int(x // CELL)) >= 0:
                return False
    door = layout.entrance
    if door is None or (bay.axis, bay.line, bay.outward) != (door.axis, door.line, -1):
        return True
    mid, half = (door.start + door.end) / 2, PATH_WIDTH / 2 + CLEAR
    return bay.end + CLEAR < mid - half or bay.start - CLEAR > mid + half


def emit_bay(builder: MeshBuilder, layout: Layout, bay: Bay, below: float, ceiling: bool):
    """One storey of a bay: solid bands below the sill and above the head, glazing and
    corner posts between them, its floor and ceiling (storey frame, y = 0 the floor)."""
    t, height = layout.wall_thickness, layout.wall_height
    inside, facade = layout.wall_material(bay.room), layout.facade
    kind = layout.rooms[bay.room].kind
    head = min(DOOR_HEIGHT, height - 0.25)
    centre = bay.outline()
    end = OVERLAP - t / 2  # just inside the room face of the wall the bay leaves
    inner, outer = _offset(centre, -t / 2, end), _offset(centre, t / 2, end)
    for i in range(3):
        quad = [bay.world(*p) for p in (inner[i], inner[i + 1], outer[i + 1], outer[i])]
        sides = [inside, None if i < 2 else inside, facade, None if i > 0 else inside]
        builder.extrude(sides, quad, -below, bay.sill, top="trim")
        builder.extrude(sides, quad, head, height, None if ceiling else inside, "trim")
        pane = [bay.world(*(p + n)) for p, n in _strip(centre[i], centre[i + 1])]
        builder.extrude(["glass"] * 4, pane, bay.sill, head)
    fronts = centre[1:3]
    length = fronts[1, 0] - fronts[0, 0]
    posts = [*fronts, *([fronts.mean(0)] if length > 1.5 else [])]
    for s, w in posts:
        x, z = bay.world(s, w)
        h = POST / 2
        builder.box(
            "trim", (x - h, bay.sill, z - h), (x + h, head, z + h), {"+x", "-x", "+z", "-z"}
        )
    floor = [(x, 0.0, z) for x, z in (bay.world(*p) for p in centre)]
    builder.polygon(layout.floor_material(kind), floor, (0.0, 1.0, 0.0))
    if ceiling:
        roof = [(x, height, z) for x, _, z in floor]
        builder.polygon(layout.ceiling_material(kind), roof, (0.0, -1.0, 0.0))


def _strip(a: np.ndarray, b: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """A pane's footprint along a -> b: its corners as (point, offset) pairs."""
    d = (b - a) / np.linalg.norm(b - a)
    n = np.array([-d[1], d[0]]) * GLASS / 2
    return [(a, -n), (b, -n), (b, n), (a, n)]


def _offset(centre: np.ndarray, distance: float, end: float) -> np.ndarray:
    """The polyline `centre` ((s, w) rows) moved sideways by `distance` (+: outwards),
    mitred at its bends, its ends on the line w = `end`."""
    d = np.diff(centre, axis=0)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    n = np.stack([-d[:, 1], d[:, 0]], 1)  # outwards for a bay traced with s increasing
    lines = [(centre[i] + n[i] * distance, d[i]) for i in range(len(d))]
    base = (np.array([0.0, end]), np.array([1.0, 0.0]))
    ends = [base, *lines, base]
    return np.array([_meet(ends[i], ends[i + 1]) for i in range(len(lines) + 1)])


def _meet(p, q) -> np.ndarray:
    """Where the lines (point, direction) p and q cross."""
    (a, d), (b, e) = p, q
    k = np.linalg.solve(np.array([d, -e]).T, b - a)
    return a + k[0] * d
