"""The benchmark suite, installed with the package: `batchsim bench NAME [ARGS...]`.

One module per benchmark, each with `main(argv, prog)` that parses its own options, prints
one JSON record (the header of `report.header()` plus its figures: medians with min and
max over runs) and, with `--out`, writes it atomically. The benchmarks that sweep N (sim,
render, env) also take `--plot PNG` (frames/s against N; `python -m batchsim.bench.plot`
plots a saved record). `benchmarks/bench_NAME.py` in a checkout runs the same code (a
NAME with a hyphen lives in the module with an underscore: large-scene, large_scene.py).
"""

from __future__ import annotations

import importlib

BENCHMARKS = {  # name: one line for `batchsim bench --help`
    "sim": "navigation only: env-steps/s of BatchSim.step() (no rendering) against N",
    "render": "rendering only: frames/s of each backend, batched and naive, against N views",
    "env": "env step: frames/s of BatchNavEnv.step() and its Python overhead against N",
    "train": "end-to-end training: frames/s of the PPO trainer for a preset",
    "scaling": "Simulator.step() frames/s and GPU memory against N and against K resident scenes",
    "export": "export round trip: compute dispatch -> DLPack tensor -> torch, latency",
    "assets": "scene import, packed-scene load and navmesh query rates",
    "procgen": "procedural dataset generation: time and dataset statistics",
    "large-scene": "2M triangles, 300 MB of textures: import, load, render at K resident, swaps",
}


def run(name: str, argv: list[str]) -> int:
    """Runs benchmark `name` with its command-line arguments `argv`; its exit status."""
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; expected one of {', '.join(BENCHMARKS)}")
    module = importlib.import_module(f"batchsim.bench.{name.replace('-', '_')}")
    return module.main(argv, prog=f"batchsim bench {name}") or 0
