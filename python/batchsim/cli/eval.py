"""`batchsim eval`: agents over every episode of a split once, reporting success, SPL,
SoftSPL and distance_to_goal with 95% confidence intervals as a table and as JSON. Several
agents (a trained policy, random, forward-only) run the same episodes, so their numbers
compare directly. With --snapshots, every policy snapshot of a run instead: its held-out
learning curve (batchsim.cli.eval_snapshots)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from batchsim._files import write_bytes_atomically
from batchsim.cli import _common
from batchsim.errors import Error
from batchsim.train.intervals import describe

LABELS = {"success": "success", "spl": "SPL", "softspl": "SoftSPL", "distance_to_goal": "dist (m)"}


@dataclasses.dataclass(frozen=True)
class EvalSettings:
    """How the agents run, the same on every split and snapshot evaluated."""

    num_envs: int = 0  # environments stepped together (0: the config's eval_envs)
    device: str | None = None  # the policy's torch device (None: the config's)
    seed: int = 0  # each agent's seed, and the simulator's
    scenes_dir: str | None = None  # where scene_ids resolve (None: the config's)
    episodes_per_scene: int = 0  # the first episodes of each scene (0: the config's)
    progress: bool = False  # a bar per agent and split on stderr: episodes done, success
    check_scenes: bool = True  # refuse a split with an unloadable scene before any runs

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EvalSettings:
        """`batchsim eval`'s settings from its arguments."""
        return cls(
            args.envs,
            args.device,
            args.seed,
            args.scenes_dir,
            args.episodes_per_scene,
            progress=not args.no_progress,
            check_scenes=not args.skip_scene_check,
        )

    def applied_to(self, config):
        """`config` (a TrainConfig) with these settings' scenes_dir and episodes per scene."""
        changes = {"scenes_dir": self.scenes_dir} if self.scenes_dir is not None else {}
        if self.episodes_per_scene:
            changes["eval_episodes_per_scene"] = self.episodes_per_scene
        return dataclasses.replace(config, **changes) if changes else config


def evaluate_splits(
    agents: list[str], checkpoint, splits: list, settings: EvalSettings, config=None
) -> dict:
    """{split: {agent: summarize()}} for each split in order (none given: the checkpoint's
    val_dataset), the policy loaded once. `config` (a TrainConfig) stands in for the
    checkpoint's when there is none. Before any episode runs, each split must have at least
    num_envs episodes and (with check_scenes) only loadable scenes."""

    from batchsim.train.config import TrainConfig

    policy, loaded, first = _common.load_policy_and_split(
        checkpoint, splits[0] if splits else None, TrainConfig().val_dataset
    )
    for split in splits[1:]:
        _common.load_policy_and_split(None, split)  # each must exist, before any runs
    config = settings.applied_to(loaded or config or TrainConfig())
    if "policy" in agents and policy is None:
        raise ValueError("--agents policy: needs --checkpoint (checkpoint.pt or run folder)")
    for split in [first, *splits[1:]]:  # every refusal before the first episode runs
        check_split(config, split, settings)
    return {
        str(split): evaluate_split(agents, policy, config, split, settings)
        for split in [first, *splits[1:]]
    }


def check_split(config, split, settings: EvalSettings) -> None:
    """Refuses a split with fewer episodes than environments or (with check_scenes) a scene
    the simulator could not load, before any episode runs."""
    from batchsim.datasets.scene_check import check_scenes as check_scene_files
    from batchsim.errors import InvalidArgumentError

    dataset = config.load_eval_split(str(split))
    envs = settings.num_envs or config.eval_envs
    if envs > len(dataset):
        raise InvalidArgumentError(
            f"--envs {envs}: more environments than the {len(dataset)} episodes of split "
            f"{split} (each episode runs once, so the rest would idle); expected --envs <= "
            f"{len(dataset)}"
        )
    if settings.check_scenes:
        check_scene_files(dataset, show_progress=settings.progress)


def evaluate_split(
    agents, policy, config, split, settings: EvalSettings, title: str | None = None
) -> dict:
    """{agent: summarize()} of each agent on every episode of `split`, each from the seed;
    a progress bar each, titled `title` (default: the agent's name) and the split."""
    import torch

    from batchsim._progress import progress_bar
    from batchsim.train import evaluate

    results = {}
    for name in agents:
        sim = evaluate.eval_simulator(
            config, str(split), settings.num_envs, device=settings.device, seed=settings.seed
        )
        bar = progress_bar(
            total=len(sim.episodes),
            desc=f"{title or name} {split_label(split)}",
            unit="episode",
            disable=not settings.progress,
            unit_scale=False,
        )
        try:
            torch.manual_seed(settings.seed)
            agent = _common.make_agent(name, policy, config, sim.device, settings.seed)
            results[name] = evaluate.summarize(evaluate.run_episodes(sim, agent, bar))
        finally:
            bar.close()
            sim.close()
    return results


def split_label(split) -> str:
    """A short name for a split: its folder (or file stem without .json.gz)."""
    path = Path(split)
    return path.name.removesuffix(".json.gz") if path.name.endswith(".json.gz") else path.name


def format_table(results: dict) -> str:
    """One row per agent: each measure as its mean and 95% interval [low, high]; a last line
    names each measure's interval method."""
    header = f"{'agent':<8} {'episodes':>8}" + "".join(f" {v:>21}" for v in LABELS.values())
    rows = [header]
    for agent, summary in results.items():
        episodes = next(iter(summary.values()))["episodes"]
        cells = "".join(f" {format_interval(summary[m]):>21}" for m in LABELS)
        rows.append(f"{agent:<8} {episodes:>8}{cells}")
    first = next(iter(results.values()), None)
    if first is not None and all("method" in first[m] for m in LABELS):
        rows.append(describe({LABELS[m]: first[m] for m in LABELS}))
    return "\n".join(rows)


def format_interval(stats: dict) -> str:
    """`0.350 [0.260, 0.450]`: a mean and its 95% interval (mean ± half-width for summaries
    written before intervals had bounds)."""
    if "low" in stats:
        return f"{stats['mean']:.3f} [{stats['low']:.3f}, {stats['high']:.3f}]"
    return f"{stats['mean']:.3f} ± {stats['ci95']:.3f}"


def parse_agents(text: str) -> list[str]:
    """--agents as a list of names, each one of _common.AGENTS."""
    agents = [a for a in text.split(",") if a]
    unknown = sorted(set(agents) - set(_common.AGENTS))
    if unknown or not agents:
        raise ValueError(f"--agents: expected names from {list(_common.AGENTS)}, got {text!r}")
    return agents


def _evaluate(args: argparse.Namespace) -> int:
    default = "policy,random,forward" if args.snapshots else "policy"
    agents = parse_agents(args.agents or default)
    if args.envs < 1:
        raise ValueError(f"--envs: expected >= 1, got {args.envs}")
    if args.episodes_per_scene < 0:
        raise ValueError(f"--episodes-per-scene: expected >= 0, got {args.episodes_per_scene}")
    if args.snapshots:
        return _evaluate_snapshots(args, agents)
    results = evaluate_splits(
        agents, args.checkpoint, args.split or [], EvalSettings.from_args(args)
    )
    if len(results) == 1:  # one split: the table and JSON as before, {agent: summary}
        results = next(iter(results.values()))
        print(format_table(results))
    else:  # several: a titled table per split, JSON {split: {agent: summary}}
        print("\n\n".join(f"split {s}\n{format_table(r)}" for s, r in results.items()))
    if args.json:
        write_bytes_atomically(args.json, json.dumps(results, indent=2).encode())
        print(f"wrote {args.json}")
    return 0


def _evaluate_snapshots(args: argparse.Namespace, agents: list[str]) -> int:
    from batchsim.cli import eval_snapshots

    if args.checkpoint or len(args.split or []) > 1:
        raise ValueError("--snapshots: expected no --checkpoint and at most one --split")
    curve = eval_snapshots.evaluate_snapshots(
        args.snapshots,
        (args.split or [None])[0],
        agents,
        EvalSettings.from_args(args),
        threshold=args.reach,
    )
    print(eval_snapshots.format_report(curve))
    if args.json:
        write_bytes_atomically(args.json, json.dumps(curve, indent=2).encode())
        print(f"wrote {args.json}")
    return 0


def _eval(args: argparse.Namespace) -> int:
    return _common.report_errors("eval", _evaluate, args, (Error, OSError, ValueError))


def add_command(commands: argparse._SubParsersAction) -> None:
    cmd = commands.add_parser(
        "eval",
        help="evaluate agents on every episode of a split once (95%% confidence intervals)",
        description="Success, SPL, SoftSPL and distance_to_goal of each agent on the same "
        "episodes, as a table and optionally JSON.",
    )
    _common.add_policy_arguments(cmd, several_splits=True)
    _common.add_episodes_per_scene(cmd)
    cmd.add_argument(
        "--agents",
        help="comma-separated: policy, random, forward (default: policy; with --snapshots "
        "policy,random,forward, the baselines run once)",
    )
    cmd.add_argument(
        "--snapshots",
        metavar="RUN_DIR",
        help="evaluate every policy snapshot of this run (train with snapshot_every_s > 0) on "
        "the same episodes of one --split: a held-out learning curve",
    )
    cmd.add_argument(
        "--reach",
        type=float,
        default=0.75,
        metavar="VALUE",
        help="with --snapshots: report the frames and minutes at which the mean SPL and "
        "success first reach VALUE (default 0.75)",
    )
    cmd.add_argument(
        "--envs", type=_common.number_in(1), default=32, help="environments stepped together"
    )
    _common.add_scenes_dir(cmd)
    _common.add_device_and_seed(cmd)
    cmd.add_argument(
        "--json",
        help="also write the results here (atomically): {agent: summary} for one split, "
        "{split: {agent: summary}} for several; with --snapshots the curve (docs/train.md)",
    )
    cmd.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    cmd.add_argument(
        "--skip-scene-check",
        action="store_true",
        help="do not check every scene of the splits before evaluating (docs/datasets.md)",
    )
    cmd.set_defaults(handler=_eval)
