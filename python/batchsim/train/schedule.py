"""The learning-rate rule for large batches, the same on any number of GPUs.

- **Peak rate**: `base_lr` at 256 frames per minibatch, scaled by the square root of the
  *global* minibatch (frames per minibatch on one rank x ranks): DDP averages the ranks'
  gradients, so ranks make one larger minibatch. The square root is the rule for Adam-type
  optimisers (Malladi et al. 2022) and bps-nav's (Shacklett et al. 2021: its LR_SCALE is the
  square root of the global minibatch over 256).
- **Schedule against frames**: a linear warm-up over the first `warmup_frames` global frames,
  then a cosine to zero at `total_frames`. Frames, not updates, mark progress, so the same
  `total_frames` gives the same schedule on 1 GPU and on 4 (where an update holds 4x the
  frames), and a run resumed on another number of GPUs continues the schedule where it was.
- **Other coefficients** (the entropy weight) anneal linearly with the share of
  `total_frames` trained (`anneal`).
"""

from __future__ import annotations

import math

REFERENCE_MINIBATCH = 256  # frames per minibatch at which the rate is base_lr


def scaled_lr(base_lr: float, global_minibatch_frames: int) -> float:
    """The peak rate for minibatches of `global_minibatch_frames` frames over all ranks."""
    return base_lr * math.sqrt(global_minibatch_frames / REFERENCE_MINIBATCH)


def progress(frames: int, total_frames: int, warmup_frames: int) -> float:
    """How far past the warm-up training is, in [0, 1]: 0 until `warmup_frames`, 1 at
    `total_frames`."""
    span = max(total_frames - warmup_frames, 1)
    return min(max(frames - warmup_frames, 0) / span, 1.0)


def lr_factor(frames: int, total_frames: int, warmup_frames: int, frames_per_update: int) -> float:
    """Multiplier of the peak rate for the update that starts after `frames` global frames:
    during the warm-up, the share of it that this update completes (so the first update
    already moves); then the cosine of the progress."""
    if frames < warmup_frames:
        return min(frames + frames_per_update, warmup_frames) / warmup_frames
    return 0.5 * (1.0 + math.cos(math.pi * progress(frames, total_frames, warmup_frames)))


def anneal(start: float, final: float, progress: float) -> float:
    """`start` at progress 0, `final` at 1 and after, linear in between (e.g. the entropy
    weight, with progress the share of total_frames trained)."""
    progress = min(max(progress, 0.0), 1.0)
    return start + (final - start) * progress
