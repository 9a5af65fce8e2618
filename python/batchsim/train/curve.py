"""The learning curve of a run as a PNG: success and SPL against frames and against wall
time, from <log_dir>/metrics.csv (training episodes, running mean), <log_dir>/val.csv
(validation during training, and the real buildings' real_* columns when there are any)
and <log_dir>/eval.json (the final evaluation of the policy and the random and forward-only
baselines, drawn as levels with their 95% CIs).

    python -m batchsim.train.curve runs/demo [--out runs/demo/curve.png]

Several runs give one comparison instead: their success and SPL (training episodes, val and,
where logged, real buildings) against frames and wall time, a colour per run.

    python -m batchsim.train.curve runs/a runs/b --labels "generator v4" "generator v6" \
        --out compare.png

Any other columns of the runs' metrics.csv, a panel each, against the update:

    python -m batchsim.train.curve runs/a runs/b --columns stop_fraction entropy \
        --updates 300 --out early.png

Held-out curves (`batchsim eval --snapshots ... --json`, one per run): success and SPL with
their 95% CIs against frames and against minutes since the command started, the baselines,
the threshold and where each run first reached it (first_reaching):

    python -m batchsim.train.curve --heldout runs/1gpu/test.json runs/2gpu/test.json \
        --labels "1 GPU" "2 GPUs" --out docs/images/heldout.png
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

from batchsim._files import open_regular, read_regular_bytes, write_bytes_atomically

BASELINE_STYLE = {"policy": "tab:green", "random": "tab:gray", "forward": "tab:orange"}


def read_csv(path: Path) -> dict[str, list[float]]:
    """Columns of a metrics file; empty cells (no episode finished yet) are skipped."""
    if not path.exists():
        return {}
    columns: dict[str, list[tuple[float, float]]] = {}
    with io.TextIOWrapper(open_regular(path, "metrics file"), newline="") as f:
        for row in csv.DictReader(f):
            for key, value in row.items():
                if value not in ("", None):
                    columns.setdefault(key, []).append(
                        (float(row["frames"]), float(row["wall_s"]), float(value))
                    )
    return columns


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(
            'the learning curve needs matplotlib (pip install "batchsim[train]")'
        ) from error
    return plt


def plot_learning_curve(log_dir: str | Path, out: str | Path | None = None) -> Path:
    log_dir = Path(log_dir)
    train = read_csv(log_dir / "metrics.csv")
    if not train:
        raise FileNotFoundError(f"{log_dir / 'metrics.csv'}: no training metrics to plot")
    val = read_csv(log_dir / "val.csv")
    final = (
        json.loads((log_dir / "eval.json").read_text()) if (log_dir / "eval.json").exists() else {}
    )
    plt = _pyplot()
    figure, axes = plt.subplots(2, 2, figsize=(10, 7), sharey="row")
    for row, measure in enumerate(("success", "spl")):
        for col, (axis_index, label) in enumerate(((0, "frames"), (1, "wall time (s)"))):
            ax = axes[row][col]
            sources = (
                (train, measure, "training episodes", "-"),
                (val, measure, "val", "o-"),
                (val, "real_" + measure, "real buildings (zero-shot)", "s-"),
            )
            for source, column, name, style in sources:
                if column in source:
                    x = [p[axis_index] for p in source[column]]
                    ax.plot(x, [p[2] for p in source[column]], style, label=name)
            for agent, summary in final.items():
                mean = summary[measure]["mean"]
                colour = BASELINE_STYLE.get(agent, "black")
                ax.axhline(mean, color=colour, linestyle="--", label=f"val: {agent}")
                ax.axhspan(*bounds(summary[measure]), color=colour, alpha=0.15)
            ax.set_xlabel(label)
            ax.set_ylabel("SPL" if measure == "spl" else "success")
            ax.set_ylim(0, 1)
            ax.grid(alpha=0.3)
    axes[0][0].legend(loc="upper left", fontsize=8)
    figure.suptitle(f"learning curve: {log_dir}")
    return _save(figure, plt, Path(out) if out else log_dir / "curve.png")


def _save(figure, plt, out: Path) -> Path:
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    write_bytes_atomically(out, buffer.getvalue())
    return out


def plot_comparison(log_dirs: list, labels: list[str], out: str | Path) -> Path:
    """Several runs on one figure, a colour per run: training episodes (thin line), val
    (circles) and real buildings (squares, dashed) against frames and wall time."""
    if len(labels) != len(log_dirs):
        raise ValueError(f"labels: expected one per run ({len(log_dirs)}), got {len(labels)}")
    runs = []
    for directory in map(Path, log_dirs):
        train, val = read_csv(directory / "metrics.csv"), read_csv(directory / "val.csv")
        if not train and not val:
            raise FileNotFoundError(f"{directory}: no metrics.csv or val.csv to compare")
        runs.append(
            ((train, "", "train", "-"), (val, "", "val", "o-"), (val, "real_", "real", "s--"))
        )
    plt = _pyplot()
    figure, axes = plt.subplots(2, 2, figsize=(10, 7), sharey="row")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for row, measure in enumerate(("success", "spl")):
        for col, (axis_index, label) in enumerate(((0, "frames"), (1, "wall time (s)"))):
            ax = axes[row][col]
            for index, (sources, name) in enumerate(zip(runs, labels, strict=True)):
                for source, prefix, where, style in sources:
                    points = source.get(prefix + measure)
                    if points:
                        ax.plot(
                            [p[axis_index] for p in points],
                            [p[2] for p in points],
                            style,
                            color=colours[index % len(colours)],
                            linewidth=0.8 if where == "train" else 1.5,
                            label=f"{name}: {where}",
                        )
            ax.set_xlabel(label)
            ax.set_ylabel("SPL" if measure == "spl" else "success")
            ax.set_ylim(0, 1)
            ax.grid(alpha=0.3)
    axes[0][0].legend(loc="upper left", fontsize=7)
    figure.suptitle(" vs ".join(labels))
    return _save(figure, plt, Path(out))


def plot_columns(
    log_dirs: list, labels: list[str], columns: list[str], out: str | Path, updates: int = 0
) -> Path:
    """metrics.csv `columns` of several runs against the update (the first `updates`; 0:
    all), a panel per column, a colour per run."""
    if len(labels) != len(log_dirs):
        raise ValueError(f"labels: expected one per run ({len(log_dirs)}), got {len(labels)}")
    tables = []
    for directory in map(Path, log_dirs):
        with (directory / "metrics.csv").open() as f:
            rows = list(csv.DictReader(f))
        missing = [c for c in columns if rows and c not in rows[0]]
        if not rows or missing:
            raise ValueError(f"{directory / 'metrics.csv'}: no rows, or no columns {missing}")
        tables.append(rows[:updates] if updates else rows)
    plt = _pyplot()
    figure, axes = plt.subplots(1, len(columns), figsize=(5 * len(columns), 4), squeeze=False)
    for ax, column in zip(axes[0], columns, strict=True):
        for rows, name in zip(tables, labels, strict=True):
            x = [int(r["update"]) for r in rows if r[column] != ""]
            ax.plot(x, [float(r[column]) for r in rows if r[column] != ""], label=name)
        ax.set_xlabel("update")
        ax.set_ylabel(column)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    return _save(figure, plt, Path(out))


def first_reaching(points: list[dict], measure: str, threshold: float) -> dict | None:
    """Where the mean `measure` of a curve's points ({"frames", "elapsed_s", measure:
    {"mean"}}, by frames) first reaches `threshold`: frames and elapsed_s (and minutes)
    linearly interpolated between the last point below it and the first at or above it,
    that one's own if the first point reaches it already; None if none does. A later dip
    below the threshold does not undo it."""
    previous = None
    for point in sorted(points, key=lambda p: p["frames"]):
        value = point[measure]["mean"]
        if value >= threshold:
            share = 1.0
            if previous is not None:  # previous < threshold <= value: no division by 0
                below = previous[measure]["mean"]
                share = (threshold - below) / (value - below)
            start = previous or point
            frames, elapsed_s = (
                start[key] + share * (point[key] - start[key]) for key in ("frames", "elapsed_s")
            )
            return {
                "frames": frames,
                "elapsed_s": elapsed_s,
                "minutes": elapsed_s / 60,
                "first_at_or_above": point.get("snapshot"),
            }
        previous = point
    return None


def _read_heldout(path) -> dict:
    curve = json.loads(read_regular_bytes(path, "held-out curve"))
    if not isinstance(curve, dict) or not curve.get("snapshots"):
        raise ValueError(f"{path}: expected `batchsim eval --snapshots` JSON with snapshots")
    return curve


def plot_heldout(curves: list, labels: list[str], out: str | Path) -> Path:
    """Held-out curves of several runs (their `batchsim eval --snapshots` JSON), a colour
    per run: mean success and SPL with 95% CI bands against frames and against elapsed
    minutes, the baselines as dashed levels, the threshold dotted, and a cross where each
    run first reached it."""
    if len(labels) != len(curves):
        raise ValueError(f"labels: expected one per curve ({len(curves)}), got {len(labels)}")
    data = [_read_heldout(path) for path in curves]
    plt = _pyplot()
    figure, axes = plt.subplots(2, 2, figsize=(11, 7), sharey="row")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    axes_x = (("frames", "frames", 1.0), ("elapsed_s", "minutes since the command started", 1 / 60))
    for row, measure in enumerate(("success", "spl")):
        for col, (key, label, scale) in enumerate(axes_x):
            ax = axes[row][col]
            for index, (curve, name) in enumerate(zip(data, labels, strict=True)):
                _draw_heldout(ax, curve, measure, key, scale, colours[index % len(colours)], name)
            _draw_levels(ax, data, measure)
            ax.set_xlabel(label)
            ax.set_ylabel("SPL" if measure == "spl" else "success")
            ax.set_xlim(left=0)  # from the command's start: start-up shows as a gap
            ax.set_ylim(0, 1)
            ax.grid(alpha=0.3)
    axes[1][0].legend(loc="lower right", fontsize=7)
    splits = sorted({Path(c["split"]).name for c in data})
    episodes = {p["success"].get("episodes") for c in data for p in c["snapshots"]} - {None}
    counts = f"{', '.join(f'{n:,}' for n in sorted(episodes))} episodes, " if episodes else ""
    # The legend names the runs: a title listing them overflows with more than two.
    figure.suptitle(f"held-out: {', '.join(splits)} ({counts}95% CI bands)")
    return _save(figure, plt, Path(out))


def bounds(stats: dict) -> tuple[float, float]:
    """A summary's 95% interval: its bounds, or mean ± ci95 where it predates them."""
    if "low" in stats:
        return stats["low"], stats["high"]
    return stats["mean"] - stats["ci95"], stats["mean"] + stats["ci95"]


def _draw_heldout(ax, curve: dict, measure: str, key: str, scale: float, colour, name) -> None:
    points = curve["snapshots"]
    x = [p[key] * scale for p in points]
    mean = [p[measure]["mean"] for p in points]
    ax.plot(x, mean, "o-", color=colour, markersize=3, label=name)
    low, high = zip(*(bounds(p[measure]) for p in points), strict=True)
    ax.fill_between(x, low, high, color=colour, alpha=0.2, linewidth=0)
    reached = curve.get("reach", {}).get(measure)
    if reached is not None:
        ax.plot(reached[key] * scale, curve["threshold"], "x", color=colour, markersize=9, mew=2)


def _draw_levels(ax, curves: list[dict], measure: str) -> None:
    """Each distinct baseline level and threshold once (runs on one split share them)."""
    drawn = set()
    for curve in curves:
        for agent, summary in curve.get("baselines", {}).items():
            mean = summary[measure]["mean"]
            if (agent, mean) in drawn:
                continue
            drawn.add((agent, mean))
            colour = BASELINE_STYLE.get(agent, "black")
            ax.axhline(mean, color=colour, linestyle="--", linewidth=1, label=agent)
            ax.axhspan(*bounds(summary[measure]), color=colour, alpha=0.12)
        if ("threshold", curve["threshold"]) not in drawn:
            drawn.add(("threshold", curve["threshold"]))
            ax.axhline(
                curve["threshold"],
                color="black",
                linestyle=":",
                linewidth=1,
                label=f"threshold {curve['threshold']}",
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log_dir", nargs="*", help="one run, or several to compare")
    parser.add_argument(
        "--heldout",
        nargs="+",
        metavar="JSON",
        help="`batchsim eval --snapshots` curves, one per run, instead of log folders",
    )
    parser.add_argument(
        "--labels", nargs="+", help="names of the compared runs (default: their folders)"
    )
    parser.add_argument("--out", help="PNG path (default LOG_DIR/curve.png; required to compare)")
    parser.add_argument("--columns", nargs="+", help="metrics.csv columns to plot per update")
    parser.add_argument("--updates", type=int, default=0, help="with --columns: the first N")
    args = parser.parse_args(argv)
    if bool(args.heldout) == bool(args.log_dir):
        parser.error("expected run folders or --heldout JSON files (one of the two)")
    if args.heldout:
        if args.out is None:
            parser.error("--heldout needs --out")
        labels = args.labels or [Path(c).parent.name for c in args.heldout]
        print(f"wrote {plot_heldout(args.heldout, labels, args.out)}")
        return 0
    labels = args.labels or [Path(d).name for d in args.log_dir]
    if args.columns:
        if args.out is None:
            parser.error("--columns needs --out")
        print(f"wrote {plot_columns(args.log_dir, labels, args.columns, args.out, args.updates)}")
        return 0
    if len(args.log_dir) == 1:
        print(f"wrote {plot_learning_curve(args.log_dir[0], args.out)}")
        return 0
    if args.out is None:
        parser.error("comparing runs needs --out")
    print(f"wrote {plot_comparison(args.log_dir, labels, args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
