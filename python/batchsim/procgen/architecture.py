"""Walls, door openings (lintels, frames), skirting boards, floors and ceilings of a plan.

Large flat surfaces are returned as quads to tessellate later (the triangle budget sets
their cell size); small trims go straight into a MeshBuilder.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from batchsim.procgen.geometry import ALL_FACES, BOX_FACES, FACE_NAMES, MeshBuilder
from batchsim.procgen.layout import DOOR_HEIGHT, runs
from batchsim.procgen.plan import CELL, Layout

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

    def add_box(self, materials: dict[str, str], lo, hi) -> None:
        """An axis-aligned box's faces named in `materials` ({"+x": material, ...})."""
        lo, size = np.asarray(lo, np.float64), np.subtract(hi, lo)
        for name, (o, u, v) in zip(FACE_NAMES, BOX_FACES, strict=True):
            if name in materials:
                self.add_quad(materials[name], lo + o * size, u * size, v * size)

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
    t = layout.wall_thickness
    doors: dict[tuple[int, float], list] = {}
    for door in layout.doors:
        doors.setdefault((door.axis, door.line), []).append((door.start, door.end))
    bays: dict[tuple[int, float], list] = {}
    for bay in layout.bays:
        bays.setdefault((bay.axis, bay.line), []).append((bay.start, bay.end))
    for axis, grid in ((0, layout.labels), (1, layout.labels.T)):
        padded = np.pad(grid, ((0, 0), (1, 1)), constant_values=-1)
        for line_index in range(grid.shape[1] + 1):
            a, b = padded[:, line_index], padded[:, line_index + 1]
            line = line_index * CELL
            holes = doors.get((axis, line), [])
            openings = holes + bays.get((axis, line), [])
            wall = _WallLine(surfaces, layout, axis, line, a, b)
            for r0, r1 in runs(a != b):
                wall.run(r0, r1, openings, below, ceiling)
            for side, labels in ((-1, a), (1, b)):
                kept = (a != b) & (labels >= 0) & (labels != layout.void)
                _skirting(builder, axis, line, side, t, runs(kept), openings)
            for s0, s1 in holes:
                _door(wall, builder, s0, s1, ceiling)
                if below > 0:  # the threshold
                    lo, hi = _box(axis, line, s0, s1, -t / 2, t / 2, -below, 0.0)
                    builder.box("trim", lo, hi, {"+y"})
    for chamfer in layout.angled:
        _angled_wall(builder, layout, chamfer, below, ceiling)
    _floors_and_ceilings(surfaces, layout, ceiling, floor_holes, ceiling_holes)
    return surfaces


def _floors_and_ceilings(surfaces, layout, ceiling, floor_holes, ceiling_holes) -> None:
    """Each room's floor (less the holes, and the split level's raised part and ramp) and
    ceiling, in the materials of its kind."""
    split, height = layout.split, layout.wall_height
    for room in layout.rooms:
        raised = (split.platform, split.ramp) if split and split.room == room.index else ()
        for x0, z0, x1, z1 in cut_all(room.rects, [*floor_holes, *raised]):
            surfaces.add_quad(
                layout.floor_material(room.kind),
                (x0, 0.0, z1),
                (x1 - x0, 0.0, 0.0),
                (0.0, 0.0, z0 - z1),
            )
        material = layout.ceiling_material(room.kind)
        for x0, z0, x1, z1 in cut_all(room.rects, ceiling_holes) if ceiling else ():
            surfaces.add_quad(material, (x0, height, z0), (x1 - x0, 0.0, 0.0), (0.0, 0.0, z1 - z0))


class _WallLine:
    """The walls along one grid line: each face in the material of the room it faces."""

    def __init__(self, surfaces, layout, axis, line, a, b):
        self.surfaces, self.layout, self.axis, self.line = surfaces, layout, axis, line
        self.a, self.b = a, b  # room labels on the - and + sides, per cell along the line
        self.faces = (_face(axis, -1), _face(axis, 1))
        self.ends = ("-z", "+z") if axis == 0 else ("-x", "+x")

    def materials(self, index: int) -> tuple[str, str]:
        """Wall materials facing the - and + sides at cell `index` along the line."""
        return tuple(self.layout.wall_material(int(r[index])) for r in (self.a, self.b))

    def run(self, r0, r1, openings, below, ceiling) -> None:
        """Cells [r0, r1) of wall, split where the rooms on either side change (no end faces
        there) and at the openings (end faces there)."""
        t, height = self.layout.wall_thickness, self.layout.wall_height
        pair = list(zip(self.a[r0:r1], self.b[r0:r1], strict=True))
        cuts = [r0] + [r0 + i for i in range(1, len(pair)) if pair[i] != pair[i - 1]] + [r1]
        for c0, c1 in itertools.pairwise(cuts):
            p0 = r0 * CELL - t / 2 + OVERLAP if c0 == r0 else c0 * CELL
            p1 = r1 * CELL + t / 2 - OVERLAP if c1 == r1 else c1 * CELL
            neg, pos = self.materials(c0)
            sides = {self.faces[0]: neg, self.faces[1]: pos}
            inner = neg if self.a[c0] >= 0 else pos  # for ends and tops: an inside material
            if below > 0:  # under the floor: no openings
                self.box(p0, p1, -below, 0.0, sides, inner, (c0 == r0, c1 == r1))
            top = {} if ceiling else {"+y": inner}
            for q0, q1 in _subtract(p0, p1, openings):
                ends = (c0 == r0 or q0 > p0, c1 == r1 or q1 < p1)
                self.box(q0, q1, 0.0, height, sides | top, inner, ends)

    def box(self, s0, s1, y0, y1, faces, end_material, ends) -> None:
        """A piece of wall [s0, s1] along the line, with end faces where `ends` say."""
        t = self.layout.wall_thickness
        faces = dict(faces)
        for name, present in zip(self.ends, ends, strict=True):
            if present:
                faces[name] = end_material
        lo, hi = _box(self.axis, self.line, s0, s1, -t / 2, t / 2, y0, y1)
        self.surfaces.add_box(faces, lo, hi)


def _angled_wall(builder, layout, chamfer, below, ceiling) -> None:
    """A 45-degree wall across a room corner; its ends stop at the centre lines of the
    walls it meets, so nothing of it shows outside them."""
    t, height, leg = layout.wall_thickness, layout.wall_height, chamfer.leg
    sx, sz = chamfer.sx, chamfer.sz
    row = layout.labels[int((chamfer.z + sz * CELL / 2) // CELL)]
    material = layout.wall_material(int(row[int((chamfer.x + sx * CELL / 2) // CELL)]))
    inner, outer = leg + t, leg + t - t * np.sqrt(2.0)  # u + w on its two faces
    corners = [(inner, 0.0), (0.0, inner), (0.0, outer), (outer, 0.0)]  # (u, w) from the corner
    footprint = [(chamfer.x + sx * u, chamfer.z + sz * w) for u, w in corners]
    top = None if ceiling else material
    builder.extrude([material, None, None, None], footprint, -below, height, top)


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


def _door(wall, builder, s0, s1, ceiling) -> None:
    """Lintel above the opening, and casings (two jambs and a head) on both faces."""
    axis, line = wall.axis, wall.line
    t, height = wall.layout.wall_thickness, wall.layout.wall_height
    lo, hi = _box(axis, line, s0, s1, -t / 2, t / 2, DOOR_HEIGHT, height)
    neg, pos = wall.materials(int((s0 + s1) / 2 // CELL))
    faces = {_face(axis, -1): neg, _face(axis, 1): pos, "-y": "trim"}  # ends: inside jambs
    wall.surfaces.add_box(faces if ceiling else faces | {"+y": neg}, lo, hi)
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
