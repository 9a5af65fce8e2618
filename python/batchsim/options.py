"""The simulator's settings, each declared once. ``SimConfig`` (with its ``TaskConfig``) and
``RenderOptions`` are C++ value types (``sim/config.hpp``, ``env/simulator.hpp``): their
defaults and checks live in C++ only. This module turns keyword arguments into them, so
that ``batchsim.BatchSim``, ``batchsim.Simulator`` and ``batchsim.BatchNavEnv`` accept the
same field names without repeating a default. Every field is set through a check of its type
and C++ range (batchsim._value_fields), which names the field; a field that a config object
and a keyword set to different values is refused rather than one silently winning.

>>> SimConfig(num_envs=64, mode="eval").replace(seed=3)
>>> simulator_configs(num_envs=64, sensors=("depth", "rgb"), resolution=128, backend="compute")
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, NamedTuple

from batchsim import _core
from batchsim._value_fields import check_instance, guard_fields
from batchsim.errors import InvalidArgumentError

SimConfig = _core.SimConfig
TaskConfig = _core.TaskConfig
RenderOptions = _core.RenderOptions
RendererConfig = _core.RendererConfig
for _type in (TaskConfig, SimConfig, RenderOptions, RendererConfig):
    guard_fields(_type, _type.field_names)

SENSORS = ("depth", "rgb")
MAX_RESOLUTION = 4096  # render/batch_renderer.cpp's validate() enforces it too


class SimulatorConfigs(NamedTuple):
    """What a Simulator is made from: the simulation's and the renderer's settings."""

    sim: SimConfig
    render: RenderOptions


def sim_config(config: SimConfig | None = None, **fields: Any) -> SimConfig:
    """``config`` (SimConfig's defaults when None) with ``fields`` set; TypeError names a
    field SimConfig lacks, InvalidArgumentError a bad value or a field that ``config`` and a
    keyword set to different values."""
    check_instance("config", config, SimConfig)
    wanted = SimConfig().replace(**fields)
    _refuse_conflicts(config, "config", wanted, fields)
    return (config if config is not None else SimConfig()).replace(**fields)


def _refuse_conflicts(given, argument: str, wanted, fields) -> None:
    """InvalidArgumentError when ``given`` (a config object, None: none) sets one of
    ``fields`` (a value other than its type's default) to other than the keywords give
    (``wanted``: the defaults with the keywords applied): which should win is a guess, so
    neither does. A keyword over a field the config left at its default is no conflict."""
    if given is None:
        return
    defaults = type(given)()
    for name in sorted(fields):
        mine, theirs = getattr(given, name), getattr(wanted, name)
        if mine != getattr(defaults, name) and mine != theirs:
            raise InvalidArgumentError(
                f"{name}: {argument}= ({type(given).__name__}) sets {mine!r} and a keyword "
                f"{theirs!r}; set each field once, in {argument}= or as a keyword"
            )


def render_options(
    options: RenderOptions | None = None,
    *,
    sensors: Sequence[str] | str | None = None,
    resolution: int | Sequence[int] | None = None,
    **fields: Any,
) -> RenderOptions:
    """``options`` (RenderOptions' defaults when None) with ``fields`` changed. Shorthands:
    ``sensors``, a non-empty subset of ("depth", "rgb"), sets depth and rgb; ``resolution``,
    (height, width) or one int, sets height and width. A field given both in ``options`` and
    as a keyword with different values raises InvalidArgumentError."""
    check_instance("render", options, RenderOptions)
    if sensors is not None:
        chosen = check_sensors(sensors)
        fields |= {"depth": "depth" in chosen, "rgb": "rgb" in chosen}
    if resolution is not None:
        fields["height"], fields["width"] = check_resolution(resolution)
    _refuse_conflicts(options, "render", RenderOptions().replace(**fields), fields)
    return (options if options is not None else RenderOptions()).replace(**fields)


def simulator_configs(
    config: SimConfig | None = None, render: RenderOptions | None = None, **fields: Any
) -> SimulatorConfigs:
    """SimConfig and RenderOptions from keyword ``fields``, each routed to the struct that has
    it (plus render_options' shorthands); TypeError names a field neither has."""
    render_names = {*RenderOptions.field_names, "sensors", "resolution"}
    unknown = sorted(set(fields) - render_names - set(SimConfig.field_names))
    if unknown:
        raise TypeError(
            f"unknown option(s) {unknown}: expected SimConfig fields {list(SimConfig.field_names)}"
            f" or RenderOptions fields {sorted(render_names)}"
        )
    render_fields = {k: v for k, v in fields.items() if k in render_names}
    sim_fields = {k: v for k, v in fields.items() if k not in render_names}
    return SimulatorConfigs(
        sim_config(config, **sim_fields), render_options(render, **render_fields)
    )


def check_sensors(sensors: Sequence[str] | str) -> tuple[str, ...]:
    if isinstance(sensors, str):
        sensors = (sensors,)
    chosen = tuple(dict.fromkeys(sensors))
    unknown = [s for s in chosen if s not in SENSORS]
    if not chosen or unknown:
        raise InvalidArgumentError(
            f"sensors: expected a non-empty subset of {list(SENSORS)}, got {list(sensors)}"
        )
    return chosen


def check_resolution(resolution: int | Sequence[int]) -> tuple[int, int]:
    """(height, width), each an integer in 1..MAX_RESOLUTION (the renderer's limit)."""
    try:
        height, width = (
            (resolution, resolution) if isinstance(resolution, numbers.Integral) else resolution
        )
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"resolution: expected (height, width) or one int, got {resolution!r}"
        ) from None
    for value in (height, width):
        if not isinstance(value, numbers.Integral) or not 1 <= value <= MAX_RESOLUTION:
            raise InvalidArgumentError(
                f"resolution: expected whole numbers of pixels in 1..{MAX_RESOLUTION} for "
                f"height and width, got {resolution!r}"
            )
    return int(height), int(width)


def sensors_of(render: RenderOptions) -> tuple[str, ...]:
    """The sensors ``render`` asks for, in SENSORS order."""
    return tuple(s for s in SENSORS if getattr(render, s))


__all__ = [
    "SENSORS",
    "RenderOptions",
    "RendererConfig",
    "SimConfig",
    "SimulatorConfigs",
    "TaskConfig",
    "check_resolution",
    "check_sensors",
    "render_options",
    "sensors_of",
    "sim_config",
    "simulator_configs",
]
