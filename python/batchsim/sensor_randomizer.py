"""SensorRandomizer: :class:`batchsim.SensorNoise` applied to a batch's views with torch, on
their device (the model is :mod:`batchsim.sensor_noise`'s docstring). Its own module so that
``import batchsim`` (which exports SensorNoise) needs no torch."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from batchsim.errors import InvalidArgumentError
from batchsim.sensor_noise import EDGE_THRESHOLD, SensorNoise


class SensorRandomizer:
    """Applies `noise` to a batch's views; see the module docstring. `render_hfov` is what
    the simulator renders (hfov + fov_jitter_degrees), `hfov` the nominal field of view."""

    def __init__(self, noise: SensorNoise, num_envs: int, device, hfov: float, seed: int):
        if noise.fov_jitter_degrees and hfov + noise.fov_jitter_degrees >= 180:
            raise InvalidArgumentError(
                f"hfov {hfov} + fov_jitter_degrees {noise.fov_jitter_degrees} must stay "
                "below 180 degrees"
            )
        self.noise, self.hfov, self.device = noise, hfov, torch.device(device)
        self.generator = torch.Generator(self.device).manual_seed(seed)
        self.episode = torch.full((num_envs,), -1, dtype=torch.int64, device=self.device)
        self.zoom = torch.ones(num_envs, device=self.device)
        self.colour = torch.ones(num_envs, 3, device=self.device)

    @property
    def render_hfov(self) -> float:
        return self.hfov + self.noise.fov_jitter_degrees

    def _uniform(self, shape, low: float, high: float) -> torch.Tensor:
        u = torch.rand(shape, generator=self.generator, device=self.device)
        return low + (high - low) * u

    def new_episodes(self, episode: torch.Tensor) -> None:
        """Redraws the per-episode draws of environments whose episode index changed."""
        changed = episode.to(self.device, torch.int64) != self.episode
        self.episode = episode.to(self.device, torch.int64).clone()
        n, jitter = len(changed), self.noise.fov_jitter_degrees
        if jitter:
            hfov = self._uniform(n, self.hfov - jitter, self.hfov + jitter)
            zoom = torch.tan(torch.deg2rad(hfov) / 2) / math.tan(math.radians(self.render_hfov) / 2)
            self.zoom = torch.where(changed, zoom, self.zoom)
        if self.noise.rgb_jitter:
            j = self.noise.rgb_jitter
            colour = self._uniform((n, 3), 1 - j, 1 + j)
            self.colour = torch.where(changed[:, None], colour, self.colour)

    def apply(self, views: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """New tensors for `views` (depth [N, 1, H, W] float32, rgb [N, 3, H, W] uint8)."""
        out = dict(views)
        if "depth" in out:
            depth = self._crop(out["depth"], "nearest")
            out["depth"] = self._depth_noise(depth)
        if "rgb" in out:
            rgb = self._crop(out["rgb"].float() / 255, "bilinear")
            out["rgb"] = (self._jitter_colour(rgb) * 255).round().to(torch.uint8)
        return out

    def _crop(self, image: torch.Tensor, mode: str) -> torch.Tensor:
        if not self.noise.fov_jitter_degrees:
            return image.float() if mode == "nearest" else image
        theta = torch.zeros(len(image), 2, 3, device=self.device)
        theta[:, 0, 0] = theta[:, 1, 1] = self.zoom
        grid = F.affine_grid(theta, list(image.shape), align_corners=False)
        return F.grid_sample(image.float(), grid, mode=mode, align_corners=False)

    def _depth_noise(self, depth: torch.Tensor) -> torch.Tensor:
        noise = self.noise
        if noise.depth_noise:
            eps = torch.randn(depth.shape, generator=self.generator, device=self.device)
            depth = (depth * (1 + noise.depth_noise * eps)).clamp_min(0)
        if noise.depth_edge_dropout:
            edges = depth_edges(depth)
            drop = torch.rand(depth.shape, generator=self.generator, device=self.device)
            depth = torch.where(edges & (drop < noise.depth_edge_dropout), 0.0, depth)
        return depth

    def _jitter_colour(self, rgb: torch.Tensor) -> torch.Tensor:
        if not self.noise.rgb_jitter:
            return rgb
        brightness, contrast, saturation = (self.colour[:, k, None, None, None] for k in range(3))
        rgb = (rgb * brightness).clamp(0, 1)
        mean = grey(rgb).mean(dim=(1, 2, 3), keepdim=True)
        rgb = (mean + contrast * (rgb - mean)).clamp(0, 1)
        return (grey(rgb) + saturation * (rgb - grey(rgb))).clamp(0, 1)


def grey(rgb: torch.Tensor) -> torch.Tensor:
    """[N, 1, H, W] luma (ITU-R BT.601 weights, torchvision's) of [N, 3, H, W] in [0, 1]."""
    weights = torch.tensor([0.299, 0.587, 0.114], device=rgb.device)[None, :, None, None]
    return (rgb * weights).sum(dim=1, keepdim=True)


def depth_edges(depth: torch.Tensor) -> torch.Tensor:
    """[N, 1, H, W] bool: the pixel's depth differs from a 4-neighbour's by more than
    EDGE_THRESHOLD of its own."""
    padded = F.pad(depth, (1, 1, 1, 1), mode="replicate")
    centre = padded[..., 1:-1, 1:-1]
    neighbours = (
        padded[..., :-2, 1:-1],
        padded[..., 2:, 1:-1],
        padded[..., 1:-1, :-2],
        padded[..., 1:-1, 2:],
    )
    step = torch.stack([(n - centre).abs() for n in neighbours]).amax(dim=0)
    return step > EDGE_THRESHOLD * centre


__all__ = ["SensorRandomizer", "depth_edges", "grey"]
