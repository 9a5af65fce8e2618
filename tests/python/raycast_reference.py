"""A plain numpy ray caster: the CPU reference for the batch renderer's depth and RGB images.

Written from the conventions below and the packed scene's Python API (batchsim.Scene), not
from the renderer, so that the two can be checked against each other. Double precision
inside; only numpy.

>>> ref = ReferenceScene(batchsim.Scene.load(path))        # preprocess once per scene
>>> out = render(ref, positions, rotations, width=64, height=64, hfov=90.0)
>>> out.depth  # [N, 1, H, W] float32      out.rgb  # [N, H, W, 4] uint8
>>> out.triangle  # [N, H, W] int64, -1 where nothing is hit (to mask silhouettes)

Conventions (what the renderer must produce):

- Camera pose: position (x, y, z) and a unit quaternion (x, y, z, w) mapping the camera frame
  to the world (batchsim.BatchSim's camera_position / camera_rotation, Habitat's). The
  camera looks along its -z; +y is up and +x right in the image.
- Intrinsics: width W, height H, hfov in degrees (horizontal), square pixels:
  tan(vfov / 2) = tan(hfov / 2) * H / W. Near and far planes default to Habitat's 0.01 and
  1000 m.
- Pixel (row r, col c), row 0 at the top: the ray through the pixel centre has camera-frame
  direction (x_ndc * tan(hfov/2), y_ndc * tan(vfov/2), -1) with x_ndc = (c + 0.5) / W * 2 - 1
  and y_ndc = 1 - (r + 0.5) / H * 2. Since that direction's z is -1, the ray parameter t of a
  hit is its z-distance along the view axis.
- Triangles are double-sided (no back-face culling); only triangles listed in the scene's
  chunks are drawn (the renderer draws chunks).
- depth[n, 0, r, c] = the z-distance (not the ray length) of the nearest hit with
  near <= z <= far; 0.0 where nothing is hit (as Habitat's depth sensor reads there).
- rgb[n, r, c] = unlit colour: the material's base colour factor (linear RGBA) times the
  vertex colour (glTF COLOR_0: each vertex's sRGB bytes decoded to linear, then interpolated
  with the hit's barycentrics; white without one) times its base-colour texture sampled at
  the hit's interpolated UV, in linear space, encoded to sRGB 8-bit (round half up); alpha
  255. (0, 0, 0, 255) where nothing is hit. Untextured materials give the factor times the
  vertex colour.
- Texture sampling is a GPU's with a linear / linear / repeat sampler on an SRGB image: texel
  bytes are sRGB (RGB; alpha linear) and are decoded to linear before any filtering; UVs wrap
  (repeat); bilinear within a level with texel centres at half-integers (x = u * w - 0.5);
  trilinear between levels floor(lod) and floor(lod) + 1. The level of detail comes from ray
  differentials: the rays through the neighbouring pixel centres (c + 1 and r + 1) meet the
  hit triangle's plane at UVs uv_x and uv_y, and
  lod = log2(max(|(uv_x - uv) * size|, |(uv_y - uv) * size|)), size = level 0's (w, h),
  clamped to [0, mip_count - 1] (a neighbour ray parallel to the plane gives the last level).
  This is the GPU's screen-space derivative of the perspective-correct UV, taken forward.
- Texture storage (confirmed in src/assets/importer.cpp and textures.cpp): pixels row 0 is
  the top row of the image file (stb_image's first row) and UV v grows downwards from it:
  glTF UVs are stored as they are, OBJ/OpenGL-style UVs (v up from the bottom row) are
  flipped at import (aiProcess_FlipUVs), so texel (row y, col x) covers
  u in [x / w, (x + 1) / w), v in [y / h, (y + 1) / h) in every format. Mip levels are the
  importer's box-filtered chain, read back with Scene.texture(index, level).

Modules: raycast_textures (colour and texture sampling) and raycast_geometry (the scene in
float64 and ray-triangle intersection, with its culling boxes) hold the parts that stand on
their own; this module adds the cameras, shading and render() and re-exports their public
names, so importers need only raycast_reference.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from raycast_geometry import (
    BARY_EPS,
    BLOCK_TRIANGLES,
    BOX_TESTS,
    FAR,
    NEAR,
    PAIR_BATCH,
    ReferenceScene,
    intersect,
    intersect_brute_force,
)
from raycast_textures import (
    bilinear,
    linear_to_srgb8,
    sample_texture,
    srgb_to_linear,
    texel_linear,
)

# The public names of all three modules, so that tests import from this one alone.
__all__ = [
    "BARY_EPS",
    "BLOCK_TRIANGLES",
    "BOX_TESTS",
    "FAR",
    "NEAR",
    "PAIR_BATCH",
    "RAY_BATCH",
    "Intrinsics",
    "Raycast",
    "ReferenceScene",
    "bilinear",
    "intersect",
    "intersect_brute_force",
    "linear_to_srgb8",
    "quaternion_matrix",
    "render",
    "sample_texture",
    "srgb_to_linear",
    "texel_linear",
]

RAY_BATCH = 1 << 15  # rays intersected together (bounds the pair lists' memory)


# --- cameras --------------------------------------------------------------------------------


def quaternion_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices [N, 3, 3] of quaternions [N, 4] (x, y, z, w; normalised here)."""
    q = np.asarray(q, np.float64).reshape(-1, 4)
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    x, y, z, w = q.T
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
            np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
            np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
        ],
        1,
    )


@dataclasses.dataclass(frozen=True)
class Intrinsics:
    width: int
    height: int
    hfov: float = 90.0  # degrees, horizontal
    near: float = NEAR
    far: float = FAR

    @property
    def tan_half(self) -> tuple[float, float]:
        """(tan(hfov / 2), tan(vfov / 2)) with square pixels."""
        tx = math.tan(math.radians(self.hfov) / 2)
        return tx, tx * self.height / self.width

    def camera_directions(self) -> np.ndarray:
        """Camera-frame ray directions [H, W, 3] through the pixel centres (z = -1)."""
        tx, ty = self.tan_half
        x_ndc = (np.arange(self.width) + 0.5) / self.width * 2 - 1
        y_ndc = 1 - (np.arange(self.height) + 0.5) / self.height * 2
        d = np.empty((self.height, self.width, 3))
        d[..., 0] = x_ndc[None, :] * tx
        d[..., 1] = y_ndc[:, None] * ty
        d[..., 2] = -1.0
        return d

    def pixel_steps(self) -> tuple[np.ndarray, np.ndarray]:
        """Camera-frame direction change to the next column (c + 1) and row (r + 1)."""
        tx, ty = self.tan_half
        return np.array([2 * tx / self.width, 0, 0]), np.array([0, -2 * ty / self.height, 0])


# --- shading --------------------------------------------------------------------------------


def _plane_uv(geo: ReferenceScene, tri, o, d) -> np.ndarray:
    """UVs where rays (o, d) meet the planes of triangles `tri` (NaN if parallel)."""
    n = geo.normal[tri]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.einsum("ij,ij->i", n, geo.v0[tri] - o) / np.einsum("ij,ij->i", n, d)
        w = o + t[:, None] * d - geo.v0[tri]
        nn = np.einsum("ij,ij->i", n, n)
        b1 = np.einsum("ij,ij->i", np.cross(w, geo.e2[tri]), n) / nn
        b2 = np.einsum("ij,ij->i", np.cross(geo.e1[tri], w), n) / nn
    return _interpolate_uv(geo, tri, b1, b2)


def _interpolate_uv(geo: ReferenceScene, tri, b1, b2) -> np.ndarray:
    return _interpolate(geo.uvs, geo.tri[tri], b1, b2)


def _interpolate(values, corners, b1, b2) -> np.ndarray:
    """values[corners[:, 0]] + b1 * (values[corners[:, 1]] - ...) + b2 * (...): per hit."""
    v0, v1, v2 = (values[corners[:, k]] for k in range(3))
    return v0 + b1[:, None] * (v1 - v0) + b2[:, None] * (v2 - v0)


def _shade(geo: ReferenceScene, tri, bary, o, d, dx, dy):
    """Linear RGB [M, 3], UVs [M, 2] and LOD [M] (NaN untextured) of hits on `tri`."""
    uv = _interpolate_uv(geo, tri, bary[:, 0], bary[:, 1])
    material = geo.tri_material[tri]
    color = geo.base_color[material, :3] * _interpolate(
        geo.vertex_rgb, geo.tri[tri], bary[:, 0], bary[:, 1]
    )
    lod = np.full(len(tri), np.nan)
    texture = geo.texture_of[material]
    for index in np.unique(texture[texture >= 0]):
        sel = np.flatnonzero(texture == index)
        levels = geo.texture_levels(int(index))
        size = np.array([levels[0].shape[1], levels[0].shape[0]], np.float64)
        step_x = (_plane_uv(geo, tri[sel], o[sel], d[sel] + dx[sel]) - uv[sel]) * size
        step_y = (_plane_uv(geo, tri[sel], o[sel], d[sel] + dy[sel]) - uv[sel]) * size
        rho = np.maximum(np.linalg.norm(step_x, axis=1), np.linalg.norm(step_y, axis=1))
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = np.log2(rho)
        raw = np.nan_to_num(raw, nan=len(levels) - 1, posinf=len(levels) - 1, neginf=0.0)
        lod[sel] = np.clip(raw, 0, len(levels) - 1)
        color[sel] *= sample_texture(levels, uv[sel], lod[sel])[:, :3]
    return color, uv, lod


# --- rendering ------------------------------------------------------------------------------


@dataclasses.dataclass
class Raycast:
    depth: np.ndarray  # [N, 1, H, W] float32 z-distance, 0 where nothing is hit
    rgb: np.ndarray  # [N, H, W, 4] uint8 sRGB, alpha 255; (0, 0, 0, 255) where nothing is hit
    triangle: np.ndarray  # [N, H, W] int64 hit triangle (row of Scene.indices()), -1 none
    uv: np.ndarray  # [N, H, W, 2] float32 interpolated UV, NaN where nothing is hit
    lod: np.ndarray  # [N, H, W] float32 clamped level of detail, NaN untextured / no hit


def render(
    scene,
    positions,
    rotations,
    width: int,
    height: int,
    hfov: float = 90.0,
    near: float = NEAR,
    far: float = FAR,
    *,
    brute_force: bool = False,
) -> Raycast:
    """Renders N views of `scene` (a ReferenceScene or batchsim.Scene): camera positions
    [N, 3] and rotations [N, 4] (x, y, z, w), camera frame -> world."""
    geo = scene if isinstance(scene, ReferenceScene) else ReferenceScene(scene)
    intr = Intrinsics(int(width), int(height), float(hfov), float(near), float(far))
    positions = np.asarray(positions, np.float64).reshape(-1, 3)
    rot = quaternion_matrix(rotations)
    if len(rot) != len(positions):
        raise ValueError(f"{len(positions)} positions but {len(rot)} rotations")
    n, h, w = len(positions), intr.height, intr.width
    step_x, step_y = intr.pixel_steps()
    dirs = np.einsum("nij,hwj->nhwi", rot, intr.camera_directions()).reshape(-1, 3)
    origins = np.repeat(positions, h * w, axis=0)
    dx = np.repeat(rot @ step_x, h * w, axis=0)
    dy = np.repeat(rot @ step_y, h * w, axis=0)
    depth = np.zeros(n * h * w, np.float32)
    rgb = np.zeros((n * h * w, 4), np.uint8)
    rgb[:, 3] = 255
    triangle = np.full(n * h * w, -1, np.int64)
    uv = np.full((n * h * w, 2), np.nan, np.float32)
    lod = np.full(n * h * w, np.nan, np.float32)
    cast = intersect_brute_force if brute_force else intersect
    for s in range(0, n * h * w, RAY_BATCH):
        part = slice(s, min(s + RAY_BATCH, n * h * w))
        best = cast(geo, origins[part], dirs[part], intr.near, intr.far)
        hit = np.flatnonzero(best.tri >= 0)
        ray = hit + s
        color, hit_uv, hit_lod = _shade(
            geo, best.tri[hit], best.uv[hit], origins[ray], dirs[ray], dx[ray], dy[ray]
        )
        depth[ray] = best.t[hit]
        triangle[ray] = best.tri[hit]
        rgb[ray, :3] = linear_to_srgb8(color)
        uv[ray], lod[ray] = hit_uv, hit_lod
    return Raycast(
        depth.reshape(n, 1, h, w),
        rgb.reshape(n, h, w, 4),
        triangle.reshape(n, h, w),
        uv.reshape(n, h, w, 2),
        lod.reshape(n, h, w),
    )
