"""Pictures of what batchsim computes, one module per kind:

    image_files   PNG and GIF writers (atomic)
    topdown       top-down navmesh maps, and paths and discs drawn on them in world units
    views         agents' views: shaded depth, mosaics of many views, crisp upscaling
    episode_map   one episode on its scene's map (shortest path, start, goal, the agent)
    frames        a video frame: agent views and the map side by side over a caption

Pillow is needed only for GIFs and video frames (the `train` extra)."""

from batchsim.viz.episode_map import EpisodeMap, SceneMaps, heading_vector
from batchsim.viz.frames import agent_views, caption, compose
from batchsim.viz.image_files import encode_png, write_gif, write_png
from batchsim.viz.topdown import (
    BLOCKED,
    NAVIGABLE,
    OTHER_FLOOR,
    draw_disc,
    draw_path,
    floor_maps,
    ground_island,
    topdown_image,
)
from batchsim.viz.views import (
    depth_image,
    mosaic,
    observation_frames,
    observation_mosaic,
    resize_nearest,
)

__all__ = [
    "BLOCKED",
    "NAVIGABLE",
    "OTHER_FLOOR",
    "EpisodeMap",
    "SceneMaps",
    "agent_views",
    "caption",
    "compose",
    "depth_image",
    "draw_disc",
    "draw_path",
    "encode_png",
    "floor_maps",
    "ground_island",
    "heading_vector",
    "mosaic",
    "observation_frames",
    "observation_mosaic",
    "resize_nearest",
    "topdown_image",
    "write_gif",
    "write_png",
]
