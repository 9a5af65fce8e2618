"""Named presets of TrainConfig and make_config: a preset, then a JSON file's fields, then
``key=value`` overrides from the command line, validated. A key is a TrainConfig field or a
dotted path into one of its simulator parts (``sim.task.forward_noise``,
batchsim.train.sim_parts); every source's changes are gathered first, then each part is
built once from them, so that its own type checks its fields together."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import json
import warnings
from pathlib import Path

from batchsim._files import read_regular_bytes
from batchsim.errors import FormatError, InvalidArgumentError
from batchsim.train import sim_parts
from batchsim.train.config import TrainConfig
from batchsim.train.fields import from_json, parse_text

# The GPU presets' recipe. Policy inference is launch-bound on an H100: a rollout step
# costs the same ~6 ms at N = 1,024 and 4,096, so N = 4,096 gives 4x the frames per second
# for the same number of updates. 16 slots per half moving on every 600 steps let a rollout
# see 32 scenes and 10M frames ~130 new ones. CPC|A-16: the real-building targets were met
# with it, at 1% of the update's time. Value normalisation with the inverse-dynamics and
# temporal-distance heads beside CPC|A: 15 minutes on one H200 reached test success 0.915
# and SPL 0.777 against the preset's 0.870 / 0.701 (one run each, val alike), for 9% more
# update time.
GPU_RECIPE = {
    "sim.num_envs": 4096,
    "sim.scenes_resident": 16,
    "sim.steps_per_scene": 600,
    "cpca_steps": 16,
    "value_normalization": True,
    "inverse_dynamics_coef": 0.1,
    "temporal_distance_coef": 0.1,
}

PRESETS = {
    "pointnav-depth": GPU_RECIPE,
    "pointnav-rgb": GPU_RECIPE | {"render.depth": False, "render.rgb": True},
    # Minutes on a laptop CPU with lavapipe: small views, a small network, a short run.
    "demo": {
        "dataset": "data/procgen-demo/pointnav/train",
        "val_dataset": "data/procgen-demo/pointnav/val",
        "sim.num_envs": 32,
        "render.width": 32,
        "render.height": 32,
        "sim.scenes_resident": 2,
        "sim.task.max_episode_steps": 150,
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
PART_NAMES = tuple(sim_parts.PARTS)
KEYS = (*(n for n in NAMES if n not in PART_NAMES), *sim_parts.leaf_paths())
Changes = dict[str, tuple[object, str]]  # path: (value, where it was given)


def unknown_field(name: str, origin: str) -> InvalidArgumentError:
    """The error for a key TrainConfig lacks: the new name of a renamed field, else the
    closest names (difflib, and keys with `name` as a word: lr -> base_lr, plain_lr)."""
    if name in RENAMED:
        return InvalidArgumentError(f"{origin}: {name} was replaced by {RENAMED[name]}")
    close = difflib.get_close_matches(name, KEYS, n=3, cutoff=0.6)
    words = [(k, k.replace(".", "_").split("_")) for k in KEYS]
    close += [k for k, split in words if name and name in split and k not in close]
    hint = f"; did you mean {' or '.join(close[:4])}?" if close else ""
    return InvalidArgumentError(
        f"{origin}: {name!r} is not a TrainConfig field{hint} (fields: docs/train.md, "
        "or help(batchsim.train.TrainConfig))"
    )


def key_changes(key: str, value, origin: str, text: bool) -> list[tuple[str, object]]:
    """[(path, value)] of one key and its value (text from an override, else a JSON or
    Python value): a TrainConfig field, a part's leaf by its dotted path, or an old flat
    name (mapped, with a FlatNameWarning)."""
    if key in sim_parts.FLAT_NAMES:
        return sim_parts.flat_changes(key, value, origin, text)
    if key in NAMES and key not in PART_NAMES:
        parse = parse_text if text else from_json
        return [(key, parse(TrainConfig, key, value))]
    if key in PART_NAMES or (key.startswith("sim.task") and key.count(".") == 1):
        raise InvalidArgumentError(
            f"{key}: expected an object of its fields in a file, or a dotted path to one in "
            f"an override ({key}.FIELD=VALUE), got {value!r}"
        )
    if sim_parts.leaf_kind(key) is not None:
        parse = sim_parts.leaf_from_text if text else sim_parts.leaf_from_json
        return [(key, parse(key, value))]
    raise unknown_field(key, origin)


def _dotted(values: dict, prefix: str = "") -> dict[str, object]:
    """A nested mapping's keys as dotted paths: {"sim": {"num_envs": 4}} -> sim.num_envs;
    a mapping under a key that is no part (extra) stays a value."""
    found: dict[str, object] = {}
    for key, value in values.items():
        path = f"{prefix}{key}"
        nested = isinstance(value, dict) and (path in PART_NAMES or prefix)
        found |= _dotted(value, f"{path}.") if nested else {path: value}
    return found


def mapping_changes(values: dict, origin: str) -> Changes:
    """The changes a mapping of fields asks for (a preset, a --config file, a checkpoint's
    config): nested parts or dotted paths, old flat names mapped; errors name `origin`."""
    changes: Changes = {}
    for key, value in _dotted(values).items():
        with _named(origin):
            found = key_changes(key, value, origin, text=False)
        changes |= {path: (item, origin) for path, item in found}
    return changes


@contextlib.contextmanager
def _named(origin: str):
    """InvalidArgumentError raised inside, its message begun with `origin` (once)."""
    try:
        yield
    except InvalidArgumentError as exc:
        message = str(exc)
        named = message if message.startswith(origin) else f"{origin}: {message}"
        raise InvalidArgumentError(named) from None


def config_file_values(file: str | Path) -> Changes:
    """The changes of a JSON config file, each checked against its field; errors name the
    file and the field."""
    text = read_regular_bytes(file, "--config file")  # a named pipe would block for ever
    try:
        values = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise FormatError(f"--config {file}: expected a JSON object of fields: {exc}") from None
    if not isinstance(values, dict):
        raise FormatError(
            f"--config {file}: expected a JSON object of fields, got {type(values).__name__}"
        )
    return mapping_changes(values, f"--config {file}")


def override_changes(item: str) -> Changes:
    """The changes of one KEY=VALUE override, the value parsed by the key's type."""
    key, sep, text = item.partition("=")
    origin = f"override {item!r}"
    if not sep or not key:
        raise InvalidArgumentError(f"{origin}: expected KEY=VALUE, a TrainConfig field")
    with _named(origin):
        found = key_changes(key, text, origin, text=True)
    return {path: (value, origin) for path, value in found}


def config_with(config: TrainConfig, changes: Changes) -> TrainConfig:
    """`config` with `changes` applied: its own fields replaced, each part built once from
    its changed leaves (an error names the part and where its changes came from). A
    sim.num_threads given without auto_threads turns auto_threads off."""
    own = {path: value for path, (value, _) in changes.items() if "." not in path}
    if "sim.num_threads" in changes and "auto_threads" not in changes:
        own["auto_threads"] = False
    parts = {}
    for part in PART_NAMES:
        mine = {p: c for p, c in changes.items() if p.startswith(f"{part}.")}
        if mine:
            where = ", ".join(sorted({origin for _, origin in mine.values()}, key=_latest_first))
            leaves = {p.partition(".")[2]: value for p, (value, _) in mine.items()}
            try:
                parts[part] = sim_parts.built(getattr(config, part), leaves, part)
            except InvalidArgumentError as exc:
                raise InvalidArgumentError(f"{where}: {exc}") from None
    return dataclasses.replace(config, **own, **parts)


def _latest_first(origin: str) -> tuple[int, str]:
    """Overrides, then the --config file, then the preset: the likelier culprit first."""
    return next(i for i, word in enumerate(("override", "--config", "")) if word in origin), origin


def make_config(
    preset: str = "pointnav-depth",
    file: str | Path | None = None,
    overrides: list[str] | None = None,
) -> TrainConfig:
    """A preset, then a JSON file's fields, then ``key=value`` overrides; validated.
    InvalidArgumentError (a ValueError) names the file or override and the field."""
    if preset not in PRESETS:
        raise InvalidArgumentError(f"preset: expected one of {sorted(PRESETS)}, got {preset!r}")
    changes = mapping_changes(PRESETS[preset], f"preset {preset}")
    if file is not None:
        changes |= config_file_values(file)
    for item in overrides or []:
        changes |= override_changes(item)
    config = config_with(TrainConfig(), changes)
    config.validate()
    return config


def config_from_state(values: dict) -> TrainConfig:
    """The TrainConfig a checkpoint's config mapping gives: nested parts, or the flat fields
    of checkpoints written before them (mapped silently: the file cannot be changed); keys
    this version lacks are dropped."""
    known = {k: v for k, v in values.items() if k in (*NAMES, *sim_parts.FLAT_NAMES)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sim_parts.FlatNameWarning)
        changes = mapping_changes(known, "checkpoint config")
    return config_with(TrainConfig(), changes)
