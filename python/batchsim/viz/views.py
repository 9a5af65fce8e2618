"""Agents' views as pictures: depth shaded grey, many views tiled into one mosaic, small views
scaled up crisply."""

from __future__ import annotations

import numpy as np


def mosaic(
    images: list[np.ndarray], columns: int, pad: int = 8, background=(255, 255, 255)
) -> np.ndarray:
    """Tiles RGB images of any sizes in a grid (row-major), each cell as large as the largest."""
    rows = -(-len(images) // columns)
    cell_h = max(i.shape[0] for i in images) + pad
    cell_w = max(i.shape[1] for i in images) + pad
    out = np.empty((rows * cell_h + pad, columns * cell_w + pad, 3), np.uint8)
    out[:] = background
    for index, image in enumerate(images):
        top, left = pad + (index // columns) * cell_h, pad + (index % columns) * cell_w
        out[top : top + image.shape[0], left : left + image.shape[1]] = image
    return out


def depth_image(depth: np.ndarray, range_m: float = 8.0) -> np.ndarray:
    """[..., H, W] metres as RGB [..., H, W, 3]: near is light, far or nothing (0) dark."""
    shade = 255 * (1 - np.clip(depth / range_m, 0, 1))
    shade[depth == 0] = 0
    return np.repeat(shade[..., None], 3, -1).astype(np.uint8)


def observation_mosaic(observations: dict, max_views: int = 64) -> np.ndarray:
    """The first max_views environments' views as one RGB image: ``rgb`` [N, 3, H, W]
    where present, else shaded ``depth`` [N, 1, H, W] (torch tensors or numpy arrays)."""
    if "rgb" in observations:
        views = [np.asarray(v).transpose(1, 2, 0) for v in _host(observations["rgb"], max_views)]
    else:
        views = [depth_image(np.asarray(v)[0]) for v in _host(observations["depth"], max_views)]
    return mosaic(views, columns=int(np.ceil(np.sqrt(len(views)))), pad=2)


def observation_frames(observations: dict) -> np.ndarray:
    """Every environment's view as an RGB frame, [N, H, W, 3] uint8: ``rgb`` [N, 3, H, W]
    where present, else shaded ``depth`` [N, 1, H, W] (torch tensors or numpy arrays)."""
    if "rgb" in observations:
        rgb = _host(observations["rgb"], len(observations["rgb"]))
        return np.ascontiguousarray(rgb.transpose(0, 2, 3, 1))
    depth = _host(observations["depth"], len(observations["depth"]))
    return depth_image(depth[:, 0])


def _host(tensor, count: int) -> np.ndarray:
    head = tensor[:count]
    return head.cpu().numpy() if hasattr(head, "cpu") else np.asarray(head)


def resize_nearest(image: np.ndarray, height: int) -> np.ndarray:
    """`image` scaled to `height` rows keeping its aspect, by repeating pixels: a 32x32 depth
    view stays crisp instead of blurring into something the policy never saw."""
    rows, cols = image.shape[:2]
    width = max(1, round(cols * height / rows))
    return image[(np.arange(height) * rows) // height][:, (np.arange(width) * cols) // width]
