"""Scenes and navmeshes: importing models into packed scene files, Habitat .navmesh files.

>>> scene = batchsim.import_scene("apartment.glb", "apartment.bsscene")
>>> navmesh = scene.navmesh()
>>> navmesh.geodesic_distance([1, 0, 1], [4, 0, 3])
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from batchsim import _core
from batchsim._arguments import unknown_field
from batchsim._value_fields import check_instance, check_integer, check_path, guard_fields
from batchsim.errors import ArgumentTypeError, InvalidArgumentError

NavMesh = _core.NavMesh
NavMeshSettings = _core.NavMeshSettings
Scene = _core.Scene

MIB = 1 << 20
# The per-scene texture budget's default (the C++ one: assets/texture_budget.hpp says why).
DEFAULT_TEXTURE_BUDGET_MIB = _core.DEFAULT_TEXTURE_BUDGET_BYTES / MIB
TEXTURE_FORMATS = ("rgba8", "bc1")

# Every NavMeshSettings field, in habitat-sim's order (for CLI flags and reprs).
NAVMESH_SETTING_NAMES = (
    "cell_size",
    "cell_height",
    "agent_height",
    "agent_radius",
    "agent_max_climb",
    "agent_max_slope",
    "region_min_size",
    "region_merge_size",
    "edge_max_len",
    "edge_max_error",
    "verts_per_poly",
    "detail_sample_dist",
    "detail_sample_max_error",
    "filter_low_hanging_obstacles",
    "filter_ledge_spans",
    "filter_walkable_low_height_spans",
)
guard_fields(NavMeshSettings, NAVMESH_SETTING_NAMES)
_default_settings_init = NavMeshSettings.__init__


def _settings_init(self: NavMeshSettings, *args: Any, **fields: Any) -> None:
    """NavMeshSettings(**fields): habitat-sim's defaults with ``fields`` set, each through its
    checked setter (as SimConfig's keywords are)."""
    if args:
        raise ArgumentTypeError(
            f"NavMeshSettings(): takes its fields as keywords only, got {len(args)} positional "
            f"argument(s): {args[0]!r}"
        )
    _default_settings_init(self)
    for name, value in fields.items():
        if name not in NAVMESH_SETTING_NAMES:
            raise unknown_field("NavMeshSettings", name, NAVMESH_SETTING_NAMES)
        setattr(self, name, value)


NavMeshSettings.__init__ = _settings_init


def navmesh_settings(**overrides: Any) -> NavMeshSettings:
    """Habitat's default NavMeshSettings with `overrides` applied, validated."""
    settings = NavMeshSettings()
    for name, value in overrides.items():
        if name not in NAVMESH_SETTING_NAMES:
            expected = ", ".join(NAVMESH_SETTING_NAMES)
            raise InvalidArgumentError(
                f"unknown navmesh setting {name!r}; expected one of {expected}"
            )
        setattr(settings, name, value)
    settings.validate()
    return settings


def _settings_repr(settings: NavMeshSettings) -> str:
    fields = ", ".join(f"{n}={getattr(settings, n)!r}" for n in NAVMESH_SETTING_NAMES)
    return f"NavMeshSettings({fields})"


NavMeshSettings.__repr__ = _settings_repr


@dataclasses.dataclass(frozen=True)
class ImportSummary:
    """What `batchsim import` reports about the scene it wrote."""

    path: str
    triangles: int
    vertices: int
    textures: int
    texture_bytes: int  # stored mip chains (RGBA8 or BC1)
    file_bytes: int
    loaded_bytes: int  # in memory once loaded (compressed files inflate to this)
    islands: int
    navigable_area: float


def import_scene(
    model: str | os.PathLike,
    out: str | os.PathLike,
    *,
    up: str = "y",
    axes: str | None = None,
    scale: float = 1.0,
    navmesh: str | os.PathLike | None = None,
    bake_navmesh: bool = True,
    settings: NavMeshSettings | None = None,
    chunk_triangles: int = 1024,
    texture_budget_mib: float = DEFAULT_TEXTURE_BUDGET_MIB,
    texture_format: str = "rgba8",
    compress: bool = True,
) -> Scene:
    """Imports `model` (any format Assimp reads) into the packed scene file `out`.

    up/axes: the model's up axis ("y", Habitat's convention, or "z"), or an explicit axis
    mapping such as "x,z,-y" (new x, y, z as signed source axes). navmesh: a Habitat
    .navmesh to embed as it is; otherwise one is baked with `settings` (Habitat defaults)
    unless bake_navmesh is False. The file is written atomically.

    Textures are stored as `texture_format` ("rgba8", or "bc1": block-compressed, 1/8 of the
    bytes, decoded by the GPU's samplers) within `texture_budget_mib` MiB of mip chains: the
    largest textures lose their top mip levels until the scene fits (the same ones every
    time); a scene that does not fit even with every texture at 32 texels a side raises
    InvalidArgumentError.

    compress stores the sections deflated (packed scene format 5): a procedural building
    takes 4.6 MB on disk instead of 24.9 and loads in 0.063 s instead of 0.015 s from the
    page cache (docs/scenes.md); compress=False writes format 4, which batchsim builds from
    before compression read too.
    """
    model, out = check_path("model", model), check_path("out", out)
    check_instance("settings", settings, NavMeshSettings)
    if up not in ("y", "z"):
        raise InvalidArgumentError(f"up must be 'y' or 'z', got {up!r}")
    if axes is not None and up != "y":
        raise InvalidArgumentError("give either up or axes, not both")
    check_integer("chunk_triangles", chunk_triangles, 1, 2**32 - 1)  # a C++ uint32
    if not texture_budget_mib > 0 or texture_budget_mib * MIB >= 2**64:
        raise InvalidArgumentError(
            f"texture_budget_mib must be a positive number of MiB, got {texture_budget_mib!r}"
        )
    return _core.import_scene(
        os.fspath(model),
        os.fspath(out),
        axes=axes if axes is not None else _core.axes_for_up(up),
        scale=float(scale),
        navmesh=None if navmesh is None else os.fspath(navmesh),
        bake_navmesh=bake_navmesh,
        settings=settings if settings is not None else NavMeshSettings(),
        chunk_triangles=chunk_triangles,
        texture_budget_bytes=int(texture_budget_mib * MIB),
        texture_format=texture_format,
        compress=bool(compress),
    )


def packed_format_version(compress: bool = True) -> int:
    """The packed scene format version import_scene writes, compressed or not (cache keys of
    imported scenes and procgen manifests hold it)."""
    return _core.PACKED_SCENE_VERSION if compress else _core.PACKED_SCENE_UNCOMPRESSED_VERSION


def summarize(scene: Scene, path: str | os.PathLike) -> ImportSummary:
    navmesh = scene.navmesh() if scene.has_navmesh else None
    return ImportSummary(
        path=os.fspath(path),
        triangles=scene.triangle_count,
        vertices=scene.vertex_count,
        textures=scene.texture_count,
        texture_bytes=scene.texture_bytes,
        file_bytes=scene.file_bytes,
        loaded_bytes=scene.loaded_bytes,
        islands=navmesh.num_islands if navmesh else 0,
        navigable_area=navmesh.navigable_area if navmesh else 0.0,
    )


__all__ = [
    "DEFAULT_TEXTURE_BUDGET_MIB",
    "TEXTURE_FORMATS",
    "ImportSummary",
    "NavMesh",
    "NavMeshSettings",
    "Scene",
    "import_scene",
    "navmesh_settings",
    "packed_format_version",
    "summarize",
]
