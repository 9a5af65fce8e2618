"""Scene assets and navigation: import time, packed-scene load rate, navmesh query rates.

- import: `batchsim.import_scene` (Assimp, textures, meshoptimizer chunks, Recast bake,
  packed write) of real models from Debian's assimp-testmodels and of a synthetic
  64-room apartment (walls with doorways, finely tessellated floors).
- load: `batchsim.Scene.load` of the largest packed file written (read, validate,
  checksum), as MB/s of the scene once loaded, from the page cache: compressed (the
  default, format 5: read, then inflate) and imported again uncompressed (format 4).
- queries: geodesic_distance and try_step on the apartment navmesh, per second on one core
  (the batched calls run one query after another on one thread, without the GIL).

Medians of --repeats runs, with their spread ([min, max]: `spread_s` of the times,
`spread` of the query rates). Prints JSON and, with --out, writes it atomically.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
from pathlib import Path

import numpy as np

import batchsim
from batchsim.bench import report

REAL_MODELS = {  # name: (path under assimp-testmodels' folder, bake a navmesh?)
    "spider.obj": ("OBJ/spider.obj", True),
    "2CylinderEngine.glb": ("glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb", False),
    "duck.dae": ("Collada/duck.dae", False),
}


def apartment_obj(path: Path, rooms: int = 8, room_size: float = 4.0, tile: float = 0.25) -> None:
    """Writes a rooms x rooms grid of rooms: floor tiles plus walls with 1 m doorways."""
    vertices, faces = [], []

    def quad(corners):
        base = len(vertices) + 1
        vertices.extend(corners)
        faces.append((base, base + 2, base + 1))
        faces.append((base, base + 3, base + 2))

    def box(x0, z0, x1, z1, height=2.5):
        lo, hi = (x0, 0.0, z0), (x1, height, z1)
        c = [
            (hi[0] if i & 1 else lo[0], hi[1] if i & 2 else lo[1], hi[2] if i & 4 else lo[2])
            for i in range(8)
        ]
        for a, b, d, e in (
            (0, 4, 6, 2),
            (1, 3, 7, 5),
            (0, 1, 5, 4),
            (2, 6, 7, 3),
            (0, 2, 3, 1),
            (4, 5, 7, 6),
        ):
            quad([c[a], c[b], c[d], c[e]])

    extent = rooms * room_size
    steps = int(extent / tile)
    for i in range(steps):
        for j in range(steps):
            x, z = i * tile, j * tile
            quad([(x, 0, z), (x + tile, 0, z), (x + tile, 0, z + tile), (x, 0, z + tile)])
    half_door, t = 0.5, 0.05
    for k in range(rooms + 1):
        for r in range(rooms):
            a, mid = r * room_size, r * room_size + room_size / 2
            inner = 0 < k < rooms  # interior walls get a doorway in the middle of each room
            for w0, w1 in (
                ((a, mid - half_door), (mid + half_door, a + room_size))
                if inner
                else ((a, a + room_size),)
            ):
                box(k * room_size - t, w0, k * room_size + t, w1)  # wall along z
                box(w0, k * room_size - t, w1, k * room_size + t)  # wall along x
    with open(path, "w") as f:
        f.writelines(f"v {x:.4f} {y:.4f} {z:.4f}\n" for x, y, z in vertices)
        f.writelines(f"f {a} {b} {c}\n" for a, b, c in faces)


def model_paths(models: Path, apartment: Path) -> dict[str, tuple[Path, bool]]:
    """Every model imported: name -> (path, bake a navmesh?)."""
    real = {name: (models / path, bake) for name, (path, bake) in REAL_MODELS.items()}
    return {**real, "apartment.obj": (apartment, True)}


def bench_imports(workdir: Path, models: Path, apartment: Path, repeats: int) -> dict:
    out = {}
    for name, (path, bake) in model_paths(models, apartment).items():
        if not path.exists():
            continue
        target = workdir / (name + ".bsscene")
        seconds = report.times(
            lambda p=path, b=bake, t=target: batchsim.import_scene(p, t, bake_navmesh=b), repeats
        )
        scene = batchsim.Scene.load(target)
        out[name] = {
            "seconds": statistics.median(seconds),
            "spread_s": report.spread(seconds),
            "triangles": scene.triangle_count,
            "navmesh": bake,
        }
    return out


def bench_load(path: Path, repeats: int) -> dict:
    scene = batchsim.Scene.load(path)
    samples = report.times(lambda: batchsim.Scene.load(path), max(repeats, 20))
    seconds = statistics.median(samples)
    return {
        "format_version": scene.format_version,
        "file_mb": scene.file_bytes / 1e6,
        "loaded_mb": scene.loaded_bytes / 1e6,
        "seconds": seconds,
        "spread_s": report.spread(samples),
        "mb_per_s": scene.loaded_bytes / 1e6 / seconds,
    }


def bench_loads(workdir: Path, models: Path, apartment: Path, repeats: int) -> dict:
    """Loads of the largest scene written, compressed and imported again uncompressed."""
    largest = max(workdir.glob("*.bsscene"), key=lambda f: batchsim.Scene.load(f).loaded_bytes)
    path, bake = model_paths(models, apartment)[largest.name.removesuffix(".bsscene")]
    plain = workdir / "uncompressed.bsscene"
    batchsim.import_scene(path, plain, bake_navmesh=bake, compress=False)
    return {
        "file": largest.name,
        "compressed": bench_load(largest, repeats),
        "uncompressed": bench_load(plain, repeats),
    }


def bench_queries(navmesh, count: int, repeats: int) -> dict:
    navmesh.seed(0)
    starts = navmesh.get_random_navigable_points(count)
    ends = navmesh.get_random_navigable_points(count)
    angles = np.random.default_rng(0).uniform(0, 2 * np.pi, count)
    steps = starts + 0.25 * np.stack([np.cos(angles), np.zeros(count), np.sin(angles)], 1).astype(
        np.float32
    )
    seconds = {
        name: report.times(run, repeats)
        for name, run in (
            ("geodesic_per_s", lambda: navmesh.geodesic_distances(starts, ends)),
            ("try_step_per_s", lambda: navmesh.try_steps(starts, steps)),
            (
                "try_step_no_sliding_per_s",
                lambda: navmesh.try_steps(starts, steps, allow_sliding=False),
            ),
        )
    }
    distances = navmesh.geodesic_distances(starts, ends)
    return {
        "pairs": count,
        "reachable_fraction": float(np.isfinite(distances).mean()),
        "mean_geodesic_m": float(distances[np.isfinite(distances)].mean()),
        **{name: count / statistics.median(s) for name, s in seconds.items()},
        "spread": {name: report.spread([count / x for x in s]) for name, s in seconds.items()},
    }


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queries", type=int, default=20000)
    parser.add_argument("--out", help="also write the JSON here")
    parser.add_argument(
        "--models", type=Path, default=Path("/usr/share/assimp/models"), help="assimp-testmodels"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        apartment = workdir / "apartment.obj"
        apartment_obj(apartment)
        imports = bench_imports(workdir, args.models, apartment, args.repeats)
        packed = workdir / "apartment.obj.bsscene"
        result = {
            "benchmark": "assets",
            **report.header(args),
            "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "repeats": args.repeats,
            "import": imports,
            "load": bench_loads(workdir, args.models, apartment, args.repeats),
            "queries": bench_queries(
                batchsim.Scene.load(packed).navmesh(), args.queries, args.repeats
            ),
        }
    report.emit(result, args.out)
    return 0
