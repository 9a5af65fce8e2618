"""Checked parsing of Habitat PointNav-v1 JSON into PointNavEpisode records.

Every error is a FormatError naming the file, the episode (index and id) and the field, so a
bad record in a 10,000-episode file can be found without a debugger.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from batchsim import _core
from batchsim.datasets.episode import Goal, PointNavEpisode, Quat, Vec3
from batchsim.errors import FormatError

# Unit quaternions in real files are written with ~7 significant digits; 1e-3 accepts those
# and still rejects a yaw angle or an Euler triple stored by mistake.
QUATERNION_NORM_TOLERANCE = 1e-3

# NavigationEpisode's fields across habitat-lab versions; Habitat rejects any other key
# (attrs raises on unknown arguments), and so do we, to catch misspellings.
EPISODE_KEYS = frozenset(
    {
        "episode_id",
        "scene_id",
        "scene_dataset_config",
        "additional_obj_config_paths",
        "start_position",
        "start_rotation",
        "info",
        "goals",
        "start_room",
        "shortest_paths",
    }
)
# The simulator refuses a start or goal coordinate beyond this many metres (no navmesh reaches
# there, and distances from it overflow float32 into NaN metrics); it sees float32 values, so
# the check is on those: 1000000.03 rounds to 1e6 and passes, 1000000.07 does not.
MAX_COORDINATE = float(_core.MAX_NAV_COORDINATE)

REQUIRED_EPISODE_KEYS = ("episode_id", "scene_id", "start_position", "start_rotation", "goals")
GOAL_KEYS = frozenset({"position", "radius"})


class _Where:
    """Names the place in the file that an error is about."""

    def __init__(self, file: str, index: int, episode_id: Any = None):
        self.file, self.index, self.episode_id = file, index, episode_id

    def error(self, field: str, message: str) -> FormatError:
        who = f"episode {self.index}"
        if self.episode_id is not None:
            who += f" (id {self.episode_id!r})"
        return FormatError(f"{self.file}: {who}: {field}: {message}")


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _number(value: Any, where: _Where, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise where.error(field, f"expected a number, got {_type_name(value)} {value!r}")
    try:
        number = float(value)  # an int of 309 digits or more overflows
    except OverflowError:
        raise where.error(
            field, f"expected a finite number, got an integer of {len(str(abs(value)))} digits"
        ) from None
    if not math.isfinite(number):
        raise where.error(field, f"expected a finite number, got {value!r}")
    return number


def _vector(value: Any, length: int, where: _Where, field: str) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) != length:
        got = f"{len(value)} values" if isinstance(value, list) else _type_name(value)
        raise where.error(field, f"expected a list of {length} numbers, got {got}: {value!r}")
    return tuple(_number(v, where, f"{field}[{i}]") for i, v in enumerate(value))


def _as_float32(value: float) -> float:
    with np.errstate(over="ignore"):  # beyond float32's range: inf, refused below
        return float(np.float32(value))


def _position(value: Any, where: _Where, field: str) -> Vec3:
    position = _vector(value, 3, where, field)
    for i, c in enumerate(position):
        if abs(c) > MAX_COORDINATE and not abs(_as_float32(c)) <= MAX_COORDINATE:
            raise where.error(
                f"{field}[{i}]",
                f"expected a coordinate within ±{MAX_COORDINATE:g} m (as float32, what the "
                f"simulator reads; no navmesh reaches farther), got {c!r}",
            )
    return position  # type: ignore[return-value]


def _quaternion(value: Any, where: _Where, field: str) -> Quat:
    q = _vector(value, 4, where, field)
    norm = math.sqrt(sum(c * c for c in q))
    if abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE:
        raise where.error(
            field,
            f"expected a unit quaternion [x, y, z, w] (norm 1 ± {QUATERNION_NORM_TOLERANCE}), "
            f"got norm {norm:.6g}: {value!r}",
        )
    return q  # type: ignore[return-value]


def _goal(value: Any, where: _Where, field: str) -> Goal:
    if not isinstance(value, dict):
        raise where.error(field, f"expected an object, got {_type_name(value)}")
    unknown = sorted(set(value) - GOAL_KEYS)
    if unknown:
        raise where.error(field, f"unknown keys {unknown}; expected {sorted(GOAL_KEYS)}")
    if "position" not in value:
        raise where.error(f"{field}.position", "missing")
    position = _position(value["position"], where, f"{field}.position")
    radius = value.get("radius")
    if radius is not None:
        radius = _number(radius, where, f"{field}.radius")
        if radius <= 0:
            raise where.error(
                f"{field}.radius", f"expected a positive radius or null, got {radius}"
            )
    return position, radius


def _goals(value: Any, where: _Where) -> tuple[Goal, ...]:
    if not isinstance(value, list) or not value:
        got = "an empty list" if value == [] else _type_name(value)
        raise where.error("goals", f"expected a non-empty list of goals, got {got}")
    return tuple(_goal(g, where, f"goals[{i}]") for i, g in enumerate(value))


def _info(value: Any, where: _Where) -> tuple[float | None, tuple[tuple[str, Any], ...]]:
    if value is None:
        return None, ()
    if not isinstance(value, dict):
        raise where.error("info", f"expected an object or null, got {_type_name(value)}")
    distance = value.get("geodesic_distance")
    if distance is not None:
        distance = _number(distance, where, "info.geodesic_distance")
        if distance < 0:
            raise where.error("info.geodesic_distance", f"expected >= 0, got {distance}")
    extra = tuple((k, v) for k, v in value.items() if k != "geodesic_distance")
    return distance, extra


def _episode_id(value: Any, where: _Where) -> str:
    # Habitat writes str ids; some generators wrote ints, which Habitat also accepts.
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise where.error("episode_id", f"expected a string, got {_type_name(value)}")
    return str(value)


def _check_keys(raw: dict, where: _Where) -> None:
    unknown = sorted(set(raw) - EPISODE_KEYS)
    if unknown:
        raise where.error(
            "keys", f"unknown keys {unknown}; expected some of {sorted(EPISODE_KEYS)}"
        )
    for key in REQUIRED_EPISODE_KEYS:
        if key not in raw:
            raise where.error(key, "missing")


def parse_episode(raw: Any, file: str, index: int) -> PointNavEpisode:
    """One episode object of a PointNav-v1 file, checked field by field."""
    where = _Where(file, index)
    if not isinstance(raw, dict):
        raise where.error("episode", f"expected an object, got {_type_name(raw)}")
    where.episode_id = raw.get("episode_id")
    _check_keys(raw, where)
    if not isinstance(raw["scene_id"], str) or not raw["scene_id"]:
        raise where.error("scene_id", f"expected a non-empty string, got {raw['scene_id']!r}")
    paths = raw.get("shortest_paths")
    if paths is not None and not isinstance(paths, list):
        raise where.error("shortest_paths", f"expected a list or null, got {_type_name(paths)}")
    goals = _goals(raw["goals"], where)
    distance, extra_info = _info(raw.get("info"), where)
    return PointNavEpisode(
        episode_id=_episode_id(raw["episode_id"], where),
        scene_id=raw["scene_id"],
        start_position=_position(raw["start_position"], where, "start_position"),
        start_rotation=_quaternion(raw["start_rotation"], where, "start_rotation"),
        goal_position=goals[0][0],
        goal_radius=goals[0][1],
        geodesic_distance=distance,
        shortest_path=paths,
        extra_goals=goals[1:],
        extra_info=extra_info,
    )


def parse_episodes(document: Any, file: str) -> list[PointNavEpisode]:
    """The episodes of a decoded PointNav-v1 document; other top-level keys are ignored."""
    if not isinstance(document, dict):
        raise FormatError(f"{file}: expected a JSON object, got {_type_name(document)}")
    if "episodes" not in document:
        raise FormatError(f"{file}: missing the top-level 'episodes' list")
    episodes = document["episodes"]
    if not isinstance(episodes, list):
        raise FormatError(f"{file}: episodes: expected a list, got {_type_name(episodes)}")
    return [parse_episode(raw, file, i) for i, raw in enumerate(episodes)]
