"""TrainConfig's simulator settings are the simulator's own value types, composed, not
copied: ``sim`` (a SimConfig, whose ``task`` is a TaskConfig), ``render`` (RenderOptions) and
``sensor_noise`` (SensorNoise). Their defaults and each field's own checks live with those
types (C++ for the first three); this module reads and writes them as plain values: a leaf
by its dotted path (``sim.task.forward_noise``), a part from a nested mapping (a --config
file, a checkpoint), and the flat names TrainConfig had before (``forward_noise``), mapped
to their paths with a FlatNameWarning for one release.

>>> leaf_kind("sim.task.forward_noise")  # read off TaskConfig's default
<class 'float'>
>>> built(SimConfig(), {"task.max_episode_steps": 150}, "sim").task.max_episode_steps
150
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import warnings

from batchsim.errors import InvalidArgumentError
from batchsim.options import RenderOptions, SimConfig, TaskConfig, check_sensors
from batchsim.sensor_noise import SensorNoise
from batchsim.train.fields import BOOL_WORDS, parsed

PARTS: dict[str, type] = {"sim": SimConfig, "render": RenderOptions, "sensor_noise": SensorNoise}
NESTED: dict[type, dict[str, type]] = {SimConfig: {"task": TaskConfig}}
VALUE_TYPES = (SimConfig, TaskConfig, RenderOptions, SensorNoise)


class FlatNameWarning(FutureWarning):
    """A training setting given by its old flat name (forward_noise=0.1), read for one
    release; the message names its dotted path. A FutureWarning, so that users of the
    command line see it (Python hides DeprecationWarning outside __main__)."""


# The flat TrainConfig fields that mirrored a simulator field, and where each lives now.
FLAT_PATHS = {
    "num_envs": "sim.num_envs",
    "seed": "sim.seed",
    "scenes_resident": "sim.scenes_resident",
    "steps_per_scene": "sim.steps_per_scene",
    "max_episode_steps": "sim.task.max_episode_steps",
    "forward_noise": "sim.task.forward_noise",
    "turn_noise": "sim.task.turn_noise",
    "camera_height_jitter": "sim.task.camera_height_jitter",
    "backend": "render.backend",
    "depth_noise": "sensor_noise.depth_noise",
    "depth_edge_dropout": "sensor_noise.depth_edge_dropout",
    "rgb_jitter": "sensor_noise.rgb_jitter",
    "fov_jitter_degrees": "sensor_noise.fov_jitter_degrees",
}
# Flat names that became more than one leaf.
FLAT_SPLIT = {
    "sensors": "render.depth and render.rgb",
    "resolution": "render.width and render.height",
    "num_threads": "sim.num_threads (0, the cores: auto_threads=true)",
}
FLAT_NAMES = (*FLAT_PATHS, *FLAT_SPLIT)


def field_names(kind: type) -> tuple[str, ...]:
    names = getattr(kind, "field_names", None)
    return tuple(names) if names is not None else tuple(f.name for f in dataclasses.fields(kind))


def plain(value) -> dict:
    """A value type's fields as a nested dict of plain values (for JSON and checkpoints)."""
    fields = {}
    for name in field_names(type(value)):
        item = getattr(value, name)
        fields[name] = plain(item) if isinstance(item, VALUE_TYPES) else item
    return fields


def leaves(prefix: str, value) -> dict[str, object]:
    """{dotted path: value} of every leaf of a value type, under `prefix`."""
    return _flattened(prefix, plain(value))


def _flattened(prefix: str, mapping: dict) -> dict[str, object]:
    found = {}
    for name, item in mapping.items():
        path = f"{prefix}.{name}"
        found |= _flattened(path, item) if isinstance(item, dict) else {path: item}
    return found


def leaf_kind(path: str) -> type | None:
    """bool, int, float or str: what the leaf at `path` holds (read off its type's default);
    None when `path` names no leaf of a part."""
    head, _, rest = path.partition(".")
    kind = PARTS.get(head)
    while kind is not None and rest:
        name, _, rest = rest.partition(".")
        if name not in field_names(kind):
            return None
        if not rest:
            default = getattr(kind(), name)
            return None if isinstance(default, VALUE_TYPES) else type(default)
        kind = NESTED.get(kind, {}).get(name)
    return None


def leaf_paths() -> tuple[str, ...]:
    return tuple(path for part, kind in PARTS.items() for path in leaves(part, kind()))


def leaf_from_text(path: str, text: str):
    """The value an override's text spells for the leaf at `path` (its type's default says
    which kind); the leaf's range is its owner's to check when the part is built."""
    kind = leaf_kind(path)
    value = parsed(kind, text.strip()) if kind is not None else None
    if value is None:
        raise InvalidArgumentError(f"{path}: expected {_words(kind)}, got {text!r}")
    return leaf_from_json(path, value)


def leaf_from_json(path: str, value):
    """A JSON (or Python) value for the leaf at `path`: integral numbers as integers for
    integer leaves, finite numbers for float ones; refused naming the path otherwise."""
    kind = leaf_kind(path)
    if kind is int and isinstance(value, float) and value.is_integer():
        value = int(value)
    if not _fits(kind, value):
        shown = repr(value) if isinstance(value, str | int | float) else type(value).__name__
        raise InvalidArgumentError(f"{path}: expected {_words(kind)}, got {shown}")
    return value


def _fits(kind: type | None, value) -> bool:
    if kind is bool or isinstance(value, bool):
        return kind is bool and isinstance(value, bool)
    if kind is float:
        try:
            return isinstance(value, numbers.Real) and math.isfinite(value)
        except OverflowError:  # an integer beyond float's range (a JSON file can hold one)
            return False
    return kind is not None and isinstance(value, kind)


def _words(kind: type | None) -> str:
    return {bool: BOOL_WORDS, int: "an integer", float: "a finite number"}.get(kind, "a string")


def built(base, changes: dict[str, object], part: str):
    """`base` (a value type) with `changes` ({path within it: value}) set, built once from
    all its fields so that its type checks them together (SimConfig: steps_per_scene against
    task.max_episode_steps); InvalidArgumentError naming the part otherwise."""
    fields = plain(base)
    for path, value in changes.items():
        *outer, name = path.split(".")
        target = fields
        for key in outer:
            target = target[key]
        target[name] = value
    try:
        return _constructed(type(base), fields)
    except (InvalidArgumentError, TypeError) as exc:
        raise InvalidArgumentError(f"{part}: {exc}") from None


def _constructed(kind: type, fields: dict):
    for name, inner in NESTED.get(kind, {}).items():
        fields[name] = _constructed(inner, fields[name])
    return kind(**fields)


def flat_changes(name: str, value, origin: str, text: bool) -> list[tuple[str, object]]:
    """(path, value) of an old flat name's value (text from an override, else a JSON
    value), with a FlatNameWarning naming the new path."""
    new = FLAT_PATHS.get(name) or FLAT_SPLIT[name]
    warnings.warn(
        f"{origin}: {name} is now {new}; the flat name is read for one release",
        FlatNameWarning,
        stacklevel=4,
    )
    if name in FLAT_PATHS:
        path = FLAT_PATHS[name]
        return [(path, leaf_from_text(path, value) if text else leaf_from_json(path, value))]
    if name == "sensors":
        chosen = check_sensors(_listed(value.split(",") if text else value))
        return [("render.depth", "depth" in chosen), ("render.rgb", "rgb" in chosen)]
    parse = leaf_from_text if text else leaf_from_json
    number = parse("sim.num_envs", value)  # an integer, as num_envs is
    if name == "resolution":
        return [("render.width", number), ("render.height", number)]
    return [("auto_threads", number == 0)] + ([("sim.num_threads", number)] if number else [])


def _listed(value) -> list:
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    raise InvalidArgumentError(f"sensors: expected a list of strings, got {value!r}")
