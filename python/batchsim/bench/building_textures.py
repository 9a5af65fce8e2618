"""The large-scene benchmark's textures: sizes of mixed sizes summing to a decoded budget,
deterministic pixels (numpy) and their encoding (PNG, or JPEG through Pillow).

>>> sizes = texture_sizes(200, 300.0, seed=0)       # [(width, height), ...]
>>> images = encode_textures(sizes, seed=0, image_format="mixed")  # [(bytes, mime), ...]

The 15 sizes of SIZES (squares from 256 to 2048 texels, some not powers of two, two
rectangles) are fewer than the renderer keeps per scene, so the importer resamples
none of them and the decoded bytes are the generator's.
"""

from __future__ import annotations

import io
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from batchsim.viz import encode_png

# Smallest area first. 15 sizes, under BATCHSIM_MAX_TEXTURE_GROUPS: none is resampled.
SIZES = (
    (256, 256),
    (300, 300),
    (512, 256),
    (384, 384),
    (500, 500),
    (512, 512),
    (640, 640),
    (1024, 512),
    (768, 768),
    (1000, 1000),
    (1024, 1024),
    (1280, 1280),
    (1536, 1536),
    (2000, 2000),
    (2048, 2048),
)
IMAGE_FORMATS = ("auto", "png", "jpeg", "mixed")
PNG, JPEG = "image/png", "image/jpeg"
NOISE_TILE = 64  # texels of the repeating noise tile added to every pattern


def texture_sizes(count: int, decoded_mb: float, seed: int) -> list[tuple[int, int]]:
    """`count` sizes from SIZES whose RGBA8 level-0 bytes sum to at most `decoded_mb` MB
    (1e6 bytes) and close to it: drawn with probabilities proportional to area**-a (a
    chosen so that the expected sum is the budget: a mix of small and large), then shrunk
    at random until they fit and grown at random while they still fit."""
    if count < 1:
        raise ValueError(f"expected at least one texture, got {count}")
    area = np.array([w * h * 4 for w, h in SIZES], np.float64)
    budget = int(decoded_mb * 1e6)
    if count * area[0] > budget:
        raise ValueError(
            f"{count} textures need at least {count * area[0] / 1e6:.2f} MB decoded "
            f"({SIZES[0][0]}x{SIZES[0][1]} each); --texture-mb is {decoded_mb}"
        )
    rng = np.random.default_rng([seed, 7])
    index = rng.choice(len(SIZES), count, p=_size_weights(area, budget / count))
    while area[index].sum() > budget:
        index[rng.choice(np.flatnonzero(index > 0))] -= 1
    grown = True
    while grown:
        grown = False
        for i in rng.permutation(count):
            if index[i] + 1 < len(SIZES):
                step = area[index[i] + 1] - area[index[i]]
                if area[index].sum() + step <= budget:
                    index[i] += 1
                    grown = True
    return [SIZES[i] for i in index]


def _size_weights(area: np.ndarray, mean: float) -> np.ndarray:
    """Probabilities proportional to area**-a whose expected area is `mean` (bisection on
    a; the end of the range where no a reaches it)."""
    lo, hi = -4.0, 4.0  # a = -4: nearly all the largest size; a = 4: nearly all the smallest
    for _ in range(60):
        a = (lo + hi) / 2
        p = (area / area[0]) ** -a
        p /= p.sum()
        if (p * area).sum() > mean:
            lo = a
        else:
            hi = a
    return p


def resolve_format(image_format: str) -> str:
    """ "auto": "mixed" (PNG and JPEG) where Pillow is installed, else "png"."""
    if image_format not in IMAGE_FORMATS:
        raise ValueError(f"image format must be one of {IMAGE_FORMATS}, got {image_format!r}")
    if image_format in ("auto", "jpeg", "mixed"):
        try:
            import PIL  # noqa: F401
        except ImportError:
            if image_format != "auto":
                raise ImportError(f"--image-format {image_format} needs Pillow") from None
            return "png"
    return "mixed" if image_format == "auto" else image_format


def texture_pixels(index: int, width: int, height: int, seed: int) -> np.ndarray:
    """RGB uint8 [height, width, 3]: one of four patterns (checks, stripes, planks, waves) in
    two colours of its own, plus fine noise, so that no two textures look alike."""
    rng = np.random.default_rng([seed, 11, index])
    low, high = rng.uniform(0.1, 0.95, (2, 3)).astype(np.float32)
    period = int(rng.integers(8, 96))
    y = np.arange(height, dtype=np.int32)[:, None]
    x = np.arange(width, dtype=np.int32)[None, :]
    kind = index % 4
    if kind == 0:
        t = ((x // period + y // period) % 2).astype(np.float32)
    elif kind == 1:
        t = (((x + y) // period) % 2).astype(np.float32)
    elif kind == 2:  # planks: rows, staggered joints, a tone per board
        row = y // period
        board = row * 8 + (x + row * 37 * period // 8) // (4 * period)
        t = rng.random(1024, dtype=np.float32)[board % 1024]
    else:
        f = np.float32(2 * np.pi / (4 * period))
        t = 0.5 + 0.5 * np.sin(x * f) * np.sin(y * f * np.float32(0.7))
    tile = rng.random((NOISE_TILE, NOISE_TILE), dtype=np.float32) - np.float32(0.5)
    noise = tile[y % NOISE_TILE, x % NOISE_TILE]
    shade = np.clip(t * 0.8 + noise * 0.15, 0.0, 1.0)[..., None]
    image = low + (high - low) * shade
    return (image * 255.0 + 0.5).astype(np.uint8)


def image_kind(index: int, image_format: str) -> str:
    """The MIME type of texture `index`: "mixed" alternates PNG (even) and JPEG (odd)."""
    if image_format == "mixed":
        return JPEG if index % 2 else PNG
    return JPEG if image_format == "jpeg" else PNG


def encode(image: np.ndarray, mime: str) -> bytes:
    """PNG (Pillow's encoder where installed, else batchsim's own) or JPEG (Pillow, q=90)."""
    try:
        from PIL import Image
    except ImportError:
        if mime == JPEG:
            raise
        return encode_png(image)
    buffer = io.BytesIO()
    if mime == JPEG:
        Image.fromarray(image).save(buffer, "JPEG", quality=90)
    else:
        Image.fromarray(image).save(buffer, "PNG", compress_level=6)
    return buffer.getvalue()


def encode_textures(
    sizes: list[tuple[int, int]], seed: int, image_format: str, progress=None
) -> list[tuple[bytes, str]]:
    """(encoded bytes, MIME type) of each texture, made on every core (numpy, zlib and
    Pillow release the GIL); the results do not depend on the order they finish in.
    `progress`: called with each finished texture's index, in order."""

    def one(item):
        i, (w, h) = item
        mime = image_kind(i, image_format)
        return encode(texture_pixels(i, w, h, seed), mime), mime

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = []
        for i, result in enumerate(pool.map(one, enumerate(sizes))):
            results.append(result)
            if progress is not None:
                progress(i)
    return results
