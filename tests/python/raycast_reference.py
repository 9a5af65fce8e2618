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
- rgb[n, r, c] = unlit colour: the material's base colour factor (linear RGBA) times its
  base-colour texture sampled at the hit's interpolated UV, in linear space, encoded to sRGB
  8-bit (round half up); alpha 255. (0, 0, 0, 255) where nothing is hit. Untextured materials
  give the factor alone.
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

Acceleration: a ray-box slab test per chunk AABB, then per block of BLOCK_TRIANGLES
consecutive triangles (the importer sorts a chunk's triangles along a Morton curve, so such
runs are compact), then Möller-Trumbore on the surviving (ray, triangle) pairs, nearest boxes
first, skipping boxes that start behind a ray's nearest hit so far.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

NEAR, FAR = 0.01, 1000.0
BLOCK_TRIANGLES = 16  # triangles per culling box inside a chunk: small boxes, few pairs
RAY_BATCH = 1 << 15  # rays intersected together (bounds the pair lists' memory)
PAIR_BATCH = 1 << 17  # (ray, triangle) pairs per Möller-Trumbore batch: small batches prune
BOX_TESTS = 1 << 22  # ray-box tests per slab batch
BARY_EPS = 1e-10  # barycentric slack: rays through a shared edge hit one of its triangles


# --- colour ---------------------------------------------------------------------------------


def srgb_to_linear(c: np.ndarray) -> np.ndarray:
    """sRGB-encoded values in [0, 1] -> linear (the exact piecewise sRGB curve)."""
    c = np.asarray(c, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb8(linear: np.ndarray) -> np.ndarray:
    """Linear values -> sRGB bytes (clamped to [0, 1], rounded half up)."""
    x = np.clip(np.asarray(linear, np.float64), 0.0, 1.0)
    c = np.where(x <= 0.0031308, x * 12.92, 1.055 * x ** (1 / 2.4) - 0.055)
    return np.floor(c * 255.0 + 0.5).astype(np.uint8)


def texel_linear(pixels: np.ndarray) -> np.ndarray:
    """RGBA8 texels [..., 4] -> float64 linear RGBA (RGB sRGB-decoded, alpha / 255)."""
    out = np.asarray(pixels, np.float64) / 255.0
    out[..., :3] = srgb_to_linear(out[..., :3])
    return out


# --- texture sampling -----------------------------------------------------------------------


def bilinear(level: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Bilinear, repeat-wrapped samples of one linear-space level [h, w, 4] at uv [M, 2]."""
    h, w = level.shape[:2]
    x = uv[:, 0] * w - 0.5
    y = uv[:, 1] * h - 0.5
    x0, y0 = np.floor(x), np.floor(y)
    fx, fy = (x - x0)[:, None], (y - y0)[:, None]
    x0 = np.mod(x0, w).astype(np.int64)
    y0 = np.mod(y0, h).astype(np.int64)
    x1, y1 = (x0 + 1) % w, (y0 + 1) % h
    top = level[y0, x0] * (1 - fx) + level[y0, x1] * fx
    bottom = level[y1, x0] * (1 - fx) + level[y1, x1] * fx
    return top * (1 - fy) + bottom * fy


def sample_texture(levels: list[np.ndarray], uv: np.ndarray, lod: np.ndarray) -> np.ndarray:
    """Trilinear samples [M, 4] of a mip chain (linear-space levels [h, w, 4], level 0 first)
    at uv [M, 2] with level of detail lod [M] (clamped to [0, len(levels) - 1]; NaN -> last)."""
    last = len(levels) - 1
    lod = np.nan_to_num(np.asarray(lod, np.float64), nan=last, posinf=last, neginf=0.0)
    lod = np.clip(lod, 0.0, last)
    base = np.floor(lod).astype(np.int64)
    frac = (lod - base)[:, None]
    out = np.zeros((len(uv), 4))
    for level in np.unique(base):
        sel = base == level
        here = bilinear(levels[level], uv[sel])
        above = bilinear(levels[min(level + 1, last)], uv[sel])
        out[sel] = here * (1 - frac[sel]) + above * frac[sel]
    return out


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


# --- scene ----------------------------------------------------------------------------------


class ReferenceScene:
    """A batchsim.Scene's triangles, materials and textures in float64, with culling boxes."""

    def __init__(self, scene):
        self.scene = scene
        positions = scene.positions().astype(np.float64)
        self.uvs = scene.uvs().astype(np.float64)
        self.tri = scene.indices().astype(np.int64)
        v0, v1, v2 = (positions[self.tri[:, k]] for k in range(3))
        self.v0, self.e1, self.e2 = v0, v1 - v0, v2 - v0
        self.normal = np.cross(self.e1, self.e2)
        chunks = scene.chunks()
        first = chunks["first_index"].astype(np.int64)
        count = chunks["index_count"].astype(np.int64)
        if np.any(first % 3) or np.any(count % 3):
            raise ValueError("chunk index ranges must hold whole triangles")
        self.chunk_lo, self.chunk_hi = _pad(chunks["min"], chunks["max"])
        self.tri_material = np.full(len(self.tri), -1, np.int64)
        for f, c, m in zip(first // 3, count // 3, chunks["material"], strict=True):
            self.tri_material[f : f + c] = m
        tri_lo = np.minimum(np.minimum(v0, v1), v2)
        tri_hi = np.maximum(np.maximum(v0, v1), v2)
        self._make_blocks(first // 3, count // 3, tri_lo, tri_hi)
        materials = scene.materials()
        self.base_color = np.array([m["base_color"] for m in materials], np.float64)
        self.texture_of = np.array(
            [-1 if m["texture"] is None else m["texture"] for m in materials], np.int64
        )
        self._textures: dict[int, list[np.ndarray]] = {}

    def _make_blocks(self, tri_first, tri_count, tri_lo, tri_hi) -> None:
        starts, counts, owner = [], [], []
        for chunk, (f, c) in enumerate(zip(tri_first, tri_count, strict=True)):
            s = np.arange(f, f + c, BLOCK_TRIANGLES)
            starts.append(s)
            counts.append(np.minimum(BLOCK_TRIANGLES, f + c - s))
            owner.append(np.full(len(s), chunk))
        self.block_first = np.concatenate(starts).astype(np.int64)
        self.block_count = np.concatenate(counts).astype(np.int64)
        self.block_chunk = np.concatenate(owner).astype(np.int64)
        nonempty = self.block_count > 0
        self.block_first = self.block_first[nonempty]
        self.block_count = self.block_count[nonempty]
        self.block_chunk = self.block_chunk[nonempty]
        lo = np.minimum.reduceat(tri_lo, self.block_first) if len(self.block_first) else tri_lo
        hi = np.maximum.reduceat(tri_hi, self.block_first) if len(self.block_first) else tri_hi
        # reduceat runs to the next start; blocks of consecutive chunks may leave gaps, so
        # reduce each block over exactly its own triangles where the next start is not its end
        ends = self.block_first + self.block_count
        gap = np.append(self.block_first[1:], len(tri_lo)) != ends
        for b in np.flatnonzero(gap):
            span = slice(self.block_first[b], ends[b])
            lo[b], hi[b] = tri_lo[span].min(0), tri_hi[span].max(0)
        self.block_lo, self.block_hi = _pad(lo, hi)

    def texture_levels(self, index: int) -> list[np.ndarray]:
        """Texture `index`'s mip chain as linear-space float64 levels [h, w, 4]."""
        if index not in self._textures:
            mips = self.scene.texture(index)["mip_count"]
            self._textures[index] = [
                texel_linear(self.scene.texture(index, level)["pixels"]) for level in range(mips)
            ]
        return self._textures[index]


def _pad(lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """Boxes grown by a hair (float32 bounds, flat boxes) so that no hit falls outside."""
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    eps = 1e-6 * (1 + np.maximum(np.abs(lo), np.abs(hi)))
    return lo - eps, hi + eps


# --- intersection ---------------------------------------------------------------------------


def _ray_box_pairs(origins, inv_dirs, lo, hi, near, far):
    """(ray, box, entry t) for every ray whose [near, far] segment meets a box."""
    rays, boxes, entries = [], [], []
    step = max(1, BOX_TESTS // max(len(lo), 1))
    for s in range(0, len(origins), step):
        o, inv = origins[s : s + step], inv_dirs[s : s + step]
        t_in = np.full((len(o), len(lo)), float(near))
        t_out = np.full((len(o), len(lo)), float(far))
        for axis in range(3):
            t1 = (lo[None, :, axis] - o[:, axis, None]) * inv[:, axis, None]
            t2 = (hi[None, :, axis] - o[:, axis, None]) * inv[:, axis, None]
            np.maximum(t_in, np.minimum(t1, t2), out=t_in)
            np.minimum(t_out, np.maximum(t1, t2), out=t_out)
        r, b = np.nonzero(t_in <= t_out)
        rays.append(r + s)
        boxes.append(b)
        entries.append(t_in[r, b])
    return np.concatenate(rays), np.concatenate(boxes), np.concatenate(entries)


def _moller_trumbore(geo: ReferenceScene, o, d, tri, near, far):
    """Per (ray, triangle) pair: hit mask, t and barycentrics (u, v) of vertices 1 and 2."""
    e1, e2 = geo.e1[tri], geo.e2[tri]
    p = np.cross(d, e2)
    det = np.einsum("ij,ij->i", e1, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / det
        s = o - geo.v0[tri]
        u = np.einsum("ij,ij->i", s, p) * inv
        q = np.cross(s, e1)
        v = np.einsum("ij,ij->i", d, q) * inv
        t = np.einsum("ij,ij->i", e2, q) * inv
        hit = (
            (det != 0)
            & (u >= -BARY_EPS)
            & (v >= -BARY_EPS)
            & (u + v <= 1 + BARY_EPS)
            & (t >= near)
            & (t <= far)
        )
    return hit, t, u, v


class _Nearest:
    """The nearest hit so far per ray: t (inf for none), triangle, barycentrics."""

    def __init__(self, n: int):
        self.t = np.full(n, np.inf)
        self.tri = np.full(n, -1, np.int64)
        self.uv = np.zeros((n, 2))

    def update(self, ray, tri, hit, t, u, v) -> None:
        keep = hit & (t < self.t[ray])
        ray, tri, t, u, v = ray[keep], tri[keep], t[keep], u[keep], v[keep]
        order = np.lexsort((tri, t, ray))  # per ray: nearest, then lowest triangle index
        first = order[np.unique(ray[order], return_index=True)[1]]
        r = ray[first]
        self.t[r], self.tri[r] = t[first], tri[first]
        self.uv[r, 0], self.uv[r, 1] = u[first], v[first]


def intersect(geo: ReferenceScene, origins, dirs, near=NEAR, far=FAR) -> _Nearest:
    """Nearest hits of rays (origins, dirs [R, 3]; t in units of dirs) with box culling."""
    best = _Nearest(len(origins))
    inv = 1.0 / np.where(dirs == 0, 1e-300, dirs)
    ray_c, chunk_c, _ = _ray_box_pairs(origins, inv, geo.chunk_lo, geo.chunk_hi, near, far)
    pair_parts = []
    for chunk in np.unique(chunk_c):
        rays = ray_c[chunk_c == chunk]
        blocks = np.flatnonzero(geo.block_chunk == chunk)
        r, b, t_in = _ray_box_pairs(
            origins[rays], inv[rays], geo.block_lo[blocks], geo.block_hi[blocks], near, far
        )
        pair_parts.append((rays[r], blocks[b], t_in))
    if not pair_parts:
        return best
    ray_b = np.concatenate([p[0] for p in pair_parts])
    block_b = np.concatenate([p[1] for p in pair_parts])
    t_in = np.concatenate([p[2] for p in pair_parts])
    order = np.argsort(t_in, kind="stable")  # nearest boxes first: later ones mostly pruned
    ray_b, block_b, t_in = ray_b[order], block_b[order], t_in[order]
    step = max(1, PAIR_BATCH // BLOCK_TRIANGLES)
    for s in range(0, len(ray_b), step):
        r, b, enter = ray_b[s : s + step], block_b[s : s + step], t_in[s : s + step]
        live = enter <= best.t[r]
        r, b = r[live], b[live]
        counts = geo.block_count[b]
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        tri = np.repeat(geo.block_first[b], counts) + offsets
        ray = np.repeat(r, counts)
        best.update(ray, tri, *_moller_trumbore(geo, origins[ray], dirs[ray], tri, near, far))
    return best


def intersect_brute_force(geo: ReferenceScene, origins, dirs, near=NEAR, far=FAR) -> _Nearest:
    """The same without culling: every ray against every chunk triangle (for tests)."""
    best = _Nearest(len(origins))
    tris = np.flatnonzero(geo.tri_material >= 0)
    step = max(1, PAIR_BATCH // max(len(origins), 1))
    for s in range(0, len(tris), step):
        tri = np.tile(tris[s : s + step], len(origins))
        ray = np.repeat(np.arange(len(origins)), len(tris[s : s + step]))
        best.update(ray, tri, *_moller_trumbore(geo, origins[ray], dirs[ray], tri, near, far))
    return best


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
    uv0, uv1, uv2 = (geo.uvs[geo.tri[tri, k]] for k in range(3))
    return uv0 + b1[:, None] * (uv1 - uv0) + b2[:, None] * (uv2 - uv0)


def _shade(geo: ReferenceScene, tri, bary, o, d, dx, dy):
    """Linear RGB [M, 3], UVs [M, 2] and LOD [M] (NaN untextured) of hits on `tri`."""
    uv = _interpolate_uv(geo, tri, bary[:, 0], bary[:, 1])
    material = geo.tri_material[tri]
    color = geo.base_color[material, :3].copy()
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
