"""`batchsim procgen`: procedural scenes and PointNav-v1 episodes in Habitat's layout
(batchsim.procgen.build generates them)."""

from __future__ import annotations

import argparse
import os


def add_command(commands: argparse._SubParsersAction) -> None:
    from batchsim.cli.scene_import import add_compress_option
    from batchsim.procgen.build import DatasetConfig
    from batchsim.scenes import TEXTURE_FORMATS

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
    cmd.add_argument(
        "--outdoor-episode-share",
        type=float,
        default=defaults.outdoor_episode_share,
        help="share of episodes starting or ending in the garden (default %(default)s)",
    )
    cmd.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes generating scenes (default: one per core); the files are the same",
    )
    cmd.add_argument(
        "--no-glb",
        dest="write_glb",
        action="store_false",
        help="keep only the packed scenes (batchsim needs nothing else; Habitat needs the GLBs, "
        "about 6 MB each, which the same seed writes again)",
    )
    add_compress_option(cmd)
    cmd.add_argument(
        "--texture-format",
        choices=TEXTURE_FORMATS,
        default=defaults.texture_format,
        help="how packed scenes store textures: rgba8, or bc1 (block-compressed, lossy)",
    )
    cmd.add_argument("--out", default="data/procgen", help="output folder (default data/procgen)")
    cmd.add_argument("--preview", action="store_true", help="also write OUT/preview.png")
    cmd.add_argument(
        "--force", action="store_true", help="regenerate even if OUT holds this dataset already"
    )
    cmd.set_defaults(handler=_procgen)


def _procgen(args: argparse.Namespace) -> int:
    from batchsim.procgen.build import DatasetConfig, build_dataset_timed, current_manifest
    from batchsim.procgen.preview import write_preview

    config = DatasetConfig(
        num_scenes=args.num_scenes,
        seed=args.seed,
        episodes_per_scene=args.episodes_per_scene,
        triangle_budget=args.triangle_budget,
        min_geodesic=args.min_geodesic,
        max_geodesic=args.max_geodesic,
        outdoor_episode_share=args.outdoor_episode_share,
        compress=args.compress,
        write_glb=args.write_glb,
        texture_format=args.texture_format,
    )
    manifest = None if args.force else current_manifest(args.out, config)
    if manifest is None:
        manifest, timings = build_dataset_timed(args.out, config, args.workers)
        how = f"generated in {timings['seconds']:.1f} s"
    else:
        how = "generated before; --force regenerates"
    scenes = manifest["scenes"].values()
    splits = ", ".join(f"{k} {len(manifest['splits'][k])}" for k in ("train", "val", "test"))
    print(
        f"wrote {len(scenes)} scenes and {sum(s['episodes'] for s in scenes)} episodes to "
        f"{args.out} ({how}) (splits: {splits})"
    )
    if args.preview:
        preview = os.path.join(args.out, "preview.png")
        write_preview(args.out, preview)
        print(f"preview: {preview}")
    return 0
