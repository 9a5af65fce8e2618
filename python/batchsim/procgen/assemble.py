"""From plan and furniture to triangles that meet a triangle budget.

Furniture detail (segments of round parts) is picked from the budget first; the rest of
the budget goes to tessellating walls, floors, ceilings and the ground outside, whose cell
size is found by bisection so the total lands close to the budget. Storeys are stacked
storey_height apart, each with its own furniture; stairs join them.
"""

from __future__ import annotations

import numpy as np

from batchsim.procgen import furniture
from batchsim.procgen.architecture import Surfaces, build_architecture
from batchsim.procgen.bays import emit_bay
from batchsim.procgen.geometry import MeshBuilder
from batchsim.procgen.outdoor import GROUND, Outdoor, emit_outdoor
from batchsim.procgen.placement import Piece
from batchsim.procgen.plan import SLAB, Layout
from batchsim.procgen.ramps import emit_split
from batchsim.procgen.stairs import emit_stairs
from batchsim.procgen.textures import MATERIALS

SEGMENTS = (6, 8, 12, 16, 24)  # round-part segments per detail level
FURNITURE_SHARE = 0.55  # at most this share of the budget goes to furniture and trims
SMALLEST_CELL = 0.02  # m: tessellation never goes finer than this


def _tiles() -> dict[str, float]:
    return {name: info.tile for name, info in MATERIALS.items()}


def emit_furniture(
    builder: MeshBuilder, pieces: list[Piece], seg: int, height: float, tall=(-1, 0.0)
) -> None:
    """Furniture of one storey, at y = 0; pillars reach `height`, or in room tall[0],
    tall[1]."""
    for piece in pieces:
        local = MeshBuilder(builder.tiles)
        rng = np.random.default_rng(piece.seed)
        if piece.kind == "pillar":
            reach = tall[1] if piece.room == tall[0] else height
            furniture.pillar(local, piece.width, piece.depth, seg, rng, height=reach)
        else:
            furniture.BUILDERS[piece.kind](local, piece.width, piece.depth, seg, rng)
        builder.merge(local, piece.turns, (piece.origin[0], piece.y, piece.origin[1]))


def _cell_size(surfaces, target: int) -> float:
    """The smallest cell size whose tessellation stays within `target` triangles."""
    lo, hi = SMALLEST_CELL, 50.0
    if surfaces.triangles(lo) <= target:
        return lo
    for _ in range(40):
        mid = (lo * hi) ** 0.5
        lo, hi = (lo, mid) if surfaces.triangles(mid) <= target else (mid, hi)
    return hi


def _building(layout, storeys, outdoor, seg, ceiling) -> tuple[MeshBuilder, Surfaces]:
    """Trims, furniture and stairs in a MeshBuilder; walls, floors, ceilings and ground
    as Surfaces. `storeys`: each storey's furniture."""
    builder, surfaces = MeshBuilder(_tiles()), Surfaces()
    top, stair = len(storeys) - 1, layout.stair
    for k, pieces in enumerate(storeys):
        local = MeshBuilder(builder.tiles)
        floor_holes = [stair.opening(k - 1)] if k > 0 else []
        ceiling_holes = [stair.opening(k)] if k < top else []
        loft = layout.rooms[layout.loft].rects if layout.loft >= 0 else ()
        floor_holes += loft if k == 1 else ()
        ceiling_holes += loft if k == 0 else ()
        below = SLAB if k > 0 else (GROUND if outdoor is not None else 0.0)
        plan, covered = layout.storey(k), ceiling or k < top
        found = build_architecture(plan, local, covered, below, floor_holes, ceiling_holes)
        for bay in plan.bays:
            emit_bay(local, plan, bay, below, covered)
        if plan.split is not None:
            emit_split(local, plan)
        tall = (layout.loft, layout.wall_height + layout.storey_height)
        emit_furniture(local, pieces, seg, layout.wall_height, tall if k == 0 else (-1, 0.0))
        base = k * layout.storey_height
        builder.merge(local, 0, (0.0, base, 0.0))
        surfaces.extend(found, base)
    emit_stairs(builder, layout)
    if outdoor is not None:
        emit_outdoor(outdoor, layout, surfaces, builder)
    return builder, surfaces


def assemble(
    layout: Layout,
    storeys: list[list[Piece]],
    budget: int,
    ceiling: bool,
    outdoor: Outdoor | None = None,
) -> MeshBuilder:
    """All triangles of the scene, close to `budget` in number."""
    level = int(np.searchsorted([25_000, 60_000, 120_000, 250_000], budget, side="right"))
    while True:
        builder, surfaces = _building(layout, storeys, outdoor, SEGMENTS[level], ceiling)
        if builder.triangle_count <= FURNITURE_SHARE * budget or level == 0:
            break
        level -= 1
    spare = budget - surfaces.triangles(np.inf)
    if builder.triangle_count > spare:  # tiny budgets: the last-placed pieces go
        builder, surfaces = _fewer_pieces(layout, storeys, outdoor, spare, ceiling)
    surfaces.emit(builder, _cell_size(surfaces, budget - builder.triangle_count))
    return builder


def _fewer_pieces(layout, storeys, outdoor, spare, ceiling):
    """Architecture plus the longest prefix of each storey's pieces (lowest detail) within
    `spare` triangles; dropping furniture never disconnects the floor."""
    kept = [list(p) for p in storeys]
    while True:
        builder, surfaces = _building(layout, kept, outdoor, SEGMENTS[0], ceiling)
        if builder.triangle_count <= spare or not any(kept):
            return builder, surfaces
        kept = [p[: len(p) * 9 // 10] for p in kept]
