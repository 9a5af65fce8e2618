"""The learning-rate recipe for large batches: the base rate is for 256 frames per
minibatch and scales with the square root of the actual minibatch; it warms up linearly,
then decays along a cosine to zero at the last update. Other coefficients anneal linearly
with the run's progress (`anneal`)."""

from __future__ import annotations

import math


def scaled_lr(base_lr: float, frames_per_minibatch: int, reference: int = 256) -> float:
    return base_lr * math.sqrt(frames_per_minibatch / reference)


def lr_factor(update: int, total_updates: int, warmup_updates: int) -> float:
    """Multiplier of the scaled rate at `update` (0-based) of `total_updates`."""
    if warmup_updates > 0 and update < warmup_updates:
        return (update + 1) / warmup_updates
    span = max(total_updates - warmup_updates, 1)
    progress = min(max(update - warmup_updates, 0) / span, 1.0)
    return 0.5 * (1.0 + math.cos(math.pi * progress))


def anneal(start: float, final: float, progress: float) -> float:
    """`start` at progress 0, `final` at 1 and after, linear in between (e.g. the entropy
    weight, with progress the share of total_frames trained)."""
    progress = min(max(progress, 0.0), 1.0)
    return start + (final - start) * progress
