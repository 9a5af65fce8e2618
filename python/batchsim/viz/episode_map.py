"""One episode on its scene's top-down map, as a video frame's panel: the shortest path, the
start, the goal, the agent's path so far and its heading."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from batchsim.viz.frames import COLOURS, VIEW_HEIGHT
from batchsim.viz.topdown import BLOCKED, draw_disc, draw_path, topdown_image

MAP_WIDTH = 320
"""Pixels the top-down map panel is wide; the map is fitted inside VIEW_HEIGHT x MAP_WIDTH."""
MARKER_RADIUS = 5
"""Pixels: the start, goal and agent discs."""
HEADING_PIXELS = 12
"""Pixels: the agent's heading tick."""


@dataclass
class SceneMap:
    """A scene's top-down map at one floor height, already fitted to the map panel; `lo` is
    the world point of pixel (0, 0), so topdown's drawing helpers work on `image` directly."""

    navmesh: object
    image: np.ndarray
    lo: np.ndarray
    meters_per_pixel: float


class SceneMaps:
    """Each (scene, floor) map drawn once: topdown_image tests every pixel's island, which
    takes a noticeable fraction of a second, while episodes of one scene follow each other."""

    def __init__(self) -> None:
        self._maps: dict[tuple[str, float], SceneMap] = {}

    def get(self, scene_path: str | os.PathLike, floor_height: float) -> SceneMap:
        key = (str(scene_path), round(float(floor_height), 1))
        if key not in self._maps:
            self._maps[key] = _fitted_map(scene_path, floor_height)
        return self._maps[key]


def _fitted_map(scene_path: str | os.PathLike, floor_height: float) -> SceneMap:
    """The scene's map at a scale where its bounds fill VIEW_HEIGHT x MAP_WIDTH, centred on a
    BLOCKED background so that every frame of every scene has the same size."""
    from batchsim.scenes import Scene

    navmesh = Scene.load(scene_path).navmesh()
    lo, hi = (np.asarray(b, np.float64) for b in navmesh.get_bounds())
    extent = hi - lo
    meters_per_pixel = max(extent[2] / VIEW_HEIGHT, extent[0] / MAP_WIDTH, 1e-3)
    native = topdown_image(navmesh, meters_per_pixel, height=floor_height)
    native = native[:VIEW_HEIGHT, :MAP_WIDTH]  # rounding may add a pixel
    top = (VIEW_HEIGHT - native.shape[0]) // 2
    left = (MAP_WIDTH - native.shape[1]) // 2
    image = np.empty((VIEW_HEIGHT, MAP_WIDTH, 3), np.uint8)
    image[:] = BLOCKED
    image[top : top + native.shape[0], left : left + native.shape[1]] = native
    shifted = lo - np.array([left, 0.0, top]) * meters_per_pixel
    return SceneMap(navmesh, image, shifted, meters_per_pixel)


def heading_vector(rotation: Sequence[float]) -> np.ndarray:
    """The agent's forward direction in the world: the quaternion (x, y, z, w) applied to
    Habitat's forward axis, -z."""
    x, y, z, w = (float(v) for v in rotation)
    u, forward = np.array([x, y, z]), np.array([0.0, 0.0, -1.0])
    return forward + 2.0 * np.cross(u, np.cross(u, forward) + w * forward)


@dataclass
class EpisodeMap:
    """One episode's map: the shortest path, start and goal drawn once, the agent's path
    extended one segment per step (so a frame costs the same at step 5 as at step 500)."""

    scene: SceneMap
    start: np.ndarray
    goal: np.ndarray
    canvas: np.ndarray = field(init=False)
    last: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        s = self.scene
        self.canvas = s.image.copy()
        shortest = s.navmesh.find_path(self.start, self.goal)
        if len(shortest) >= 2:
            draw_path(self.canvas, s.lo, s.meters_per_pixel, shortest, COLOURS["shortest"])
        self.last = np.asarray(self.start, np.float64)

    def walk_to(self, position: Sequence[float]) -> None:
        """Adds the segment from the previous position to `position` to the agent's path."""
        position = np.asarray(position, np.float64)
        s = self.scene
        draw_path(self.canvas, s.lo, s.meters_per_pixel, [self.last, position], COLOURS["path"])
        self.last = position

    def render(self, position: Sequence[float], rotation: Sequence[float]) -> np.ndarray:
        """The map with start, goal and the agent (disc plus a heading tick) on top."""
        s = self.scene
        image = self.canvas.copy()
        for name, point in (("start", self.start), ("goal", self.goal)):
            draw_disc(image, s.lo, s.meters_per_pixel, point, MARKER_RADIUS, COLOURS[name])
        position = np.asarray(position, np.float64)
        draw_disc(image, s.lo, s.meters_per_pixel, position, MARKER_RADIUS, COLOURS["agent"])
        tip = position + heading_vector(rotation) * HEADING_PIXELS * s.meters_per_pixel
        draw_path(image, s.lo, s.meters_per_pixel, [position, tip], COLOURS["heading"])
        return image
