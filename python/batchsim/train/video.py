"""Recording PointNav episodes as video frames (`batchsim video` writes them as a GIF with
batchsim.viz.write_gif). Each frame shows the agent's view beside a top-down map of the
scene with the shortest path, the start, the goal, the agent's path so far and its heading,
and a caption with the episode's metrics; batchsim.viz draws them.

One environment runs the episodes one after another without autoreset, so the frame after
the last step still shows where the episode ended (with autoreset the simulator would
already have moved the agent to the next episode's start)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from batchsim.viz import write_gif
from batchsim.viz._pillow import pillow
from batchsim.viz.episode_map import EpisodeMap, SceneMaps
from batchsim.viz.frames import DEFAULT_MAX_DEPTH, agent_views, caption, compose


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
    pillow()  # fail before simulating anything
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
    pillow()
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
