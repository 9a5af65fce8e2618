"""Dispatch-to-consumer latency and throughput of the export path.

Each round: a compute dispatch rewrites a persistent tensor, then torch reads it in place
(a sum). Reported per size: median wall time per round over several repeats, rounds/s and
effective GB/s written. Prints JSON and, with --out, writes it atomically.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import torch

import batchsim
from batchsim.bench import report


def time_rounds(context, count: int, rounds: int, repeats: int) -> list[float]:
    tensor = context.tensor((count,))
    fill = batchsim.PatternFill(context)
    values = torch.from_dlpack(tensor)
    cuda = context.exports_cuda
    samples = []
    for repeat in range(repeats + 1):  # repeat 0 warms up
        if cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        total = torch.zeros((), device=values.device)
        for r in range(rounds):
            fill.run(tensor, r)
            total += values.sum()
        if cuda:
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
        if repeat:
            samples.append(elapsed / rounds)
    return samples


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[1 << 12, 1 << 16, 1 << 20, 1 << 24]
    )
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args(argv)

    context = batchsim.Context()
    results = []
    for count in args.sizes:
        samples = time_rounds(context, count, args.rounds, args.repeats)
        median = statistics.median(samples)
        results.append(
            {
                "elements": count,
                "median_round_us": round(median * 1e6, 2),
                "rounds_per_s": round(1 / median, 1),
                "write_gb_per_s": round(count * 4 / median / 1e9, 3),
                "spread_us": [round(min(samples) * 1e6, 2), round(max(samples) * 1e6, 2)],
            }
        )
    record = {
        "benchmark": "export_round_trip",
        **report.header(args, context),
        "device": context.device_info["name"],
        "export": context.torch_device,
        "host": platform.node(),
        "rounds": args.rounds,
        "repeats": args.repeats,
        "results": results,
    }
    report.emit(record, args.out)
    return 0
