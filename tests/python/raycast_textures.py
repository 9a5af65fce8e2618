"""Colour and texture sampling for raycast_reference: sRGB encoding and decoding, and the
trilinear, repeat-wrapped sampling of a mip chain that a GPU's linear / linear / repeat
sampler does on an SRGB image (the conventions are in raycast_reference's docstring).
Double precision; only numpy."""

from __future__ import annotations

import numpy as np

# --- colour ---------------------------------------------------------------------------------


def srgb_to_linear(c: np.ndarray) -> np.ndarray:
    """sRGB-encoded values in [0, 1] -> linear (the exact piecewise sRGB curve)."""
    c = np.asarray(c, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb8(linear: np.ndarray) -> np.ndarray:
    """Linear values -> sRGB bytes (clamped to [0, 1], rounded half up)."""
    x = np.clip(np.asarray(linear, np.float64), 0.0, 1.0)
    c = np.where(x <= 0.0031308, x * 12.92, 1.055 * x ** (1 / 2.4) - 0.055)
    return np.floor(c * 255.0 + 0.5).astype(np.uint8)


def texel_linear(pixels: np.ndarray) -> np.ndarray:
    """RGBA8 texels [..., 4] -> float64 linear RGBA (RGB sRGB-decoded, alpha / 255)."""
    out = np.asarray(pixels, np.float64) / 255.0
    out[..., :3] = srgb_to_linear(out[..., :3])
    return out


# --- texture sampling -----------------------------------------------------------------------


def bilinear(level: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Bilinear, repeat-wrapped samples of one linear-space level [h, w, 4] at uv [M, 2]."""
    h, w = level.shape[:2]
    x = uv[:, 0] * w - 0.5
    y = uv[:, 1] * h - 0.5
    x0, y0 = np.floor(x), np.floor(y)
    fx, fy = (x - x0)[:, None], (y - y0)[:, None]
    x0 = np.mod(x0, w).astype(np.int64)
    y0 = np.mod(y0, h).astype(np.int64)
    x1, y1 = (x0 + 1) % w, (y0 + 1) % h
    top = level[y0, x0] * (1 - fx) + level[y0, x1] * fx
    bottom = level[y1, x0] * (1 - fx) + level[y1, x1] * fx
    return top * (1 - fy) + bottom * fy


def sample_texture(levels: list[np.ndarray], uv: np.ndarray, lod: np.ndarray) -> np.ndarray:
    """Trilinear samples [M, 4] of a mip chain (linear-space levels [h, w, 4], level 0 first)
    at uv [M, 2] with level of detail lod [M] (clamped to [0, len(levels) - 1]; NaN -> last)."""
    last = len(levels) - 1
    lod = np.nan_to_num(np.asarray(lod, np.float64), nan=last, posinf=last, neginf=0.0)
    lod = np.clip(lod, 0.0, last)
    base = np.floor(lod).astype(np.int64)
    frac = (lod - base)[:, None]
    out = np.zeros((len(uv), 4))
    for level in np.unique(base):
        sel = base == level
        here = bilinear(levels[level], uv[sel])
        above = bilinear(levels[min(level + 1, last)], uv[sel])
        out[sel] = here * (1 - frac[sel]) + above * frac[sel]
    return out
