"""`batchsim import-dataset SRC OUT`: every scene model under SRC into packed scenes under OUT
(same relative layout), in parallel, reusing scenes whose inputs did not change; a table of
what happened to each. Exit status 0 when every scene imported or was reused, 1 when any
failed, 2 for bad arguments."""

from __future__ import annotations

import argparse
import sys

from batchsim.cli.scene_import import add_navmesh_settings, add_texture_options

EPILOG = """\
A Habitat .navmesh beside a model (same stem: Adrian.glb + Adrian.navmesh) is embedded as it
is; other models get one baked with the navmesh settings below. OUT/batchsim-import.json
records each scene's input hash and its input files' sizes and mtimes: a second run reuses
a scene without hashing while these are unchanged (--rehash hashes anyway). Then
load_pointnav(split, scenes_dir=OUT) (or the TrainConfig field scenes_dir=OUT) runs Habitat
episodes on the packed scenes.
Exit status: 0 all scenes imported or reused, 1 some failed, 2 bad arguments."""


def add_command(commands: argparse._SubParsersAction) -> None:
    from batchsim.datasets.import_workers import DEFAULT_MODEL_TIME_LIMIT_S
    from batchsim.datasets.scene_sources import DEFAULT_EXCLUDE

    cmd = commands.add_parser(
        "import-dataset",
        help="import every scene model under a folder (Gibson, MP3D, HM3D, ...) in parallel",
        description="Import every scene model (.glb, .gltf, .obj, .ply, .fbx, .dae, .stl, .ifc)\n"
        "under SRC into OUT/<same relative path>.bsscene, in worker processes.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmd.add_argument("src", metavar="SRC", help="folder of scene models (e.g. data/scene_datasets)")
    cmd.add_argument("out", metavar="OUT", help="folder for the packed scenes and the manifest")
    cmd.add_argument("--workers", type=int, help="worker processes (default: every core)")
    cmd.add_argument(
        "--exclude",
        action="append",
        metavar="GLOB",
        help=f"skip models whose relative path or name matches (repeatable; replaces the "
        f"default {' '.join(DEFAULT_EXCLUDE)})",
    )
    cmd.add_argument("--force", action="store_true", help="import every scene, even if current")
    cmd.add_argument(
        "--rehash",
        action="store_true",
        help="hash every scene's input files, even where their sizes and mtimes are as recorded",
    )
    cmd.add_argument("--quiet", action="store_true", help="no progress bar")
    cmd.add_argument(
        "--model-time-limit",
        type=float,
        default=DEFAULT_MODEL_TIME_LIMIT_S,
        metavar="SECONDS",
        help="stop a model's import after this long and list it as failed, so that one hung "
        f"model cannot stop the run (default {DEFAULT_MODEL_TIME_LIMIT_S:g}; 0: no limit)",
    )
    cmd.add_argument("--up", choices=("y", "z"), default="y", help="the models' up axis")
    cmd.add_argument("--axes", help="explicit axis mapping, e.g. x,z,-y (new x,y,z from old)")
    cmd.add_argument("--scale", type=float, default=1.0, help="multiply positions (to metres)")
    cmd.add_argument("--chunk-triangles", type=int, default=1024, help="triangles per chunk")
    add_texture_options(cmd)
    add_navmesh_settings(cmd)
    cmd.set_defaults(handler=_import_dataset)


def _import_dataset(args: argparse.Namespace) -> int:
    from batchsim.datasets.import_dataset import ImportSettings, import_dataset
    from batchsim.datasets.scene_sources import DEFAULT_EXCLUDE
    from batchsim.scenes import NAVMESH_SETTING_NAMES

    overrides = {n: getattr(args, n) for n in NAVMESH_SETTING_NAMES if getattr(args, n) is not None}
    settings = ImportSettings(
        up=args.up,
        axes=args.axes,
        scale=args.scale,
        chunk_triangles=args.chunk_triangles,
        texture_budget_mib=args.texture_budget_mib,
        texture_format=args.texture_format,
        compress=args.compress,
        navmesh=overrides,
    )
    results = import_dataset(
        args.src,
        args.out,
        workers=args.workers,
        settings=settings,
        exclude=DEFAULT_EXCLUDE if args.exclude is None else args.exclude,
        force=args.force,
        rehash=args.rehash,
        show_progress=not args.quiet,
        model_time_limit_s=args.model_time_limit or None,
    )
    print(format_table(results))
    failed = sum(r.status == "failed" for r in results)
    print(_totals(results, args.out), file=sys.stderr if failed else sys.stdout)
    return 1 if failed else 0


HEADER = ("scene", "status", "navmesh", "triangles", "textures", "MB", "seconds", "reason")


def format_table(results) -> str:
    """One row per scene, columns aligned; a failed scene's reason in the last column."""
    rows = [HEADER] + [_row(r) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER) - 1)]
    lines = []
    for row in rows:
        cells = [
            cell.ljust(width) if i < 3 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row[:-1], widths, strict=True))
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)


def _row(result) -> tuple[str, ...]:
    failed = result.status == "failed"
    numbers = (
        ("", "", "")
        if failed
        else (
            f"{result.triangles:,}",
            str(result.textures),
            f"{result.file_bytes / 1e6:.2f}",
        )
    )
    return (
        result.scene,
        result.status,
        "" if failed else result.navmesh,
        *numbers,
        f"{result.seconds:.2f}",
        result.error,
    )


def _totals(results, out: str) -> str:
    counts = {s: sum(r.status == s for r in results) for s in ("imported", "reused", "failed")}
    summary = ", ".join(f"{n} {status}" for status, n in counts.items())
    return f"{len(results)} scenes: {summary}; packed scenes and manifest in {out}"
