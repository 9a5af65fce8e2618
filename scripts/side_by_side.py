"""Several one-GPU trainings at once on one machine, for ablations: run i gets GPU i
(CUDA_VISIBLE_DEVICES) and its own slice of the cores (its affinity, so `batchsim train`'s
default simulation threads are that slice), all with the same preset, time limit and common
overrides plus their own. A 4-GPU, 64-core node runs four 16-core experiments for the price
of one. Each run's output goes to OUT/NAME.log and its logs to OUT/NAME/; OUT/status.json
holds every run's last update while they go on.

    python scripts/side_by_side.py --out /tmp/ablate --time-limit 885 \\
        --common dataset=/data/pointnav/train total_frames=250000000 \\
        --run baseline --run curriculum curriculum_start_m=4 ...

Then run one `batchsim` command per run folder (with a checkpoint) of OUT, each on its own
GPU and cores at once, "{run}" standing for the folder:

    python scripts/side_by_side.py --out /tmp/ablate --each -- eval --checkpoint {run} \
        --split SPLIT --json {run}/test.json
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

POLL_S = 30  # seconds between status updates


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The options; the words after `--` (a batchsim command for --each) as `words`."""
    argv = sys.argv[1:] if argv is None else argv
    cut = argv.index("--") if "--" in argv else len(argv)
    argv, words = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="runs' folder")
    parser.add_argument("--preset", default="pointnav-depth")
    parser.add_argument("--time-limit", type=float, help="seconds, start-up included")
    parser.add_argument("--gpus", help="comma-separated GPU indices (default 0, 1, ...)")
    parser.add_argument("--cores-per-run", type=int, help="default: cores / runs")
    parser.add_argument("--common", nargs="*", default=[], metavar="KEY=VALUE")
    parser.add_argument(
        "--run",
        nargs="+",
        action="append",
        default=[],
        metavar=("NAME", "KEY=VALUE"),
        help="a run: its name, then its own overrides",
    )
    parser.add_argument(
        "--each",
        action="store_true",
        help="instead of training: `batchsim` with the words after `--` for every run folder "
        "of OUT, {run} standing for the folder, one per GPU at once",
    )
    parser.add_argument(
        "--log-name", help="with --each: logs go to OUT/NAME.LOG_NAME.log (default: the command)"
    )
    args = parser.parse_args(argv)
    args.words = words
    return args


def core_slices(runs: int, per_run: int | None) -> list[list[int]]:
    """Consecutive slices of this process's cores, one per run; with fewer cores than that
    asks for, runs share them (said so: their figures then compete)."""
    cores = sorted(os.sched_getaffinity(0))
    per_run = min(per_run or max(1, len(cores) // runs), len(cores))
    if per_run * runs > len(cores):
        print(f"{runs} runs x {per_run} cores on {len(cores)} cores: they share", flush=True)
    starts = [(i * per_run) % len(cores) for i in range(runs)]
    return [(cores + cores)[start : start + per_run] for start in starts]


def gpu_list(text: str | None, runs: int) -> list[str]:
    gpus = text.split(",") if text else [str(i) for i in range(runs)]
    if len(gpus) < runs:
        raise SystemExit(f"{runs} runs need {runs} GPUs, got --gpus {text}")
    return gpus[:runs]


def start(command: list[str], gpu: str, cores: list[int], log: Path) -> subprocess.Popen:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": gpu}
    return subprocess.Popen(
        command,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        preexec_fn=lambda: os.sched_setaffinity(0, cores),
    )


def train_command(args: argparse.Namespace, name: str, overrides: list[str]) -> list[str]:
    command = [sys.executable, "-m", "batchsim", "train", "--preset", args.preset, "--gpus", "1"]
    command += ["--quiet"] + (["--time-limit", str(args.time_limit)] if args.time_limit else [])
    return [*command, *args.common, *overrides, f"log_dir={args.out / name}"]


def each_command(run: Path, words: list[str]) -> list[str]:
    """`batchsim WORDS...` for `run`, "{run}" in a word standing for its folder."""
    return [sys.executable, "-m", "batchsim", *(w.replace("{run}", str(run)) for w in words)]


def last_row(run: Path) -> dict:
    try:
        with (run / "metrics.csv").open() as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    keep = ("update", "frames", "frames_per_s", "success", "spl")
    return {k: rows[-1].get(k) for k in keep} if rows else {}


def wait(processes: dict[str, subprocess.Popen], out: Path) -> dict[str, int]:
    """Waits for every process, writing each run's last update to OUT/status.json."""
    started = time.time()
    while True:
        codes = {name: p.poll() for name, p in processes.items()}
        status = {
            "elapsed_s": round(time.time() - started),
            "runs": {n: {"exit": codes[n], **last_row(out / n)} for n in processes},
        }
        (out / "status.json").write_text(json.dumps(status, indent=1))
        if all(code is not None for code in codes.values()):
            return codes
        time.sleep(POLL_S)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.each:
        if not args.words:
            raise SystemExit("--each: expected a batchsim command after --")
        names = sorted(p.name for p in args.out.iterdir() if (p / "checkpoint.pt").exists())
        jobs = {n: each_command(args.out / n, args.words) for n in names}
        suffix = args.log_name or args.words[0]
    else:
        jobs = {run[0]: train_command(args, run[0], run[1:]) for run in args.run}
        suffix = "train"
    gpus = gpu_list(args.gpus, len(jobs))
    slices = core_slices(len(jobs), args.cores_per_run)
    processes = {}
    for (name, command), gpu, cores in zip(jobs.items(), gpus, slices, strict=True):
        print(f"{name}: GPU {gpu}, cores {cores[0]}-{cores[-1]}: {' '.join(command)}", flush=True)
        processes[name] = start(command, gpu, cores, args.out / f"{name}.{suffix}.log")
    codes = wait(processes, args.out)
    print(json.dumps(codes))
    return 0 if not any(codes.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
