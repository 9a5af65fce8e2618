"""`batchsim eval`: agents over every episode of a split once, reporting success, SPL,
SoftSPL and distance_to_goal with 95% confidence intervals as a table and as JSON. Several
agents (a trained policy, random, forward-only) run the same episodes, so their numbers
compare directly."""

from __future__ import annotations

import argparse
import json

from batchsim._files import write_bytes_atomically
from batchsim.cli import _common
from batchsim.errors import Error

LABELS = {"success": "success", "spl": "SPL", "softspl": "SoftSPL", "distance_to_goal": "dist (m)"}


def evaluate_agents(
    agents: list[str], checkpoint, split, num_envs, device, seed, scenes_dir=None
) -> dict:
    """{agent: summarize() of its episodes} for each named agent on `split`; scenes_dir, if
    given, replaces the checkpoint's (where the split's scene_ids resolve)."""
    import dataclasses

    import torch

    from batchsim.train import evaluate
    from batchsim.train.config import TrainConfig

    policy, config, split = _common.load_policy_and_split(
        checkpoint, split, TrainConfig().val_dataset
    )
    config = config or TrainConfig()
    if scenes_dir is not None:
        config = dataclasses.replace(config, scenes_dir=scenes_dir)
    results = {}
    for name in agents:
        if name == "policy" and policy is None:
            raise ValueError("--agents policy: needs --checkpoint (checkpoint.pt or run folder)")
        sim = evaluate.eval_simulator(config, str(split), num_envs, device=device, seed=seed)
        try:
            torch.manual_seed(seed)
            agent = _common.make_agent(name, policy, config, sim.device, seed)
            results[name] = evaluate.summarize(evaluate.run_episodes(sim, agent))
        finally:
            sim.close()
    return results


def format_table(results: dict) -> str:
    """One row per agent: each measure as mean ± 95% CI half-width."""
    header = f"{'agent':<8} {'episodes':>8}" + "".join(f" {v:>15}" for v in LABELS.values())
    rows = [header]
    for agent, summary in results.items():
        episodes = next(iter(summary.values()))["episodes"]
        cells = "".join(f" {summary[m]['mean']:>7.3f} ± {summary[m]['ci95']:<5.3f}" for m in LABELS)
        rows.append(f"{agent:<8} {episodes:>8}{cells}")
    return "\n".join(rows)


def parse_agents(text: str) -> list[str]:
    """--agents as a list of names, each one of _common.AGENTS."""
    agents = [a for a in text.split(",") if a]
    unknown = sorted(set(agents) - set(_common.AGENTS))
    if unknown or not agents:
        raise ValueError(f"--agents: expected names from {list(_common.AGENTS)}, got {text!r}")
    return agents


def _evaluate(args: argparse.Namespace) -> int:
    agents = parse_agents(args.agents)
    if args.envs < 1:
        raise ValueError(f"--envs: expected >= 1, got {args.envs}")
    results = evaluate_agents(
        agents, args.checkpoint, args.split, args.envs, args.device, args.seed, args.scenes_dir
    )
    print(format_table(results))
    if args.json:
        write_bytes_atomically(args.json, json.dumps(results, indent=2).encode())
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
    _common.add_policy_arguments(cmd)
    cmd.add_argument("--agents", default="policy", help="comma-separated: policy, random, forward")
    cmd.add_argument("--envs", type=int, default=32, help="environments stepped together")
    _common.add_scenes_dir(cmd)
    _common.add_device_and_seed(cmd)
    cmd.add_argument("--json", help="also write the results here (atomically)")
    cmd.set_defaults(handler=_eval)
