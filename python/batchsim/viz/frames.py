"""Video frames of one environment: its views (depth in grey, RGB where the simulator renders
it) and any further panels side by side, over a caption with the episode's metrics."""

from __future__ import annotations

import numpy as np

from batchsim.viz._pillow import pillow
from batchsim.viz.views import depth_image, resize_nearest

VIEW_HEIGHT = 256
"""Pixels every panel is tall: small views are scaled up (nearest neighbour) to this."""
GAP = 4
"""Pixels between panels and around the caption."""
CAPTION_LINES = 3
"""Caption lines under the panels: the episode, the distance to goal, the outcome."""
LINE_HEIGHT = 16
"""Pixels per caption line; the font is a little smaller."""
BACKGROUND = (255, 255, 255)
TEXT = (20, 20, 20)
COLOURS = {
    "shortest": (165, 165, 165),
    "path": (40, 90, 220),
    "start": (40, 160, 60),
    "goal": (200, 40, 40),
    "agent": (250, 150, 20),
    "heading": (20, 20, 20),
    "success": (30, 140, 50),
    "failure": (200, 40, 40),
}
"""Map markings and the outcome's caption colour (RGB)."""
DEFAULT_MAX_DEPTH = 10.0
"""Metres shaded black in depth views when the policy's own max_depth is unknown."""

Caption = list[tuple[str, tuple[int, int, int]]]


def agent_views(sim, max_depth: float = DEFAULT_MAX_DEPTH) -> list[np.ndarray]:
    """Environment 0's views as RGB panels VIEW_HEIGHT tall: depth (near light, far dark),
    then RGB where the simulator renders it."""
    import torch

    views = []
    if sim.depth is not None:
        depth = torch.from_dlpack(sim.depth)[0, 0].cpu().numpy()
        views.append(depth_image(depth, range_m=max_depth))
    if sim.rgb is not None:
        views.append(torch.from_dlpack(sim.rgb)[0, ..., :3].cpu().numpy())
    return [resize_nearest(view, VIEW_HEIGHT) for view in views]


def caption(sim, episode) -> Caption:
    """Environment 0's metrics as (text, colour) lines; the outcome once the episode ended."""
    step, limit = int(sim.episode_step[0]), sim.config.task.max_episode_steps
    lines = [
        (f"episode {episode.episode_id} ({episode.scene_name})   step {step}/{limit}", TEXT),
        (f"distance to goal {float(sim.distance_to_goal[0]):.2f} m", TEXT),
    ]
    if sim.terminated[0] or sim.truncated[0]:
        success, spl = bool(sim.success[0] > 0), float(sim.spl[0])
        how = "called STOP" if sim.terminated[0] else "reached the step limit"
        outcome = "success" if success else "failure"
        lines.append((f"{outcome.upper()} ({how})   SPL {spl:.3f}", COLOURS[outcome]))
    return lines


def compose(panels: list[np.ndarray], lines: Caption) -> np.ndarray:
    """Panels (all VIEW_HEIGHT tall) side by side over a caption of up to CAPTION_LINES."""
    Image, ImageDraw, _ = pillow()
    width = sum(p.shape[1] for p in panels) + GAP * (len(panels) + 1)
    height = VIEW_HEIGHT + 2 * GAP + CAPTION_LINES * LINE_HEIGHT + GAP
    frame = np.empty((height, width, 3), np.uint8)
    frame[:] = BACKGROUND
    left = GAP
    for panel in panels:
        frame[GAP : GAP + VIEW_HEIGHT, left : left + panel.shape[1]] = panel
        left += panel.shape[1] + GAP
    picture = Image.fromarray(frame)
    draw = ImageDraw.Draw(picture)
    font = _font()
    for index, (text, colour) in enumerate(lines[:CAPTION_LINES]):
        draw.text((GAP, VIEW_HEIGHT + 2 * GAP + index * LINE_HEIGHT), text, fill=colour, font=font)
    return np.asarray(picture)


_FONTS: list = []


def _font():
    """Pillow's built-in font, at a readable size where Pillow has FreeType (>= 10.1)."""
    if not _FONTS:
        _, _, ImageFont = pillow()
        try:
            _FONTS.append(ImageFont.load_default(size=LINE_HEIGHT - 3))
        except (TypeError, ImportError, OSError):
            _FONTS.append(ImageFont.load_default())
    return _FONTS[0]
