"""A CUDA twin of the compute renderer's trace pass, for Nsight Compute.

`ncu` profiles CUDA kernels only; it does not see Vulkan dispatches. This script runs the
same traversal as shaders/trace.comp.glsl (same BVH bytes: the 4-wide nodes the renderer
uploads, Scene.bvh4_nodes; same rays, same 8 x 8 pixel tiles, same stack, depth output only)
as a CUDA kernel through CuPy, checks that its depth images equal the Vulkan backend's, and
times both, so that the profile of the twin stands for the Vulkan kernel's. `--kernel bvh2`
runs the two-box traversal the 4-wide one replaced (kernel trace_depth), on the BVH2 bytes
of the packed scene files, to compare the two on the same rays.

    ncu --clock-control none --kernel-name regex:trace_depth --launch-skip 1 --launch-count 1 \\
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \\
        --section WarpStateStats --section LaunchStats \\
        python benchmarks/profile_trace_cuda.py --views 4096
"""

from __future__ import annotations

import argparse
import math
import struct
from pathlib import Path

import numpy as np
import torch

import batchsim
from batchsim.bench.data import DATA_HELP
from batchsim.bench.render import cameras, make_renderer, scene_paths
from batchsim.bench.report import emit, header

BVH_NODES, BVH_TRIANGLES = 10, 11  # packed scene section kinds (docs/scenes.md)

KERNEL = r"""
struct Ray { float3 o, d, inv; };

__device__ float3 rotate(float4 q, float3 v) {
    float3 u = make_float3(q.x, q.y, q.z);
    float3 t = make_float3(2 * (u.y * v.z - u.z * v.y), 2 * (u.z * v.x - u.x * v.z),
                           2 * (u.x * v.y - u.y * v.x));
    return make_float3(v.x + q.w * t.x + (u.y * t.z - u.z * t.y),
                       v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
                       v.z + q.w * t.z + (u.x * t.y - u.y * t.x));
}

// The primary ray through pixel (x, y) of the view at `pose` (x, y, z, qx, qy, qz, qw).
__device__ Ray primary_ray(const float* pose, unsigned x, unsigned y, unsigned width,
                           unsigned height, float tan_x, float tan_y) {
    float px = ((x + 0.5f) / width) * 2 - 1, py = ((y + 0.5f) / height) * 2 - 1;
    float3 d = rotate(make_float4(pose[3], pose[4], pose[5], pose[6]),
                      make_float3(px * tan_x, -py * tan_y, -1.0f));
    Ray r;
    r.o = make_float3(pose[0], pose[1], pose[2]);
    r.d = d;
    r.inv = make_float3(1.0f / (fabsf(d.x) < 1e-30f ? 1e-30f : d.x),
                        1.0f / (fabsf(d.y) < 1e-30f ? 1e-30f : d.y),
                        1.0f / (fabsf(d.z) < 1e-30f ? 1e-30f : d.z));
    return r;
}

__device__ float enter_box(const Ray& r, float4 lo, float4 hi, float t_min, float t_max) {
    float tx0 = (lo.x - r.o.x) * r.inv.x, tx1 = (hi.x - r.o.x) * r.inv.x;
    float ty0 = (lo.y - r.o.y) * r.inv.y, ty1 = (hi.y - r.o.y) * r.inv.y;
    float tz0 = (lo.z - r.o.z) * r.inv.z, tz1 = (hi.z - r.o.z) * r.inv.z;
    float enter = fmaxf(fmaxf(fminf(tx0, tx1), fminf(ty0, ty1)), fmaxf(fminf(tz0, tz1), t_min));
    float leave = fminf(fminf(fmaxf(tx0, tx1), fmaxf(ty0, ty1)), fminf(fmaxf(tz0, tz1), t_max));
    return enter <= leave ? enter : t_max + 1.0f;
}

__device__ void intersect(const Ray& r, const float4* tris, unsigned i, float near, float& t_hit) {
    float4 a = tris[3 * i], b = tris[3 * i + 1], c = tris[3 * i + 2];
    float3 e1 = make_float3(b.x - a.x, b.y - a.y, b.z - a.z);
    float3 e2 = make_float3(c.x - a.x, c.y - a.y, c.z - a.z);
    float3 p = make_float3(r.d.y * e2.z - r.d.z * e2.y, r.d.z * e2.x - r.d.x * e2.z,
                           r.d.x * e2.y - r.d.y * e2.x);
    float det = e1.x * p.x + e1.y * p.y + e1.z * p.z;
    if (det == 0.0f) return;
    float inv_det = 1.0f / det;
    float3 s = make_float3(r.o.x - a.x, r.o.y - a.y, r.o.z - a.z);
    float b1 = (s.x * p.x + s.y * p.y + s.z * p.z) * inv_det;
    if (b1 < 0.0f || b1 > 1.0f) return;
    float3 q = make_float3(s.y * e1.z - s.z * e1.y, s.z * e1.x - s.x * e1.z,
                           s.x * e1.y - s.y * e1.x);
    float b2 = (r.d.x * q.x + r.d.y * q.y + r.d.z * q.z) * inv_det;
    if (b2 < 0.0f || b1 + b2 > 1.0f) return;
    float t = (e2.x * q.x + e2.y * q.y + e2.z * q.z) * inv_det;
    if (t >= near && t < t_hit) t_hit = t;
}

// Both kernels' parameters, and the setup of the pixel a thread traces: its view's pose,
// BVH nodes, triangles and primary ray.
#define TRACE_PARAMETERS                                                                \
    const float *poses, const unsigned *places, const unsigned long long *scene_nodes, \
        const unsigned long long *scene_triangles, float *depth, unsigned width,       \
        unsigned height, float tan_x, float tan_y, float near, float far
#define TRACE_PIXEL_SETUP                                                          \
    unsigned x = blockIdx.x * 8 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y; \
    if (x >= width || y >= height) return;                                        \
    unsigned view = blockIdx.z;                                                   \
    const float* pose = poses + 7 * view;                                         \
    const float4* nodes = (const float4*)scene_nodes[places[view]];               \
    const float4* tris = (const float4*)scene_triangles[places[view]];            \
    Ray r = primary_ray(pose, x, y, width, height, tan_x, tan_y);

extern "C" __global__ void trace_depth(TRACE_PARAMETERS) {
    TRACE_PIXEL_SETUP
    float t_hit = far;
    bool hit_any = false;
    unsigned stack[64], top = 0, node = 0;
    while (true) {
        float4 l0 = nodes[4 * node], l1 = nodes[4 * node + 1];
        float4 r0 = nodes[4 * node + 2], r1 = nodes[4 * node + 3];
        unsigned left = __float_as_uint(l0.w), left_count = __float_as_uint(l1.w);
        unsigned right = __float_as_uint(r0.w), right_count = __float_as_uint(r1.w);
        float t_left = enter_box(r, l0, l1, near, t_hit);
        float t_right = enter_box(r, r0, r1, near, t_hit);
        bool go_left = t_left <= t_hit, go_right = t_right <= t_hit;
        if (go_left && (left_count & 0x80000000u)) {
            for (unsigned i = left; i < left + (left_count & 0x7fffffffu); ++i)
                intersect(r, tris, i, near, t_hit);
            go_left = false;
        }
        go_right = go_right && t_right <= t_hit;
        if (go_right && (right_count & 0x80000000u)) {
            for (unsigned i = right; i < right + (right_count & 0x7fffffffu); ++i)
                intersect(r, tris, i, near, t_hit);
            go_right = false;
        }
        if (go_left && go_right) {
            bool left_first = t_left <= t_right;
            if (top < 64) stack[top++] = left_first ? right : left;
            node = left_first ? left : right;
        } else if (go_left || go_right) {
            node = go_left ? left : right;
        } else {
            if (top == 0) break;
            node = stack[--top];
        }
    }
    hit_any = t_hit < far;
    depth[(view * height + y) * width + x] = hit_any ? t_hit : 0.0f;
}
"""


# The 4-wide traversal of trace.comp now (assets::closest_hit4 is its CPU twin): 128-byte
# nodes collapsed from the stored BVH2 (Scene.bvh4_nodes), ordered slab tests, children
# sorted by entry distance, leaves on the stack as node * 4 + slot with their entry distance
# (pops drop what a closer hit has put out of reach), while-while loop.
KERNEL4 = r"""
#define LEAF 0x80000000u
#define NONE 0xffffffffu
#define REACH (1.0f + 1.0f / 65536.0f)

// The ray's distances to four planes of one axis: plane * inverse + shift.
__device__ float4 slab4(float4 plane, float inverse, float shift) {
    return make_float4(fmaf(plane.x, inverse, shift), fmaf(plane.y, inverse, shift),
                       fmaf(plane.z, inverse, shift), fmaf(plane.w, inverse, shift));
}

__device__ void order(float& ta, float& tb, unsigned& ea, unsigned& eb) {
    bool swap = tb < ta;
    float t = ta;
    unsigned e = ea;
    ta = swap ? tb : ta, ea = swap ? eb : ea;
    tb = swap ? t : tb, eb = swap ? e : eb;
}

// The top entry still in reach, dropping those a closer hit has put beyond it.
__device__ unsigned pop(const unsigned* stack, const float* stack_t, unsigned& top, float reach) {
    while (top > 0) {
        --top;
        if (stack_t[top] <= reach) return stack[top];
    }
    return NONE;
}

extern "C" __global__ void trace_depth4(TRACE_PARAMETERS) {
    TRACE_PIXEL_SETUP
    float3 shift = make_float3(-r.o.x * r.inv.x, -r.o.y * r.inv.y, -r.o.z * r.inv.z);
    // Per axis, the node vector of the plane the ray meets first (lo, or hi going backwards).
    int nx = r.inv.x < 0, ny = 2 + (r.inv.y < 0), nz = 4 + (r.inv.z < 0);
    float t_hit = far;
    unsigned stack[64], top = 0, entry = 0;
    float stack_t[64];  // where the ray enters each entry's box: pops drop those out of reach
    while (entry != NONE) {
        while (!(entry & LEAF)) {
            const float4* n = nodes + 8 * entry;
            float reach = t_hit * REACH;
            float4 x0 = n[nx], x1 = n[nx ^ 1], y0 = n[ny], y1 = n[ny ^ 1];
            float4 z0 = n[nz], z1 = n[nz ^ 1], child = n[6], count = n[7];
            float4 e0 = slab4(x0, r.inv.x, shift.x);
            float4 f0 = slab4(x1, r.inv.x, shift.x);
            float4 e1 = slab4(y0, r.inv.y, shift.y);
            float4 f1 = slab4(y1, r.inv.y, shift.y);
            float4 e2 = slab4(z0, r.inv.z, shift.z);
            float4 f2 = slab4(z1, r.inv.z, shift.z);
            float t[4];
            unsigned e[4];
            const float* E0 = (const float*)&e0; const float* F0 = (const float*)&f0;
            const float* E1 = (const float*)&e1; const float* F1 = (const float*)&f1;
            const float* E2 = (const float*)&e2; const float* F2 = (const float*)&f2;
            const float* C = (const float*)&child; const float* N = (const float*)&count;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                float enter = fmaxf(fmaxf(E0[k], E1[k]), fmaxf(E2[k], near));
                float leave = fminf(fminf(F0[k], F1[k]), fminf(F2[k], reach));
                t[k] = enter <= leave ? enter : 3.0e38f;
                bool inner = __float_as_uint(N[k]) == 0;
                e[k] = inner ? __float_as_uint(C[k]) : (LEAF | (entry * 4 + k));
            }
            order(t[0], t[1], e[0], e[1]);
            order(t[2], t[3], e[2], e[3]);
            order(t[0], t[2], e[0], e[2]);
            order(t[1], t[3], e[1], e[3]);
            order(t[1], t[2], e[1], e[2]);
            unsigned next = NONE;
            float next_t = 0.0f;
#pragma unroll
            for (int k = 3; k >= 0; --k) {
                if (t[k] > reach) continue;
                if (next != NONE) stack[top] = next, stack_t[top] = next_t, ++top;
                next = e[k], next_t = t[k];
            }
            entry = next != NONE ? next : pop(stack, stack_t, top, reach);
        }
        if (entry == NONE) break;
        const unsigned* leaf = (const unsigned*)(nodes + 8 * ((entry & ~LEAF) >> 2));
        unsigned first = leaf[24 + (entry & 3)], end = first + (leaf[28 + (entry & 3)] & ~LEAF);
        for (unsigned i = first; i < end; ++i) intersect(r, tris, i, near, t_hit);
        entry = pop(stack, stack_t, top, t_hit * REACH);
    }
    depth[(view * height + y) * width + x] = t_hit < far ? t_hit : 0.0f;
}
"""


def bvh_sections(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The BVH node and triangle sections of a packed scene file, as float32 arrays."""
    data = path.read_bytes()
    count = struct.unpack_from("<I", data, 12)[0]
    sections = {}
    for i in range(count):
        kind, _, offset, size = struct.unpack_from("<IIQQ", data, 64 + 32 * i)
        sections[kind] = np.frombuffer(data, np.float32, size // 4, offset)
    return sections[BVH_NODES], sections[BVH_TRIANGLES]


def vulkan_depth(scenes, poses, args) -> tuple[np.ndarray, float]:
    """The compute backend's depth and its GPU milliseconds per render."""
    context = batchsim.Context()
    renderer = make_renderer(context, scenes, args.views, args.resolution, "depth", 1, "compute")
    for _ in range(3):
        renderer.render(*poses)
    context.wait_idle()
    depth = torch.from_dlpack(renderer.depth).cpu().numpy()
    return depth, renderer.pass_times(0)["draw_ms"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--views", type=int, default=4096)
    parser.add_argument("--resolution", type=int, default=64)
    parser.add_argument("--scenes", type=int, default=4)
    parser.add_argument("--data", type=Path, help=DATA_HELP)
    parser.add_argument(
        "--kernel",
        choices=("bvh4", "bvh2"),
        default="bvh4",
        help="bvh4: trace.comp's traversal now; bvh2: the two-box traversal it replaced",
    )
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    import cupy as cp  # after parsing, so that --help works without CuPy

    paths = scene_paths(args.data, args.scenes)
    scenes = [batchsim.Scene.load(p) for p in paths]
    positions, rotations, places = cameras(scenes, args.views, seed=0)

    sections = [bvh_sections(p) for p in paths]
    if args.kernel == "bvh4":  # the nodes the renderer uploads: collapsed 4-wide
        sections = [(s.bvh4_nodes(), t) for s, (_, t) in zip(scenes, sections, strict=True)]
    bvhs = [[cp.asarray(a) for a in pair] for pair in sections]
    node_table = cp.asarray([b[0].data.ptr for b in bvhs], dtype=cp.uint64)
    triangle_table = cp.asarray([b[1].data.ptr for b in bvhs], dtype=cp.uint64)
    pose_array = cp.asarray(np.concatenate([positions, rotations], 1).astype(np.float32))
    size = args.resolution
    depth = cp.zeros((args.views, 1, size, size), cp.float32)
    name = "trace_depth4" if args.kernel == "bvh4" else "trace_depth"
    kernel = cp.RawKernel(KERNEL + KERNEL4, name)
    tiles = math.ceil(size / 8)
    launch = lambda: kernel(  # noqa: E731
        (tiles, tiles, args.views),
        (8, 8, 1),
        (
            pose_array,
            cp.asarray(places),
            node_table,
            triangle_table,
            depth,
            np.uint32(size),
            np.uint32(size),
            np.float32(1.0),
            np.float32(1.0),
            np.float32(0.01),
            np.float32(1000.0),
        ),
    )
    launch()  # warm-up (ncu: --launch-skip 1)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(5):
        launch()
    stop.record()
    stop.synchronize()
    cuda_ms = cp.cuda.get_elapsed_time(start, stop) / 5

    reference, vulkan_ms = vulkan_depth(scenes, (positions, rotations, places), args)
    same = np.abs(cp.asnumpy(depth) - reference) <= 1e-4
    emit(
        {
            "benchmark": "profile_trace_cuda",
            **header(args),
            "kernel": args.kernel,
            "views": args.views,
            "resolution": size,
            "rays": args.views * size * size,
            "cuda_ms": cuda_ms,
            "vulkan_draw_ms": vulkan_ms,
            "cuda_rays_per_s": args.views * size * size / (cuda_ms / 1e3),
            "depth_equal_share": float(same.mean()),
        },
        args.out,
    )


if __name__ == "__main__":
    main()
