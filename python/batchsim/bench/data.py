"""The procedural dataset the benchmarks run on, and where it is cached.

Default folder: `build/bench-data/procgen` when batchsim runs from a checkout (the
package imported from `python/batchsim`), else `$XDG_CACHE_HOME/batchsim/bench-data/procgen`
(`~/.cache/...` by default). `--data DIR` overrides it: a folder that holds a procgen
dataset already (any configuration, e.g. the tests' small one) is used as it is; any other
folder gets the benchmark dataset generated there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

# 8 scenes of 150k triangles (4 resident in the defaults), enough episodes that the
# sim benchmarks never run out of fresh starts.
BENCH_DATASET = dict(num_scenes=8, seed=0, episodes_per_scene=500)


def checkout_root() -> Path | None:
    """The repository when this package is imported from a checkout's python/ folder."""
    root = Path(__file__).resolve().parents[3]
    if (root / "pyproject.toml").is_file() and (root / "benchmarks").is_dir():
        return root
    return None


def default_data() -> Path:
    root = checkout_root()
    if root is not None:
        return root / "build" / "bench-data" / "procgen"
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "batchsim" / "bench-data" / "procgen"


DEFAULT_DATA = default_data()
DATA_HELP = (
    "procgen dataset folder, used as it is if it holds one; else the benchmark dataset "
    f"(8 scenes, seed 0) is generated there (default: {DEFAULT_DATA})"
)


def ensure(path: Path | None) -> tuple[Path, dict]:
    """The dataset folder and its manifest: `path` as it is when it holds a dataset, else
    the benchmark dataset generated (or reused) at `path` or DEFAULT_DATA."""
    from batchsim.procgen.build import DatasetConfig, ensure_dataset

    folder = Path(path or DEFAULT_DATA)
    if path is not None and (folder / "manifest.json").is_file():
        return folder, json.loads((folder / "manifest.json").read_text())
    return folder, ensure_dataset(folder, DatasetConfig(**BENCH_DATASET))


def describe(folder: Path, manifest: dict) -> dict:
    """What a record says of its dataset: the folder and the configuration it was made with."""
    return {"path": str(folder), "config": manifest.get("config")}
