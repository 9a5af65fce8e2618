"""The fill_pattern kernel's formula, written independently of the C++ and GLSL code."""

from __future__ import annotations

import numpy as np

INDEX_STRIDE = 131
SEED_STRIDE = 7919
MODULUS = 1_000_003


def expected_pattern(count: int, seed: int) -> np.ndarray:
    """value[i] = ((i*131 + seed*7919) mod 2^32) mod 1000003, as float32."""
    index = np.arange(count, dtype=np.uint64)
    mixed = (index * INDEX_STRIDE + seed * SEED_STRIDE) % (1 << 32)
    return (mixed % MODULUS).astype(np.float32)
