"""Zero-shot PointNav on real buildings: the building models this machine's package
registries install, imported into packed scenes with the right up axis and scale, and
Habitat-rule episodes on them (one seeded split), cached in an output folder.

>>> buildings = prepare_real_buildings("runs/zero-shot", episodes=1000, seed=0)
>>> buildings.split        # runs/zero-shot/pointnav/real/real.json.gz (Habitat PointNav-v1)
>>> buildings.scenes_dir   # runs/zero-shot/scene_datasets: where its scene_ids resolve

Only modelled or scanned real buildings belong in REAL_BUILDINGS, never procedural ones.
Searched (Debian 12 apt-cache, PyPI): Debian's assimp-testmodels holds one building, the
KIT FZK-Haus (IFC); its other models are objects (spider, duck, engine, truck, cubes).
Looked at and left out: flightgear-data-models (airport exteriors, no storeys inside),
ifcopenshell's wheel (IFC syntax fixtures, no geometry of a building), blender-data (no
building). A model absent here is skipped with a note, so the table can name models that
other machines install.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np

from batchsim._files import read_regular_bytes, write_bytes_atomically
from batchsim.datasets.generate import generate_episodes
from batchsim.datasets.pointnav import load_pointnav, write_pointnav
from batchsim.errors import InvalidArgumentError

SPLIT = "real"
SCENE_FOLDER = "real"  # scene_ids: data/scene_datasets/real/<name><suffix>
PROTOCOL_VERSION = 1  # bump when what is generated changes, so caches are not reused


@dataclasses.dataclass(frozen=True)
class RealBuilding:
    """One real building model and how to import it and make episodes on it."""

    name: str
    path: str  # under Debian's assimp-testmodels folder unless absolute
    up: str  # batchsim.import_scene's up axis of the file as Assimp hands it over
    scale: float  # to metres
    max_geodesic: float  # longest start-goal geodesic (m), by the building's size
    reason: str  # why these settings
    min_geodesic: float = 1.0  # Habitat's closest_dist_limit
    indoor_only: bool = True  # episodes only on indoor islands (see indoor_islands)

    @property
    def file(self) -> str:
        """The model file: `path` under $BATCHSIM_ASSIMP_MODELS (where a machine keeps the
        assimp-testmodels elsewhere) or /usr/share/assimp/models."""
        root = os.environ.get("BATCHSIM_ASSIMP_MODELS", "/usr/share/assimp/models")
        return str(Path(root) / self.path)


REAL_BUILDINGS = (
    RealBuilding(
        name="fzk-haus",
        path="IFC/AC14-FZK-Haus.ifc",
        up="y",
        scale=1.0,
        max_geodesic=20.0,
        reason="KIT/IAI's two-storey detached house (Debian assimp-testmodels), modelled in "
        "ArchiCAD. IFC is Z-up in metres, but Assimp's IFC importer already hands over Y-up "
        "metres (the navmesh's floors at 0.2 and 3.4 m, 8 m to the ridge), so up=y, scale=1. "
        "Each storey is about 12 x 10 m with ~155 m2 walkable: paths through its doors stay "
        "under 20 m, so Habitat's 30 m limit becomes 20. Its model has a terrain ring "
        "around the house (outdoors) and a walkable sloped roof: indoor_only drops both; "
        "its door leaves are modelled closed, so each room is its own island.",
    ),
)


@dataclasses.dataclass
class BuildingStats:
    """What one building gave: its packed scene, navmesh and episodes."""

    name: str
    source: str
    triangles: int
    floors: int
    navigable_area: float
    indoor_area: float  # of the islands episodes may use (indoor_islands, if indoor_only)
    islands: int
    episodes: int
    mean_geodesic: float
    geodesic_range: tuple[float, float]


@dataclasses.dataclass
class RealBuildings:
    """The prepared protocol: the split to evaluate, where its scenes resolve, per building
    statistics and what was not found."""

    split: Path
    scenes_dir: Path
    buildings: list[BuildingStats]
    missing: list[str]

    def as_json(self) -> dict:
        return {
            "split": str(self.split),
            "scenes_dir": str(self.scenes_dir),
            "buildings": [dataclasses.asdict(b) for b in self.buildings],
            "missing": self.missing,
        }


def available_buildings(models=REAL_BUILDINGS) -> tuple[list[RealBuilding], list[str]]:
    """The models whose files exist here, and the paths of those that do not."""
    found = [m for m in models if Path(m.file).is_file()]
    return found, [m.file for m in models if not Path(m.file).is_file()]


def episode_shares(total: int, count: int) -> list[int]:
    """`total` episodes over `count` buildings as evenly as possible, the first ones taking
    the remainder."""
    return [total // count + (i < total % count) for i in range(count)]


def prepare_real_buildings(
    out: str | os.PathLike,
    episodes: int = 1000,
    seed: int = 0,
    models=REAL_BUILDINGS,
    log=print,
) -> RealBuildings:
    """Imports each available model into OUT/scene_datasets/real/<name>.bsscene and writes
    up to `episodes` episodes over them (evenly shared) as the Habitat PointNav-v1 split
    OUT/pointnav/real. Both are cached: a model whose file, settings and packed scene are
    unchanged is not imported again, and the split is rewritten only when the seed, count
    or any scene changed. The same seed gives byte-identical episode files."""
    if episodes < 1:
        raise InvalidArgumentError(f"episodes: expected >= 1, got {episodes}")
    out = Path(out)
    found, missing = available_buildings(models)
    for path in missing:
        log(f"zero-shot: {path} not found; skipping it")
    if not found:
        raise InvalidArgumentError(
            "no real building model found (install Debian's assimp-testmodels): tried "
            + ", ".join(m.file for m in models)
        )
    scenes_dir = out / "scene_datasets"
    manifest_path = out / "manifest.json"
    manifest = _read_manifest(manifest_path)
    scenes, keys = {}, {}
    for model in found:
        keys[model.name] = _scene_key(model)
        scenes[model.name] = _import(model, scenes_dir, manifest, keys[model.name], log)
    split_key = {
        "version": PROTOCOL_VERSION,
        "seed": seed,
        "episodes": episodes,
        "scenes": keys,
    }
    split = out / "pointnav" / SPLIT / f"{SPLIT}.json.gz"
    if manifest.get("split") == split_key and split.is_file():
        by_scene = {m.name: [] for m in found}
        for episode in load_pointnav(split).episodes:
            by_scene[episode.scene_name].append(episode)
        log(f"zero-shot: reusing {split}")
    else:
        by_scene = {}
        for model, share in zip(found, episode_shares(episodes, len(found)), strict=True):
            by_scene[model.name] = _episodes(model, scenes[model.name], share, seed)
        split = write_pointnav(out / "pointnav", SPLIT, by_scene)
        log(f"zero-shot: wrote {sum(map(len, by_scene.values()))} episodes to {split}")
    stats = [_stats(m, scenes[m.name], by_scene[m.name]) for m in found]
    manifest = {
        "scenes": keys,
        "split": split_key,
        "buildings": [dataclasses.asdict(s) for s in stats],
    }
    write_bytes_atomically(manifest_path, json.dumps(manifest, indent=2).encode())
    return RealBuildings(split, scenes_dir, stats, missing)


def _read_manifest(path: Path) -> dict:
    try:
        return json.loads(read_regular_bytes(path, "manifest"))
    except (OSError, ValueError):
        return {}


def _scene_key(model: RealBuilding) -> dict:
    """What an import depends on: the file (size, mtime) and the settings."""
    stat = Path(model.file).stat()
    return {
        "path": model.file,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "up": model.up,
        "scale": model.scale,
    }


def _import(model: RealBuilding, scenes_dir: Path, manifest: dict, key: dict, log):
    """The packed scene of `model`: imported, or the cached one when its key is unchanged."""
    from batchsim.scenes import Scene, import_scene

    packed = scenes_dir / SCENE_FOLDER / f"{model.name}.bsscene"
    if manifest.get("scenes", {}).get(model.name) == key and packed.is_file():
        return Scene.load(packed)
    packed.parent.mkdir(parents=True, exist_ok=True)
    log(f"zero-shot: importing {model.file} -> {packed}")
    return import_scene(model.file, packed, up=model.up, scale=model.scale)


def scene_id(model: RealBuilding) -> str:
    return f"data/scene_datasets/{SCENE_FOLDER}/{model.name}{Path(model.path).suffix}"


ROOF_SLOPE_RISE = 0.5  # an island rising more than this (m) is a roof or a ramp, not a floor


def indoor_islands(navmesh) -> set[int]:
    """The islands that are floors inside the building: not the one reaching the navmesh's
    horizontal bounds (terrain around the building) and not those rising more than
    ROOF_SLOPE_RISE across (sloped roofs). Read off 256 random points per island."""
    lo, hi = (b.astype(float) for b in navmesh.get_bounds())
    indoor = set()
    for island in range(navmesh.num_islands):
        navmesh.seed(island)
        p = navmesh.get_random_navigable_points(256, island_index=island)
        edge = 0.5  # metres from the bounds that count as touching them
        outside = (p[:, [0, 2]].min(0) < lo[[0, 2]] + edge).any() or (
            p[:, [0, 2]].max(0) > hi[[0, 2]] - edge
        ).any()
        if not outside and np.ptp(p[:, 1]) <= ROOF_SLOPE_RISE:
            indoor.add(island)
    return indoor


def _episodes(model: RealBuilding, scene, count: int, seed: int) -> list:
    """`count` Habitat-rule episodes on the building (on indoor islands only if the model
    says so), or as many as it gives: the generator runs over the whole navmesh with
    Habitat's rules, and the first `count` episodes whose start lies on an allowed island
    are kept (renumbered "0", "1", ...), asking for more until enough or none are left."""
    navmesh = scene.navmesh()
    allowed = indoor_islands(navmesh) if model.indoor_only else set(range(navmesh.num_islands))
    asked = count
    while True:
        try:
            generated = generate_episodes(
                navmesh,
                scene_id(model),
                asked,
                seed,
                closest_dist_limit=model.min_geodesic,
                furthest_dist_limit=model.max_geodesic,
            )
        except InvalidArgumentError:
            if asked <= 1:
                raise
            asked //= 2
            continue
        kept = [e for e in generated if navmesh.get_island(e.start_position) in allowed]
        if len(kept) >= count or asked >= count * 64 or not allowed:
            break
        asked = min(count * 64, max(2 * asked, round(1.2 * count * asked / max(len(kept), 1))))
    return [dataclasses.replace(e, episode_id=str(i)) for i, e in enumerate(kept[:count])]


def _stats(model: RealBuilding, scene, episodes: list) -> BuildingStats:
    navmesh = scene.navmesh()
    allowed = indoor_islands(navmesh) if model.indoor_only else range(navmesh.num_islands)
    distances = [e.geodesic_distance for e in episodes]
    return BuildingStats(
        name=model.name,
        source=model.file,
        triangles=scene.triangle_count,
        floors=len(navmesh.floor_heights()),
        navigable_area=round(float(navmesh.navigable_area), 1),
        indoor_area=round(sum(navmesh.island_area(i) for i in allowed), 1),
        islands=navmesh.num_islands,
        episodes=len(episodes),
        mean_geodesic=round(sum(distances) / len(distances), 2) if distances else 0.0,
        geodesic_range=(model.min_geodesic, model.max_geodesic),
    )


def format_buildings(buildings: list[BuildingStats]) -> str:
    """One row per building."""
    header = (
        f"{'building':<12} {'triangles':>9} {'floors':>6} {'walkable m2':>11} {'indoor m2':>9} "
        f"{'islands':>7} {'episodes':>8} {'geodesic m':>11} {'mean m':>6}"
    )
    rows = [header]
    for b in buildings:
        lo, hi = b.geodesic_range
        rows.append(
            f"{b.name:<12} {b.triangles:>9} {b.floors:>6} {b.navigable_area:>11.1f} "
            f"{b.indoor_area:>9.1f} "
            f"{b.islands:>7} {b.episodes:>8} {f'{lo:g}-{hi:g}':>11} {b.mean_geodesic:>6.2f}"
        )
    return "\n".join(rows)
