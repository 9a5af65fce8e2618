"""Runs batchsim.stress over and over for a fixed time: several Simulators and a renderer
on one context, stepped at once from Python threads (each with its own CUDA stream on a
GPU), scenes swapped every few steps. Prints a JSON summary; exits 1 on a hang (a worker not
done within --timeout) or a worker whose results differ from its run alone.

    python3 scripts/stress_context.py --data data/procgen/pointnav/train --minutes 5 --device cpu
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback

from tqdm import tqdm

import batchsim
from batchsim import stress


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="a PointNav split")
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--device", default="cpu", help='"cpu" or "cuda:N"')
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--steps", type=int, default=100, help="steps per worker per round")
    parser.add_argument("--swap-every", type=int, default=3)
    parser.add_argument("--num-envs", type=int, default=4, help="environments per Simulator")
    parser.add_argument("--resolution", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=300, help="seconds before a hang")
    args = parser.parse_args(argv)
    export = "cuda" if args.device.startswith("cuda") else "cpu"
    context = batchsim.Context(device=args.device if export == "cuda" else None, export=export)
    started, rounds, failure = time.monotonic(), 0, None
    end = started + args.minutes * 60
    with tqdm(total=round(args.minutes * 60), unit="s", desc="stress") as bar:
        while time.monotonic() < end and failure is None:
            try:
                stress.run(
                    args.data,
                    context,
                    workers=args.workers,
                    steps=args.steps,
                    swap_every=args.swap_every,
                    num_envs=args.num_envs,
                    resolution=args.resolution,
                    timeout_s=args.timeout,
                    check_alone=rounds == 0,  # once: a full alone run per round would halve it
                )
            except (stress.StressHang, stress.StressMismatch, RuntimeError) as error:
                failure = f"{type(error).__name__}: {error}"
                traceback.print_exception(error)  # the failed worker's own error is its cause
            rounds += 1
            bar.n = min(bar.total, round(time.monotonic() - started))
            bar.refresh()
    summary = {
        "device": args.device,
        "workers": args.workers,
        "steps_per_round": args.steps,
        "num_envs": args.num_envs,
        "resolution": args.resolution,
        "rounds": rounds,
        "minutes": round((time.monotonic() - started) / 60, 2),
        "failure": failure,
    }
    print(json.dumps(summary, indent=1))
    return 0 if failure is None else 1


if __name__ == "__main__":
    sys.exit(main())
