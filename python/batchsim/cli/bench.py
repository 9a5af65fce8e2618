"""`batchsim bench NAME`: one benchmark of batchsim.bench, its own arguments passed through."""

from __future__ import annotations

import argparse
import sys

BENCH_DESCRIPTION = """\
Run one benchmark. Each prints one JSON record: machine, GPU, driver, versions, date,
command line, configuration, and its figures as medians with min and max over runs.
--out FILE also saves it; sim, render and env take --plot PNG (frames/s against N).
The arguments after NAME go to the benchmark: `batchsim bench NAME --help` lists them."""


def add_command(commands: argparse._SubParsersAction) -> None:
    from batchsim.bench import BENCHMARKS

    width = max(map(len, BENCHMARKS))
    listing = "\n".join(f"  {name:<{width}}  {line}" for name, line in BENCHMARKS.items())
    cmd = commands.add_parser(
        "bench",
        help="run a benchmark: JSON record (machine, versions, device, medians and spread)",
        description=BENCH_DESCRIPTION,
        epilog=f"benchmarks:\n{listing}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmd.add_argument("name", choices=list(BENCHMARKS), metavar="NAME", help="benchmark to run")
    cmd.add_argument("args", nargs=argparse.REMAINDER, help="the benchmark's own arguments")
    cmd.set_defaults(handler=_bench)


def _bench(args: argparse.Namespace) -> int:
    from batchsim.bench import run

    try:
        return run(args.name, args.args)
    except ImportError as error:  # an optional dependency (torch, matplotlib) is missing
        print(f"batchsim bench {args.name}: error: {error}", file=sys.stderr)
        return 2
