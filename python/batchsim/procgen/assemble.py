"""From plan and furniture to triangles that meet a triangle budget.

Furniture detail (segments of round parts) is picked from the budget first; the rest of
the budget goes to tessellating walls, floors and ceilings, whose cell size is found by
bisection so the total lands close to the budget.
"""

from __future__ import annotations

import numpy as np

from batchsim.procgen import furniture
from batchsim.procgen.architecture import build_architecture
from batchsim.procgen.geometry import MeshBuilder
from batchsim.procgen.layout import Layout
from batchsim.procgen.placement import Piece
from batchsim.procgen.textures import MATERIALS

SEGMENTS = (6, 8, 12, 16, 24)  # round-part segments per detail level
FURNITURE_SHARE = 0.55  # at most this share of the budget goes to furniture and trims
SMALLEST_CELL = 0.02  # m: tessellation never goes finer than this


def _tiles() -> dict[str, float]:
    return {name: info.tile for name, info in MATERIALS.items()}


def emit_furniture(builder: MeshBuilder, pieces: list[Piece], seg: int, height: float) -> None:
    for piece in pieces:
        local = MeshBuilder(builder.tiles)
        rng = np.random.default_rng(piece.seed)
        if piece.kind == "pillar":
            furniture.pillar(local, piece.width, piece.depth, seg, rng, height=height)
        else:
            furniture.BUILDERS[piece.kind](local, piece.width, piece.depth, seg, rng)
        builder.merge(local, piece.turns, (piece.origin[0], 0.0, piece.origin[1]))


def _cell_size(surfaces, target: int) -> float:
    """The smallest cell size whose tessellation stays within `target` triangles."""
    lo, hi = SMALLEST_CELL, 50.0
    if surfaces.triangles(lo) <= target:
        return lo
    for _ in range(40):
        mid = (lo * hi) ** 0.5
        lo, hi = (lo, mid) if surfaces.triangles(mid) <= target else (mid, hi)
    return hi


def assemble(layout: Layout, pieces: list[Piece], budget: int, ceiling: bool) -> MeshBuilder:
    """All triangles of the scene, close to `budget` in number."""
    level = int(np.searchsorted([25_000, 60_000, 120_000, 250_000], budget, side="right"))
    while True:
        builder = MeshBuilder(_tiles())
        surfaces = build_architecture(layout, builder, ceiling)
        emit_furniture(builder, pieces, SEGMENTS[level], layout.wall_height)
        if builder.triangle_count <= FURNITURE_SHARE * budget or level == 0:
            break
        level -= 1
    spare = budget - surfaces.triangles(np.inf)
    if builder.triangle_count > spare:  # tiny budgets: the last-placed pieces go
        builder, surfaces = _fewer_pieces(layout, pieces, spare, ceiling)
    surfaces.emit(builder, _cell_size(surfaces, budget - builder.triangle_count))
    return builder


def _fewer_pieces(layout, pieces, spare, ceiling):
    """Architecture plus the longest prefix of `pieces` (lowest detail) within `spare`
    triangles; dropping furniture never disconnects the floor."""
    kept = list(pieces)
    while True:
        builder = MeshBuilder(_tiles())
        surfaces = build_architecture(layout, builder, ceiling)
        emit_furniture(builder, kept, SEGMENTS[0], layout.wall_height)
        if builder.triangle_count <= spare or not kept:
            return builder, surfaces
        kept = kept[: len(kept) * 9 // 10]
