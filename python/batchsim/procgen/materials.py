"""The materials of generated scenes: texture repeat, colour variants, PBR factors, and
which floors, walls and ceilings each room kind draws from (one choice per kind and
building, so a building looks consistent while buildings differ)."""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class MaterialInfo:
    tile: float  # metres per texture repeat (world-scale UVs)
    colours: tuple[tuple[float, float, float], ...]  # base colours of the variants (0..1)
    metallic: float = 0.0
    roughness: float = 0.8
    accent: tuple[tuple[float, float, float], ...] = ()  # second colour (mortar, motifs, grout)


def _m(tile, *colours, metallic=0.0, roughness=0.8, accent=()):
    return MaterialInfo(tile, colours, metallic, roughness, accent)


MATERIALS = {
    "wood_floor": _m(
        2.0, (0.62, 0.45, 0.3), (0.75, 0.6, 0.42), (0.45, 0.3, 0.2), (0.8, 0.72, 0.58)
    ),
    "tile_floor": _m(
        1.2,
        (0.85, 0.85, 0.82),
        (0.6, 0.62, 0.65),
        (0.78, 0.72, 0.62),
        (0.4, 0.42, 0.45),
        roughness=0.4,
    ),
    "carpet": _m(1.0, (0.35, 0.38, 0.45), (0.5, 0.45, 0.4), (0.3, 0.42, 0.38), (0.55, 0.3, 0.3)),
    "wall": _m(2.0, (0.92, 0.9, 0.85), (0.8, 0.86, 0.9), (0.9, 0.84, 0.74), (0.78, 0.85, 0.76)),
    "ceiling": _m(
        2.0, (0.96, 0.96, 0.95), (0.93, 0.93, 0.9), (0.97, 0.95, 0.92), (0.9, 0.92, 0.94)
    ),
    "trim": _m(
        1.0,
        (0.97, 0.97, 0.95),
        (0.55, 0.4, 0.28),
        (0.3, 0.3, 0.32),
        (0.85, 0.82, 0.75),
        roughness=0.5,
    ),
    "wood": _m(1.0, (0.55, 0.38, 0.24), (0.7, 0.55, 0.38), (0.35, 0.24, 0.16), (0.82, 0.7, 0.52)),
    "fabric": _m(0.5, (0.3, 0.35, 0.5), (0.55, 0.5, 0.45), (0.45, 0.25, 0.25), (0.35, 0.45, 0.35)),
    "metal": _m(
        1.0,
        (0.7, 0.7, 0.72),
        (0.25, 0.25, 0.27),
        (0.75, 0.65, 0.45),
        (0.5, 0.52, 0.55),
        metallic=0.9,
        roughness=0.35,
    ),
    "concrete": _m(2.0, (0.6, 0.6, 0.58), (0.7, 0.68, 0.64), (0.5, 0.52, 0.54), (0.75, 0.75, 0.74)),
    "ceramic": _m(
        0.6,
        (0.95, 0.95, 0.95),
        (0.85, 0.9, 0.95),
        (0.95, 0.92, 0.85),
        (0.9, 0.9, 0.88),
        roughness=0.2,
    ),
    "books": _m(0.5, (0.6, 0.4, 0.3), (0.3, 0.4, 0.6), (0.5, 0.5, 0.3), (0.6, 0.3, 0.4)),
    "plant": _m(0.5, (0.25, 0.5, 0.2), (0.35, 0.55, 0.25), (0.2, 0.42, 0.25), (0.4, 0.5, 0.2)),
    "stone_floor": _m(
        2.4,
        (0.78, 0.76, 0.72),
        (0.55, 0.55, 0.58),
        (0.82, 0.74, 0.62),
        (0.35, 0.36, 0.38),
        roughness=0.5,
    ),
    "grass": _m(1.5, (0.3, 0.5, 0.2), (0.38, 0.52, 0.25), (0.45, 0.5, 0.28), (0.28, 0.42, 0.22)),
    "paving": _m(
        1.6,
        (0.62, 0.6, 0.56),
        (0.7, 0.55, 0.45),
        (0.5, 0.5, 0.52),
        (0.75, 0.7, 0.6),
        roughness=0.9,
    ),
    "screen": _m(
        1.0,
        (0.05, 0.05, 0.07),
        (0.08, 0.08, 0.1),
        (0.04, 0.05, 0.06),
        (0.1, 0.1, 0.12),
        metallic=0.2,
        roughness=0.1,
    ),
    # walls (generator v6)
    "paint_accent": _m(
        2.0, (0.62, 0.7, 0.58), (0.78, 0.5, 0.4), (0.5, 0.6, 0.72), (0.85, 0.72, 0.45)
    ),
    "wallpaper_stripes": _m(
        0.8,
        (0.9, 0.86, 0.76),
        (0.78, 0.84, 0.9),
        (0.82, 0.88, 0.78),
        (0.85, 0.82, 0.84),
        accent=((0.75, 0.62, 0.5), (0.55, 0.65, 0.78), (0.6, 0.72, 0.58), (0.62, 0.55, 0.62)),
    ),
    "wallpaper_motif": _m(
        0.6,
        (0.88, 0.84, 0.74),
        (0.3, 0.38, 0.45),
        (0.9, 0.88, 0.86),
        (0.72, 0.8, 0.74),
        accent=((0.65, 0.45, 0.35), (0.85, 0.78, 0.55), (0.45, 0.55, 0.7), (0.95, 0.95, 0.9)),
    ),
    "brick": _m(
        1.2,
        (0.62, 0.3, 0.22),
        (0.7, 0.45, 0.32),
        (0.5, 0.28, 0.24),
        (0.78, 0.72, 0.62),
        roughness=0.9,
        accent=((0.8, 0.78, 0.74), (0.7, 0.68, 0.64), (0.85, 0.84, 0.8), (0.6, 0.58, 0.55)),
    ),
    "wood_panel": _m(
        1.2,
        (0.6, 0.42, 0.28),
        (0.75, 0.6, 0.42),
        (0.42, 0.28, 0.2),
        (0.88, 0.86, 0.8),
        roughness=0.6,
    ),
    "wall_tiles": _m(
        1.2,
        (0.95, 0.95, 0.93),
        (0.7, 0.82, 0.85),
        (0.86, 0.9, 0.86),
        (0.3, 0.35, 0.4),
        roughness=0.25,
        accent=((0.75, 0.75, 0.73), (0.9, 0.9, 0.88), (0.6, 0.6, 0.6), (0.85, 0.85, 0.85)),
    ),
    "board_concrete": _m(
        2.4, (0.66, 0.66, 0.64), (0.58, 0.58, 0.6), (0.72, 0.7, 0.66), (0.52, 0.53, 0.52)
    ),
    "render": _m(2.0, (0.92, 0.9, 0.84), (0.85, 0.8, 0.7), (0.78, 0.8, 0.8), (0.9, 0.85, 0.8)),
    # ceilings and glazing (generator v6)
    "ceiling_boards": _m(
        2.0,
        (0.78, 0.64, 0.48),
        (0.9, 0.82, 0.68),
        (0.6, 0.45, 0.32),
        (0.93, 0.92, 0.9),
        roughness=0.6,
    ),
    "acoustic_tiles": _m(
        1.2,
        (0.95, 0.95, 0.93),
        (0.9, 0.9, 0.9),
        (0.93, 0.92, 0.88),
        (0.85, 0.86, 0.88),
        roughness=0.95,
        accent=((0.7, 0.7, 0.72), (0.95, 0.95, 0.95), (0.3, 0.3, 0.32), (0.6, 0.6, 0.62)),
    ),
    "glass": _m(
        2.0,
        (0.55, 0.68, 0.78),
        (0.5, 0.6, 0.65),
        (0.6, 0.7, 0.72),
        (0.45, 0.55, 0.65),
        metallic=0.1,
        roughness=0.05,
    ),
}

FLOOR_CHOICES = {  # floor materials each room kind draws from (one per kind and building)
    "hallway": ("wood_floor", "tile_floor", "stone_floor"),
    "living": ("wood_floor", "carpet", "stone_floor"),
    "bedroom": ("carpet", "wood_floor"),
    "study": ("wood_floor", "carpet"),
    "kitchen": ("tile_floor", "stone_floor"),
    "bathroom": ("ceramic", "tile_floor"),
    "corridor": ("tile_floor", "stone_floor", "carpet"),
    "office": ("carpet", "wood_floor"),
    "meeting": ("wood_floor", "carpet"),
    "open_plan": ("carpet", "stone_floor", "wood_floor"),
    "stair": ("concrete", "stone_floor"),
}

WALL_CHOICES = {  # the inside faces of a room's walls
    "hallway": ("wall", "wallpaper_stripes", "wood_panel", "paint_accent"),
    "living": ("wall", "paint_accent", "wallpaper_motif", "wallpaper_stripes", "brick"),
    "bedroom": ("wall", "paint_accent", "wallpaper_motif", "wallpaper_stripes"),
    "study": ("wood_panel", "paint_accent", "wall", "brick"),
    "kitchen": ("wall_tiles", "wall", "brick"),
    "bathroom": ("wall_tiles", "wall_tiles", "paint_accent"),
    "corridor": ("wall", "board_concrete", "paint_accent"),
    "office": ("wall", "paint_accent", "board_concrete"),
    "meeting": ("wood_panel", "paint_accent", "wall", "brick"),
    "open_plan": ("wall", "board_concrete", "brick"),
    "stair": ("board_concrete", "wall", "brick"),
}

CEILING_CHOICES = {
    "hallway": ("ceiling", "ceiling_boards"),
    "living": ("ceiling", "ceiling", "ceiling_boards"),
    "bedroom": ("ceiling", "ceiling_boards"),
    "study": ("ceiling", "ceiling_boards"),
    "kitchen": ("ceiling",),
    "bathroom": ("ceiling",),
    "corridor": ("acoustic_tiles", "ceiling"),
    "office": ("acoustic_tiles", "acoustic_tiles", "ceiling"),
    "meeting": ("acoustic_tiles", "ceiling_boards"),
    "open_plan": ("acoustic_tiles", "ceiling"),
    "stair": ("ceiling",),
}

FACADE_CHOICES = ("render", "brick", "board_concrete")  # the outside faces of outer walls

WALL_MATERIALS = frozenset(m for options in WALL_CHOICES.values() for m in options) | set(
    FACADE_CHOICES
)
CEILING_MATERIALS = frozenset(m for options in CEILING_CHOICES.values() for m in options)


def draw_finishes(rng: np.random.Generator) -> dict:
    """One floor, wall and ceiling material per room kind, and the facade: Layout fields."""

    def pick(choices):
        return tuple((kind, str(rng.choice(options))) for kind, options in choices.items())

    return {
        "floors": pick(FLOOR_CHOICES),
        "walls": pick(WALL_CHOICES),
        "ceilings": pick(CEILING_CHOICES),
        "facade": str(rng.choice(FACADE_CHOICES)),
    }
