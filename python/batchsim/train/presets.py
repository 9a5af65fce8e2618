"""Named presets of TrainConfig and make_config: a preset, then a JSON file's fields, then
``key=value`` overrides from the command line, validated."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from batchsim.train.config import TrainConfig

# The GPU presets' recipe. Policy inference is launch-bound on an H100: a rollout step
# costs the same ~6 ms at N = 1,024 and 4,096, so N = 4,096 gives 4x the frames per second
# for the same number of updates (benchmarks/RESULTS.md, "the recipe's batch size"). 16 slots
# per half moving on every 600 steps let a rollout see 32 scenes and 10M frames ~130 new ones.
# CPC|A-16: the real-building targets were met with it, at 1% of the update's time
# (RESULTS.md, "CPC|A and CUDA-graph inference"). Value normalisation with the inverse-dynamics
# and temporal-distance heads beside CPC|A: 15 minutes on one H200 reached test success 0.915
# and SPL 0.777 against the preset's 0.870 / 0.701 (one run each, val alike), for 9% more
# update time (RESULTS.md, "Four 1-GPU ablations side by side").
GPU_RECIPE = {
    "num_envs": 4096,
    "scenes_resident": 16,
    "steps_per_scene": 600,
    "cpca_steps": 16,
    "value_normalization": True,
    "inverse_dynamics_coef": 0.1,
    "temporal_distance_coef": 0.1,
}

PRESETS = {
    "pointnav-depth": GPU_RECIPE,
    "pointnav-rgb": GPU_RECIPE | {"sensors": ("rgb",)},
    # Minutes on a laptop CPU with lavapipe: small views, a small network, a short run.
    "demo": {
        "dataset": "data/procgen-demo/pointnav/train",
        "val_dataset": "data/procgen-demo/pointnav/val",
        "num_envs": 32,
        "resolution": 32,
        "scenes_resident": 2,
        "max_episode_steps": 150,
        "total_frames": 250_000,
        "rollout_steps": 32,
        "encoder": "simple_cnn",
        "rnn": "gru",
        "hidden_size": 128,
        "rnn_layers": 1,
        "optimizer": "adam",
        "base_lr": 1e-3,
        "warmup_frames": 5 * 32 * 32,
        "precision": "fp32",
        "eval_envs": 32,
        "log_dir": "runs/demo",
        "checkpoint_every": 0,
    },
}


_OPTIONAL_NUMBERS = {"float | None": float, "int | None": int}

# Fields that were renamed: an old name in a file or override gets this advice.
RENAMED = {
    "warmup_updates": "warmup_frames: the warm-up is counted in global frames now, so that it "
    "means the same on any number of GPUs (one update is num_envs x rollout_steps x processes "
    "frames)",
}


def _renamed(name: str, origin: str) -> ValueError:
    return ValueError(f"{origin}: {name} was replaced by {RENAMED[name]}")


def _coerce(current, text: str, declared: str = ""):
    """`text` as the type of the field's current value (or, for None, its declared type)."""
    if current is None and declared in _OPTIONAL_NUMBERS and text.lower() != "none":
        return _OPTIONAL_NUMBERS[declared](text)
    if isinstance(current, bool):
        return text.lower() in ("1", "true", "yes")
    if isinstance(current, tuple):
        return tuple(s for s in text.split(",") if s)
    if current is None or isinstance(current, str):
        return None if text.lower() == "none" else text
    return type(current)(text)


def make_config(
    preset: str = "pointnav-depth",
    file: str | Path | None = None,
    overrides: list[str] | None = None,
) -> TrainConfig:
    """A preset, then a JSON file's fields, then ``key=value`` overrides; validated."""
    if preset not in PRESETS:
        raise ValueError(f"preset: expected one of {sorted(PRESETS)}, got {preset!r}")
    config = dataclasses.replace(TrainConfig(), **PRESETS[preset])
    declared = {f.name: str(f.type) for f in dataclasses.fields(TrainConfig)}
    names = set(declared)
    if file is not None:
        values = json.loads(Path(file).read_text())
        unknown = sorted(set(values) - names)
        renamed = [name for name in unknown if name in RENAMED]
        if renamed:
            raise _renamed(renamed[0], str(file))
        if unknown:
            raise ValueError(f"{file}: unknown fields {unknown}")
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        config = dataclasses.replace(config, **values)
    for item in overrides or []:
        key, sep, value = item.partition("=")
        if sep and key in RENAMED:
            raise _renamed(key, "override")
        if not sep or key not in names:
            raise ValueError(
                f"override: expected field=value with a field of TrainConfig, got {item!r}"
            )
        config = dataclasses.replace(
            config, **{key: _coerce(getattr(config, key), value, declared[key])}
        )
    config.validate()
    return config
