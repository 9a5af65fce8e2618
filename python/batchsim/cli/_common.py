"""What several subcommands share: bad input reported as one line, and the arguments and
setup of the commands that run an agent on a split (eval, video)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

AGENTS = ("policy", "random", "forward")
"""Who can act: a trained policy (needs --checkpoint), uniformly random, forward only."""


def report_errors(
    command: str,
    handler: Callable[[argparse.Namespace], int],
    args: argparse.Namespace,
    errors: tuple[type[BaseException], ...],
) -> int:
    """handler(args), with `errors` turned into 'batchsim COMMAND: error: ...' and exit
    status 2: a clear message, not a traceback, for bad input."""
    try:
        return handler(args)
    except errors as error:
        print(f"batchsim {command}: error: {error}", file=sys.stderr)
        return 2


def number_in(low: float, high: float | None = None, kind: type = int) -> Callable[[str], float]:
    """An argparse type: a `kind` (int or float) in [low, high]; argparse reports anything
    else as "argument --x: expected ..., got ...", not a traceback from deeper down."""
    expected = f"{'an integer' if kind is int else 'a number'} >= {low}"
    expected += f" and <= {high}" if high is not None else ""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if not (value >= low and (high is None or value <= high)):  # NaN fails too
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    parse.__name__ = "integer" if kind is int else "number"  # argparse's name for it
    return parse


SEED = number_in(0, 2**64 - 1)  # the simulators' seeds are 64-bit unsigned


def add_policy_arguments(cmd: argparse.ArgumentParser, several_splits: bool = False) -> None:
    """--checkpoint and --split: the policy to run and the episodes to run it on; with
    several_splits, --split takes one or more paths and may repeat (a list, in order)."""
    cmd.add_argument(
        "--checkpoint", metavar="PATH", help="a checkpoint.pt or its run folder (for the policy)"
    )
    if several_splits:
        cmd.add_argument(
            "--split",
            metavar="PATH",
            nargs="+",
            action="extend",
            help="PointNav split(s), each evaluated in turn: --split A B or --split A --split B "
            "(default: the checkpoint's val_dataset)",
        )
        return
    cmd.add_argument(
        "--split", metavar="PATH", help="PointNav split (default: the checkpoint's val_dataset)"
    )


def add_scenes_dir(cmd: argparse.ArgumentParser) -> None:
    """--scenes-dir: where the split's scene_ids resolve (None: the checkpoint's, if any)."""
    cmd.add_argument(
        "--scenes-dir",
        metavar="DIR",
        help="where scene_ids resolve, e.g. import-dataset's OUT (Habitat's); default: the "
        "checkpoint's scenes_dir",
    )


def add_episodes_per_scene(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--episodes-per-scene",
        type=number_in(0),
        default=0,
        metavar="K",
        help="run only the first K episodes of each scene of a split, in its order (0: all; "
        "10 per scene of a 1,000-scene procgen dataset's 100 test scenes: 1,000 episodes)",
    )


def add_device_and_seed(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--device", help="cpu, cuda or cuda:N (default: batchsim's choice)")
    cmd.add_argument("--seed", type=SEED, default=0, help="seeds the simulator and the agent")


def load_policy_and_split(checkpoint: str | None, split: str | None, default_split=None):
    """(policy, its TrainConfig, split): both None without a checkpoint; the split is
    `split`, else the checkpoint's val_dataset, else `default_split`, and must exist."""
    policy, config = None, None
    if checkpoint:
        from batchsim.train.checkpoint import load_policy

        policy, config = load_policy(checkpoint)
    split = split or (config.val_dataset if config else default_split)
    if not split:
        raise ValueError("--split: required without --checkpoint (a PointNav split folder)")
    if not Path(split).exists():
        raise FileNotFoundError(f"--split: no such split: {split}")
    return policy, config, split


def make_agent(name: str, policy, config, device, seed: int):
    """The agent called `name` (one of AGENTS); the policy one runs on `device`."""
    from batchsim.train.evaluate import ForwardAgent, PolicyAgent, RandomAgent

    if name == "random":
        return RandomAgent(seed)
    if name == "forward":
        return ForwardAgent()
    return PolicyAgent(policy.to(device), config)
