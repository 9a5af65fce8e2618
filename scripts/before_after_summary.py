"""The before/after table of scripts/gpu-before-after.sh: for each benchmark figure, the
median over rounds of each build and the after/before ratio, printed as JSON.

    python3 scripts/before_after_summary.py OUTDIR
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def figures(name: str, record: dict) -> dict[str, float]:
    """The headline figures of one benchmark record, by keys without dots or "=" (so that
    the benchmark tables' key paths can name them): "train" is the trainer's frames/s,
    "env N MODE" BatchNavEnv.step()'s frames/s and "simulator N MODE" Simulator.step()'s,
    "sim N T GEODESIC MIX" BatchSim.step()'s env-steps/s."""
    if name == "train":
        return {"train": record["frames_per_s_median"]}
    out = {}
    for row in record["results"]:
        if name == "env":
            n = f"{row['num_envs']} {row['actions']}"
            out[f"env {n}"] = row["env"]["frames_per_s"]
            out[f"simulator {n}"] = row["simulator"]["frames_per_s"]
        elif name == "sim":
            key = f"sim {row['num_envs']} T{row['threads']} {row['geodesic']} {row['actions']}"
            out[key] = row["env_steps_per_s"]
    return out


def summary(folder: Path) -> dict[str, dict]:
    """{figure: {before: [..], after: [..], before_median, after_median, ratio}}."""
    table: dict[str, dict] = {}
    for path in sorted(folder.glob("*_*_*.json")):
        build, name, _round = path.stem.split("_", 2)
        if build not in ("before", "after"):
            continue
        for figure, value in figures(name, json.loads(path.read_text())).items():
            table.setdefault(figure, {"before": [], "after": []})[build].append(value)
    for row in table.values():
        for build in ("before", "after"):
            row[f"{build}_median"] = statistics.median(row[build]) if row[build] else None
        if row["before_median"] and row["after_median"]:
            row["ratio"] = round(row["after_median"] / row["before_median"], 4)
    return table


def main() -> int:
    folder = Path(sys.argv[1])
    table = summary(folder)
    text = json.dumps(table, indent=1)
    (folder / "summary.json").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
