"""Scene geometry and ray casting for raycast_reference: a batchsim.Scene's triangles,
materials and textures in float64 (ReferenceScene) and the nearest hit of each ray among them
(intersect). Apart from the cameras and shading so that each part reads on its own;
raycast_reference re-exports every public name here.

Acceleration: a ray-box slab test per chunk AABB, then per block of BLOCK_TRIANGLES
consecutive triangles (the importer sorts a chunk's triangles along a Morton curve, so such
runs are compact), then Möller-Trumbore on the surviving (ray, triangle) pairs, nearest boxes
first, skipping boxes that start behind a ray's nearest hit so far.
"""

from __future__ import annotations

import numpy as np

from raycast_textures import srgb_to_linear, texel_linear

NEAR, FAR = 0.01, 1000.0
BLOCK_TRIANGLES = 16  # triangles per culling box inside a chunk: small boxes, few pairs
PAIR_BATCH = 1 << 17  # (ray, triangle) pairs per Möller-Trumbore batch: small batches prune
BOX_TESTS = 1 << 22  # ray-box tests per slab batch
BARY_EPS = 1e-10  # barycentric slack: rays through a shared edge hit one of its triangles


# --- scene ----------------------------------------------------------------------------------


class ReferenceScene:
    """A batchsim.Scene's triangles, materials and textures in float64, with culling boxes."""

    def __init__(self, scene):
        self.scene = scene
        positions = scene.positions().astype(np.float64)
        self.uvs = scene.uvs().astype(np.float64)
        # vertex colours, decoded per vertex to linear RGB (what is interpolated)
        self.vertex_rgb = srgb_to_linear(scene.colors()[:, :3] / 255.0)
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
