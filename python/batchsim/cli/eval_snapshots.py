"""`batchsim eval --snapshots RUN_DIR`: a run's held-out learning curve. Every policy snapshot
the run wrote (batchsim.train.snapshots) plays the same episodes of one split from the same
seed, the baselines (random, forward) play them once, and the frames and elapsed minutes at
which the policy's mean SPL and success first reach a threshold are interpolated between
consecutive snapshots (batchsim.train.curve.first_reaching)."""

from __future__ import annotations

import math
from collections.abc import Callable

from batchsim.cli import _common
from batchsim.cli.eval import EvalSettings, check_split, evaluate_split, format_table
from batchsim.errors import InvalidArgumentError

REACHED = ("spl", "success")


def check_threshold(threshold: float) -> float:
    if not (math.isfinite(threshold) and 0 <= threshold <= 1):
        raise InvalidArgumentError(f"--reach: expected a value in [0, 1], got {threshold}")
    return threshold


def evaluate_snapshots(
    run_dir,
    split,
    agents: list[str],
    settings: EvalSettings,
    *,
    threshold: float = 0.75,
    log: Callable[[str], None] = print,
) -> dict:
    """The curve of `run_dir`'s snapshots on `split` (None: the run's val_dataset): each
    snapshot's counters and summarize() of its policy, the other `agents` once as
    baselines, and where SPL and success first reach `threshold`. `log` gets a line per
    snapshot as it finishes."""
    from batchsim.train import snapshots
    from batchsim.train.checkpoint import check_compatible, policy_of
    from batchsim.train.curve import first_reaching

    check_threshold(threshold)
    paths = snapshots.list_snapshots(run_dir)
    if not paths:
        raise FileNotFoundError(
            f"--snapshots: expected snapshot-*.pt files in {run_dir}/{snapshots.FOLDER} "
            "(train with snapshot_every_s > 0), found none"
        )
    _, first = snapshots.read_counters(paths[0])
    config = settings.applied_to(policy_of(first)[1])
    _, _, split = _common.load_policy_and_split(None, split or config.val_dataset)
    check_split(config, split, settings)
    baselines = [a for a in agents if a != "policy"]
    points = []
    for index, path in enumerate(paths):
        counters, state = snapshots.read_counters(path)
        policy, snapshot_config = policy_of(state)
        check_compatible(snapshot_config, config, f"snapshot {path}")
        snapshot_config = settings.applied_to(snapshot_config)
        title = f"snapshot {index + 1}/{len(paths)} ({counters['frames']:,} frames)"
        summary = evaluate_split(["policy"], policy, snapshot_config, split, settings, title)
        summary = summary["policy"]
        points.append({"snapshot": path.name, **counters, **summary})
        log(format_point(points[-1]))
    results = evaluate_split(baselines, None, config, split, settings)
    return {
        "run": str(run_dir),
        "split": str(split),
        "seed": settings.seed,
        "threshold": threshold,
        "snapshots": points,
        "baselines": results,
        "reach": {m: first_reaching(points, m, threshold) for m in REACHED},
    }


def format_point(point: dict) -> str:
    """One snapshot: its counters, then success and SPL with their 95% intervals."""
    from batchsim.cli.eval import format_interval

    minutes = point["elapsed_s"] / 60
    measures = "  ".join(
        f"{name} {format_interval(point[key])}"
        for key, name in (("success", "success"), ("spl", "SPL"))
    )
    return f"{point['snapshot']}  {point['frames']:>13,} frames  {minutes:>7.2f} min  {measures}"


def format_report(curve: dict) -> str:
    """The baselines' table and, per measure, where it first reached the threshold."""
    lines = [format_table(curve["baselines"])] if curve["baselines"] else []
    for measure, reached in curve["reach"].items():
        name = "SPL" if measure == "spl" else measure
        if reached is None:
            lines.append(f"{name} never reached {curve['threshold']}")
        else:
            lines.append(
                f"{name} first reached {curve['threshold']} at {reached['frames']:,.0f} frames,"
                f" {reached['minutes']:.2f} min elapsed"
            )
    return "\n".join(lines)
