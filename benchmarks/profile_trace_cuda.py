"""A CUDA twin of the compute renderer's trace pass, for Nsight Compute.

`ncu` profiles CUDA kernels only; it does not see Vulkan dispatches. This script runs the
same traversal as shaders/trace.comp.glsl (same BVH bytes, read from the packed scene
files; same rays, same 8 x 8 pixel tiles, same stack, depth output only) as a CUDA kernel
through CuPy, checks that its depth images equal the Vulkan backend's, and times both, so
that the profile of the twin stands for the Vulkan kernel's.

    ncu --clock-control none --kernel-name trace_depth --launch-skip 1 --launch-count 1 \\
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

extern "C" __global__ void trace_depth(const float* poses, const unsigned* places,
                                       const unsigned long long* scene_nodes,
                                       const unsigned long long* scene_triangles,
                                       float* depth, unsigned width, unsigned height,
                                       float tan_x, float tan_y, float near, float far) {
    unsigned x = blockIdx.x * 8 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    if (x >= width || y >= height) return;
    unsigned view = blockIdx.z;
    const float* pose = poses + 7 * view;
    const float4* nodes = (const float4*)scene_nodes[places[view]];
    const float4* tris = (const float4*)scene_triangles[places[view]];
    float nx = ((x + 0.5f) / width) * 2 - 1, ny = ((y + 0.5f) / height) * 2 - 1;
    float3 d = rotate(make_float4(pose[3], pose[4], pose[5], pose[6]),
                      make_float3(nx * tan_x, -ny * tan_y, -1.0f));
    Ray r;
    r.o = make_float3(pose[0], pose[1], pose[2]);
    r.d = d;
    r.inv = make_float3(1.0f / (fabsf(d.x) < 1e-30f ? 1e-30f : d.x),
                        1.0f / (fabsf(d.y) < 1e-30f ? 1e-30f : d.y),
                        1.0f / (fabsf(d.z) < 1e-30f ? 1e-30f : d.z));
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
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    import cupy as cp  # after parsing, so that --help works without CuPy

    paths = scene_paths(args.data, args.scenes)
    scenes = [batchsim.Scene.load(p) for p in paths]
    positions, rotations, places = cameras(scenes, args.views, seed=0)

    bvhs = [[cp.asarray(a) for a in bvh_sections(p)] for p in paths]
    node_table = cp.asarray([b[0].data.ptr for b in bvhs], dtype=cp.uint64)
    triangle_table = cp.asarray([b[1].data.ptr for b in bvhs], dtype=cp.uint64)
    pose_array = cp.asarray(np.concatenate([positions, rotations], 1).astype(np.float32))
    size = args.resolution
    depth = cp.zeros((args.views, 1, size, size), cp.float32)
    kernel = cp.RawKernel(KERNEL, "trace_depth")
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
