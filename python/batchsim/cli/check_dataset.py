"""`batchsim check-dataset`: the scene check that `batchsim train` and `batchsim eval` run
before they start, on its own (datasets.scene_check): every scene of each split and the
starts of its episodes, with a progress bar, and one error listing every scene that would
fail."""

from __future__ import annotations

import argparse
import time

from batchsim.cli import _common
from batchsim.errors import Error


def _check(args: argparse.Namespace) -> int:
    from batchsim.datasets import load_pointnav
    from batchsim.datasets.scene_check import check_scenes

    for split in args.split:
        started = time.perf_counter()
        dataset = load_pointnav(split, scenes_dir=args.scenes_dir)
        count = check_scenes(dataset, show_progress=not args.quiet, workers=args.workers)
        seconds = time.perf_counter() - started
        print(f"{split}: {count} scenes pass ({len(dataset)} episodes, {seconds:.2f} s)")
    return 0


def add_command(commands: argparse._SubParsersAction) -> None:
    cmd = commands.add_parser(
        "check-dataset",
        help="check that every scene of PointNav splits loads (before a run)",
        description="Loads every scene each split names through the simulator's validator "
        "(header, version, section checksums, structure, navmesh), checks its episodes' "
        "starts against the simulator's rules (on the navmesh, not in the air or a wall, "
        "turned about the vertical axis only) and lists every bad one.",
    )
    cmd.add_argument("split", nargs="+", metavar="SPLIT", help="PointNav split folder or file")
    _common.add_scenes_dir(cmd)
    cmd.add_argument("--workers", type=int, help="threads (default: one per core)")
    cmd.add_argument("--quiet", action="store_true", help="no progress bar")
    cmd.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    return _common.report_errors("check-dataset", _check, args, (Error, OSError, ValueError))
