"""Frames/s against N (log-log PNG) from a record of a benchmark that sweeps N: render
(views), env (environments) or sim (environments; env-steps/s). One colour per
configuration, one line style per mode (batched / naive; env / simulator); error bars span
the min and max over runs.

    python -m batchsim.bench.plot RECORD.json [--out PNG]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from batchsim._files import read_regular_bytes, write_bytes_atomically

# One point: (configuration, mode, N, median, min, max).
Point = tuple[str, str, int, float, float, float]
LINE_STYLES = {"batched": "-", "naive": "--", "env": "-", "simulator": "--", "": "-"}
MATPLOTLIB_HINT = 'plots need matplotlib: pip install "batchsim[train]" (or pip install matplotlib)'


def pyplot():
    """matplotlib.pyplot on the Agg backend (files only, no display); matplotlib is an
    optional dependency (the `train` extra), so importing batchsim must not need it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(MATPLOTLIB_HINT) from error
    return plt


def _render_points(record: dict) -> Iterator[Point]:
    for r in record["results"]:
        backend = r.get("backend", record.get("backend", ""))  # older records: one backend
        config = f"{backend} {r.get('outputs', '')} {r['resolution']}px"
        modes = {m: r[m] for m in ("batched", "naive") if m in r} or {"batched": r}
        for mode, m in modes.items():
            yield config, mode, r["views"], m["frames_per_s"], m["min"], m["max"]


def _env_points(record: dict) -> Iterator[Point]:
    sensors = "+".join(record.get("sensors", []))
    for r in record["results"]:
        config = f"{r.get('backend', '')} {sensors} {record.get('resolution', '')}px"
        config = f"{config} {r.get('actions', '')}".strip()  # one colour per actions mode
        for path in ("env", "simulator"):
            p = r[path]
            yield config, path, r["num_envs"], p["frames_per_s"], p["min"], p["max"]


def _sim_points(record: dict) -> Iterator[Point]:
    for r in record["results"]:
        config = f"threads {r['threads']}, {r['geodesic']}, {r['actions']} actions"
        yield config, "", r["num_envs"], r["env_steps_per_s"], r["min"], r["max"]


SWEEPS = {  # benchmark: (its points, x label, y label)
    "render": (_render_points, "views rendered together (N)", "frames/s (one frame = one view)"),
    "env": (_env_points, "environments (N)", "frames/s (one frame = one env step)"),
    "sim": (_sim_points, "environments (N)", "env-steps/s (no rendering)"),
}


def lines(record: dict) -> dict[tuple[str, str], list[tuple[int, float, float, float]]]:
    """(configuration, mode) -> [(N, median, min, max)] sorted by N."""
    name = record.get("benchmark")
    if name not in SWEEPS:
        raise ValueError(
            f"cannot plot a {name!r} record: plots are for the benchmarks that sweep N "
            f"({', '.join(SWEEPS)})"
        )
    grouped: dict[tuple[str, str], list] = {}
    for config, mode, n, median, low, high in SWEEPS[name][0](record):
        grouped.setdefault((config, mode), []).append((n, median, low, high))
    if not grouped:
        raise ValueError(f"the {name} record holds no results to plot")
    return {key: sorted(points) for key, points in grouped.items()}


def plot_png(record: dict) -> bytes:
    """The PNG bytes of `record`'s frames/s against N."""
    grouped = lines(record)
    plt = pyplot()
    figure, ax = plt.subplots(figsize=(8, 5.5))
    colours = {}
    for (config, mode), points in grouped.items():
        colour = colours.setdefault(config, f"C{len(colours) % 10}")
        n, median, low, high = np.array(points, dtype=float).T
        ax.errorbar(
            n,
            median,
            yerr=[median - low, high - median],
            color=colour,
            linestyle=LINE_STYLES.get(mode, "-"),
            marker="o",
            capsize=3,
            label=f"{config} {mode}".strip(),
        )
    _, x_label, y_label = SWEEPS[record["benchmark"]]
    ax.set(xscale="log", yscale="log", xlabel=x_label, ylabel=y_label, title=_title(record))
    everything = np.array([p for points in grouped.values() for p in points], dtype=float)
    _plain_ticks(ax, sorted(set(everything[:, 0].astype(int))), everything[:, 2:])
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    return buffer.getvalue()


def _plain_ticks(ax, ns: list[int], rates: np.ndarray) -> None:
    """Ticks at the measured N, and rates as plain numbers rather than powers of ten; the
    rates' minor ticks are labelled only within about a decade (more would overlap)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_xticks(ns, [f"{n:,}" for n in ns])
    ax.xaxis.set_minor_formatter(NullFormatter())
    rate = FuncFormatter(lambda value, _: f"{value:,.0f}")
    ax.yaxis.set_major_formatter(rate)
    narrow = rates.max() < 30 * rates.min()
    ax.yaxis.set_minor_formatter(rate if narrow else NullFormatter())


def _title(record: dict) -> str:
    device = record.get("vulkan") or record.get("device") or {}
    name = device.get("name", "") if isinstance(device, dict) else str(device)
    when = (record.get("date") or "")[:10]
    details = ", ".join(x for x in (name, record.get("machine", ""), when) if x)
    return f"batchsim bench {record['benchmark']}" + (f" ({details})" if details else "")


def write_plot(record: dict, out: str | Path) -> Path:
    """Writes the plot of `record` to `out` atomically; returns the path."""
    write_bytes_atomically(out, plot_png(record))
    return Path(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m batchsim.bench.plot", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("record", type=Path, help="JSON record of `batchsim bench sim|render|env`")
    parser.add_argument("--out", type=Path, help="PNG to write (default: RECORD with .png)")
    args = parser.parse_args(argv)
    try:
        record = json.loads(read_regular_bytes(args.record, "benchmark record"))
        out = write_plot(record, args.out or args.record.with_suffix(".png"))
    except (OSError, ValueError, ImportError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyError as error:
        print(f"{parser.prog}: error: {args.record}: no {error} field", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
