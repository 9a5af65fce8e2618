"""How `batchsim import-dataset` imports every model, and the cache key that decides
whether an earlier import of a scene is still current."""

from __future__ import annotations

import dataclasses
import json
import math

from batchsim._value_fields import check_integer
from batchsim.errors import InvalidArgumentError
from batchsim.scenes import (
    DEFAULT_TEXTURE_BUDGET_MIB,
    NAVMESH_SETTING_NAMES,
    TEXTURE_FORMATS,
    navmesh_settings,
    packed_format_version,
)


@dataclasses.dataclass(frozen=True)
class ImportSettings:
    """How every model is imported (batchsim.import_scene's keywords)."""

    up: str = "y"
    """The models' up axis: "y" (Habitat's convention) or "z"."""
    axes: str | None = None
    """An explicit axis mapping such as "x,z,-y" instead of `up`."""
    scale: float = 1.0
    """Multiplies positions (source units to metres)."""
    chunk_triangles: int = 1024
    """Triangles per culling chunk."""
    texture_budget_mib: float = DEFAULT_TEXTURE_BUDGET_MIB
    """Most MiB of texture mip chains per scene (import_scene's)."""
    texture_format: str = "rgba8"
    """How textures are stored: "rgba8" or "bc1"."""
    compress: bool = True
    """Store sections deflated (format 5, about a fifth of the bytes); False writes format 4."""
    navmesh: dict = dataclasses.field(default_factory=dict)
    """NavMeshSettings overrides for scenes without a .navmesh beside them (baked)."""

    def validate(self) -> None:
        if self.up not in ("y", "z"):
            raise InvalidArgumentError(f"up must be 'y' or 'z', got {self.up!r}")
        if not (math.isfinite(self.scale) and self.scale > 0):
            raise InvalidArgumentError(f"scale must be finite and > 0, got {self.scale}")
        check_integer("chunk_triangles", self.chunk_triangles, 1, 2**32 - 1)  # a C++ uint32
        if not (math.isfinite(self.texture_budget_mib) and self.texture_budget_mib > 0):
            raise InvalidArgumentError(
                f"texture_budget_mib must be finite and > 0, got {self.texture_budget_mib}"
            )
        if self.texture_format not in TEXTURE_FORMATS:
            raise InvalidArgumentError(
                f"texture_format must be one of {TEXTURE_FORMATS}, got {self.texture_format!r}"
            )
        navmesh_settings(**self.navmesh)

    def cache_key(self, bakes: bool) -> str:
        """Everything besides the input files that decides the output bytes; the bake
        settings only where a navmesh is baked."""
        key = {
            "packed_format_version": packed_format_version(self.compress),
            "up": self.up,
            "axes": self.axes,
            "scale": self.scale,
            "chunk_triangles": self.chunk_triangles,
            "texture_budget_mib": self.texture_budget_mib,
            "texture_format": self.texture_format,
        }
        if bakes:
            settings = navmesh_settings(**self.navmesh)
            key["navmesh_settings"] = {n: getattr(settings, n) for n in NAVMESH_SETTING_NAMES}
        return json.dumps(key, sort_keys=True)
