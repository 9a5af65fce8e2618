"""The ground round the building: a paved terrace along the walls, a garden beyond it and
a path (or, in some buildings, a ramp) to the front door, closed in by a hedge.

The terrace and path lie TERRACE metres under the ground-floor floor and the garden
GROUND metres under it, so the front door's threshold and the kerbs are steps an agent
climbs (Habitat's agent climbs 0.2 m); a ramp climbs from the garden to the threshold
instead, beside those steps; the hedge is an obstacle.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from batchsim.procgen.architecture import Surfaces, cut_all
from batchsim.procgen.geometry import NO_BOTTOM, MeshBuilder
from batchsim.procgen.layout import PATH_WIDTH, mask_rects
from batchsim.procgen.plan import Layout
from batchsim.procgen.ramps import entrance_ramp

GROUND, TERRACE = 0.3, 0.15  # m under the floor: garden; terrace and path
HEDGE = (0.2, 1.1)  # m: thickness (too thin to stand on), height
RAMP_SHARE = 0.4  # of buildings with a front door get a ramp up to it


@dataclasses.dataclass(frozen=True)
class Outdoor:
    terrace: float  # m of paving round the footprint's bounding box
    margin: float  # m from the bounding box to the hedge
    ramp: bool = False  # a ramp from the garden to the front door instead of the path


def make_outdoor(rng: np.random.Generator, entrance: bool = True) -> Outdoor:
    """The garden's sizes; with a ramp, a wider margin keeps it at 1:8.5 or gentler."""
    terrace = float(rng.uniform(0.8, 1.2))
    if entrance and rng.random() < RAMP_SHARE:
        return Outdoor(terrace, float(rng.uniform(2.7, 3.4)), True)
    return Outdoor(terrace, float(rng.uniform(1.4, 2.2)))


def _quad(surfaces, material, rect, y) -> None:
    x0, z0, x1, z1 = rect
    surfaces.add_quad(material, (x0, y, z1), (x1 - x0, 0.0, 0.0), (0.0, 0.0, z0 - z1))


def emit_outdoor(outdoor: Outdoor, layout: Layout, surfaces: Surfaces, builder: MeshBuilder):
    """Adds the terrace, kerbs, garden, path and hedge."""
    w, d = layout.size
    t, m = outdoor.terrace, outdoor.margin
    inner = (-t, -t, w + t, d + t)
    outer = (-m, -m, w + m, d + m)
    # the terrace: the ring round the bounding box, plus the footprint's notches
    notches = [r for r in mask_rects(layout.labels < 0)]
    for rect in [*cut_all([inner], [(0.0, 0.0, w, d)]), *notches]:
        _quad(surfaces, "paving", rect, -TERRACE)
    kerb = GROUND - TERRACE
    x0, z0, x1, z1 = inner
    for origin, u in (
        ((x0, -GROUND, z0), (0.0, 0.0, z1 - z0)),  # faces -x
        ((x1, -GROUND, z1), (0.0, 0.0, z0 - z1)),
        ((x1, -GROUND, z0), (x0 - x1, 0.0, 0.0)),  # faces -z
        ((x0, -GROUND, z1), (x1 - x0, 0.0, 0.0)),
    ):
        surfaces.add_quad("concrete", origin, u, (0.0, kerb, 0.0))
    for rect in cut_all([outer], [inner]):
        _quad(surfaces, "grass", rect, -GROUND)
    entrance = layout.entrance
    if entrance is not None:  # the path: from the terrace to the hedge, kerbs on both sides
        mid = (entrance.start + entrance.end) / 2
        pz0, pz1 = mid - PATH_WIDTH / 2, mid + PATH_WIDTH / 2
        if outdoor.ramp:  # from the garden at the hedge up to the threshold
            x1 = -layout.wall_thickness / 2
            entrance_ramp(builder, -m, x1, pz0, pz1, -GROUND, 0.0)
        else:
            builder.box("paving", (-m, -GROUND, pz0), (-t, -TERRACE, pz1), {"+y", "+z", "-z"})
    h, height = HEDGE
    for lo, hi in (
        ((-m - h, -GROUND, -m - h), (w + m + h, -GROUND + height, -m)),
        ((-m - h, -GROUND, d + m), (w + m + h, -GROUND + height, d + m + h)),
        ((-m - h, -GROUND, -m), (-m, -GROUND + height, d + m)),
        ((w + m, -GROUND, -m), (w + m + h, -GROUND + height, d + m)),
    ):
        builder.box("plant", lo, hi, NO_BOTTOM)
