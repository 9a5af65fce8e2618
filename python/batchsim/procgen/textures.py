"""Procedural textures (numpy, deterministic): 256x256 RGB images per material, PNG-encoded.

Each material has a few colour variants; a scene picks one per material, and encoded
images are cached, so generating many scenes pays for each texture once.
"""

from __future__ import annotations

import functools

import numpy as np

from batchsim.procgen.materials import (
    CEILING_MATERIALS,
    FLOOR_CHOICES,
    MATERIALS,
    WALL_MATERIALS,
    MaterialInfo,
)
from batchsim.procgen.patterns import SIZE, shade
from batchsim.viz import encode_png

VARIANTS = 4  # colour variants per material

__all__ = [
    "CEILING_MATERIALS",
    "FLOOR_CHOICES",
    "MATERIALS",
    "SIZE",
    "VARIANTS",
    "WALL_MATERIALS",
    "MaterialInfo",
    "texture_image",
    "texture_png",
]


def _tint(name: str, variant: int, rng) -> np.ndarray:
    info = MATERIALS[name]
    brightness, mask = shade(name, rng)
    colour = np.asarray(info.colours[variant])
    if mask is not None:  # mortar, grout, motifs: a second colour where the mask says
        accent = np.asarray(info.accent[variant])
        image = brightness[..., None] * (colour + mask[..., None] * (accent - colour))
    else:
        image = brightness[..., None] * colour
    if name == "books":  # every spine its own hue
        hues = rng.uniform(0.3, 1.0, (SIZE, 3))
        widths = np.maximum(1, rng.integers(5, 18, SIZE))
        image = image * hues[np.repeat(np.arange(SIZE), widths)[:SIZE]][None, :, :] * 1.6
    return np.clip(image * 255.0 + 0.5, 0, 255).astype(np.uint8)


def texture_image(name: str, variant: int) -> np.ndarray:
    """The RGB image [SIZE, SIZE, 3] uint8 (for tests and previews)."""
    rng = np.random.default_rng([sorted(MATERIALS).index(name), variant])
    return _tint(name, variant, rng)


@functools.cache
def texture_png(name: str, variant: int) -> bytes:
    """PNG bytes of material `name`'s texture in colour `variant` (fixed, cached)."""
    return encode_png(texture_image(name, variant))
