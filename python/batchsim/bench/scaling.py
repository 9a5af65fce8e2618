"""Scaling study: frames/s of `Simulator.step()` (simulation and rendering of N environments,
one frame = one environment step) against N at a fixed K, and against K (resident scenes)
at a fixed N, for each sensor (depth, RGB) and resolution, with the GPU memory each
configuration takes.

A simulator steps its N environments on the CPU threads and renders them in one GPU
submission; successive steps overlap (the next simulation runs while the GPU renders the
last step), so frames/s is the rate of the slower of the two. Actions are drawn beforehand
with the env benchmark's mix. GPU memory is the device-wide use (cudaMemGetInfo: Vulkan's
allocations included) after warm-up minus before the simulator was made.

    batchsim bench scaling --envs 64 256 1024 4096 16384 --resident 1 4 16 64 --plot s.png

The dataset (max K scenes in one train split, 20 episodes each) is made once in --data.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
from pathlib import Path

import torch

import batchsim
from batchsim._files import write_bytes_atomically
from batchsim.bench import data, report
from batchsim.bench import env as env_bench
from batchsim.bench.plot import pyplot
from batchsim.procgen.build import DatasetConfig, ensure_dataset

MIB = 1024.0 * 1024.0


def dataset(data: Path, scenes: int) -> Path:
    """A train split of `scenes` procedural scenes (made once; val and test get one each)."""
    config = DatasetConfig(
        num_scenes=scenes + 2, seed=0, episodes_per_scene=20, split_fractions=(scenes, 1, 1)
    )
    ensure_dataset(data, config)
    return data / "pointnav" / "train"


def gpu_used_bytes() -> int | None:
    """Bytes in use on the current CUDA device, or None without CUDA."""
    if not torch.cuda.is_available():
        return None
    free, total = torch.cuda.mem_get_info()
    return total - free


def timed_runs(sim, args) -> list[float]:
    """frames/s of each run of `args.steps` steps after `args.warmup` steps, timed by the env
    benchmark's loop (its action mix, simulator step and synchronisation)."""
    actions = env_bench.draw_actions(sim.num_envs, args, torch.device("cpu")).numpy()
    step = env_bench.simulator_step(sim)
    sync = env_bench.synchronizer(torch.device(sim.device))
    env_bench.warm_up(step, actions[0], args.warmup, sync)
    runs = [env_bench.time_run(step, sim, run, sync) for run in actions]
    return [sim.num_envs * args.steps / run["seconds"] for run in runs]


def measure(split: Path, n: int, k: int, sensor: str, size: int, args) -> dict:
    before = gpu_used_bytes()
    sim = batchsim.Simulator(
        split,
        n,
        sensors=(sensor,),
        resolution=size,
        scenes_resident=k,
        backend=args.backend,
        device=args.device,
        num_threads=args.threads,
        seed=args.seed,
    )
    sim.reset(seed=args.seed)
    rates = timed_runs(sim, args)
    after = gpu_used_bytes()
    renderer = sim.renderer
    result = {
        "num_envs": n,
        "scenes_resident": k,
        "sensor": sensor,
        "resolution": size,
        "backend": renderer.backend,
        "frames_per_s": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "gpu_memory_mib": None if before is None else (after - before) / MIB,
        "scene_memory_mib": sum(renderer.scene_bytes(p) for p in range(2 * k)) / MIB,
    }
    sim.close()
    print(_summary(result), file=sys.stderr)
    return result


def _summary(r: dict) -> str:
    memory = "" if r["gpu_memory_mib"] is None else f", {r['gpu_memory_mib']:,.0f} MiB"
    return (
        f"N={r['num_envs']} K={r['scenes_resident']} {r['sensor']} {r['resolution']}px: "
        f"{r['frames_per_s']:,.0f} frames/s [{r['min']:,.0f}-{r['max']:,.0f}]{memory}"
    )


def sweeps(args) -> list[tuple[int, int]]:
    """(N, K) pairs: every N at --k-for-n, then every K at --n-for-k (each once)."""
    pairs = [(n, min(args.k_for_n, n)) for n in args.envs]
    pairs += [(args.n_for_k, k) for k in args.resident if (args.n_for_k, k) not in pairs]
    return pairs


def parse_args(argv: list[str] | None, prog: str | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--envs", type=int, nargs="+", default=[64, 256, 1024, 4096, 16384])
    parser.add_argument("--resident", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--k-for-n", type=int, default=4, help="K of the sweep over N")
    parser.add_argument("--n-for-k", type=int, default=4096, help="N of the sweep over K")
    parser.add_argument("--sensors", nargs="+", choices=["depth", "rgb"], default=["depth", "rgb"])
    parser.add_argument("--resolution", type=int, nargs="+", default=[64, 128])
    parser.add_argument("--backend", choices=["auto", "raster", "compute"], default="auto")
    parser.add_argument("--device", help="'cpu', 'cuda:N'; default: CUDA on NVIDIA, else CPU")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="sim threads")
    parser.add_argument("--steps", type=int, default=10, help="steps per timed run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--data",
        type=Path,
        default=data.DEFAULT_DATA.parent / "procgen-scaling",
        help="dataset folder (made there once: max K scenes in the train split)",
    )
    parser.add_argument(
        "--split", type=Path, help="a PointNav split to use as it is (at least max K scenes)"
    )
    return report.parse_sweep_args(parser, argv)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    args = parse_args(argv, prog)
    split = args.split or dataset(args.data, max(max(args.resident), args.k_for_n))
    results = [
        measure(split, n, k, sensor, size, args)
        for n, k in sweeps(args)
        for sensor in args.sensors
        for size in args.resolution
    ]
    record = {"benchmark": "scaling", **report.header(args), "results": results}
    report.emit(record, args.out)
    if args.plot:
        write_bytes_atomically(args.plot, plot_png(results, args))
    return 0


def plot_png(results: list[dict], args) -> bytes:
    """Three panels, one line per sensor and resolution: frames/s against N (at K =
    --k-for-n), frames/s against K (at N = --n-for-k), GPU memory against N."""
    plt = pyplot()
    figure, (by_n, by_k, memory) = plt.subplots(1, 3, figsize=(15, 4.2))
    for sensor in args.sensors:
        for size in args.resolution:
            mine = [r for r in results if r["sensor"] == sensor and r["resolution"] == size]
            over_n = sorted(
                (r["num_envs"], r["frames_per_s"], r["gpu_memory_mib"] or 0.0)
                for r in mine
                if r["scenes_resident"] == min(args.k_for_n, r["num_envs"])
            )
            over_k = sorted(
                (r["scenes_resident"], r["frames_per_s"])
                for r in mine
                if r["num_envs"] == args.n_for_k
            )
            label = f"{sensor} {size}x{size}"
            n, rate, mib = zip(*over_n, strict=True)
            by_n.plot(n, rate, marker="o", label=label)
            memory.plot(n, mib, marker="o", label=label)
            by_k.plot(*zip(*over_k, strict=True), marker="o", label=label)
    panels = (
        (by_n, f"N (K = {args.k_for_n})", "frames/s", "log", args.envs),
        (by_k, f"K resident scenes (N = {args.n_for_k})", "frames/s", "log", args.resident),
        (memory, f"N (K = {args.k_for_n})", "GPU memory (MiB)", "linear", args.envs),
    )
    for axes, xlabel, ylabel, yscale, ticks in panels:
        axes.set(xscale="log", yscale=yscale, xlabel=xlabel, ylabel=ylabel)
        axes.set_xticks(ticks, [f"{x:,}" for x in ticks])
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize=8)
    figure.suptitle(f"Simulator.step() scaling (backend {args.backend})")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    return buffer.getvalue()
