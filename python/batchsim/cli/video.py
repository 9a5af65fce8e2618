"""`batchsim video`: an animated GIF of PointNav episodes, to see what an agent does rather
than only its success and SPL (batchsim.train.video records the frames)."""

from __future__ import annotations

import argparse
import dataclasses

from batchsim.cli import _common
from batchsim.errors import Error


def add_command(commands: argparse._SubParsersAction) -> None:
    cmd = commands.add_parser(
        "video",
        help="an animated GIF of an agent's PointNav episodes",
        description="Record PointNav episodes as an animated GIF: the agent's view beside a "
        "top-down map with its path, the start and the goal, and the episode's metrics.",
    )
    _common.add_policy_arguments(cmd)
    cmd.add_argument(
        "--agent",
        choices=_common.AGENTS,
        help="who acts (default: policy with --checkpoint; random or forward otherwise)",
    )
    cmd.add_argument("--episodes", type=int, default=3, help="episodes to record (default 3)")
    cmd.add_argument("--out", default="video.gif", help="GIF to write (default video.gif)")
    cmd.add_argument("--fps", type=float, default=8.0, help="frames per second (default 8)")
    _common.add_scenes_dir(cmd)
    _common.add_device_and_seed(cmd)
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
    return _common.report_errors(
        "video", _record_video, args, (Error, OSError, ValueError, ImportError)
    )


def _record_video(args: argparse.Namespace) -> int:
    from batchsim.train.video import record_episodes, video_simulator
    from batchsim.viz import write_gif
    from batchsim.viz._pillow import pillow
    from batchsim.viz.frames import DEFAULT_MAX_DEPTH

    _check_arguments(args)
    pillow()
    import torch

    from batchsim.datasets import load_pointnav

    policy, config, split = _common.load_policy_and_split(args.checkpoint, args.split)
    _check_policy_fits(args, config)
    scenes_dir = args.scenes_dir or (config.scenes_dir if config else None)
    sim = video_simulator(
        load_pointnav(split, scenes_dir=scenes_dir),
        sensors=config.sensors if config else ("depth", "rgb"),
        resolution=args.resolution or (_views(config) if config else 64),
        max_episode_steps=args.max_episode_steps or (_episode_limit(config) if config else 500),
        device=args.device,
        seed=args.seed,
    )
    try:
        torch.manual_seed(args.seed)
        agent = _common.make_agent(args.agent or "policy", policy, config, sim.device, args.seed)
        max_depth = config.max_depth if config else DEFAULT_MAX_DEPTH
        frames = record_episodes(sim, agent, args.episodes, max_depth=max_depth)
        episodes = min(args.episodes, len(sim.episodes))  # eval mode: each once, in order
        write_gif(frames, args.out, args.fps)
    finally:
        sim.close()
    print(f"wrote {args.out}: {len(frames)} frames of {episodes} episodes at {args.fps:g} fps")
    return 0


def _views(config) -> tuple[int, int]:
    """(height, width) of the views the checkpoint's policy was trained on."""
    return config.render.height, config.render.width


def _episode_limit(config) -> int:
    return config.sim.task.max_episode_steps


def _check_policy_fits(args: argparse.Namespace, config) -> None:
    """The check --resume makes: a policy sees the inputs it was trained on or none (a
    checkpoint trained at 32 px would act on 64 px views it never saw)."""
    from batchsim.train.checkpoint import check_compatible

    if config is None or (args.agent or "policy") != "policy" or args.resolution is None:
        return
    size = args.resolution
    wanted = dataclasses.replace(config, render=config.render.replace(width=size, height=size))
    check_compatible(config, wanted, f"checkpoint {args.checkpoint}")


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
