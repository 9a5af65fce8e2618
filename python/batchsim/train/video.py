"""`batchsim video`: an animated GIF of PointNav episodes, to see what an agent does rather
than only its success and SPL. Each frame shows the agent's view (depth in grey, RGB where the
simulator renders it) beside a top-down map of the scene with the shortest path, the start,
the goal, the agent's path so far and its heading, and a caption with the episode's metrics.

One environment runs the episodes one after another without autoreset, so the frame after
the last step still shows where the episode ended (with autoreset the simulator would
already have moved the agent to the next episode's start)."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from batchsim.viz import BLOCKED, depth_image, draw_disc, draw_path, topdown_image

VIEW_HEIGHT = 256
"""Pixels every panel is tall: small views are scaled up (nearest neighbour) to this."""
MAP_WIDTH = 320
"""Pixels the top-down map panel is wide; the map is fitted inside VIEW_HEIGHT x MAP_WIDTH."""
GAP = 4
"""Pixels between panels and around the caption."""
CAPTION_LINES = 3
LINE_HEIGHT = 16
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
MARKER_RADIUS = 5
HEADING_PIXELS = 12
DEFAULT_MAX_DEPTH = 10.0
PILLOW_HINT = 'batchsim video needs Pillow: pip install "batchsim[train]" (or pip install pillow)'


def _pillow():
    """PIL's Image, ImageDraw and ImageFont, imported on first use: Pillow is an optional
    dependency (the `train` extra), so importing batchsim must not need it."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as error:
        raise ImportError(PILLOW_HINT) from error
    return Image, ImageDraw, ImageFont


# ---------------------------------------------------------------------------------------------
# The top-down map


@dataclass
class SceneMap:
    """A scene's top-down map at one floor height, already fitted to the map panel; `lo` is
    the world point of pixel (0, 0), so viz's drawing helpers work on `image` directly."""

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
    from batchsim import Scene

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


# ---------------------------------------------------------------------------------------------
# Frames


def resize_nearest(image: np.ndarray, height: int) -> np.ndarray:
    """`image` scaled to `height` rows keeping its aspect, by repeating pixels: a 32x32 depth
    view stays crisp instead of blurring into something the policy never saw."""
    rows, cols = image.shape[:2]
    width = max(1, round(cols * height / rows))
    return image[(np.arange(height) * rows) // height][:, (np.arange(width) * cols) // width]


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


def caption(sim, episode) -> list[tuple[str, tuple[int, int, int]]]:
    """Environment 0's metrics as (text, colour) lines; the outcome once the episode ended."""
    step, limit = int(sim.episode_step[0]), sim.task.max_episode_steps
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


def compose(panels: list[np.ndarray], lines: list[tuple[str, tuple[int, int, int]]]):
    """Panels (all VIEW_HEIGHT tall) side by side over a caption of up to CAPTION_LINES."""
    Image, ImageDraw, _ = _pillow()
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
        _, _, ImageFont = _pillow()
        try:
            _FONTS.append(ImageFont.load_default(size=LINE_HEIGHT - 3))
        except (TypeError, ImportError, OSError):
            _FONTS.append(ImageFont.load_default())
    return _FONTS[0]


# ---------------------------------------------------------------------------------------------
# Recording


def video_simulator(
    split: str | os.PathLike,
    *,
    sensors: Sequence[str] = ("depth", "rgb"),
    resolution: int = 64,
    max_episode_steps: int = 500,
    device: str | None = None,
    context=None,
    seed: int = 0,
):
    """A Simulator as record_episodes needs it: one environment, every episode of the split
    once in order (eval mode), no autoreset so an episode's last frame shows its end."""
    import batchsim

    return batchsim.Simulator(
        split,
        1,
        mode="eval",
        autoreset="disabled",
        sensors=sensors,
        resolution=resolution,
        device=device,
        context=context,
        seed=seed,
        task=batchsim.TaskConfig(max_episode_steps=max_episode_steps),
    )


def record_episodes(
    sim, agent, episodes: int, *, max_depth: float = DEFAULT_MAX_DEPTH
) -> list[np.ndarray]:
    """RGB uint8 [H, W, 3] frames of the next `episodes` episodes (fewer if the split runs
    out): each episode's start, then one frame per step. `sim` is one environment without
    autoreset (see video_simulator); `agent` has evaluate.py's reset(n) / act(sim, began)."""
    if episodes < 1:
        raise ValueError(f"episodes: expected >= 1, got {episodes}")
    if sim.num_envs != 1 or sim.autoreset != "disabled":
        raise ValueError(
            "record_episodes: expected a simulator with num_envs=1 and autoreset='disabled' "
            f"(see video_simulator), got {sim!r}"
        )
    _pillow()  # fail before simulating anything
    maps = SceneMaps()
    frames: list[np.ndarray] = []
    sim.reset()
    agent.reset(1)
    for recorded in range(episodes):
        if not sim.active[0]:
            break  # eval mode: every episode of the split has run
        if recorded:
            sim.reset_envs(np.ones(1, bool))  # eval mode hands out the next episode
            if not sim.active[0]:
                break
        frames.extend(_record_episode(sim, agent, maps, max_depth))
    return frames


def _record_episode(sim, agent, maps: SceneMaps, max_depth: float) -> list[np.ndarray]:
    """Steps environment 0 from its episode's start to its end, one frame per state."""
    episode = sim.episodes[int(sim.episode_index[0])]
    scene = maps.get(sim.scene_paths[int(sim.scene_index[0])], episode.start_position[1])
    path = EpisodeMap(scene, np.asarray(episode.start_position), np.asarray(episode.goal_position))
    path.walk_to(sim.position[0])

    def frame() -> np.ndarray:
        panels = [*agent_views(sim, max_depth), path.render(sim.position[0], sim.rotation[0])]
        return compose(panels, caption(sim, episode))

    frames = [frame()]
    began = np.ones(1, bool)
    while not (sim.terminated[0] or sim.truncated[0]):
        sim.step(agent.act(sim, began))
        began = np.zeros(1, bool)
        path.walk_to(sim.position[0])
        frames.append(frame())
    return frames


def write_gif(frames: Sequence[np.ndarray], path: str | os.PathLike, fps: float = 8) -> None:
    """An endlessly looping GIF of RGB frames, written atomically (a reader never sees half
    a file, and a failed write leaves the old one)."""
    from batchsim._files import write_bytes_atomically

    if not frames:
        raise ValueError("write_gif: expected at least one frame")
    if fps <= 0:
        raise ValueError(f"fps: expected > 0, got {fps}")
    Image, _, _ = _pillow()
    pictures = [Image.fromarray(np.ascontiguousarray(f, dtype=np.uint8)) for f in frames]
    buffer = io.BytesIO()
    pictures[0].save(
        buffer,
        format="GIF",
        save_all=True,
        append_images=pictures[1:],
        duration=max(20, round(1000 / fps)),
        loop=0,
    )
    write_bytes_atomically(path, buffer.getvalue())


# ---------------------------------------------------------------------------------------------
# The command


def add_video_command(commands: argparse._SubParsersAction) -> None:
    """Registers `batchsim video` on a subparsers object (cli.build_parser's)."""
    cmd = commands.add_parser(
        "video",
        help="an animated GIF of an agent's PointNav episodes",
        description="Record PointNav episodes as an animated GIF: the agent's view beside a "
        "top-down map with its path, the start and the goal, and the episode's metrics.",
    )
    cmd.add_argument("--checkpoint", metavar="PATH", help="a checkpoint.pt or its run folder")
    cmd.add_argument(
        "--agent",
        choices=("policy", "random", "forward"),
        help="who acts (default: policy with --checkpoint; random or forward otherwise)",
    )
    cmd.add_argument(
        "--split", metavar="PATH", help="PointNav split (default: the checkpoint's val_dataset)"
    )
    cmd.add_argument("--episodes", type=int, default=3, help="episodes to record (default 3)")
    cmd.add_argument("--out", default="video.gif", help="GIF to write (default video.gif)")
    cmd.add_argument("--fps", type=float, default=8.0, help="frames per second (default 8)")
    cmd.add_argument("--device", help="cpu, cuda or cuda:N (default: batchsim's choice)")
    cmd.add_argument("--seed", type=int, default=0, help="seeds the simulator and the agent")
    cmd.add_argument(
        "--max-episode-steps",
        type=int,
        help="step limit per episode (default: the checkpoint's, else Habitat's 500)",
    )
    cmd.add_argument(
        "--resolution", type=int, help="square view size (default: the checkpoint's, else 64)"
    )
    cmd.set_defaults(handler=_video)


def _video(args: argparse.Namespace) -> int:
    """The command's handler: bad input is a one-line message and exit status 2."""
    from batchsim.errors import Error

    try:
        return _record_video(args)
    except (Error, OSError, ValueError, ImportError) as error:
        print(f"batchsim video: error: {error}", file=sys.stderr)
        return 2


def _record_video(args: argparse.Namespace) -> int:
    _check_arguments(args)
    _pillow()
    import torch

    policy, config = None, None
    if args.checkpoint:
        from batchsim.train.checkpoint import load_policy

        policy, config = load_policy(args.checkpoint)
    split = args.split or (config.val_dataset if config else None)
    if not split:
        raise ValueError("--split: required without --checkpoint (a PointNav split folder)")
    if not Path(split).exists():
        raise FileNotFoundError(f"--split: no such split: {split}")
    sim = video_simulator(
        split,
        sensors=config.sensors if config else ("depth", "rgb"),
        resolution=args.resolution or (config.resolution if config else 64),
        max_episode_steps=args.max_episode_steps or (config.max_episode_steps if config else 500),
        device=args.device,
        seed=args.seed,
    )
    try:
        torch.manual_seed(args.seed)
        agent = _make_agent(args.agent or "policy", policy, config, sim, args.seed)
        max_depth = config.max_depth if config else DEFAULT_MAX_DEPTH
        frames = record_episodes(sim, agent, args.episodes, max_depth=max_depth)
        episodes = min(args.episodes, len(sim.episodes))  # eval mode: each once, in order
        write_gif(frames, args.out, args.fps)
    finally:
        sim.close()
    print(f"wrote {args.out}: {len(frames)} frames of {episodes} episodes at {args.fps:g} fps")
    return 0


def _check_arguments(args: argparse.Namespace) -> None:
    """The mistakes worth a message before any file is read."""
    if args.episodes < 1:
        raise ValueError(f"--episodes: expected >= 1, got {args.episodes}")
    if args.fps <= 0:
        raise ValueError(f"--fps: expected > 0, got {args.fps}")
    for name in ("max_episode_steps", "resolution"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ValueError(f"--{name.replace('_', '-')}: expected >= 1, got {value}")
    if args.agent in (None, "policy") and not args.checkpoint:
        raise ValueError(
            "--checkpoint: a policy needs a checkpoint (PATH to checkpoint.pt or its run "
            "folder); without one pass --agent random or --agent forward"
        )


def _make_agent(name: str, policy, config, sim, seed: int):
    from batchsim.train.evaluate import ForwardAgent, PolicyAgent, RandomAgent

    if name == "random":
        return RandomAgent(seed)
    if name == "forward":
        return ForwardAgent()
    return PolicyAgent(policy.to(sim.device), config, greedy=False)
