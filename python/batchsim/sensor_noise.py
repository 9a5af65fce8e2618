"""Sensor randomisation for training: noise on the rendered views, applied by
:class:`batchsim.BatchNavEnv` on the views' device (GPU or CPU) after each render. All off
by default; the trainer turns it on for its training environments only (evaluation stays
noiseless). SensorNoise is the configuration (no torch needed);
:class:`batchsim.sensor_randomizer.SensorRandomizer` applies it with torch.

Per environment, redrawn whenever its episode changes (an intrinsic of the camera, fixed
within an episode):

- ``fov_jitter_degrees``: the horizontal field of view is drawn uniformly in
  hfov ± fov_jitter_degrees. The simulator renders at hfov + fov_jitter_degrees; each view
  is then cropped about its centre to its own field of view and resampled to the output
  size (a centre crop of a pinhole image is the narrower pinhole image: exact up to the
  resampling; nearest for depth, so no depth is invented at edges; bilinear for RGB).
- ``rgb_jitter``: brightness, contrast and saturation factors, each uniform in
  [1 - rgb_jitter, 1 + rgb_jitter], applied in that order (torchvision's ColorJitter
  order) on values in [0, 1], clamped, rounded back to uint8.

Per pixel, every step (depth in metres, 0 = no reading):

- ``depth_noise``: multiplicative Gaussian noise, d' = d (1 + depth_noise ε), ε ~ N(0, 1),
  clamped at 0: error grows with range, as in stereo and structured-light sensors.
- ``depth_edge_dropout``: each pixel on a depth edge (its depth differs from a 4-neighbour's
  by more than 10% of its own) reads 0 with this probability: the missing returns of real
  depth cameras at object boundaries.
"""

from __future__ import annotations

import dataclasses

from batchsim.errors import InvalidArgumentError

EDGE_THRESHOLD = 0.1  # relative depth step that makes a pixel an edge pixel


@dataclasses.dataclass(frozen=True)
class SensorNoise:
    """What :mod:`batchsim.sensor_noise` randomises; zeros are off."""

    depth_noise: float = 0.0
    """Std dev of multiplicative Gaussian depth noise (0.02: 2% of the range)."""
    depth_edge_dropout: float = 0.0
    """Probability that a depth-edge pixel reads 0."""
    rgb_jitter: float = 0.0
    """Brightness, contrast and saturation factors drawn in [1 - j, 1 + j] per episode."""
    fov_jitter_degrees: float = 0.0
    """Horizontal field of view drawn in hfov ± this, per episode."""

    def __post_init__(self) -> None:
        limits = {
            "depth_noise": 1.0,
            "depth_edge_dropout": 1.0,
            "rgb_jitter": 1.0,
            "fov_jitter_degrees": 60.0,
        }
        for name, limit in limits.items():
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 <= value <= limit):
                raise InvalidArgumentError(
                    f"SensorNoise.{name} must be a number in [0, {limit}], got {value!r}"
                )

    @property
    def active(self) -> bool:
        return any(dataclasses.astuple(self))


__all__ = ["EDGE_THRESHOLD", "SensorNoise"]
