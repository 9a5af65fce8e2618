"""Stairs between storeys: solid straight flights, the slab edges round the openings above
them, and balustrades of thin balusters (gaps narrower than a 0.1 m-radius agent) with
handrails, on every open side."""

from __future__ import annotations

import numpy as np

from batchsim.procgen.geometry import NO_BOTTOM, MeshBuilder
from batchsim.procgen.layout import TREAD
from batchsim.procgen.plan import SLAB, Layout

BALUSTER = 0.03  # m square
SPACING = 0.12  # m between baluster centres: 0.09 m gaps
RAIL = 0.9  # m: handrail height above the steps or the floor
HANDRAIL = (0.06, 0.05)  # m: width, height


def emit_stairs(builder: MeshBuilder, layout: Layout) -> None:
    """Every flight of the layout's stairwell, with its opening and balustrades."""
    stair = layout.stair
    if stair is None:
        return
    rise, riser, outer = layout.storey_height, stair.riser, len(stair.lanes) - 1
    treads = stair.risers - 1
    for k, (z0, z1) in enumerate(stair.lanes):
        base, up = k * rise, k % 2 == 0
        i = np.arange(1, treads + 1)
        xa = stair.xs + (i - 1) * TREAD if up else stair.xe - i * TREAD
        top = base + i * riser
        lo = np.stack([xa, np.full(treads, base), np.full(treads, z0)], 1)
        hi = np.stack([xa + TREAD, top, np.full(treads, z1)], 1)
        front, back = ("-x", "+x") if up else ("+x", "-x")
        builder.boxes("wood", lo[:-1], hi[:-1], {"+y", "+z", "-z", front})
        builder.boxes("wood", lo[-1:], hi[-1:], {"+y", "+z", "-z", front, back})

        def step_top(x, base=base, up=up):
            index = np.floor(((x - stair.xs) if up else (stair.xe - x)) / TREAD) + 1
            return base + np.clip(index, 1, treads) * riser

        for z in [z1] + ([z0] if k != outer else []):
            _flight_railing(builder, stair.xs, stair.xe, z, step_top)
        upper = (k + 1) * rise
        _slab_edges(builder, stair.opening(k), upper, k == outer)
        ox0, _, ox1, _ = stair.opening(k)
        _railing(builder, (ox0, z1), (ox1, z1), upper)  # the walkway side
        end = stair.xs if up else stair.xe  # the flight's bottom end, a drop below
        _railing(builder, (end, z0), (end, z1), upper)


def _flight_railing(builder, xs, xe, z, step_top) -> None:
    """Balusters on the steps along the line z, and a sloping handrail."""
    x = np.arange(xs + SPACING / 2, xe, SPACING)
    y0 = step_top(np.array([xs + 1e-6]))[0] - 0.2
    h = BALUSTER / 2
    lo = np.stack([x - h, np.full(len(x), y0), np.full(len(x), z - h)], 1)
    hi = np.stack([x + h, step_top(x) + RAIL, np.full(len(x), z + h)], 1)
    builder.boxes("metal", lo, hi, NO_BOTTOM)
    w, t = HANDRAIL
    a, b = step_top(np.array([xs + 1e-6, xe - 1e-6])) + RAIL
    builder.prism("wood", (xs, a, z - w / 2), (xe - xs, b - a, 0.0), (0.0, t, 0.0), (0.0, 0.0, w))


def _railing(builder, p0, p1, y) -> None:
    """A straight balustrade on the floor at height y from (x, z) p0 to p1 (axis-aligned)."""
    (x0, z0), (x1, z1) = p0, p1
    length = abs(x1 - x0) + abs(z1 - z0)
    s = np.arange(SPACING / 2, length, SPACING) / length
    x, z = x0 + s * (x1 - x0), z0 + s * (z1 - z0)
    h, n = BALUSTER / 2, len(s)
    lo = np.stack([x - h, np.full(n, y), z - h], 1)
    hi = np.stack([x + h, np.full(n, y + RAIL), z + h], 1)
    builder.boxes("metal", lo, hi, NO_BOTTOM)
    w, t = HANDRAIL
    rail_lo = (min(x0, x1) - w / 2, y + RAIL, min(z0, z1) - w / 2)
    rail_hi = (max(x0, x1) + w / 2, y + RAIL + t, max(z0, z1) + w / 2)
    builder.box("wood", rail_lo, rail_hi)


def _slab_edges(builder, opening, top, outer) -> None:
    """The slab's cut faces round an opening, facing into it (the outer lane's far side
    lies inside the wall)."""
    x0, z0, x1, z1 = opening
    y = top - SLAB
    builder.grid("concrete", (x0, y, z1), (0.0, 0.0, z0 - z1), (0.0, SLAB, 0.0))  # faces +x
    builder.grid("concrete", (x1, y, z0), (0.0, 0.0, z1 - z0), (0.0, SLAB, 0.0))  # faces -x
    builder.grid("concrete", (x1, y, z1), (x0 - x1, 0.0, 0.0), (0.0, SLAB, 0.0))  # faces -z
    if not outer:
        builder.grid("concrete", (x0, y, z0), (x1 - x0, 0.0, 0.0), (0.0, SLAB, 0.0))  # +z
