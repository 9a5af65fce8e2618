"""MeshBuilder: triangles grouped by material, built from boxes, subdivided quads and
cylinders with outward normals and world-scale UVs (y up, counter-clockwise fronts)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

# Unit-cube faces as (origin, u, v) with cross(u, v) the outward normal; v is "up" on
# vertical faces so textures stand upright. Order: +x, -x, +y, -y, +z, -z.
BOX_FACES = np.array(
    [
        [[1, 0, 1], [0, 0, -1], [0, 1, 0]],
        [[0, 0, 0], [0, 0, 1], [0, 1, 0]],
        [[0, 1, 1], [1, 0, 0], [0, 0, -1]],
        [[0, 0, 0], [1, 0, 0], [0, 0, 1]],
        [[0, 0, 1], [1, 0, 0], [0, 1, 0]],
        [[1, 0, 0], [-1, 0, 0], [0, 1, 0]],
    ],
    np.float64,
)
FACE_NAMES = ("+x", "-x", "+y", "-y", "+z", "-z")
ALL_FACES = frozenset(FACE_NAMES)
NO_BOTTOM = ALL_FACES - {"-y"}  # things standing on the floor: the bottom is never seen
SIDES = frozenset({"+x", "-x", "+z", "-z"})
_TRI_A, _TRI_B = np.array([0, 1, 2]), np.array([0, 2, 3])  # a quad's two triangles


@dataclasses.dataclass(frozen=True)
class MeshData:
    """One material's triangles: float32 positions/normals [V,3], uvs [V,2], uint32 [T,3]."""

    material: str
    positions: np.ndarray
    normals: np.ndarray
    uvs: np.ndarray
    indices: np.ndarray


def _uv(points: np.ndarray, u: np.ndarray, v: np.ndarray, tile: float) -> np.ndarray:
    """World-anchored UVs: coordinates along the face's axes, so textures line up across
    neighbouring pieces and keep their real-world scale (`tile` metres per repeat)."""
    return np.stack([points @ u, -(points @ v)], -1) / tile


class MeshBuilder:
    """Collects triangles per material; `tiles` gives each material's texture repeat (m)."""

    def __init__(self, tiles: dict[str, float]):
        self.tiles = tiles
        self._parts: dict[str, list[tuple]] = {name: [] for name in sorted(tiles)}
        self.triangle_count = 0

    def add(self, material, positions, normals, uvs, triangles) -> None:
        self._parts[material].append((positions, normals, uvs, triangles))
        self.triangle_count += len(triangles)

    def grid(self, material: str, origin, u, v, nu: int = 1, nv: int = 1) -> None:
        """A quad origin + [0,1]u + [0,1]v split into nu x nv cells; front = cross(u, v)."""
        origin, u, v = (np.asarray(a, np.float64) for a in (origin, u, v))
        s = np.linspace(0.0, 1.0, nu + 1)
        t = np.linspace(0.0, 1.0, nv + 1)
        points = origin + s[None, :, None] * u + t[:, None, None] * v
        points = points.reshape(-1, 3)
        normal = np.cross(u, v)
        normal /= np.linalg.norm(normal)
        uvs = _uv(points, u / np.linalg.norm(u), v / np.linalg.norm(v), self.tiles[material])
        a = (np.arange(nv)[:, None] * (nu + 1) + np.arange(nu)[None, :]).ravel()
        quads = np.stack([a, a + 1, a + nu + 2, a + nu + 1], 1)
        triangles = np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])
        self.add(material, points, np.broadcast_to(normal, points.shape), uvs, triangles)

    def boxes(self, material: str, lo, hi, faces=ALL_FACES) -> None:
        """N axis-aligned boxes [lo, hi] at once (one quad per face), vectorised."""
        lo = np.atleast_2d(np.asarray(lo, np.float64))
        size = np.atleast_2d(np.asarray(hi, np.float64)) - lo
        keep = [i for i, name in enumerate(FACE_NAMES) if name in faces]
        f = BOX_FACES[keep]  # [F, 3, 3]
        corners = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
        unit = (
            f[:, None, 0]
            + corners[None, :, :1] * f[:, None, 1]
            + corners[None, :, 1:] * f[:, None, 2]
        )
        points = lo[:, None, None, :] + unit[None] * size[:, None, None, :]  # [N, F, 4, 3]
        normals = np.cross(f[:, 1], f[:, 2])  # [F, 3]
        tile = self.tiles[material]
        uvs = (
            np.stack(
                [
                    np.einsum("nfcj,fj->nfc", points, f[:, 1]),
                    -np.einsum("nfcj,fj->nfc", points, f[:, 2]),
                ],
                -1,
            )
            / tile
        )
        n = len(lo) * len(keep)
        base = (np.arange(n) * 4)[:, None]
        triangles = np.concatenate([base + _TRI_A, base + _TRI_B])
        normals = np.broadcast_to(normals[None, :, None, :], points.shape)
        self.add(
            material, points.reshape(-1, 3), normals.reshape(-1, 3), uvs.reshape(-1, 2), triangles
        )

    def box(self, material: str, lo, hi, faces=ALL_FACES) -> None:
        self.boxes(material, [lo], [hi], faces)

    def prism(self, material: str, origin, a, b, c) -> None:
        """A parallelepiped origin + [0,1]a + [0,1]b + [0,1]c (any orientation: angled walls,
        sloping handrails), its six faces pointing outwards."""
        o, a, b, c = (np.asarray(x, np.float64) for x in (origin, a, b, c))
        centre = o + (a + b + c) / 2
        for corner, u, v in (
            (o, a, b),
            (o + c, a, b),
            (o, b, c),
            (o + a, b, c),
            (o, c, a),
            (o + b, c, a),
        ):
            if np.dot(np.cross(u, v), corner + (u + v) / 2 - centre) < 0:
                u, v = v, u
            self.grid(material, corner, u, v)

    def polygon(self, material: str, points, normal) -> None:
        """A flat convex polygon (either winding) facing `normal`, as a triangle fan; UVs
        world-anchored like grid's (u horizontal, v up on walls; x and z on floors)."""
        p = np.asarray(points, np.float64)
        n = np.asarray(normal, np.float64) / np.linalg.norm(normal)
        area = np.cross(p - p[0], np.roll(p, -1, 0) - p[0]).sum(0)  # twice the area, normal
        if np.dot(area, n) < 0:
            p = p[::-1]
        if abs(n[1]) > 0.99:
            u = np.array([1.0, 0.0, 0.0])
        else:
            u = np.cross([0.0, 1.0, 0.0], n)
            u /= np.linalg.norm(u)
        v = np.cross(n, u)
        k = np.arange(1, len(p) - 1)
        fan = np.stack([np.zeros_like(k), k, k + 1], 1)
        normals = np.broadcast_to(n, p.shape)
        self.add(material, p, normals, _uv(p, u, v, self.tiles[material]), fan)

    def extrude(self, sides, footprint, y0: float, y1: float, top=None, bottom=None) -> None:
        """A vertical prism over a convex footprint [(x, z), ...] from y0 to y1: side i (from
        point i to i + 1) in material sides[i], the caps in `top` and `bottom` (None leaves
        a face out: hidden against a neighbour)."""
        f = np.asarray(footprint, np.float64)
        centre = f.mean(0)
        for i, material in enumerate(sides):
            if material is None:
                continue
            a, b = f[i], f[(i + 1) % len(f)]
            inward = np.dot([b[1] - a[1], a[0] - b[0]], (a + b) / 2 - centre) > 0
            a, b = (b, a) if inward else (a, b)  # cross(u, up) must point outwards
            origin = (a[0], y0, a[1])
            self.grid(material, origin, (b[0] - a[0], 0.0, b[1] - a[1]), (0.0, y1 - y0, 0.0))
        if top is not None:
            self.polygon(top, [(x, y1, z) for x, z in f], (0.0, 1.0, 0.0))
        if bottom is not None:
            self.polygon(bottom, [(x, y0, z) for x, z in f], (0.0, -1.0, 0.0))

    def cylinder(
        self, material, base, radius, height, segments, axis=1, top_radius=None, caps=(True, True)
    ) -> None:
        """A cylinder (or frustum when top_radius differs) from `base` along +axis."""
        top_radius = radius if top_radius is None else top_radius
        angle = np.linspace(0.0, 2.0 * math.pi, segments + 1)
        ring = np.stack([np.cos(angle), np.zeros_like(angle), -np.sin(angle)], 1)
        bottom, top = ring * radius, ring * top_radius + np.array([0.0, height, 0.0])
        slope = (radius - top_radius) / height
        side_normal = ring + np.array([0.0, slope, 0.0])
        side_normal /= np.linalg.norm(side_normal, axis=1, keepdims=True)
        points = [np.concatenate([bottom, top])]
        normals = [np.concatenate([side_normal, side_normal])]
        uvs = [np.stack([np.tile(angle * radius, 2), np.repeat([0.0, -height], segments + 1)], 1)]
        i = np.arange(segments)
        triangles = [
            np.concatenate(
                [
                    np.stack([i, i + 1, i + segments + 2], 1),
                    np.stack([i, i + segments + 2, i + segments + 1], 1),
                ]
            )
        ]
        count = 2 * (segments + 1)
        for end, (y, r, sign) in enumerate(((0.0, radius, -1.0), (height, top_radius, 1.0))):
            if not caps[end] or r <= 0:
                continue
            rim = ring[:-1] * r + np.array([0.0, y, 0.0])
            points.append(np.concatenate([[[0.0, y, 0.0]], rim]))
            normals.append(np.broadcast_to([0.0, sign, 0.0], (segments + 1, 3)))
            uvs.append(points[-1][:, [0, 2]] * [1.0, -1.0])
            j = np.arange(segments)
            fan = np.stack([np.zeros(segments, int), 1 + j, 1 + (j + 1) % segments], 1)
            triangles.append(count + (fan if sign > 0 else fan[:, [0, 2, 1]]))
            count += segments + 1
        self._add_local(material, points, normals, uvs, triangles, base, axis)

    def ellipsoid(self, material, center, radii, segments) -> None:
        """A UV ellipsoid (pillows, foliage); pole rows use one triangle per segment."""
        rings = max(3, segments // 2)
        theta = np.linspace(0.0, math.pi, rings + 1)[1:-1]
        phi = np.linspace(0.0, 2.0 * math.pi, segments + 1)
        unit = np.stack(
            [
                np.sin(theta)[:, None] * np.cos(phi)[None],
                np.repeat(np.cos(theta)[:, None], len(phi), 1),
                -np.sin(theta)[:, None] * np.sin(phi)[None],
            ],
            -1,
        ).reshape(-1, 3)
        unit = np.concatenate([unit, [[0.0, 1.0, 0.0], [0.0, -1.0, 0.0]]])
        radii = np.asarray(radii, np.float64)
        normals = unit / radii
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        w = segments + 1
        r, s = np.meshgrid(np.arange(rings - 2), np.arange(segments), indexing="ij")
        a = (r * w + s).ravel()
        body = np.concatenate(
            [np.stack([a, a + w, a + w + 1], 1), np.stack([a, a + w + 1, a + 1], 1)]
        )
        top, bottom = len(unit) - 2, len(unit) - 1
        s = np.arange(segments)
        last = (rings - 2) * w + s
        caps = [
            np.stack([np.full(segments, top), s, s + 1], 1),
            np.stack([np.full(segments, bottom), last + 1, last], 1),
        ]
        uvs = np.stack([np.arctan2(unit[:, 2], unit[:, 0]) * radii[0], -unit[:, 1] * radii[1]], 1)
        self._add_local(material, [unit * radii], [normals], [uvs], [body, *caps], center, 1)

    def _add_local(self, material, points, normals, uvs, triangles, origin, axis) -> None:
        points, normals = np.concatenate(points), np.concatenate(normals)
        rotation = _AXIS_ROTATIONS[axis]
        self.add(
            material,
            points @ rotation.T + np.asarray(origin, np.float64),
            normals @ rotation.T,
            np.concatenate(uvs) / self.tiles[material],
            np.concatenate(triangles),
        )

    def merge(self, other: MeshBuilder, quarter_turns: int, offset) -> None:
        """Adds `other`'s triangles turned by quarter_turns x 90 degrees about +y, then moved."""
        rotation = _quarter_turn(quarter_turns)
        for material, parts in other._parts.items():
            for positions, normals, uvs, triangles in parts:
                moved = positions @ rotation.T + np.asarray(offset, np.float64)
                self.add(material, moved, normals @ rotation.T, uvs, triangles)

    def build(self) -> list[MeshData]:
        """One MeshData per material that has triangles, in sorted material order."""
        meshes = []
        for material, parts in self._parts.items():
            if not parts:
                continue
            offsets = np.cumsum([0, *(len(p[0]) for p in parts[:-1])])
            meshes.append(
                MeshData(
                    material,
                    np.concatenate([p[0] for p in parts]).astype(np.float32),
                    np.concatenate([p[1] for p in parts]).astype(np.float32),
                    np.concatenate([p[2] for p in parts]).astype(np.float32),
                    np.concatenate([p[3] + o for p, o in zip(parts, offsets, strict=True)]).astype(
                        np.uint32
                    ),
                )
            )
        return meshes


def _quarter_turn(k: int) -> np.ndarray:
    """Exact rotation about +y by k x 90 degrees (integers, so no rounding noise)."""
    c, s = [(1, 0), (0, 1), (-1, 0), (0, -1)][k % 4]
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], np.float64)


# Rotations taking the local +y axis of cylinders to world x, y or z (proper rotations).
_AXIS_ROTATIONS = (
    np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 1]], np.float64),
    np.eye(3),
    np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]], np.float64).T,
)
