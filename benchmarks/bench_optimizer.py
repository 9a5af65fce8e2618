"""Benchmark of one LAMB step on the `pointnav-depth` policy: the multi-tensor (foreach) path
against the per-parameter reference, both timed in one run on the same device. Prints JSON.

    python3 benchmarks/bench_optimizer.py [--device cuda] [--steps 50] [--out FILE]
"""

from __future__ import annotations

import argparse
import statistics

import torch

from batchsim.bench import report
from batchsim.train.lamb import Lamb, lamb_groups
from batchsim.train.models import Policy


def time_steps(optimizer: Lamb, policy: Policy, steps: int, device: torch.device) -> list[float]:
    """Seconds of each optimizer.step() (synchronised), after 5 untimed ones."""
    for p in policy.parameters():
        p.grad = torch.randn_like(p) * 1e-3

    def one_step() -> None:
        optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    report.times(one_step, 5)
    return report.times(one_step, steps)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--out", help="also write the JSON record here")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    policy = Policy("se_resnet9", 1, hidden=512, layers=2, rnn="lstm").to(device)
    results = {}
    for name, foreach in (("per_parameter", False), ("foreach", True), ("per_parameter_2", False)):
        optimizer = Lamb(lamb_groups(policy, ("actor", "critic")), lr=1e-6, foreach=foreach)
        seconds = time_steps(optimizer, policy, args.steps, device)
        results[name] = {
            "median_ms": statistics.median(seconds) * 1e3,
            "spread_ms": report.spread([s * 1e3 for s in seconds]),
        }
    record = {
        "benchmark": "optimizer",
        **report.header(args),
        "device": str(device),
        "parameters": sum(p.numel() for p in policy.parameters()),
        "tensors": sum(1 for _ in policy.parameters()),
        "results": results,
        "per_parameter_over_foreach": results["per_parameter"]["median_ms"]
        / results["foreach"]["median_ms"],
    }
    report.emit(record, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
