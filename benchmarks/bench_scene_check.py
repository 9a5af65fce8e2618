"""Cost of the scene check `batchsim train` and `batchsim eval` run before they start
(batchsim.datasets.scene_check): a split of N scenes, each a copy (not a link: every file is
read on its own) of the procedural test scenes in turn, checked with a thread per core.

    python benchmarks/bench_scene_check.py --scenes 100 1000 --out /tmp/scene-check
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from dataclasses import replace
from pathlib import Path

from batchsim.datasets import load_pointnav, write_pointnav
from batchsim.datasets.scene_check import check_scenes
from batchsim.datasets.scenes import simulator_scene_file

TEST_DATA = Path(__file__).resolve().parents[1] / "build" / "test-data" / "procgen"


def source_scenes(root: Path) -> list[tuple[Path, object]]:
    """(scene file, one of its episodes) of every scene of the splits under root/pointnav."""
    out = []
    for split in sorted((root / "pointnav").iterdir()):
        dataset = load_pointnav(split)
        for scene_id in dataset.scene_ids:
            out.append((simulator_scene_file(dataset, scene_id), dataset.episodes_for(scene_id)[0]))
    return out


def make_split(root: Path, out: Path, count: int) -> Path:
    """A split of `count` scenes under out/: copies of the source scenes in turn, one
    episode each."""
    sources = source_scenes(root)
    (out / "scenes").mkdir(parents=True, exist_ok=True)
    by_scene = {}
    for i in range(count):
        path, episode = sources[i % len(sources)]
        target = out / "scenes" / f"scene_{i:05d}.bsscene"
        if not target.exists():
            shutil.copyfile(path, target)
        scene_id = str(target.with_suffix(".glb"))
        by_scene[scene_id] = [replace(episode, scene_id=scene_id)]
    return write_pointnav(out / "pointnav", f"n{count}", by_scene).parent


def measure(split: Path, workers: int) -> dict:
    dataset = load_pointnav(split)
    files = [simulator_scene_file(dataset, s) for s in dataset.scene_ids]
    started = time.perf_counter()
    count = check_scenes(dataset, show_progress=False, workers=workers)
    seconds = time.perf_counter() - started
    total = sum(f.stat().st_size for f in files)
    return {
        "scenes": count,
        "workers": workers,
        "seconds": round(seconds, 3),
        "mib": round(total / 2**20, 1),
        "mib_per_s": round(total / 2**20 / seconds, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--out", type=Path, default=Path("/tmp/batchsim-scene-check"))
    parser.add_argument("--source", type=Path, default=TEST_DATA, help="a procgen dataset root")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    rows = []
    for count in args.scenes:
        split = make_split(args.source, args.out, count)
        rows.append(measure(split, args.workers))
        print(json.dumps(rows[-1]))
    (args.out / "results.json").write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
