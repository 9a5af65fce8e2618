"""`batchsim train`: large-batch PPO from a preset, a JSON config and KEY=VALUE overrides
(batchsim.train.run drives the Trainer, logs and checkpoints), on every GPU of the machine by
default: one process per GPU through torch.distributed.run (batchsim.train.launch), unless
torchrun or Slurm started this process as one rank. SIGINT or SIGTERM stops it after the
current update with a checkpoint and the command that resumes; a second one ends it at
once."""

from __future__ import annotations

import argparse
import os
import shlex
import sys


def add_command(commands: argparse._SubParsersAction) -> None:
    from batchsim.cli._common import number_in
    from batchsim.train.presets import PRESETS

    cmd = commands.add_parser(
        "train",
        help="train a PointNav policy with large-batch PPO",
        description="Large-batch PPO on batchsim environments. A preset, then --config "
        "(JSON), then KEY=VALUE overrides of TrainConfig fields, or of its simulator settings by "
        "dotted path (sim.num_envs=256, sim.task.forward_noise=0.02, render.rgb=true).",
    )
    cmd.add_argument("--preset", default="pointnav-depth", choices=sorted(PRESETS))
    cmd.add_argument("--config", help="a JSON file of TrainConfig fields")
    cmd.add_argument("--quiet", action="store_true", help="no progress bar")
    cmd.add_argument(
        "--gpus",
        type=number_in(0),
        metavar="N",
        help="train on N GPUs, one process each (sets num_gpus; default: every visible GPU)",
    )
    resume = cmd.add_mutually_exclusive_group()
    resume.add_argument(
        "--resume",
        action="store_true",
        help="continue from LOG_DIR/checkpoint.pt; an error if there is none (a mistyped "
        "log_dir must not start a new run)",
    )
    resume.add_argument(
        "--resume-or-start",
        action="store_true",
        help="continue from LOG_DIR/checkpoint.pt if there is one, else start a new run (for "
        "jobs that may be restarted: preemption, Slurm requeue)",
    )
    cmd.add_argument(
        "--time-limit",
        type=number_in(0, kind=float),
        metavar="SECONDS",
        help="stop after the first update that ends past this many seconds since the command "
        "started (start-up included), with a checkpoint to --resume from (for machines lent "
        "for a fixed time)",
    )
    cmd.add_argument(
        "--skip-scene-check",
        action="store_true",
        help="do not check every scene of the splits before training (see docs/datasets.md)",
    )
    # Options may come between the overrides too: batchsim.cli.main adds the ones after.
    cmd.add_argument("overrides", nargs="*", metavar="KEY=VALUE")
    cmd.set_defaults(handler=_train)


def _train(args: argparse.Namespace) -> int:
    from batchsim.train import distributed, launch
    from batchsim.train.elapsed import command_started
    from batchsim.train.presets import make_config
    from batchsim.train.run import train

    try:
        config = make_config(args.preset, args.config, overrides(args))
        processes = launch.processes_for(config.num_gpus, config.device)
        started_at = command_started()  # the time limit and elapsed_s count the start-up
    except ValueError as error:
        print(f"batchsim train: error: {error}", file=sys.stderr)
        return 2
    if processes > 1:
        words = ["train", *command_words(args)]
        return launch.start_ranks(words, processes, config.explicit_threads)
    trainer = train(
        config,
        show_progress=not args.quiet,
        resume=resume_mode(args),
        time_limit_s=args.time_limit,
        second_signal="exit",
        check_scenes=not args.skip_scene_check,
        started_at=started_at,
    )
    if trainer.rank == 0:
        _print_summary(trainer, config.log_dir)
        if trainer.stop_signal is not None:
            outer = trainer.world > 1 and not launch.started_by_batchsim()
            launcher = " (under the same launcher, e.g. torchrun)" if outer else ""
            print(f"resume with{launcher}: {resume_command(args)}")
    trainer.close()
    distributed.shutdown()
    return 0


def _print_summary(trainer, log_dir: str) -> None:
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
    print(f"logs and checkpoint: {log_dir}")


def overrides(args: argparse.Namespace) -> list[str]:
    """The KEY=VALUE overrides, with --gpus as num_gpus after them (the flag wins)."""
    return [*args.overrides, *([f"num_gpus={args.gpus}"] if args.gpus is not None else [])]


def command_words(args: argparse.Namespace) -> list[str]:
    """The arguments after `train` that give this run again (each rank of a launch gets them)."""
    words = ["--preset", args.preset]
    if args.config:
        words += ["--config", args.config]
    if args.quiet:
        words.append("--quiet")
    if args.gpus is not None:
        words += ["--gpus", str(args.gpus)]
    if args.time_limit is not None:
        words += ["--time-limit", str(args.time_limit)]
    if args.skip_scene_check:
        words.append("--skip-scene-check")
    if args.resume:
        words.append("--resume")
    if args.resume_or_start:
        words.append("--resume-or-start")
    return [*words, *args.overrides]


def resume_mode(args: argparse.Namespace) -> bool | str:
    """train()'s resume: True (a checkpoint must exist), "if_present" or False."""
    return "if_present" if args.resume_or_start else args.resume


def resume_command(args: argparse.Namespace) -> str:
    """The shell command that resumes this run: its own arguments plus --resume, run as it
    was (`python -m batchsim` or the `batchsim` script) from this folder."""
    as_module = sys.argv[0].endswith("__main__.py")
    words = [sys.executable, "-m", "batchsim"] if as_module else ["batchsim"]
    resumed = argparse.Namespace(**{**vars(args), "resume": True, "resume_or_start": False})
    return (
        f"cd {shlex.quote(os.getcwd())} && {shlex.join([*words, 'train', *command_words(resumed)])}"
    )
