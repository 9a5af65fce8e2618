"""Furniture built from primitives, in a local frame: width along x centred on 0, depth
along +z from the back (z = 0, the side that goes against a wall), y up from the floor.

Every builder takes (mb, w, d, seg, rng): seg is the segment count of round parts (the
detail level), rng draws small details such as book sizes.
"""

from __future__ import annotations

import itertools

import numpy as np

from batchsim.procgen.geometry import ALL_FACES, NO_BOTTOM, MeshBuilder

# Footprint ranges (width, depth) in metres per piece; placement draws sizes from them.
SIZES = {
    "bed": ((1.4, 1.8), (2.0, 2.1)),
    "nightstand": ((0.45, 0.5), (0.4, 0.45)),
    "wardrobe": ((1.0, 1.6), (0.55, 0.6)),
    "bookshelf": ((0.8, 1.4), (0.32, 0.36)),
    "sofa": ((1.8, 2.3), (0.85, 0.95)),
    "armchair": ((0.8, 0.9), (0.8, 0.9)),
    "coffee_table": ((0.9, 1.2), (0.5, 0.65)),
    "dining": ((1.2, 1.7), (1.8, 2.0)),
    "desk": ((1.2, 1.6), (1.3, 1.4)),
    "counter": ((1.8, 2.8), (0.6, 0.62)),
    "tv_stand": ((1.2, 1.6), (0.4, 0.45)),
    "bathtub": ((1.5, 1.7), (0.7, 0.75)),
    "toilet": ((0.4, 0.45), (0.65, 0.7)),
    "vanity": ((0.7, 0.9), (0.45, 0.5)),
    "plant": ((0.45, 0.6), (0.45, 0.6)),
    "cabinet": ((0.5, 0.9), (0.5, 0.6)),
    "console": ((0.9, 1.2), (0.32, 0.36)),
    "meeting_table": ((2.4, 3.2), (2.2, 2.4)),
    "desk_cluster": ((2.6, 3.0), (2.8, 2.9)),
    "pillar": ((0.4, 0.55), (0.4, 0.55)),
}


def _legs(mb, material, xs, zs, radius, height, seg, y0=0.0) -> None:
    for x in xs:
        for z in zs:
            mb.cylinder(material, (x, y0, z), radius, height, seg, caps=(False, False))


def table(mb, w, d, seg, z0=0.0, height=0.75, top="wood") -> None:
    """A table top on four round legs (z0: where its back edge is)."""
    mb.box(top, (-w / 2, height - 0.04, z0), (w / 2, height, z0 + d))
    xs, zs = (-w / 2 + 0.06, w / 2 - 0.06), (z0 + 0.06, z0 + d - 0.06)
    _legs(mb, "metal" if top != "wood" else "wood", xs, zs, 0.025, height - 0.04, seg)


def chair(mb, x, z, turns, seg) -> None:
    """A chair at (x, z) facing `turns` quarter turns from +z (its back behind it)."""
    local = MeshBuilder(mb.tiles)
    local.box("wood", (-0.22, 0.43, -0.22), (0.22, 0.47, 0.22))
    _legs(local, "wood", (-0.19, 0.19), (-0.19, 0.19), 0.018, 0.43, max(6, seg // 2))
    local.box("wood", (-0.21, 0.47, -0.22), (0.21, 0.9, -0.19), NO_BOTTOM)
    mb.merge(local, turns, (x, 0.0, z))


def bed(mb, w, d, seg, rng) -> None:
    mb.box("wood", (-w / 2, 0.1, 0), (w / 2, 0.32, d))
    _legs(mb, "wood", (-w / 2 + 0.05, w / 2 - 0.05), (0.05, d - 0.05), 0.03, 0.1, seg)
    mb.box("fabric", (-w / 2 + 0.03, 0.32, 0.06), (w / 2 - 0.03, 0.52, d - 0.03), NO_BOTTOM)
    mb.box("wood", (-w / 2, 0.0, 0.0), (w / 2, 1.05, 0.06), NO_BOTTOM)
    mb.box("fabric", (-w / 2 + 0.01, 0.52, 0.7), (w / 2 - 0.01, 0.57, d - 0.01), ALL_FACES)
    for x in np.linspace(-w / 4, w / 4, 2):
        mb.ellipsoid("fabric", (x, 0.6, 0.3), (w / 4 - 0.05, 0.08, 0.18), seg)


def nightstand(mb, w, d, seg, rng) -> None:
    mb.box("wood", (-w / 2, 0, 0), (w / 2, 0.5, d), NO_BOTTOM)
    mb.box("wood", (-w / 2 + 0.03, 0.28, d), (w / 2 - 0.03, 0.46, d + 0.015), NO_BOTTOM)
    mb.cylinder("metal", (0, 0.37, d + 0.015), 0.015, 0.02, seg // 2, axis=2)
    mb.cylinder("ceramic", (0, 0.5, d / 2), 0.07, 0.3, seg, top_radius=0.02)
    mb.cylinder("fabric", (0, 0.75, d / 2), 0.16, 0.2, seg, top_radius=0.1, caps=(False, True))


def wardrobe(mb, w, d, seg, rng) -> None:
    mb.box("wood", (-w / 2, 0, 0), (w / 2, 2.0, d), NO_BOTTOM)
    doors = 2 if w < 1.3 else 3
    edges = np.linspace(-w / 2 + 0.02, w / 2 - 0.02, doors + 1)
    for a, b in itertools.pairwise(edges):
        mb.box("wood", (a + 0.005, 0.08, d), (b - 0.005, 1.95, d + 0.02), ALL_FACES - {"-z"})
        mb.cylinder("metal", ((a + b) / 2 + (b - a) * 0.35, 0.9, d + 0.02), 0.012, 0.3, seg // 2)


def bookshelf(mb, w, d, seg, rng, height=1.8) -> None:
    shelves = 5
    mb.box("wood", (-w / 2, 0, 0), (-w / 2 + 0.02, height, d), NO_BOTTOM)
    mb.box("wood", (w / 2 - 0.02, 0, 0), (w / 2, height, d), NO_BOTTOM)
    mb.box("wood", (-w / 2 + 0.02, 0, 0), (w / 2 - 0.02, height, 0.01), ALL_FACES - {"-y"})
    levels = np.linspace(0.05, height - 0.02, shelves + 1)
    lo = [(-w / 2 + 0.02, y - 0.02, 0.01) for y in levels]
    hi = [(w / 2 - 0.02, y, d) for y in levels]
    mb.boxes("wood", lo, hi)
    for y0, y1 in itertools.pairwise(levels):
        _books(mb, -w / 2 + 0.03, w / 2 - 0.03, y0, min(y1 - 0.03, y0 + 0.3), d, seg, rng)


def _books(mb, x0, x1, y, y_max, d, seg, rng) -> None:
    """A row of books with gaps; fewer, wider blocks at low detail."""
    widths = rng.uniform(0.02, 0.05, 64) * (1 if seg >= 8 else 4)
    xs = x0 + np.concatenate([[0.0], np.cumsum(widths)])
    n = int(np.searchsorted(xs, x1 - 0.1)) - 1
    if n < 1:
        return
    keep = rng.random(n) > 0.12  # a few gaps
    a, b = xs[:n][keep], xs[1 : n + 1][keep] - 0.002
    top = y + rng.uniform(0.6, 1.0, n)[keep] * (y_max - y)
    depth = d - rng.uniform(0.02, 0.06, n)[keep]
    count = len(a)
    mb.boxes(
        "books",
        np.stack([a, np.full(count, y), np.full(count, 0.02)], 1),
        np.stack([b, top, depth], 1),
        NO_BOTTOM,
    )


def sofa(mb, w, d, seg, rng) -> None:
    arm = 0.16
    mb.box("fabric", (-w / 2, 0.08, 0), (w / 2, 0.42, d), ALL_FACES)
    _legs(mb, "wood", (-w / 2 + 0.06, w / 2 - 0.06), (0.06, d - 0.06), 0.025, 0.08, seg // 2)
    mb.box("fabric", (-w / 2 + arm, 0.42, 0), (w / 2 - arm, 0.85, 0.22), ALL_FACES - {"-y"})
    seats = 1 if w < 1.2 else 2 if w < 2.0 else 3
    edges = np.linspace(-w / 2 + arm, w / 2 - arm, seats + 1)
    lo = [(a + 0.005, 0.42, 0.22) for a in edges[:-1]]
    hi = [(b - 0.005, 0.52, d - 0.02) for b in edges[1:]]
    mb.boxes("fabric", lo, hi, NO_BOTTOM)
    for x in (-w / 2, w / 2 - arm):
        mb.box("fabric", (x, 0.42, 0), (x + arm, 0.58, d), ALL_FACES - {"-y", "+y"})
        mb.cylinder("fabric", (x + arm / 2, 0.58, 0), arm / 2, d, seg, axis=2)


def coffee_table(mb, w, d, seg, rng) -> None:
    table(mb, w, d, seg, height=0.45)
    mb.cylinder("ceramic", (w / 4, 0.45, d / 2), 0.06, 0.12, seg, caps=(False, True))


def dining(mb, w, d, seg, rng) -> None:
    """A table with chairs on both long sides (the footprint includes the chairs)."""
    td = d - 1.0
    table(mb, w, td, seg, z0=0.5)
    per_side = 2 if w < 1.5 else 3
    for x in np.linspace(-w / 2, w / 2, per_side + 2)[1:-1]:
        chair(mb, x, 0.3, 0, seg)
        chair(mb, x, d - 0.3, 2, seg)


def desk(mb, w, d, seg, rng) -> None:
    """A desk against the wall with a monitor, keyboard and an office chair in front."""
    td = 0.7
    mb.box("wood", (-w / 2, 0.72, 0), (w / 2, 0.75, td))
    for x in (-w / 2, w / 2 - 0.03):
        mb.box("metal", (x, 0, 0.05), (x + 0.03, 0.72, td - 0.05), NO_BOTTOM - {"+y"})
    mb.box("screen", (-0.3, 0.9, 0.12), (0.3, 1.25, 0.15))
    mb.cylinder("metal", (0, 0.75, 0.16), 0.02, 0.15, seg // 2)
    mb.cylinder("metal", (0, 0.75, 0.16), 0.09, 0.01, seg, caps=(False, True))
    mb.box("metal", (-0.22, 0.75, 0.35), (0.22, 0.77, 0.5), NO_BOTTOM)
    _office_chair(mb, 0.0, td + 0.3, seg)


def _office_chair(mb, x, z, seg) -> None:
    mb.cylinder("metal", (x, 0.05, z), 0.03, 0.4, seg // 2, caps=(False, False))
    for k in range(5):
        angle = 2 * np.pi * k / 5
        dx, dz = 0.25 * np.cos(angle), 0.25 * np.sin(angle)
        lo = (x + min(0.0, dx) - 0.02, 0.03, z + min(0.0, dz) - 0.02)
        hi = (x + max(0.0, dx) + 0.02, 0.07, z + max(0.0, dz) + 0.02)
        mb.box("metal", lo, hi)
    mb.cylinder("fabric", (x, 0.45, z), 0.24, 0.08, seg)
    mb.box("fabric", (x - 0.22, 0.55, z + 0.2), (x + 0.22, 1.0, z + 0.26))


def counter(mb, w, d, seg, rng) -> None:
    """Kitchen cabinets with a worktop, sink, hob and wall cupboards above."""
    mb.box("wood", (-w / 2, 0.1, 0), (w / 2, 0.88, d - 0.02), NO_BOTTOM)
    mb.box("concrete", (-w / 2, 0, 0), (w / 2, 0.1, d - 0.06), NO_BOTTOM)
    mb.box("concrete", (-w / 2, 0.88, 0), (w / 2, 0.92, d + 0.02))
    doors = max(2, int(w / 0.6))
    edges = np.linspace(-w / 2, w / 2, doors + 1)
    for a, b in itertools.pairwise(edges):
        mb.box("wood", (a + 0.005, 0.13, d - 0.02), (b - 0.005, 0.85, d), ALL_FACES - {"-z"})
        mb.cylinder("metal", (a + 0.05, 0.5, d), 0.01, 0.25, seg // 2)
        mb.box("wood", (a + 0.005, 1.45, 0), (b - 0.005, 2.1, 0.35))
    mb.box("metal", (-w / 4 - 0.25, 0.921, 0.12), (-w / 4 + 0.25, 0.925, 0.5), {"+y"})
    for x in (w / 4 - 0.12, w / 4 + 0.12):
        for z in (0.2, 0.42):
            mb.cylinder("screen", (x, 0.92, z), 0.08, 0.01, seg, caps=(False, True))


def tv_stand(mb, w, d, seg, rng) -> None:
    mb.box("wood", (-w / 2, 0.05, 0), (w / 2, 0.5, d), ALL_FACES)
    _legs(mb, "metal", (-w / 2 + 0.05, w / 2 - 0.05), (0.05, d - 0.05), 0.015, 0.05, seg // 2)
    mb.box("screen", (-w / 2 + 0.1, 0.62, 0.1), (w / 2 - 0.1, 1.25, 0.14))
    mb.box("metal", (-0.15, 0.5, 0.08), (0.15, 0.52, 0.25), NO_BOTTOM)
    mb.box("metal", (-0.03, 0.52, 0.14), (0.03, 0.62, 0.17), NO_BOTTOM)


def bathtub(mb, w, d, seg, rng) -> None:
    rim = 0.07
    for lo, hi in (
        ((-w / 2, 0, 0), (w / 2, 0.55, rim)),
        ((-w / 2, 0, d - rim), (w / 2, 0.55, d)),
        ((-w / 2, 0, rim), (-w / 2 + rim, 0.55, d - rim)),
        ((w / 2 - rim, 0, rim), (w / 2, 0.55, d - rim)),
    ):
        mb.box("ceramic", lo, hi, NO_BOTTOM)
    mb.box("ceramic", (-w / 2 + rim, 0, rim), (w / 2 - rim, 0.15, d - rim), {"+y"})
    mb.cylinder("metal", (w / 2 - 0.2, 0.55, 0.04), 0.02, 0.25, seg // 2)
    mb.cylinder("metal", (w / 2 - 0.2, 0.78, 0.04), 0.015, 0.15, seg // 2, axis=2)


def toilet(mb, w, d, seg, rng) -> None:
    mb.box("ceramic", (-w / 2, 0.35, 0), (w / 2, 0.8, 0.18), NO_BOTTOM)
    mb.cylinder("ceramic", (0, 0, 0.4), 0.13, 0.3, seg, top_radius=0.18, caps=(False, False))
    mb.ellipsoid("ceramic", (0, 0.38, 0.42), (0.19, 0.06, 0.24), seg)


def vanity(mb, w, d, seg, rng) -> None:
    mb.box("wood", (-w / 2, 0.1, 0), (w / 2, 0.82, d), NO_BOTTOM)
    mb.box("ceramic", (-w / 2, 0.82, 0), (w / 2, 0.86, d + 0.02))
    mb.ellipsoid("ceramic", (0, 0.88, d / 2), (0.2, 0.04, 0.15), seg)
    mb.cylinder("metal", (0, 0.86, 0.06), 0.015, 0.2, seg // 2)
    mb.box("metal", (-w / 2 + 0.05, 1.1, 0), (w / 2 - 0.05, 1.8, 0.02), ALL_FACES - {"-z"})


def plant(mb, w, d, seg, rng) -> None:
    r = min(w, d) / 2
    mb.cylinder(
        "ceramic", (0, 0, d / 2), r * 0.55, 0.4, seg, top_radius=r * 0.7, caps=(False, True)
    )
    for k in range(3):
        angle = 2 * np.pi * (k / 3 + rng.random() * 0.1)
        c = (0.15 * r * np.cos(angle), 0.7 + 0.2 * k, d / 2 + 0.15 * r * np.sin(angle))
        mb.ellipsoid("plant", c, (r * 0.8, 0.25, r * 0.8), seg)


def cabinet(mb, w, d, seg, rng) -> None:
    """A filing cabinet: drawers with handles."""
    mb.box("metal", (-w / 2, 0, 0), (w / 2, 1.3, d), NO_BOTTOM)
    for y in (0.05, 0.36, 0.67, 0.98):
        mb.box(
            "metal", (-w / 2 + 0.02, y, d), (w / 2 - 0.02, y + 0.28, d + 0.015), ALL_FACES - {"-z"}
        )
        mb.cylinder("metal", (-0.08, y + 0.2, d + 0.03), 0.012, 0.16, seg // 2, axis=0)


def console(mb, w, d, seg, rng) -> None:
    table(mb, w, d, seg, height=0.8)
    mb.cylinder("ceramic", (-w / 4, 0.8, d / 2), 0.08, 0.25, seg, top_radius=0.05)
    _books(mb, 0.0, w / 2 - 0.05, 0.8, 1.05, d - 0.05, seg, rng)


def meeting_table(mb, w, d, seg, rng) -> None:
    td = d - 1.0
    table(mb, w, td, seg, z0=0.5, height=0.74)
    per_side = int(w / 0.7)
    for x in np.linspace(-w / 2, w / 2, per_side + 2)[1:-1]:
        chair(mb, x, 0.3, 0, seg)
        chair(mb, x, d - 0.3, 2, seg)


def desk_cluster(mb, w, d, seg, rng) -> None:
    """Four desks back to back (two facing two), their chairs outside."""
    half = MeshBuilder(mb.tiles)
    for x in (-w / 4, w / 4):
        local = MeshBuilder(mb.tiles)
        desk(local, w / 2 - 0.05, 1.3, seg, rng)
        half.merge(local, 0, (x, 0.0, 0.0))
    mb.merge(half, 2, (0.0, 0.0, d / 2 - 0.02))  # facing -z, backs meeting in the middle
    mb.merge(half, 0, (0.0, 0.0, d / 2 + 0.02))


def pillar(mb, w, d, seg, rng, height=3.0) -> None:
    mb.cylinder("concrete", (0, 0, d / 2), w / 2, height, 2 * seg, caps=(False, False))
    mb.cylinder("concrete", (0, 0, d / 2), w / 2 + 0.03, 0.1, 2 * seg, caps=(False, True))


BUILDERS = {
    "bed": bed,
    "nightstand": nightstand,
    "wardrobe": wardrobe,
    "bookshelf": bookshelf,
    "sofa": sofa,
    "armchair": sofa,
    "coffee_table": coffee_table,
    "dining": dining,
    "desk": desk,
    "counter": counter,
    "tv_stand": tv_stand,
    "bathtub": bathtub,
    "toilet": toilet,
    "vanity": vanity,
    "plant": plant,
    "cabinet": cabinet,
    "console": console,
    "meeting_table": meeting_table,
    "desk_cluster": desk_cluster,
    "pillar": pillar,
}
