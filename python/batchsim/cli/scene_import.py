"""`batchsim import`: a model (glTF/GLB, OBJ, PLY, FBX, ... via Assimp) into a packed scene
with its navmesh, each NavMeshSettings field an option."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np


def add_command(commands: argparse._SubParsersAction) -> None:
    cmd = commands.add_parser(
        "import",
        help="import a model (glTF/GLB, OBJ, PLY, FBX, ... via Assimp) into a packed scene",
        description="Import a model into a packed scene file with its navmesh (baked with "
        "Habitat's NavMeshSettings unless --navmesh gives a Habitat .navmesh).",
    )
    cmd.add_argument("source", help="model file")
    cmd.add_argument("out", help="packed scene file to write (atomically)")
    cmd.add_argument("--up", choices=("y", "z"), default="y", help="the model's up axis")
    cmd.add_argument("--axes", help="explicit axis mapping, e.g. x,z,-y (new x,y,z from old)")
    cmd.add_argument("--scale", type=float, default=1.0, help="multiply positions (to metres)")
    cmd.add_argument("--chunk-triangles", type=int, default=1024, help="triangles per chunk")
    add_texture_options(cmd)
    cmd.add_argument(
        "--topdown",
        metavar="PNG",
        help="also draw the navmesh's top-down map; one per floor (PNG_floor<k>) for storeys",
    )
    navmesh = cmd.add_mutually_exclusive_group()
    navmesh.add_argument("--navmesh", help="embed this Habitat .navmesh instead of baking")
    navmesh.add_argument("--no-navmesh", action="store_true", help="write no navmesh")
    add_navmesh_settings(cmd)
    cmd.set_defaults(handler=_import)


def add_texture_options(cmd: argparse.ArgumentParser) -> None:
    """--texture-budget-mib, --texture-format and --no-compress (import, import-dataset)."""
    from batchsim.scenes import DEFAULT_TEXTURE_BUDGET_MIB, TEXTURE_FORMATS

    cmd.add_argument(
        "--texture-budget-mib",
        type=float,
        default=DEFAULT_TEXTURE_BUDGET_MIB,
        help="most MiB of texture mip chains per scene; the largest textures lose top mip "
        f"levels to fit (default {DEFAULT_TEXTURE_BUDGET_MIB:g})",
    )
    cmd.add_argument(
        "--texture-format",
        choices=TEXTURE_FORMATS,
        default="rgba8",
        help="how textures are stored: rgba8, or bc1 (block-compressed, 1/8 of the bytes)",
    )
    add_compress_option(cmd)


def add_compress_option(cmd: argparse.ArgumentParser) -> None:
    """--no-compress (import, import-dataset, procgen)."""
    cmd.add_argument(
        "--no-compress",
        dest="compress",
        action="store_false",
        help="write packed scenes uncompressed (format 4: about 5x the bytes, faster loads "
        "from the page cache, readable by batchsim builds from before compression)",
    )


def _write_floor_maps(navmesh, path: Path) -> None:
    """One top-down map per floor: PATH for a single floor, else PATH_floor<k> (k from 0,
    lowest first)."""
    from batchsim.viz import floor_maps, write_png

    maps = floor_maps(navmesh)
    for k, (height, image) in enumerate(maps):
        out = path if len(maps) == 1 else path.with_name(f"{path.stem}_floor{k}{path.suffix}")
        write_png(out, image)
        print(f"top-down navmesh map of the floor at y = {height:.2f} m: {out}")


def add_navmesh_settings(cmd: argparse.ArgumentParser) -> None:
    """One option per NavMeshSettings field, typed like its default; unset means default."""
    from batchsim.scenes import NAVMESH_SETTING_NAMES, NavMeshSettings

    defaults = NavMeshSettings()
    for name in NAVMESH_SETTING_NAMES:
        default = getattr(defaults, name)
        kind = _parse_bool if isinstance(default, bool) else type(default)
        cmd.add_argument(
            "--" + name.replace("_", "-"),
            type=kind,
            help=f"navmesh setting (default {_shortest(default)})",
        )


def _shortest(value: object) -> object:
    """A float32 default as its shortest float32 spelling (0.05, not 0.05000000074505806)."""
    if isinstance(value, float):
        return float(np.format_float_positional(np.float32(value), trim="-"))
    return value


def _parse_bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _import(args: argparse.Namespace) -> int:
    from batchsim.scenes import NAVMESH_SETTING_NAMES, import_scene, navmesh_settings, summarize

    overrides = {
        name: getattr(args, name)
        for name in NAVMESH_SETTING_NAMES
        if getattr(args, name) is not None
    }
    print(f"batchsim import: {args.source} -> {args.out}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    scene = import_scene(
        args.source,
        args.out,
        up=args.up,
        axes=args.axes,
        scale=args.scale,
        navmesh=args.navmesh,
        bake_navmesh=not args.no_navmesh,
        settings=navmesh_settings(**overrides),
        chunk_triangles=args.chunk_triangles,
        texture_budget_mib=args.texture_budget_mib,
        texture_format=args.texture_format,
        compress=args.compress,
    )
    s = summarize(scene, args.out)
    if args.topdown and scene.has_navmesh:
        _write_floor_maps(scene.navmesh(), Path(args.topdown))
    print(
        f"wrote {s.path}: {s.triangles} triangles, {s.vertices} vertices, {s.textures} textures "
        f"({s.texture_bytes / 2**20:.1f} MiB, {args.texture_format}), "
        f"navmesh {s.islands} islands / {s.navigable_area:.1f} m², {s.file_bytes / 1e6:.2f} MB "
        f"({s.loaded_bytes / 1e6:.2f} MB loaded) in {time.perf_counter() - started:.2f} s"
    )
    return 0
