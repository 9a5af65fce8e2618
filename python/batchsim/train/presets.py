"""Named presets of TrainConfig and make_config: a preset, then a JSON file's fields, then
``key=value`` overrides from the command line, validated."""

from __future__ import annotations

import dataclasses
import difflib
import json
from pathlib import Path

from batchsim._files import read_regular_bytes
from batchsim.errors import FormatError, InvalidArgumentError
from batchsim.train.config import TrainConfig
from batchsim.train.fields import from_json, parse_text

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


# Fields that were renamed: an old name in a file or override gets this advice.
RENAMED = {
    "warmup_updates": "warmup_frames: the warm-up is counted in global frames now, so that it "
    "means the same on any number of GPUs (one update is num_envs x rollout_steps x processes "
    "frames)",
}
NAMES = tuple(f.name for f in dataclasses.fields(TrainConfig))


def unknown_field(name: str, origin: str) -> InvalidArgumentError:
    """The error for a key TrainConfig lacks: the new name of a renamed field, else the
    closest names (difflib, and fields with `name` as a word: lr -> base_lr, plain_lr)."""
    if name in RENAMED:
        return InvalidArgumentError(f"{origin}: {name} was replaced by {RENAMED[name]}")
    close = difflib.get_close_matches(name, NAMES, n=3, cutoff=0.6)
    close += [n for n in NAMES if name and name in n.split("_") and n not in close]
    hint = f"; did you mean {' or '.join(close[:4])}?" if close else ""
    return InvalidArgumentError(
        f"{origin}: {name!r} is not a TrainConfig field{hint} (fields: docs/train.md, "
        "or help(batchsim.train.TrainConfig))"
    )


def config_file_values(file: str | Path) -> dict:
    """The fields of a JSON config file, each checked against its TrainConfig field;
    errors name the file and the field."""
    text = read_regular_bytes(file, "--config file")  # a named pipe would block for ever
    try:
        values = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise FormatError(f"--config {file}: expected a JSON object of fields: {exc}") from None
    if not isinstance(values, dict):
        raise FormatError(
            f"--config {file}: expected a JSON object of fields, got {type(values).__name__}"
        )
    checked = {}
    for name, value in values.items():
        if name not in NAMES:
            raise unknown_field(name, f"--config {file}")
        try:
            checked[name] = from_json(TrainConfig, name, value)
        except InvalidArgumentError as exc:
            raise InvalidArgumentError(f"--config {file}: {exc}") from None
    return checked


def override_value(item: str) -> tuple[str, object]:
    """(field, value) of one KEY=VALUE override, the value parsed by the field's type."""
    key, sep, text = item.partition("=")
    if not sep or not key:
        raise InvalidArgumentError(f"override {item!r}: expected KEY=VALUE, a TrainConfig field")
    if key not in NAMES:
        raise unknown_field(key, f"override {item!r}")
    try:
        return key, parse_text(TrainConfig, key, text)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"override {item!r}: {exc}") from None


def make_config(
    preset: str = "pointnav-depth",
    file: str | Path | None = None,
    overrides: list[str] | None = None,
) -> TrainConfig:
    """A preset, then a JSON file's fields, then ``key=value`` overrides; validated.
    InvalidArgumentError (a ValueError) names the file or override and the field."""
    if preset not in PRESETS:
        raise InvalidArgumentError(f"preset: expected one of {sorted(PRESETS)}, got {preset!r}")
    config = dataclasses.replace(TrainConfig(), **PRESETS[preset])
    if file is not None:
        config = dataclasses.replace(config, **config_file_values(file))
    changes = dict(override_value(item) for item in overrides or [])
    config = dataclasses.replace(config, **changes)
    config.validate()
    return config
