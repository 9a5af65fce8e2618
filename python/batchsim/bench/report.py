"""Shared by the benchmarks: the record header (machine, software, device, date, command,
configuration), printing the JSON record and saving it (and its plot) atomically, and a
cProfile of a step function.

Every record is `{"benchmark": NAME, **header(args, context), ...its own figures}`: the
header's keys sit at the top level of every record, beside the benchmark's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from batchsim._files import write_bytes_atomically

VULKAN_KEYS = ("name", "type", "driver_name", "driver_info", "api_version", "uuid")


def header(args: argparse.Namespace, context=None) -> dict:
    """The fields every record starts with. `context`: the batchsim.Context the benchmark
    ran on; without one (CPU-only benchmarks), the device a default Context picks."""
    return {
        "machine": platform.node(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": versions(),
        "commit": commit(),
        "vulkan": vulkan_device(context),
        "cuda": cuda(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join(sys.orig_argv),  # the interpreter and its flags too
        "config": configuration(args),
    }


def versions() -> dict:
    """Package versions from their metadata (importing torch only to ask would cost ~2 s)."""
    import batchsim

    found = {"batchsim": batchsim.__version__}
    for name in ("numpy", "torch"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def commit() -> str | None:
    """The checkout's git commit (with "-dirty" for local changes); None when installed."""
    from batchsim.bench.data import checkout_root

    root = checkout_root()
    if root is None:
        return None
    try:
        head = _git(root, "rev-parse", "HEAD")
        changed = _git(root, "status", "--porcelain", "--untracked-files=no")
        return head + ("-dirty" if changed else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        # --no-optional-locks: asking must not rewrite the checkout's index.
        ["git", "--no-optional-locks", "-C", str(root), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=10,
    )
    return done.stdout.strip()


def vulkan_device(context=None) -> dict:
    import batchsim

    try:
        info = (context or batchsim.Context(export="cpu")).device_info
    except batchsim.Error as error:  # CPU-only benchmarks still run without a device
        return {"error": str(error)}
    return {key: info.get(key) for key in VULKAN_KEYS}


def cuda() -> dict:
    """batchsim.cuda_status(): driver version and GPUs, or why CUDA is unavailable."""
    import batchsim

    return batchsim.cuda_status()


def configuration(args: argparse.Namespace) -> dict:
    """The parsed arguments, JSON-ready (paths as strings)."""
    return {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}


def times(run, repeats: int) -> list[float]:
    """Seconds of each of `repeats` calls of run()."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return samples


def pass_durations(times: dict | None) -> dict | None:
    """A renderer's pass_times without the clock readings (start_ms, end_ms): GPU ms per pass."""
    if times is None:
        return None
    return {k: v for k, v in times.items() if k not in ("start_ms", "end_ms")}


def spread(values: list[float]) -> list[float]:
    """[min, max]: the spread of a timed figure over runs."""
    return [min(values), max(values)]


def add_plot_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plot", metavar="PNG", help="also plot frames/s against N (log-log) into this PNG"
    )


def check_plot(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Fails before measuring, not after, when --plot cannot be honoured."""
    if args.plot:
        from batchsim.bench.plot import pyplot

        try:
            pyplot()
        except ImportError as error:
            parser.error(str(error))


def parse_sweep_args(parser: argparse.ArgumentParser, argv: list[str] | None):
    """For the benchmarks that sweep N: adds --out and --plot, parses `argv` and checks that
    a plot can be drawn before anything is measured."""
    parser.add_argument("--out", help="also write the JSON here")
    add_plot_argument(parser)
    args = parser.parse_args(argv)
    check_plot(parser, args)
    return args


def emit(report: dict, out: str | None, plot: str | None = None) -> None:
    """Prints `report` as JSON; writes it to `out` and its plot to `plot` when given
    (each atomically: temp file + rename)."""
    text = json.dumps(report, indent=2)
    print(text)
    if out:
        write_bytes_atomically(out, (text + "\n").encode())
    if plot:
        from batchsim.bench.plot import write_plot

        write_plot(report, plot)
        print(f"plot: {plot}", file=sys.stderr)


def profile_steps(step, actions, top: int = 15) -> list[dict]:
    """cProfile of step(row) over the rows of `actions`: the `top` functions by their own
    time, per step. A wait for the GPU shows as the own time of the call that waits (a
    tensor's .cpu(), an event's synchronize)."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for row in actions:
        step(row)
    profiler.disable()
    steps = len(actions)
    rows = [
        {
            "function": f"{Path(file).name}:{line}({name})",
            "calls_per_step": calls / steps,
            "own_us_per_step": own / steps * 1e6,
            "cumulative_us_per_step": cumulative / steps * 1e6,
        }
        for (file, line, name), (_, calls, own, cumulative, _) in pstats.Stats(
            profiler
        ).stats.items()
    ]
    return sorted(rows, key=lambda r: -r["own_us_per_step"])[:top]
