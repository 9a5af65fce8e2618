"""Floor plans: rooms as unions of grid rectangles, doors on shared walls.

A plan is a label grid (CELL metres per cell, one room index per cell, -1 outside) plus
the doors. Walls run along grid lines wherever the labels on both sides differ. Every
storey of a building shares the plan; buildings of several storeys get a stairwell annex
(a "stair" room along the z = 0 side) with one straight stair per storey pair.
"""

from __future__ import annotations

import numpy as np

from batchsim.procgen.floorplans import apartment, office
from batchsim.procgen.materials import draw_finishes
from batchsim.procgen.plan import CELL, SLAB, Chamfer, Door, Layout, Room, Stairwell, room_at

DOOR_HEIGHT = 2.1  # m, a standard interior door
DOOR_MARGIN = 0.3  # m of wall kept between a door and the wall's end (frames need room)
MAX_RISER, TREAD = 0.18, 0.28  # m: stair steps (Habitat's agent climbs 0.2 m)
STAIR_WIDTH, WALKWAY, LANDING = 1.1, 1.0, 1.1  # m: a stair lane, the walkway, landings
PATH_WIDTH = 1.3  # m: the garden path (or ramp) to the front door


def make_layout(rng: np.random.Generator, kind: str, storeys: int = 1) -> Layout:
    """A connected floor plan of `kind` ("apartment" or "office"), with a stairwell annex
    when `storeys` > 1 (one storey when no annex fits)."""
    height = rng.uniform(2.4, 3.0) if kind == "apartment" else rng.uniform(2.6, 3.4)
    thickness = rng.uniform(0.08, 0.25)
    while True:  # rare rejections (too few rooms, no door fits): draw again
        labels, kinds = apartment(rng) if kind == "apartment" else office(rng)
        if kind == "apartment" and not 5 <= len(kinds) <= 9:
            continue
        stair = None
        if storeys > 1:
            labels, stair = _annex(rng, labels, kinds, storeys, height, thickness)
        doors = _doors(rng, labels, kinds)
        if doors is not None:
            break
    rooms = tuple(Room(i, k, mask_rects(labels == i)) for i, k in enumerate(kinds))
    angled = _chamfers(rng, labels, rooms, doors, thickness)
    loft = _loft(rng, rooms, doors) if stair is not None else -1
    return Layout(
        kind,
        labels,
        rooms,
        tuple(doors),
        thickness,
        height,
        storeys if stair is not None else 1,
        stair,
        _entrance(rng, labels, kinds),
        angled,
        loft,
        **draw_finishes(rng),
    )


def _loft(rng, rooms, doors) -> int:
    """Half the time, the largest living room, open-plan area or meeting room whose
    upper half can go while storey 1 stays connected; -1 otherwise."""
    if rng.random() >= 0.5:
        return -1
    candidates = [r for r in rooms if r.kind in ("living", "open_plan", "meeting")]
    for room in sorted(candidates, key=lambda r: (-r.area, r.index)):
        parent = list(range(len(rooms)))

        def find(i, parent=parent):
            while parent[i] != i:
                i = parent[i]
            return i

        for door in doors:
            if room.index not in door.rooms:
                parent[find(door.rooms[0])] = find(door.rooms[1])
        if len({find(r.index) for r in rooms if r.index != room.index}) == 1:
            return room.index
    return -1


CHAMFERED = {"living", "bedroom", "study", "kitchen", "office", "meeting", "open_plan"}


def _chamfers(rng, labels, rooms, doors, t) -> tuple[Chamfer, ...]:
    """Diagonal walls across some rooms' corners, away from doors."""
    found = []
    for room in rooms:
        if room.kind not in CHAMFERED or rng.random() >= 0.35:
            continue
        leg = float(rng.uniform(0.8, 1.6))
        reach = leg + t + DOOR_MARGIN + 0.3  # m from the corner kept free of doors
        n = int(np.ceil(reach / CELL))
        corners = [
            (x, z, sx, sz)
            for x0, z0, x1, z1 in room.rects
            for x, sx in ((x0, 1), (x1, -1))
            for z, sz in ((z0, 1), (z1, -1))
        ]
        for k in rng.permutation(len(corners)):
            x, z, sx, sz = corners[int(k)]
            if _corner_free(labels, room.index, x, z, sx, sz, n, reach, doors):
                found.append(Chamfer(x, z, sx, sz, leg))
                break
    return tuple(found)


def _corner_free(labels, room, x, z, sx, sz, n, reach, doors) -> bool:
    """Whether the room fills n x n cells from the corner, walls bound both sides, and no
    door lies within `reach` of the corner."""
    i0, j0 = round(z / CELL), round(x / CELL)
    rows = [i0 + sz * k - (sz < 0) for k in range(n)]
    cols = [j0 + sx * k - (sx < 0) for k in range(n)]
    if any(room_at(labels, i, j) != room for i in rows for j in cols):
        return False
    behind_i, behind_j = i0 - (sz > 0), j0 - (sx > 0)
    if any(room_at(labels, behind_i, j) == room for j in cols):
        return False
    if any(room_at(labels, i, behind_j) == room for i in rows):
        return False
    for door in doors:
        line, along = (x, z) if door.axis == 0 else (z, x)
        lo, hi = sorted((along, along + (sz if door.axis == 0 else sx) * reach))
        if abs(door.line - line) < 1e-6 and door.start < hi and door.end > lo:
            return False
    return True


def _annex(rng, labels, kinds, storeys, height, t):
    """Adds a stairwell room along the z = 0 side (rows prepended), over columns whose
    first row is all rooms; returns (labels, Stairwell), or (labels, None) if none fits."""
    lanes = storeys - 1
    risers = int(np.ceil((height + SLAB) / MAX_RISER - 1e-9))
    run = (risers - 1) * TREAD
    depth = int(np.ceil((t + WALKWAY + lanes * STAIR_WIDTH) / CELL))
    length = int(np.ceil((t + 2 * LANDING + run) / CELL))
    fits = [
        c for c in range(labels.shape[1] - length + 1) if (labels[0, c : c + length] >= 0).all()
    ]
    if not fits:
        return labels, None
    c0 = int(fits[int(rng.integers(len(fits)))])
    grown = np.full((labels.shape[0] + depth, labels.shape[1]), -1, np.int32)
    grown[depth:] = labels
    grown[:depth, c0 : c0 + length] = len(kinds)
    kinds.append("stair")
    x0, x1, zb = c0 * CELL, (c0 + length) * CELL, depth * CELL
    walk = zb - t - lanes * STAIR_WIDTH
    lane_z = [
        (
            zb - t / 2 - walk - (k + 1) * STAIR_WIDTH + 0.01 * (k == lanes - 1),
            zb - t / 2 - walk - k * STAIR_WIDTH,
        )
        for k in range(lanes)
    ]
    xs = x0 + t / 2 + (x1 - x0 - t - run) / 2
    stair = Stairwell(
        tuple(lane_z),
        (zb - t / 2 - walk, zb - t / 2),
        xs,
        xs + run,
        risers,
        (x0, 0.0, x1, zb),
        height + SLAB,
    )
    return grown, stair


def _entrance(rng, labels, kinds) -> Door | None:
    """The front door: in the x = 0 wall of the hallway or corridor."""
    hub = next(i for i, k in enumerate(kinds) if k in ("hallway", "corridor"))
    rows = runs(labels[:, 0] == hub)
    if not rows:
        return None
    start, stop = max(rows, key=lambda r: r[1] - r[0])
    lo, hi = start * CELL + DOOR_MARGIN, stop * CELL - DOOR_MARGIN
    width = min(rng.uniform(0.9, 1.3), hi - lo)
    if width < 0.8:
        return None
    s = rng.uniform(lo, hi - width)
    return Door((0, -1), 0, 0.0, s, s + width)


def mask_rects(mask: np.ndarray) -> tuple[tuple[float, float, float, float], ...]:
    """A mask's cells (a room's, say) as disjoint rectangles: maximal row runs merged down
    the rows."""
    rects, open_runs = [], {}
    for z in range(mask.shape[0] + 1):
        row = mask[z] if z < mask.shape[0] else np.zeros(mask.shape[1], bool)
        row_runs = set(runs(row))
        for run in list(open_runs):
            if run not in row_runs:
                rects.append((run[0], open_runs.pop(run), run[1], z))
        for run in sorted(row_runs):
            open_runs.setdefault(run, z)
    return tuple(sorted((x0 * CELL, z0 * CELL, x1 * CELL, z1 * CELL) for x0, z0, x1, z1 in rects))


def runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) of each run of True."""
    padded = np.concatenate([[False], flags, [False]])
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def shared_walls(labels: np.ndarray) -> dict[tuple[int, int], list[tuple[int, int, int, int]]]:
    """For each adjacent room pair (a < b): wall runs (axis, line, start, stop) in cells."""
    walls: dict[tuple[int, int], list] = {}
    for axis, grid in ((0, labels), (1, labels.T)):  # axis 0: lines x = const
        for line in range(1, grid.shape[1]):
            a, b = grid[:, line - 1], grid[:, line]
            pair_code = np.where(
                (a != b) & (a >= 0) & (b >= 0), np.minimum(a, b) * 4096 + np.maximum(a, b), -1
            )
            for code in np.unique(pair_code[pair_code >= 0]):
                for run in runs(pair_code == code):
                    walls.setdefault((int(code) // 4096, int(code) % 4096), []).append(
                        (axis, line, *run)
                    )
    return walls


def _doors(rng, labels, kinds) -> list[Door] | None:
    """A random spanning tree of the room graph (hall and corridor links first) plus a few
    extra doors, so every room is reachable and some routes have alternatives."""
    walls = shared_walls(labels)
    pairs = sorted(p for p, runs in walls.items() if max(r[3] - r[2] for r in runs) * CELL >= 1.6)
    hubs = {"hallway", "corridor"}
    weight = [rng.random() + (0 if hubs & {kinds[a], kinds[b]} else 1) for a, b in pairs]
    parent = list(range(len(kinds)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    chosen, spare = [], []
    for k in np.argsort(weight, kind="stable"):
        a, b = pairs[k]
        if find(a) != find(b):
            parent[find(a)] = find(b)
            chosen.append(pairs[k])
        else:
            spare.append(pairs[k])
    if len({find(i) for i in range(len(kinds))}) != 1:
        return None
    extra = int(rng.integers(1, 4)) + (len(kinds) // 6 if labels.shape[1] > 36 else 0)
    if spare:
        picks = rng.choice(len(spare), min(extra, len(spare)), replace=False)
        chosen += [spare[i] for i in sorted(picks)]
    return [_place_door(rng, walls[p], p, kinds) for p in chosen]


def _place_door(rng, runs, pair, kinds) -> Door:
    axis, line, start, stop = max(runs, key=lambda r: (r[3] - r[2], r))
    wide = "open_plan" in (kinds[pair[0]], kinds[pair[1]])
    width = rng.uniform(1.4, 2.2) if wide else rng.uniform(0.8, 1.3)
    lo, hi = start * CELL + DOOR_MARGIN, stop * CELL - DOOR_MARGIN
    width = min(width, hi - lo)
    s = rng.uniform(lo, hi - width)
    return Door(pair, axis, line * CELL, s, s + width)
