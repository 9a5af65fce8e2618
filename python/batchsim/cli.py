"""The `batchsim` command line. Subcommands arrive with the subsystems they drive."""

from __future__ import annotations

import argparse
import os
import sys


def _doctor(args: argparse.Namespace) -> int:
    from batchsim.doctor import run_doctor

    return run_doctor(self_test=not args.no_self_test)


def _import(args: argparse.Namespace) -> int:
    import time

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
    )
    s = summarize(scene, args.out)
    if args.topdown and scene.has_navmesh:
        from batchsim.viz import topdown_image, write_png

        write_png(args.topdown, topdown_image(scene.navmesh()))
        print(f"top-down navmesh map: {args.topdown}")
    print(
        f"wrote {s.path}: {s.triangles} triangles, {s.vertices} vertices, {s.textures} textures, "
        f"navmesh {s.islands} islands / {s.navigable_area:.1f} m², {s.file_bytes / 1e6:.2f} MB "
        f"in {time.perf_counter() - started:.2f} s"
    )
    return 0


def _add_import(commands: argparse._SubParsersAction) -> None:
    from batchsim.scenes import NAVMESH_SETTING_NAMES

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
    cmd.add_argument("--topdown", metavar="PNG", help="also draw the navmesh's top-down map")
    navmesh = cmd.add_mutually_exclusive_group()
    navmesh.add_argument("--navmesh", help="embed this Habitat .navmesh instead of baking")
    navmesh.add_argument("--no-navmesh", action="store_true", help="write no navmesh")
    defaults = _core_settings()
    for name in NAVMESH_SETTING_NAMES:
        default = getattr(defaults, name)
        kind = _parse_bool if isinstance(default, bool) else type(default)
        cmd.add_argument(
            "--" + name.replace("_", "-"), type=kind, help=f"navmesh setting (default {default})"
        )
    cmd.set_defaults(handler=_import)


def _core_settings():
    from batchsim.scenes import NavMeshSettings

    return NavMeshSettings()


def _parse_bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _procgen(args: argparse.Namespace) -> int:
    from batchsim.procgen.build import DatasetConfig, build_dataset, ensure_dataset
    from batchsim.procgen.preview import write_preview

    config = DatasetConfig(
        num_scenes=args.num_scenes,
        seed=args.seed,
        episodes_per_scene=args.episodes_per_scene,
        triangle_budget=args.triangle_budget,
        min_geodesic=args.min_geodesic,
        max_geodesic=args.max_geodesic,
    )
    manifest = (build_dataset if args.force else ensure_dataset)(args.out, config)
    scenes = manifest["scenes"].values()
    splits = ", ".join(f"{k} {len(manifest['splits'][k])}" for k in ("train", "val", "test"))
    print(
        f"wrote {len(scenes)} scenes and {sum(s['episodes'] for s in scenes)} episodes to "
        f"{args.out} (generated in {manifest['seconds']:.1f} s) "
        f"(splits: {splits})"
    )
    if args.preview:
        preview = os.path.join(args.out, "preview.png")
        write_preview(args.out, preview)
        print(f"preview: {preview}")
    return 0


def _add_procgen(commands: argparse._SubParsersAction) -> None:
    from batchsim.procgen.build import DatasetConfig

    defaults = DatasetConfig()
    cmd = commands.add_parser(
        "procgen",
        help="generate procedural indoor scenes and PointNav-v1 episodes (Habitat layout)",
        description="Generate apartment- and office-like scenes (GLB + packed scene with "
        "navmesh) and PointNav-v1 episodes in Habitat's json.gz layout.",
    )
    cmd.add_argument("--num-scenes", type=int, default=defaults.num_scenes)
    cmd.add_argument("--seed", type=int, default=defaults.seed)
    cmd.add_argument("--episodes-per-scene", type=int, default=defaults.episodes_per_scene)
    cmd.add_argument("--triangle-budget", type=int, default=defaults.triangle_budget)
    cmd.add_argument(
        "--min-geodesic", type=float, default=defaults.min_geodesic, help="episode metres"
    )
    cmd.add_argument(
        "--max-geodesic", type=float, default=defaults.max_geodesic, help="episode metres"
    )
    cmd.add_argument("--out", default="data/procgen", help="output folder (default data/procgen)")
    cmd.add_argument("--preview", action="store_true", help="also write OUT/preview.png")
    cmd.add_argument(
        "--force", action="store_true", help="regenerate even if OUT holds this dataset already"
    )
    cmd.set_defaults(handler=_procgen)


def _train(args: argparse.Namespace) -> int:
    from batchsim.train.config import make_config
    from batchsim.train.run import train

    try:
        config = make_config(args.preset, args.config, args.overrides)
    except ValueError as error:
        print(f"batchsim train: error: {error}", file=sys.stderr)
        return 2
    from batchsim.train import distributed

    trainer = train(config, show_progress=not args.quiet, resume=args.resume)
    if trainer.rank == 0:
        metrics = trainer.episode_metrics()
        print(
            f"trained {trainer.frames:,} frames in {trainer.updates} updates; "
            f"last {metrics['episodes']} episodes: "
            + (
                f"success {metrics['success']:.3f}, SPL {metrics['spl']:.3f}"
                if metrics["episodes"]
                else "none finished"
            )
        )
        print(f"logs and checkpoint: {config.log_dir}")
    trainer.close()
    distributed.shutdown()
    return 0


def _add_train(commands: argparse._SubParsersAction) -> None:
    from batchsim.train.config import PRESETS

    cmd = commands.add_parser(
        "train",
        help="train a PointNav policy with large-batch PPO",
        description="Large-batch PPO on batchsim environments. A preset, then --config "
        "(JSON), then KEY=VALUE overrides of TrainConfig fields.",
    )
    cmd.add_argument("--preset", default="pointnav-depth", choices=sorted(PRESETS))
    cmd.add_argument("--config", help="a JSON file of TrainConfig fields")
    cmd.add_argument("--quiet", action="store_true", help="no progress bar")
    cmd.add_argument(
        "--resume", action="store_true", help="continue from LOG_DIR/checkpoint.pt if present"
    )
    cmd.add_argument("overrides", nargs="*", metavar="KEY=VALUE")
    cmd.set_defaults(handler=_train)


def _bench(args: argparse.Namespace) -> int:
    from batchsim.bench import run

    try:
        return run(args.name, args.args)
    except ImportError as error:  # an optional dependency (torch, matplotlib) is missing
        print(f"batchsim bench {args.name}: error: {error}", file=sys.stderr)
        return 2


BENCH_DESCRIPTION = """\
Run one benchmark. Each prints one JSON record: machine, GPU, driver, versions, date,
command line, configuration, and its figures as medians with min and max over runs.
--out FILE also saves it; sim, render and env take --plot PNG (frames/s against N).
The arguments after NAME go to the benchmark: `batchsim bench NAME --help` lists them."""


def _add_bench(commands: argparse._SubParsersAction) -> None:
    from batchsim.bench import BENCHMARKS

    width = max(map(len, BENCHMARKS))
    listing = "\n".join(f"  {name:<{width}}  {line}" for name, line in BENCHMARKS.items())
    cmd = commands.add_parser(
        "bench",
        help="run a benchmark: JSON record (machine, versions, device, medians and spread)",
        description=BENCH_DESCRIPTION,
        epilog=f"benchmarks:\n{listing}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmd.add_argument("name", choices=list(BENCHMARKS), metavar="NAME", help="benchmark to run")
    cmd.add_argument("args", nargs=argparse.REMAINDER, help="the benchmark's own arguments")
    cmd.set_defaults(handler=_bench)


def build_parser() -> argparse.ArgumentParser:
    from batchsim.train.eval_command import add_eval_command
    from batchsim.train.video import add_video_command

    parser = argparse.ArgumentParser(prog="batchsim", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_eval_command(commands)
    add_video_command(commands)
    doctor = commands.add_parser(
        "doctor", help="check Vulkan, CUDA and zero-copy export on this machine"
    )
    doctor.add_argument(
        "--no-self-test", action="store_true", help="only list devices, run no GPU work"
    )
    doctor.set_defaults(handler=_doctor)
    _add_import(commands)
    _add_procgen(commands)
    _add_train(commands)
    _add_bench(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from batchsim.errors import Error

    try:
        return args.handler(args)
    except (Error, OSError) as error:  # a clear message, not a traceback, for bad input
        print(f"batchsim {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
