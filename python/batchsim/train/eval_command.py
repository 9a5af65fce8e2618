"""`batchsim eval`: agents over every episode of a split once, reporting success, SPL,
SoftSPL and distance_to_goal with 95% confidence intervals as a table and as JSON. Several
agents (a trained policy, random, forward-only) run the same episodes, so their numbers
compare directly."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from batchsim._files import write_bytes_atomically

AGENTS = ("policy", "random", "forward")
LABELS = {"success": "success", "spl": "SPL", "softspl": "SoftSPL", "distance_to_goal": "dist (m)"}


def evaluate_agents(agents: list[str], checkpoint, split, num_envs, device, seed) -> dict:
    """{agent: summarize() of its episodes} for each named agent on `split`."""
    import torch

    from batchsim.train import evaluate
    from batchsim.train.checkpoint import load_policy
    from batchsim.train.config import TrainConfig

    policy, config = load_policy(checkpoint) if checkpoint else (None, TrainConfig())
    split = split or config.val_dataset
    if not Path(split).exists():
        raise FileNotFoundError(f"--split: no such split: {split}")
    results = {}
    for name in agents:
        if name == "policy" and policy is None:
            raise ValueError("--agents policy: needs --checkpoint (checkpoint.pt or run folder)")
        sim = evaluate.eval_simulator(config, str(split), num_envs, device=device, seed=seed)
        try:
            torch.manual_seed(seed)
            if name == "policy":
                agent = evaluate.PolicyAgent(policy.to(sim.device), config)
            elif name == "random":
                agent = evaluate.RandomAgent(seed)
            else:
                agent = evaluate.ForwardAgent()
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


def _eval(args: argparse.Namespace) -> int:
    from batchsim.errors import Error

    try:
        agents = [a for a in args.agents.split(",") if a]
        unknown = sorted(set(agents) - set(AGENTS))
        if unknown or not agents:
            raise ValueError(f"--agents: expected names from {list(AGENTS)}, got {args.agents!r}")
        if args.envs < 1:
            raise ValueError(f"--envs: expected >= 1, got {args.envs}")
        results = evaluate_agents(
            agents, args.checkpoint, args.split, args.envs, args.device, args.seed
        )
    except (Error, OSError, ValueError) as error:
        print(f"batchsim eval: error: {error}", file=sys.stderr)
        return 2
    print(format_table(results))
    if args.json:
        write_bytes_atomically(args.json, json.dumps(results, indent=2).encode())
        print(f"wrote {args.json}")
    return 0


def add_eval_command(commands: argparse._SubParsersAction) -> None:
    cmd = commands.add_parser(
        "eval",
        help="evaluate agents on every episode of a split once (95%% confidence intervals)",
        description="Success, SPL, SoftSPL and distance_to_goal of each agent on the same "
        "episodes, as a table and optionally JSON.",
    )
    cmd.add_argument("--checkpoint", help="checkpoint.pt or its run folder (for the policy)")
    cmd.add_argument("--split", help="PointNav split (default: the checkpoint's val_dataset)")
    cmd.add_argument("--agents", default="policy", help="comma-separated: policy, random, forward")
    cmd.add_argument("--envs", type=int, default=32, help="environments stepped together")
    cmd.add_argument("--device", help="cpu or cuda:N (default: batchsim's choice)")
    cmd.add_argument("--seed", type=int, default=0)
    cmd.add_argument("--json", help="also write the results here (atomically)")
    cmd.set_defaults(handler=_eval)
