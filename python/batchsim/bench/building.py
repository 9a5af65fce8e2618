"""A large multi-storey building as a GLB, for the large-scene benchmark: deterministic from
a seed (numpy), any triangle count and any number of textures, one material per texture.

>>> stats = write_building("big.glb", triangles=2_000_000, textures=200, texture_mb=300)

Each storey is a grid of rooms (`rooms` x `rooms`, 5 m square) on a concrete slab, with
walls 10 cm thick, a 1 m doorway (under a lintel) in every interior wall and a closed outer
wall; the slab above is the ceiling and a roof (no top face) closes the top. The storeys are not
connected (no stairs), so each is its own navmesh island. The triangles that the walls and
slabs leave go to the floors, every room's floor a grid of patches finely tessellated, so
that the count is real geometry that the renderers must cull, draw or trace. Materials
cycle over the floor patches (there are at least as many patches as textures, so every
material, hence every texture, is used), then over the walls and slabs.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
from pathlib import Path

import numpy as np

from batchsim._files import write_bytes_atomically
from batchsim.bench import building_textures
from batchsim.procgen.geometry import ALL_FACES, NO_BOTTOM, MeshBuilder
from batchsim.procgen.gltf import Material, encode_glb

ROOM = 5.0  # metres per room side
STOREY = 3.0  # floor to floor
SLAB = 0.2  # slab thickness (its top is the storey's floor)
WALL = 0.05  # half a wall's thickness
DOOR_HALF, DOOR_HEIGHT = 0.5, 2.1
BOX_TRIANGLES = 10  # a box without one face
NO_TOP = ALL_FACES - {"+y"}  # slabs: the floor patches are their tops


@dataclasses.dataclass(frozen=True)
class Plan:
    """What to build: storeys of rooms x rooms rooms, `triangles` in all, `textures` materials."""

    triangles: int
    textures: int
    floors: int = 3
    rooms: int = 4

    @property
    def patches_per_side(self) -> int:
        """Floor patches per room side: enough patches in the building for every material."""
        per_room = math.ceil(self.textures / (self.floors * self.rooms**2))
        return max(1, math.ceil(math.sqrt(per_room)))

    @property
    def patch_count(self) -> int:
        return self.floors * self.rooms**2 * self.patches_per_side**2

    def wall_boxes(self, floor: int) -> list[tuple[tuple, tuple]]:
        """(lo, hi) of each wall piece of storey `floor`: along x and along z, on every grid
        line; interior walls leave a doorway under a lintel in each room's side."""
        y0 = floor * STOREY
        y1 = y0 + STOREY - SLAB
        boxes = []
        for line in range(self.rooms + 1):
            c = line * ROOM
            for r in range(self.rooms):
                a, b = r * ROOM, (r + 1) * ROOM
                if 0 < line < self.rooms:
                    mid = (a + b) / 2
                    spans = [(a, mid - DOOR_HALF, y0), (mid + DOOR_HALF, b, y0)]
                    spans.append((mid - DOOR_HALF, mid + DOOR_HALF, y0 + DOOR_HEIGHT))
                else:
                    spans = [(a, b, y0)]
                for s0, s1, bottom in spans:
                    boxes.append(((c - WALL, bottom, s0), (c + WALL, y1, s1)))  # along z
                    boxes.append(((s0, bottom, c - WALL), (s1, y1, c + WALL)))  # along x
        return boxes

    @property
    def fixed_triangles(self) -> int:
        """Triangles of the walls, slabs (no top face: the floor patches are it) and roof."""
        walls = sum(len(self.wall_boxes(f)) for f in range(self.floors)) * BOX_TRIANGLES
        return walls + (self.floors + 1) * BOX_TRIANGLES

    @property
    def minimum_triangles(self) -> int:
        return self.fixed_triangles + 2 * self.patch_count

    def patch_cells(self) -> tuple[int, list[int]]:
        """(n, rows): every patch is n cells across and rows[i] cells deep (2 triangles a
        cell), so that the triangles add up to the plan's within n."""
        if self.triangles < self.minimum_triangles:
            raise ValueError(
                f"{self.triangles} triangles are too few for {self.floors} storeys of "
                f"{self.rooms}x{self.rooms} rooms and {self.textures} textures: at least "
                f"{self.minimum_triangles}"
            )
        cells = (self.triangles - self.fixed_triangles) // 2
        count = self.patch_count
        n = max(1, round(math.sqrt(cells / count)))
        rows, used = [], 0
        for i in range(count):
            wanted = round((i + 1) * cells / count) - used
            rows.append(max(1, round(wanted / n)))
            used += n * rows[-1]
        return n, rows


def build_meshes(plan: Plan, seed: int):
    """The building's MeshData (one per material, names "m000", ...) and each material's
    texture repeat in metres."""
    rng = np.random.default_rng([seed, 3])
    names = [f"m{i:03d}" for i in range(plan.textures)]
    tiles = {
        name: float(t) for name, t in zip(names, rng.uniform(0.8, 3.0, len(names)), strict=True)
    }
    builder = MeshBuilder(tiles)
    cycle = itertools.cycle(names)
    n, rows = plan.patch_cells()
    rows_left = iter(rows)
    side = plan.patches_per_side
    step = ROOM / side
    for floor in range(plan.floors):
        y = floor * STOREY
        for i, j in itertools.product(range(plan.rooms), repeat=2):
            for a, b in itertools.product(range(side), repeat=2):
                x0, z0 = i * ROOM + a * step, j * ROOM + b * step
                # u along +x, v along -z: the front (u x v) faces up.
                origin = (x0, y, z0 + step)
                builder.grid(next(cycle), origin, (step, 0, 0), (0, 0, -step), n, next(rows_left))
    extent = plan.rooms * ROOM
    for floor in range(plan.floors):
        for lo, hi in plan.wall_boxes(floor):
            builder.box(next(cycle), lo, hi, NO_BOTTOM)
        y = floor * STOREY
        builder.box(next(cycle), (0, y - SLAB, 0), (extent, y, extent), NO_TOP)
    top = plan.floors * STOREY - SLAB  # the roof: no top face, so no navmesh up there
    builder.box(next(cycle), (0, top, 0), (extent, top + SLAB, extent), NO_TOP)
    return builder.build()


def write_building(
    path: str | os.PathLike,
    triangles: int = 2_000_000,
    textures: int = 200,
    texture_mb: float = 300.0,
    *,
    seed: int = 0,
    floors: int = 3,
    rooms: int = 4,
    image_format: str = "auto",
    progress=None,
) -> dict:
    """Writes the building GLB atomically; returns what it holds (triangles, vertices, texture
    sizes, decoded and encoded bytes, image formats, file bytes). `progress(i)` is called as
    texture i is encoded."""
    plan = Plan(int(triangles), int(textures), int(floors), int(rooms))
    image_format = building_textures.resolve_format(image_format)
    sizes = building_textures.texture_sizes(plan.textures, texture_mb, seed)
    meshes = build_meshes(plan, seed)
    images = building_textures.encode_textures(sizes, seed, image_format, progress)
    white = (1.0, 1.0, 1.0, 1.0)  # the colour is in the texture
    materials = {}
    for mesh in meshes:  # material "m007" has texture 7
        image, mime = images[int(mesh.material[1:])]
        materials[mesh.material] = Material(mesh.material, white, image, mime_type=mime)
    data = encode_glb(meshes, materials, "large_building")
    write_bytes_atomically(path, data)
    kinds = [mime for _, mime in images]
    return {
        "path": str(Path(path)),
        "triangles": sum(len(m.indices) for m in meshes),
        "vertices": sum(len(m.positions) for m in meshes),
        "floors": plan.floors,
        "rooms_per_floor": plan.rooms**2,
        "footprint_m": plan.rooms * ROOM,
        "floor_patches": plan.patch_count,
        "textures": len(sizes),
        "texture_sizes": size_histogram(sizes),
        "decoded_texture_bytes": sum(w * h * 4 for w, h in sizes),
        "encoded_texture_bytes": sum(len(d) for d, _ in images),
        "image_format": image_format,
        "images": {mime: kinds.count(mime) for mime in sorted(set(kinds))},
        "file_bytes": len(data),
    }


def size_histogram(sizes: list[tuple[int, int]]) -> dict[str, int]:
    """{"WxH": count}, smallest width first."""
    counts: dict[str, int] = {}
    for w, h in sorted(sizes):
        counts[f"{w}x{h}"] = counts.get(f"{w}x{h}", 0) + 1
    return counts
