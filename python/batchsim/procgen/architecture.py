"""Walls, door openings (lintels, frames), skirting boards, floors and ceilings of a plan.

Large flat surfaces are returned as quads to tessellate later (the triangle budget sets
their cell size); small trims go straight into a MeshBuilder.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from batchsim.procgen.geometry import ALL_FACES, BOX_FACES, FACE_NAMES, SIDES, MeshBuilder
from batchsim.procgen.layout import CELL, DOOR_HEIGHT, Layout, runs
from batchsim.procgen.textures import FLOOR_CHOICES

CASING = 0.07  # door frame (casing) width, m
CASING_DEPTH = 0.02  # how far casings stand out of the wall, m
SKIRTING = (0.08, 0.012)  # skirting board height and depth, m
OVERLAP = 0.001  # m: wall ends stop just inside the wall they meet (no coplanar faces)


@dataclasses.dataclass
class Surfaces:
    """Quads to tessellate: material names and origin / u / v edge vectors [Q, 3]."""

    materials: list[str] = dataclasses.field(default_factory=list)
    quads: list[np.ndarray] = dataclasses.field(default_factory=list)

    def add_quad(self, material, origin, u, v) -> None:
        self.materials.append(material)
        self.quads.append(np.array([origin, u, v], np.float64))

    def add_box(self, material, lo, hi, faces) -> None:
        lo, size = np.asarray(lo, np.float64), np.subtract(hi, lo)
        for name, (o, u, v) in zip(FACE_NAMES, BOX_FACES, strict=True):
            if name in faces:
                self.add_quad(material, lo + o * size, u * size, v * size)

    def extend(self, other: Surfaces, dy: float) -> None:
        """Adds `other`'s quads raised by dy."""
        self.materials += other.materials
        self.quads += [q + np.array([[0.0, dy, 0.0], [0, 0, 0], [0, 0, 0]]) for q in other.quads]

    def cells(self, size: float) -> tuple[np.ndarray, np.ndarray]:
        """Subdivisions along u and v for cells of about `size` metres."""
        quads = np.array(self.quads)
        lu = np.linalg.norm(quads[:, 1], axis=1)
        lv = np.linalg.norm(quads[:, 2], axis=1)
        return np.maximum(1, np.ceil(lu / size - 1e-9)), np.maximum(1, np.ceil(lv / size - 1e-9))

    def triangles(self, size: float) -> int:
        nu, nv = self.cells(size)
        return int(2 * (nu * nv).sum())

    def emit(self, builder: MeshBuilder, size: float) -> None:
        nu, nv = self.cells(size)
        for material, (o, u, v), a, b in zip(self.materials, self.quads, nu, nv, strict=True):
            builder.grid(material, o, u, v, int(a), int(b))


def _box(axis, line, s0, s1, a0, a1, y0, y1):
    """lo, hi of a box along a wall line: s along the wall, a across it (offsets)."""
    if axis == 0:
        return (line + a0, y0, s0), (line + a1, y1, s1)
    return (s0, y0, line + a0), (s1, y1, line + a1)


def _subtract(s0: float, s1: float, holes) -> list[tuple[float, float]]:
    """[s0, s1] minus the (sorted) intervals `holes`."""
    pieces, start = [], s0
    for h0, h1 in sorted(holes):
        if h0 > start:
            pieces.append((start, min(h0, s1)))
        start = max(start, h1)
    if start < s1:
        pieces.append((start, s1))
    return [(a, b) for a, b in pieces if b - a > 1e-6]


def cut(rect, hole) -> list[tuple[float, float, float, float]]:
    """Rectangle (x0, z0, x1, z1) minus another: up to four rectangles."""
    x0, z0, x1, z1 = rect
    h0, g0, h1, g1 = max(hole[0], x0), max(hole[1], z0), min(hole[2], x1), min(hole[3], z1)
    if h0 >= h1 or g0 >= g1:
        return [rect]
    pieces = [(x0, z0, x1, g0), (x0, g1, x1, z1), (x0, g0, h0, g1), (h1, g0, x1, g1)]
    return [p for p in pieces if p[2] - p[0] > 1e-6 and p[3] - p[1] > 1e-6]


def cut_all(rects, holes) -> list[tuple[float, float, float, float]]:
    for hole in holes:
        rects = [piece for rect in rects for piece in cut(rect, hole)]
    return list(rects)


def build_architecture(
    layout: Layout,
    builder: MeshBuilder,
    ceiling: bool,
    below: float = 0.0,
    floor_holes=(),
    ceiling_holes=(),
) -> Surfaces:
    """Emits trims into `builder`; returns walls, floors and ceilings as Surfaces. Walls
    reach `below` metres under the floor (the slab, the ground outside); the holes are
    rectangles (x0, z0, x1, z1) left out of the floor and the ceiling."""
    surfaces = Surfaces()
    t, height = layout.wall_thickness, layout.wall_height
    doors: dict[tuple[int, float], list] = {}
    for door in layout.doors:
        doors.setdefault((door.axis, door.line), []).append((door.start, door.end))
    for axis, grid in ((0, layout.labels), (1, layout.labels.T)):
        padded = np.pad(grid, ((0, 0), (1, 1)), constant_values=-1)
        for line_index in range(grid.shape[1] + 1):
            a, b = padded[:, line_index], padded[:, line_index + 1]
            line = line_index * CELL
            holes = doors.get((axis, line), [])
            for r0, r1 in runs(a != b):
                s0, s1 = r0 * CELL - t / 2 + OVERLAP, r1 * CELL + t / 2 - OVERLAP
                if below > 0:  # under the floor: no door holes
                    lo, hi = _box(axis, line, s0, s1, -t / 2, t / 2, -below, 0.0)
                    surfaces.add_box("wall", lo, hi, SIDES)
                for p0, p1 in _subtract(s0, s1, holes):
                    lo, hi = _box(axis, line, p0, p1, -t / 2, t / 2, 0.0, height)
                    surfaces.add_box("wall", lo, hi, SIDES if ceiling else SIDES | {"+y"})
            for side, labels in ((-1, a), (1, b)):
                kept = (a != b) & (labels >= 0) & (labels != layout.void)
                _skirting(builder, axis, line, side, t, runs(kept), holes)
            for s0, s1 in holes:
                _door(surfaces, builder, axis, line, s0, s1, t, height, ceiling)
                if below > 0:  # the threshold
                    lo, hi = _box(axis, line, s0, s1, -t / 2, t / 2, -below, 0.0)
                    builder.box("trim", lo, hi, {"+y"})
    for chamfer in layout.angled:
        _angled_wall(builder, chamfer, t, height, below)
    floors = dict(layout.floors)
    for room in layout.rooms:
        for x0, z0, x1, z1 in cut_all(room.rects, floor_holes):
            surfaces.add_quad(
                floors.get(room.kind, FLOOR_CHOICES[room.kind][0]),
                (x0, 0.0, z1),
                (x1 - x0, 0.0, 0.0),
                (0.0, 0.0, z0 - z1),
            )
        for x0, z0, x1, z1 in cut_all(room.rects, ceiling_holes) if ceiling else ():
            surfaces.add_quad("ceiling", (x0, height, z0), (x1 - x0, 0.0, 0.0), (0.0, 0.0, z1 - z0))
    return surfaces


def _angled_wall(builder, chamfer, t, height, below) -> None:
    """A 45-degree wall across a room corner, its ends sunk into the walls it meets."""
    sx, sz = chamfer.sx, chamfer.sz
    px, pz = chamfer.x + sx * t / 2, chamfer.z + sz * t / 2  # the faces' inner corner
    a = np.array([px + sx * chamfer.leg, -below, pz])
    b = np.array([px, -below, pz + sz * chamfer.leg])
    along = (b - a) / np.linalg.norm(b - a)
    into = -np.array([sx, 0.0, sz]) / np.sqrt(2.0)  # towards the corner
    start, end = a - along * t, b + along * t
    builder.prism("wall", start, end - start, (0.0, height + below, 0.0), into * t)


def _skirting(builder, axis, line, side, t, runs, holes) -> None:
    """Skirting boards along one face of a wall line, broken at doors (and their frames)."""
    depth_h, depth = SKIRTING
    a0, a1 = sorted((side * t / 2, side * (t / 2 + depth)))
    holes = [(h0 - CASING, h1 + CASING) for h0, h1 in holes]
    lo, hi = [], []
    for r0, r1 in runs:
        for p0, p1 in _subtract(r0 * CELL - t / 2, r1 * CELL + t / 2, holes):
            box = _box(axis, line, p0, p1, a0, a1, 0.0, depth_h)
            lo.append(box[0])
            hi.append(box[1])
    if lo:
        builder.boxes("trim", lo, hi, ALL_FACES - {"-y", _face(axis, -side)})


def _door(surfaces, builder, axis, line, s0, s1, t, height, ceiling) -> None:
    """Lintel above the opening, and casings (two jambs and a head) on both faces."""
    lo, hi = _box(axis, line, s0, s1, -t / 2, t / 2, DOOR_HEIGHT, height)
    faces = {_face(axis, -1), _face(axis, 1), "-y"}  # no ends: they lie inside the jambs
    surfaces.add_box("wall", lo, hi, faces if ceiling else faces | {"+y"})
    for side in (-1, 1):
        los, his = [], []
        a0, a1 = sorted((side * t / 2, side * (t / 2 + CASING_DEPTH)))
        top = DOOR_HEIGHT + CASING
        for p0, p1, y0, y1 in (
            (s0 - CASING, s0, 0.0, top),
            (s1, s1 + CASING, 0.0, top),
            (s0, s1, DOOR_HEIGHT, top),
        ):
            box = _box(axis, line, p0, p1, a0, a1, y0, y1)
            los.append(box[0])
            his.append(box[1])
        builder.boxes("trim", los, his, ALL_FACES - {_face(axis, -side)})


def _face(axis: int, sign: int) -> str:
    """The face pointing across a wall line of `axis`, towards `sign`."""
    return ("+" if sign > 0 else "-") + ("x" if axis == 0 else "z")
