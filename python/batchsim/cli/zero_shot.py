"""`batchsim zero-shot`: the zero-shot protocol on real buildings. Imports every real
building model installed here (batchsim.datasets.real_buildings), writes seeded
Habitat-rule episodes on them as one PointNav-v1 split, then evaluates the agents (a
trained policy from --checkpoint, random, forward-only) over every episode once, with 95%
confidence intervals. Packed scenes, episodes and results stay in --out."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from batchsim._files import write_bytes_atomically
from batchsim.cli import _common
from batchsim.cli import eval as eval_command
from batchsim.errors import Error


def _zero_shot(args: argparse.Namespace) -> int:
    from batchsim.datasets.real_buildings import format_buildings, prepare_real_buildings

    agents = eval_command.parse_agents(
        args.agents or ("policy,random,forward" if args.checkpoint else "random,forward")
    )
    if args.envs < 1:
        raise ValueError(f"--envs: expected >= 1, got {args.envs}")
    out = Path(args.out)
    real = prepare_real_buildings(out, args.episodes, args.episode_seed)
    print(format_buildings(real.buildings))
    settings = eval_command.EvalSettings(
        args.envs, args.device, args.seed, str(real.scenes_dir), progress=not args.no_progress
    )
    results = eval_command.evaluate_splits(agents, args.checkpoint, [str(real.split)], settings)
    results = next(iter(results.values()))
    print(eval_command.format_table(results))
    report = {**real.as_json(), "episode_seed": args.episode_seed, "seed": args.seed}
    report["checkpoint"], report["results"] = args.checkpoint, results
    path = Path(args.json) if args.json else out / "results.json"
    write_bytes_atomically(path, json.dumps(report, indent=2).encode())
    print(f"wrote {path}")
    return 0


def _run(args: argparse.Namespace) -> int:
    return _common.report_errors("zero-shot", _zero_shot, args, (Error, OSError, ValueError))


def add_command(commands: argparse._SubParsersAction) -> None:
    cmd = commands.add_parser(
        "zero-shot",
        help="evaluate agents zero-shot on real buildings (imports them, makes episodes)",
        description="Import every real building model installed here, generate seeded "
        "Habitat-rule PointNav episodes on them, and evaluate the agents over every episode "
        "once (success, SPL, SoftSPL, distance_to_goal with 95% confidence intervals). "
        "See docs/train.md, 'Zero-shot on real buildings'.",
    )
    cmd.add_argument("--out", default="runs/zero-shot", help="cache and results folder")
    cmd.add_argument(
        "--checkpoint", metavar="PATH", help="a checkpoint.pt or its run folder (for the policy)"
    )
    cmd.add_argument(
        "--agents",
        help="comma-separated: policy, random, forward (default: all three with "
        "--checkpoint, else random,forward)",
    )
    cmd.add_argument(
        "--episodes", type=int, default=1000, help="episodes in all, shared over the buildings"
    )
    cmd.add_argument("--episode-seed", type=int, default=0, help="seeds episode generation")
    cmd.add_argument("--envs", type=int, default=32, help="environments stepped together")
    _common.add_device_and_seed(cmd)
    cmd.add_argument("--json", help="write the results here (default: OUT/results.json)")
    cmd.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    cmd.set_defaults(handler=_run)
