"""Procedural buildings (apartments, offices; a share of them 2-3 storeys with stairs, some
with a split level reached by a ramp and bay windows, all with a garden round them) as GLB
files for PointNav.

>>> scene = generate_scene(seed=7, kind="office")
>>> glb = write_scene(scene, "out", "office_7")
>>> stats = build_scene_files(7, "out", "office_7", "office")  # GLB + .bsscene with navmesh
>>> stats = build_scene_files(7, "out", "office_7", "office", write_glb=False)  # .bsscene only

Everything follows from the seed through one numpy Generator: the same arguments give
byte-identical files.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from batchsim._files import write_bytes_atomically
from batchsim.errors import InvalidArgumentError
from batchsim.procgen.assemble import assemble
from batchsim.procgen.bays import find_bays
from batchsim.procgen.geometry import MeshData
from batchsim.procgen.gltf import Material, encode_glb
from batchsim.procgen.layout import make_layout
from batchsim.procgen.outdoor import Outdoor, make_outdoor
from batchsim.procgen.placement import furnish
from batchsim.procgen.plan import Layout
from batchsim.procgen.ramps import find_split
from batchsim.procgen.textures import MATERIALS, VARIANTS, texture_png

KINDS = ("apartment", "office")
MIN_BUDGET = 10_000  # below this the walls and furniture alone do not fit
MAX_BUDGET = 5_000_000  # far above any real scan; guards against typos
MULTI_STOREY_SHARE = 0.4  # of scenes: 2 storeys, or 3 for a third of them


@dataclasses.dataclass(frozen=True)
class ProcScene:
    """A generated scene: triangles per material, their materials, and what was built."""

    seed: int
    kind: str
    rooms: int  # rooms in the plan, hallway or corridor included
    doors: int
    footprint: tuple[float, float]  # metres along x and z
    triangle_count: int
    meshes: tuple[MeshData, ...]
    materials: dict[str, Material]
    storeys: int = 1
    storey_height: float = 0.0  # m from one storey's floor to the next
    ramps: int = 0  # the split level's and the front door's
    layout: Layout | None = dataclasses.field(default=None, compare=False, repr=False)
    outdoor: Outdoor | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def vertex_count(self) -> int:
        return sum(len(m.positions) for m in self.meshes)

    def glb_bytes(self) -> bytes:
        return encode_glb(list(self.meshes), self.materials, f"{self.kind}_{self.seed}")


def _check(seed, kind, triangle_budget) -> None:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidArgumentError(f"seed must be a non-negative int, got {seed!r}")
    if kind not in KINDS:
        raise InvalidArgumentError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    if not isinstance(triangle_budget, (int, np.integer)) or not (
        MIN_BUDGET <= triangle_budget <= MAX_BUDGET
    ):
        raise InvalidArgumentError(
            f"triangle_budget must be an int in [{MIN_BUDGET}, {MAX_BUDGET}], "
            f"got {triangle_budget!r}"
        )


def plan_scene(seed: int, kind: str = "apartment") -> tuple[Layout, np.random.Generator]:
    """generate_scene's plan (storeys, rooms, doors, split level, bays, materials) and the
    random stream that goes on to furnish it; quick, for finding seeds with a feature."""
    _check(seed, kind, MIN_BUDGET)
    rng = np.random.default_rng(int(seed))
    storeys = 1
    if rng.random() < MULTI_STOREY_SHARE:
        storeys = 3 if rng.random() < 1 / 3 else 2
    layout = make_layout(rng, kind, storeys)
    layout = dataclasses.replace(layout, split=find_split(rng, layout))
    return dataclasses.replace(layout, bays=find_bays(rng, layout)), rng


def generate_scene(
    seed: int, kind: str = "apartment", triangle_budget: int = 150_000, *, ceiling: bool = True
) -> ProcScene:
    """A furnished `kind` building of about `triangle_budget` triangles (y up, the ground
    floor at y = 0), with a garden round it."""
    _check(seed, kind, triangle_budget)
    layout, rng = plan_scene(seed, kind)
    density = rng.uniform(0.6, 1.3)
    pieces = [furnish(layout.storey(k), rng, density) for k in range(layout.storeys)]
    outdoor = make_outdoor(rng, layout.entrance is not None)
    meshes = assemble(layout, pieces, int(triangle_budget), ceiling, outdoor).build()
    variants = {name: int(rng.integers(VARIANTS)) for name in sorted(MATERIALS)}
    materials = {  # only the materials in use: their textures take most of the time
        mesh.material: Material(
            mesh.material,
            (1.0, 1.0, 1.0, 1.0),  # the colour is in the texture
            texture_png(mesh.material, variants[mesh.material]),
            MATERIALS[mesh.material].metallic,
            MATERIALS[mesh.material].roughness,
        )
        for mesh in meshes
    }
    return ProcScene(
        int(seed),
        kind,
        len(layout.rooms),
        len(layout.doors),
        layout.size,
        sum(len(m.indices) for m in meshes),
        tuple(meshes),
        materials,
        layout.storeys,
        layout.storey_height,
        int(layout.split is not None) + int(outdoor.ramp),
        layout,
        outdoor,
    )


def write_scene(scene: ProcScene, directory: str | os.PathLike, name: str) -> Path:
    """Writes `<directory>/<name>.glb` atomically; returns its path."""
    path = Path(directory) / f"{name}.glb"
    write_bytes_atomically(path, scene.glb_bytes())
    return path


def build_scene_files(
    seed: int,
    directory: str | os.PathLike,
    name: str,
    kind: str = "apartment",
    triangle_budget: int = 150_000,
    *,
    write_glb: bool = True,
    compress: bool = True,
    texture_format: str = "rgba8",
) -> dict:
    """Generates a scene, writes `<name>.glb` and imports it into `<name>.bsscene` (navmesh
    baked with Habitat's defaults); returns statistics.

    write_glb=False keeps only the packed scene (batchsim needs nothing else; Habitat needs
    the GLB, which the same seed gives back byte for byte); compress and texture_format are
    import_scene's."""
    from batchsim.scenes import import_scene

    started = time.perf_counter()
    scene = generate_scene(seed, kind, triangle_budget)
    generated = time.perf_counter()
    packed = Path(directory) / f"{name}.bsscene"
    # Without write_glb the GLB is only the importer's input: written where it is deleted.
    glb_folder = (
        contextlib.nullcontext(directory)
        if write_glb
        else tempfile.TemporaryDirectory(prefix="batchsim-procgen-")
    )
    with glb_folder as folder:
        glb = write_scene(scene, folder, name)
        imported = import_scene(glb, packed, compress=compress, texture_format=texture_format)
    navmesh = imported.navmesh()
    areas = [navmesh.island_area(i) for i in range(navmesh.num_islands)]
    return {
        "kind": kind,
        "seed": int(seed),
        "triangles": scene.triangle_count,
        "rooms": scene.rooms,
        "storeys": scene.storeys,
        "storey_height_m": scene.storey_height,
        "doors": scene.doors,
        "bays": len(scene.layout.bays),
        "ramps": scene.ramps,
        "split_level_m": scene.layout.split.height if scene.layout.split else 0.0,
        "footprint_m": list(scene.footprint),
        "navigable_area": float(navmesh.navigable_area),
        "islands": int(navmesh.num_islands),
        "largest_island_share": float(max(areas) / sum(areas)) if areas else 0.0,
        "generate_seconds": generated - started,
        "seconds": time.perf_counter() - started,
    }


__all__ = [
    "KINDS",
    "ProcScene",
    "build_scene_files",
    "generate_scene",
    "plan_scene",
    "write_scene",
]
