"""`batchsim procgen`: procedural scenes plus PointNav-v1 episodes in Habitat's layout.

    OUT/scene_datasets/procgen/<scene>.glb        the scene (any glTF viewer, Habitat); only
                                                  with write_glb (the default)
    OUT/scene_datasets/procgen/<scene>.bsscene    packed scene with its navmesh (compressed:
                                                  packed scene format 5, unless compress=False)
    OUT/pointnav/<split>/<split>.json.gz          Habitat PointNav-v1 ({"episodes": []})
    OUT/pointnav/<split>/content/<scene>.json.gz  the episodes of each scene
    OUT/manifest.json                             what was generated, with statistics

Every file is byte-identical for a seed, the manifest included: timings vary from run to run,
so build_dataset_timed returns them instead of writing them.

scene_id is "data/scene_datasets/procgen/<scene>.glb", as in Habitat's datasets, so both
Habitat (with scenes_dir=OUT/scene_datasets) and batchsim resolve it; batchsim reads only the
.bsscene beside it, so a dataset without GLBs (write_glb=False) trains and evaluates the same.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from batchsim._files import write_bytes_atomically
from batchsim._progress import progress
from batchsim.errors import InvalidArgumentError
from batchsim.procgen.episode_mix import mix_episodes, outdoors, touches_garden
from batchsim.scenes import TEXTURE_FORMATS, packed_format_version

SCENE_DIR = Path("scene_datasets/procgen")
SCENE_ID_PREFIX = "data/scene_datasets/procgen/"
# Bumped whenever the generator's bytes change, so cached datasets are rebuilt (2: packed
# scene format version 2, which adds the BVH; 3: no timings in manifest.json; 4: packed scene
# format version 3, which adds vertex colours; 5: generator v2: storeys and stairs, the
# garden outside, wider ranges; 6: split levels and entrance ramps, bay windows, wall and
# ceiling materials per room kind; 7: most episodes indoors, outdoor_episode_share; 8: the
# garden episodes spread evenly through each scene's list; 9: packed scenes compressed by
# default, the compress, write_glb and texture_format options). The manifest also records the
# packed scene version written, so a new format rebuilds cached datasets without a bump here.
GENERATOR_VERSION = 9
TIMING_KEYS = ("generate_seconds", "seconds")
"""build_scene_files' statistics that vary from run to run: returned, never written."""


@dataclasses.dataclass(frozen=True)
class DatasetConfig:
    """What `batchsim procgen` generates."""

    num_scenes: int = 12
    """Scenes in all splits together; kinds alternate apartment / office."""
    seed: int = 0
    """Everything (layouts, furniture, textures, episodes) follows from this seed."""
    episodes_per_scene: int = 100
    """Episodes generated per scene with Habitat's PointNav generator rules."""
    split_fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
    """train / val / test shares of the scenes (disjoint; each split gets at least one)."""
    triangle_budget: int = 150_000
    """Triangles per scene, like a real scan (100k-300k)."""
    min_geodesic: float = 1.0
    """Shortest start-goal geodesic distance of an episode, metres (Habitat: 1)."""
    max_geodesic: float = 30.0
    """Longest start-goal geodesic distance, metres (Habitat: 30; short for quick demos)."""
    outdoor_episode_share: float = 0.1
    """Share of a scene's episodes that start or end in the garden; the others start and end
    inside, as in scanned homes (procgen/episode_mix.py says why)."""
    compress: bool = True
    """Packed scenes deflated (format 5): about 4.6 MB a building instead of 24.9, for about
    0.05 s more per load; False writes format 4 for batchsim builds that predate it."""
    write_glb: bool = True
    """Keep each scene's GLB (about 6 MB) beside its packed scene: Habitat needs it, batchsim
    does not; training-scale datasets leave it out (the seed gives it back byte for byte)."""
    texture_format: str = "rgba8"
    """How the packed scenes store textures: "rgba8", or "bc1" (1/8 of the texture bytes on
    the GPU, lossy: 4x4 blocks of two colours; 0.8 MB less per compressed scene)."""

    def validate(self) -> None:
        if self.num_scenes < 3:
            raise InvalidArgumentError(
                f"num_scenes must be >= 3 (one per split), got {self.num_scenes}"
            )
        if self.episodes_per_scene < 1:
            raise InvalidArgumentError(
                f"episodes_per_scene must be >= 1, got {self.episodes_per_scene}"
            )
        if not 0 <= self.min_geodesic < self.max_geodesic:
            raise InvalidArgumentError(
                "expected 0 <= min_geodesic < max_geodesic, got "
                f"{self.min_geodesic} and {self.max_geodesic}"
            )
        if not 0 <= self.outdoor_episode_share <= 1:
            raise InvalidArgumentError(
                f"outdoor_episode_share must be in [0, 1], got {self.outdoor_episode_share}"
            )
        if self.texture_format not in TEXTURE_FORMATS:
            raise InvalidArgumentError(
                f"texture_format must be one of {TEXTURE_FORMATS}, got {self.texture_format!r}"
            )
        if len(self.split_fractions) != 3 or min(self.split_fractions) < 0:
            raise InvalidArgumentError(
                f"split_fractions must be 3 shares >= 0, got {self.split_fractions}"
            )


def split_scenes(names: list[str], fractions: tuple[float, float, float]) -> dict[str, list[str]]:
    """Disjoint train/val/test scene lists in generation order, each non-empty."""
    total = sum(fractions)
    val = max(1, round(len(names) * fractions[1] / total))
    test = max(1, round(len(names) * fractions[2] / total))
    train = len(names) - val - test
    return {"train": names[:train], "val": names[train : train + val], "test": names[train + val :]}


def scene_name(config: DatasetConfig, index: int) -> tuple[str, str]:
    kind = ("apartment", "office")[index % 2]
    return f"{kind}_{config.seed:04d}_{index:04d}", kind


def build_dataset(
    out: str | os.PathLike, config: DatasetConfig, workers: int | None = None
) -> dict:
    """Generates every scene and its episodes into `out`; returns the manifest. workers:
    processes generating scenes (default one per core); the files do not depend on it."""
    return build_dataset_timed(out, config, workers)[0]


def build_dataset_timed(
    out: str | os.PathLike, config: DatasetConfig, workers: int | None = None
) -> tuple[dict, dict]:
    """build_dataset's manifest, and its timings: {"seconds": the whole dataset,
    "scenes": {name: {"seconds": the scene's files, "generate_seconds": its geometry}}}."""
    from batchsim.datasets import write_pointnav

    config.validate()
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise InvalidArgumentError(f"workers must be >= 1, got {workers!r}")
    out = Path(out)
    started = time.perf_counter()
    scenes, episodes, scene_timings = _build_scenes(out, config, workers or os.cpu_count() or 1)
    splits = split_scenes(list(scenes), config.split_fractions)
    for split, names in splits.items():
        write_pointnav(
            out / "pointnav", split, {SCENE_ID_PREFIX + f"{n}.glb": episodes[n] for n in names}
        )
    manifest = {
        "generator_version": GENERATOR_VERSION,
        "packed_scene_version": packed_format_version(config.compress),
        "config": dataclasses.asdict(config),
        "splits": splits,
        "scenes": scenes,
    }
    _write_json(out / "manifest.json", manifest)
    return manifest, {"seconds": time.perf_counter() - started, "scenes": scene_timings}


def _build_scenes(out: Path, config: DatasetConfig, workers: int) -> tuple[dict, dict, dict]:
    """Each scene's files under out/SCENE_DIR and its episodes: ({name: statistics},
    {name: episodes}, {name: timings}), in scene order. Each scene depends only on its own
    seed, so `workers` processes (spawned: the caller may hold Vulkan devices and threads)
    write the same bytes as one."""
    (out / SCENE_DIR).mkdir(parents=True, exist_ok=True)
    seeds = np.random.SeedSequence(config.seed).generate_state(config.num_scenes)
    jobs = [(out, config, index, int(seeds[index])) for index in range(config.num_scenes)]
    results = {}
    if workers == 1 or len(jobs) == 1:
        for job in progress(jobs, total=len(jobs), desc="procgen"):
            results[job[2]] = build_one_scene(*job)
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context) as pool:
            futures = {pool.submit(build_one_scene, *job): job[2] for job in jobs}
            for future in progress(as_completed(futures), total=len(jobs), desc="procgen"):
                results[futures[future]] = future.result()
    scenes, episodes, timings = {}, {}, {}
    for index in range(config.num_scenes):
        name, stats, scene_episodes, scene_timings = results[index]
        scenes[name], episodes[name], timings[name] = stats, scene_episodes, scene_timings
    return scenes, episodes, timings


def build_one_scene(out: Path, config: DatasetConfig, index: int, seed: int) -> tuple:
    """Scene `index`'s files and episodes (in a worker process, or not): (name, statistics,
    episodes, timings)."""
    from batchsim.datasets import generate_episodes
    from batchsim.procgen import build_scene_files
    from batchsim.scenes import Scene

    name, kind = scene_name(config, index)
    stats = build_scene_files(
        seed,
        out / SCENE_DIR,
        name,
        kind,
        config.triangle_budget,
        write_glb=config.write_glb,
        compress=config.compress,
        texture_format=config.texture_format,
    )
    navmesh = Scene.load(out / SCENE_DIR / f"{name}.bsscene").navmesh()

    def generate(count: int) -> list:
        return generate_episodes(
            navmesh,
            SCENE_ID_PREFIX + f"{name}.glb",
            count,
            seed,
            closest_dist_limit=config.min_geodesic,
            furthest_dist_limit=config.max_geodesic,
        )

    episodes = mix_episodes(
        generate, config.episodes_per_scene, stats["footprint_m"], config.outdoor_episode_share
    )
    timings = {k: stats.pop(k) for k in TIMING_KEYS}
    stats = {**_plain(stats), **episode_statistics(episodes, stats)}
    return name, stats, episodes, timings


def episode_statistics(episodes, scene: dict | None = None) -> dict:
    """Distances; with the scene's statistics (storeys, storey_height_m, footprint_m) also
    episodes per storey of their start, cross-storey ones and those starting outdoors."""
    geodesic = np.array([e.geodesic_distance for e in episodes])
    euclid = np.array(
        [np.linalg.norm(np.subtract(e.goal_position, e.start_position)) for e in episodes]
    )
    stats = {
        "episodes": len(episodes),
        "mean_geodesic_m": float(geodesic.mean()) if len(geodesic) else 0.0,
        "mean_geodesic_euclid_ratio": float((geodesic / euclid).mean()) if len(geodesic) else 0.0,
    }
    if scene is None or not episodes:
        return stats
    starts = np.array([e.start_position for e in episodes], np.float64)
    goals = np.array([e.goal_position for e in episodes], np.float64)
    storeys, height = scene["storeys"], scene["storey_height_m"]

    def storey(y):
        return np.clip(np.round(y / height), 0, storeys - 1).astype(int)

    return {
        **stats,
        "episodes_per_storey": np.bincount(storey(starts[:, 1]), minlength=storeys).tolist(),
        "cross_storey_episodes": int((storey(starts[:, 1]) != storey(goals[:, 1])).sum()),
        "outdoor_start_share": float(outdoors(starts, scene["footprint_m"]).mean()),
        "garden_episode_share": float(touches_garden(episodes, scene["footprint_m"]).mean()),
    }


def _plain(stats: dict) -> dict:
    return {k: (float(v) if isinstance(v, (np.floating, float)) else v) for k, v in stats.items()}


def _write_json(path: Path, data: dict) -> None:
    write_bytes_atomically(path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())


def current_manifest(out: str | os.PathLike, config: DatasetConfig) -> dict | None:
    """The manifest in `out` if it describes `config` at this generator version, else None."""
    manifest_path = Path(out) / "manifest.json"
    if not manifest_path.is_file():
        return None
    manifest = json.loads(manifest_path.read_text())
    same_config = manifest.get("config") == json.loads(json.dumps(dataclasses.asdict(config)))
    written = packed_format_version(config.compress)
    same_versions = (
        manifest.get("generator_version") == GENERATOR_VERSION
        and manifest.get("packed_scene_version") == written
    )
    if same_versions and same_config:
        return manifest
    return None


def ensure_dataset(
    out: str | os.PathLike, config: DatasetConfig, workers: int | None = None
) -> dict:
    """The dataset in `out`, generated on first use: reused while its manifest matches
    `config` and this generator version, rebuilt otherwise."""
    manifest = current_manifest(out, config)
    return manifest if manifest is not None else build_dataset(out, config, workers)
