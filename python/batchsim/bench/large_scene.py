"""Large scenes: a multi-storey building of 2M triangles and 300 MB of textures (decoded
RGBA8, level 0) through import, load, render and the resident slots.

  generate  the building GLB (bench/building.py: storeys of rooms with finely tessellated
            floors, 200 textures of 15 sizes from 256 to 2048 texels, PNG and JPEG, one
            material each), deterministic from --seed; its time is reported on its own.
  import    `batchsim.import_scene` with the navmesh bake (the figure includes it); the
            same import without the bake; and the bake alone (`NavMesh.bake` of the imported
            triangles). The packed file's size, its texture bytes (stored mip chains:
            `Scene.texture_bytes` where the build has it, else RGBA8 chains from each
            `Scene.texture(i)`) and level-0 sizes as imported (a texture budget may have
            dropped top levels), chunks, BVH and navmesh.
  load      `Scene.load` (read, inflate, validate, checksum, BVH checks) from the page
            cache, as MB/s of the scene once loaded (`Scene.loaded_bytes`).
  render    frames/s of depth + RGB views at K = 1 and 16 resident copies, for each backend,
            with the device bytes of one scene (`BatchRenderer.scene_bytes`) and the upload
            time of each place (bench/large_scene_gpu.py).
  slots     the cost of bringing one scene into a resident slot, next to that of a
            procedural scene (the figures of today's benchmarks): load + navmesh, GPU
            upload, and a Simulator swapping scenes with its background loader; as seconds
            and seconds per MB, with the ratios (large over procedural per MB; 1 means the
            cost scales with size).

--texture-format (rgba8 or bc1), --texture-budget-mib (default: import_scene's) and
--no-compress go to `import_scene`; the import's texture bytes show their effect. Not
measured, for want of an API: the background loader alone (it is internal to the
simulator, so its loads are seen through `Simulator.stats()` and step times) and the GPU
upload inside a swap step apart from the step's other work.

Medians of repeats with their spread ([min, max]). Prints JSON and, with --out, writes
it atomically. The files live in a temporary folder unless --workdir keeps them.

    batchsim bench large-scene --out large_scene.json
    batchsim bench large-scene --triangles 50000 --textures 20 --texture-mb 8 \
        --envs 16 --swap-envs 8 --steps-per-scene 20   # tiny: ~15 s on 2 CPU cores (lavapipe)
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import batchsim
from batchsim._progress import progress_bar
from batchsim.bench import building, building_textures, report
from batchsim.bench import large_scene_gpu as gpu

MB = 1e6


def texture_options(args) -> dict:
    """The texture keywords for import_scene: the format, and the budget when given."""
    options = {"texture_format": args.texture_format}
    if args.texture_budget_mib is not None:
        options["texture_budget_mib"] = args.texture_budget_mib
    return options


def texture_bytes(scene) -> dict:
    """The stored texture bytes (mip chains), formats and level-0 sizes after import."""
    textures = [scene.texture(i) for i in range(scene.texture_count)]
    formats: dict[str, int] = {}
    for t in textures:
        formats[t["format"]] = formats.get(t["format"], 0) + 1
    sizes = [(t["width"], t["height"]) for t in textures]
    return {
        "texture_bytes": scene.texture_bytes,
        "texture_level0_rgba8_bytes": sum(w * h * 4 for w, h in sizes),
        "texture_sizes": building.size_histogram(sizes),
        "texture_formats": formats,
    }


def generate(path: Path, args) -> dict:
    bar = progress_bar(total=args.textures, desc="textures", unit="texture")
    start = time.perf_counter()
    stats = building.write_building(
        path, args.triangles, args.textures, args.texture_mb, seed=args.seed,
        floors=args.floors, rooms=args.rooms, image_format=args.image_format,
        progress=lambda _: bar.update(1),
    )  # fmt: skip
    bar.close()
    return {"generate_s": time.perf_counter() - start, **stats}


def bench_import(glb: Path, out: Path, args) -> tuple[dict, batchsim.Scene]:
    options = {**texture_options(args), "compress": args.compress}
    no_bake = out.with_name("no-bake.bsscene")

    def run(bake: bool, target: Path) -> None:
        batchsim.import_scene(glb, target, bake_navmesh=bake, **options)  # the Scene goes

    with_bake = report.times(lambda: run(True, out), args.repeats)
    without = report.times(lambda: run(False, no_bake), args.repeats)
    no_bake.unlink()
    scene = batchsim.Scene.load(out)
    positions, indices = scene.positions(), scene.indices()
    bake = report.times(lambda: batchsim.NavMesh.bake(positions, indices), args.repeats)
    navmesh = scene.navmesh()
    result = {
        **gpu.figure(with_bake),
        "no_bake": gpu.figure(without),
        "bake": gpu.figure(bake),
        "texture_options": texture_options(args),
        "compress": args.compress,
        "file_bytes": out.stat().st_size,
        "triangles": scene.triangle_count,
        "vertices": scene.vertex_count,
        "textures": scene.texture_count,
        **texture_bytes(scene),
        "chunks": scene.chunk_count,
        "bvh_nodes": scene.bvh_node_count,
        "bvh_depth": scene.bvh_depth,
        "navmesh": {
            "islands": navmesh.num_islands,
            "navigable_area_m2": navmesh.navigable_area,
            "floor_heights": [round(y, 3) for y in navmesh.floor_heights()],
        },
    }
    return result, scene


def bench_load(path: Path, repeats: int) -> dict:
    samples = report.times(lambda: batchsim.Scene.load(path), repeats)
    scene = batchsim.Scene.load(path)
    loaded = scene.loaded_bytes / MB
    return {
        "file_mb": scene.file_bytes / MB,
        "loaded_mb": loaded,
        "format_version": scene.format_version,
        **gpu.figure(samples),
        "mb_per_s": loaded / statistics.median(samples),
    }


def procedural_scene(workdir: Path, args) -> tuple[Path, dict]:
    """One procedural apartment as the benchmarks use (GLB + packed scene with navmesh)."""
    from batchsim.procgen import build_scene_files

    start = time.perf_counter()
    stats = build_scene_files(
        args.seed, workdir, "procedural", "apartment", args.procedural_triangles
    )
    return workdir / "procedural.bsscene", {"seconds": time.perf_counter() - start, **stats}


def run(args, workdir: Path) -> dict:
    glb, packed = workdir / "building.glb", workdir / "building.bsscene"
    print(f"generating {args.triangles:,} triangles, {args.textures} textures", file=sys.stderr)
    scene_stats = generate(glb, args)
    print(f"importing {glb.stat().st_size / MB:,.0f} MB", file=sys.stderr)
    imported, scene = bench_import(glb, packed, args)
    load = bench_load(packed, args.load_repeats)
    context = batchsim.Context(device=args.device)
    renders = [
        gpu.measure_render(context, scene, views, k, backend, args)
        for backend in args.backends
        for k in args.resident
        for views in args.envs
    ]
    procedural, procedural_stats = procedural_scene(workdir, args)
    slots = gpu.measure_slots(context, packed, procedural, args)
    slots["procedural"]["scene"] = {
        k: procedural_stats[k] for k in ("seconds", "triangles", "rooms") if k in procedural_stats
    }
    return {
        "benchmark": "large-scene",
        **report.header(args, context),
        "device": context.device_info,
        "export": "cuda" if context.exports_cuda else "cpu",
        "scene": scene_stats,
        "import": imported,
        "load": load,
        "render": renders,
        "slots": slots,
    }


def check_finite(record) -> None:
    """No NaN or infinity anywhere in the record (json would write them as bare words)."""
    values = record.values() if isinstance(record, dict) else record
    for value in values:
        if isinstance(value, (dict, list)):
            check_finite(value)
        elif isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"non-finite figure in the record: {value}")


def parse_args(argv: list[str] | None, prog: str | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add = parser.add_argument
    add("--triangles", type=int, default=2_000_000)
    add("--textures", type=int, default=200, help="textures, one material each")
    add("--texture-mb", type=float, default=300.0, help="decoded RGBA8 level-0 MB (1e6 B)")
    add("--floors", type=int, default=3)
    add("--rooms", type=int, default=4, help="rooms per side of a storey (5 m each)")
    add("--image-format", choices=building_textures.IMAGE_FORMATS, default="auto",
        help="auto: PNG and JPEG where Pillow is installed, else PNG")  # fmt: skip
    add("--texture-budget-mib", type=float, help="import_scene's texture budget (default: its)")
    add("--texture-format", choices=batchsim.scenes.TEXTURE_FORMATS, default="rgba8")
    add("--no-compress", dest="compress", action="store_false", help="import_scene's compress")
    add("--backends", nargs="+", choices=["raster", "compute"], default=["raster", "compute"])
    add("--resident", type=int, nargs="+", default=[1, 16], help="K resident copies")
    add("--envs", type=int, nargs="+", default=[1024], help="views rendered together (N)")
    add("--resolution", type=int, default=64)
    add("--steps", type=int, default=10, help="renders per timed run")
    add("--runs", type=int, default=3)
    add("--warmup", type=int, default=2)
    add("--repeats", type=int, default=3, help="imports and bakes")
    add("--load-repeats", type=int, default=10)
    add("--procedural-triangles", type=int, default=150_000)
    add("--swap-backend", choices=["auto", "raster", "compute"], default="auto")
    add("--swap-envs", type=int, default=64)
    add("--swap-episodes", type=int, default=20, help="episodes per scene of the swap run")
    add("--swap-episode-steps", type=int, default=10, help="max_episode_steps of the swap run")
    add(
        "--steps-per-scene",
        type=int,
        help="swap run: a slot's steps per scene (default: SimConfig's)",
    )
    add("--loader-mib-per-s", type=float, help="swap run: loader read cap (default: SimConfig's)")
    add("--swaps", type=int, default=3)
    add("--threads", type=int, default=4, help="simulator threads of the swap run")
    add("--seed", type=int, default=0)
    add("--device", default="", help="batchsim.Context device selector")
    add("--workdir", type=Path, help="keep the files here (default: a temporary folder)")
    add("--out", help="also write the JSON here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    args = parse_args(argv, prog)
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        record = run(args, args.workdir)
    else:
        with tempfile.TemporaryDirectory(prefix="batchsim-large-scene-") as tmp:
            record = run(args, Path(tmp))
    check_finite(record)
    report.emit(record, args.out)
    return 0
