"""The `batchsim` command line: main() builds one parser from a module per subcommand
(eval, zero_shot, video, doctor, scene_import, import_dataset, procgen, check_dataset, train,
bench), each with add_command() and a handler; _common holds what several share, and
eval_snapshots what `eval --snapshots` adds."""

from __future__ import annotations

import argparse

from batchsim._version import __version__
from batchsim.cli import (
    bench,
    check_dataset,
    doctor,
    import_dataset,
    procgen,
    scene_import,
    train,
    video,
    zero_shot,
)
from batchsim.cli import eval as eval_command
from batchsim.cli._common import report_errors
from batchsim.errors import Error

DESCRIPTION = (
    "batchsim: a batch simulator for embodied RL. Train and evaluate PointNav agents, make and "
    "import scenes and datasets, and check this machine. `batchsim COMMAND --help` for each."
)
SUBCOMMANDS = (
    eval_command,
    zero_shot,
    video,
    doctor,
    scene_import,
    import_dataset,
    procgen,
    check_dataset,
    train,
    bench,
)
"""In the order `batchsim --help` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="batchsim", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"batchsim {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for subcommand in SUBCOMMANDS:
        subcommand.add_command(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and hasattr(args, "overrides") and not any(w.startswith("-") for w in extra):
        # KEY=VALUE words after an option (train a=1 --quiet b=2): argparse takes the first
        # run of positionals only; the rest are overrides too, in order.
        args.overrides = [*args.overrides, *extra]
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return report_errors(args.command, args.handler, args, (Error, OSError))
