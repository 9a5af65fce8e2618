"""Soak: steps a Simulator for a fixed time with scene swaps every few hundred steps and
random resets, sampling what would grow if anything leaked: resident memory, GPU memory in
use (CUDA), open file descriptors, live Vulkan allocations and threads. Prints a JSON
summary, writes the series (--out) and a plot (--plot), and exits 1 unless all are flat.

    python3 scripts/soak.py --minutes 10 --device cpu --out soak.json --plot soak.png

Flat means: after the warm-up (the first fifth of the samples: scenes still arriving,
allocator pools filling), the median of each series over the last third is that over the
first third (file descriptors, Vulkan allocations, threads), or at most --growth-mb above
it (resident, heap and GPU memory). Medians, because a sample taken during a scene swap
sees one scene freed and the next not yet uploaded, or the loader's file open.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

import batchsim
from batchsim import _core
from batchsim._files import write_bytes_atomically

MB = 2**20
EXACT = ("open_fds", "vulkan_allocations", "threads")
BOUNDED = ("rss_mb", "heap_mb", "gpu_used_mb")


class _MallInfo2(ctypes.Structure):  # glibc's struct mallinfo2 (2.33+), all size_t
    _FIELDS = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
    _fields_ = [(name, ctypes.c_size_t) for name in _FIELDS.split()]


def heap_in_use_mb() -> float:
    """Bytes malloc has handed out and not had back (mmapped blocks included): a leak grows
    this, where resident memory also grows from fragmentation and driver caches."""
    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2
    except AttributeError:
        return 0.0  # not glibc 2.33+
    mallinfo2.restype = _MallInfo2
    info = mallinfo2()
    return (info.uordblks + info.hblkhd) / MB


def sample(device: str) -> dict[str, float]:
    statm = Path("/proc/self/statm").read_text().split()
    gpu_used = 0.0
    if device.startswith("cuda"):
        import torch

        free, total = torch.cuda.mem_get_info(torch.device(device))
        gpu_used = (total - free) / MB  # the whole device: Vulkan's memory included
    return {
        "rss_mb": int(statm[1]) * os.sysconf("SC_PAGE_SIZE") / MB,
        "heap_mb": heap_in_use_mb(),
        "gpu_used_mb": gpu_used,
        "open_fds": len(os.listdir("/proc/self/fd")),
        "vulkan_allocations": _core.vulkan_allocations(),
        "threads": len(os.listdir("/proc/self/task")),
    }


def soak(args) -> list[dict[str, float]]:
    sim = batchsim.Simulator(
        args.data,
        args.num_envs,
        device=args.device,
        resolution=args.resolution,
        sensors=tuple(args.sensors),
        scenes_resident=args.scenes_resident,
        steps_per_scene=args.swap_every,
        # A slot swaps its scene only at an episode end, so episodes must be shorter.
        task=batchsim.TaskConfig().replace(max_episode_steps=min(500, args.swap_every - 2)),
    )
    rng = np.random.default_rng(0)
    sim.reset(seed=0)
    samples, step = [], 0
    end = time.monotonic() + args.minutes * 60
    next_sample = time.monotonic()
    with tqdm(total=round(args.minutes * 60), unit="s", desc="soak") as bar:
        while (now := time.monotonic()) < end:
            if rng.random() < 0.01:  # random resets of some environments
                sim.reset_envs(rng.random(sim.num_envs) < 0.25)
            sim.step(rng.integers(0, 4, sim.num_envs, dtype=np.int32))
            step += 1
            if now >= next_sample:
                samples.append(
                    {"t_s": args.minutes * 60 - (end - now), "step": step} | sample(sim.device)
                )
                next_sample = now + args.every
                bar.n = round(samples[-1]["t_s"])
                bar.refresh()
    sim.close()
    return samples


def verdict(samples: list[dict[str, float]], growth_mb: float) -> dict[str, object]:
    if len(samples) < 8:
        raise SystemExit(f"soak: too few samples ({len(samples)}); run longer or sample more often")
    after = samples[len(samples) // 5 :]
    third = len(after) // 3
    result: dict[str, object] = {}
    for key in EXACT + BOUNDED:
        first = float(np.median([s[key] for s in after[:third]]))
        last = float(np.median([s[key] for s in after[-third:]]))
        allowed = growth_mb if key in BOUNDED else 0.0
        result[key] = {"first_median": first, "last_median": last, "flat": last - first <= allowed}
    result["flat"] = all(v["flat"] for v in result.values() if isinstance(v, dict))
    return result


def plot(samples: list[dict[str, float]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = ("rss_mb", "heap_mb", "gpu_used_mb", "open_fds", "vulkan_allocations", "threads")
    fig, axes = plt.subplots(1, len(keys), figsize=(4 * len(keys), 3), constrained_layout=True)
    minutes = [s["t_s"] / 60 for s in samples]
    for ax, key in zip(axes, keys, strict=True):
        ax.plot(minutes, [s[key] for s in samples])
        ax.set_title(key)
        ax.set_xlabel("minutes")
    fig.suptitle(title)
    fig.savefig(path, dpi=90)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", required=True, help="a PointNav split (e.g. data/procgen/pointnav/train)"
    )
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--resolution", type=int, default=32)
    parser.add_argument("--sensors", nargs="+", default=["depth", "rgb"])
    parser.add_argument("--scenes-resident", type=int, default=2)
    parser.add_argument("--swap-every", type=int, default=300, help="steps per scene of a slot")
    parser.add_argument("--every", type=float, default=5, help="seconds between samples")
    parser.add_argument("--growth-mb", type=float, default=64, help="memory growth allowed")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--plot", type=Path)
    args = parser.parse_args(argv)
    samples = soak(args)
    summary = {"minutes": args.minutes, "device": args.device, "samples": len(samples)}
    summary |= {"steps": samples[-1]["step"], "verdict": verdict(samples, args.growth_mb)}
    print(json.dumps(summary, indent=1))
    if args.out:
        payload = json.dumps({"summary": summary, "samples": samples}).encode()
        write_bytes_atomically(args.out, payload)
    if args.plot:
        plot(
            samples,
            args.plot,
            f"soak: {args.minutes:g} min on {args.device}, {summary['steps']} steps",
        )
    return 0 if summary["verdict"]["flat"] else 1


if __name__ == "__main__":
    sys.exit(main())
