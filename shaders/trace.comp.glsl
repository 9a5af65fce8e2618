#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

// The compute renderer's trace pass: one thread per pixel of every view of the batch walks
// the 4-wide BVH of its view's resident scene for the closest hit between the near and far
// planes (double-sided, like the raster pipeline, which culls nothing). It writes depth (0
// for a miss), and for colour the hit for shade.comp and black for a miss.

#include "shared.h"
#include "render_common.glsl"
#include "trace_common.glsl"

layout(local_size_x = BATCHSIM_TRACE_TILE, local_size_y = BATCHSIM_TRACE_TILE) in;

layout(push_constant) uniform Push {
    TraceParams params;
};

// A node as its eight 16-byte vectors (Bvh4Node: lo_x, hi_x, lo_y, hi_y, lo_z, hi_z, child,
// count), and BvhTriangle's corners (their w: the other fields).
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer NodeRef {
    vec4 items[8];
};
const uint kChildItem = 6u, kCountItem = 7u;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer TriangleRef {
    vec4 a, b, c;
};

struct Ray {
    vec3 origin;
    vec3 direction;
    vec3 inverse;  // 1 / direction, with zero components nudged to stay finite
    vec3 shift;    // -origin * inverse: a slab distance is then one fma
    // Per axis, which of a node's lo/hi vectors the ray meets first (its NodeRef item): the
    // slab test then needs no min/max to order the two planes.
    uvec3 near_item, far_item;
};

struct Hit {
    float t;  // the far plane while nothing is hit
    uint triangle;
    vec2 barycentrics;
};

// A node's children, in the order the traversal takes them once sorted.
struct Children {
    vec4 t;       // entry distance into each box, kMissed where the ray misses it
    uvec4 entry;  // stack entry: the node index, or the leaf (kBvh4LeafEntry, shared.h)
};

const float kMissed = 3.0e38;  // beyond any far plane
const uint kNoNode = 0xffffffffu;
// Boxes are entered up to this factor beyond the closest hit so far: a triangle in a box's
// face (walls, floors) can be hit a few ulps before the rounded slab distance, and a closer
// one must not be pruned for that. As assets::closest_hit4, the CPU twin of this traversal.
const float kReach = 1.0 + 1.0 / 65536.0;

// Entry distances of the ray into the four boxes of node `node` within [near plane, t_max].
// An unused slot (its box the point at +infinity) gives leave = -inf or enter = +inf: a miss.
Children enter_children(Ray ray, uint node, NodeRef n, float t_max) {
    const vec4 x0 = fma(n.items[ray.near_item.x], vec4(ray.inverse.x), vec4(ray.shift.x));
    const vec4 x1 = fma(n.items[ray.far_item.x], vec4(ray.inverse.x), vec4(ray.shift.x));
    const vec4 y0 = fma(n.items[ray.near_item.y], vec4(ray.inverse.y), vec4(ray.shift.y));
    const vec4 y1 = fma(n.items[ray.far_item.y], vec4(ray.inverse.y), vec4(ray.shift.y));
    const vec4 z0 = fma(n.items[ray.near_item.z], vec4(ray.inverse.z), vec4(ray.shift.z));
    const vec4 z1 = fma(n.items[ray.far_item.z], vec4(ray.inverse.z), vec4(ray.shift.z));
    const vec4 enter = max(max(x0, y0), max(z0, vec4(params.near_plane)));
    const vec4 leave = min(min(x1, y1), min(z1, vec4(t_max)));
    const uvec4 leaves = kBvh4LeafEntry | (node * 4u + uvec4(0, 1, 2, 3));
    const bvec4 inner = equal(floatBitsToUint(n.items[kCountItem]), uvec4(0));
    return Children(mix(vec4(kMissed), enter, lessThanEqual(enter, leave)),
                    mix(leaves, floatBitsToUint(n.items[kChildItem]), inner));
}

// One exchange of the sorting network: the nearer child first.
void order(inout float ta, inout float tb, inout uint ea, inout uint eb) {
    const bool swap = tb < ta;
    const float t = ta;
    const uint e = ea;
    ta = swap ? tb : ta, ea = swap ? eb : ea;
    tb = swap ? t : tb, eb = swap ? e : eb;
}

void sort(inout Children c) {
    order(c.t.x, c.t.y, c.entry.x, c.entry.y);
    order(c.t.z, c.t.w, c.entry.z, c.entry.w);
    order(c.t.x, c.t.z, c.entry.x, c.entry.z);
    order(c.t.y, c.t.w, c.entry.y, c.entry.w);
    order(c.t.y, c.t.z, c.entry.y, c.entry.z);
}

// Moller-Trumbore, both faces; updates `hit` when closer and beyond the near plane.
void intersect_triangle(Ray ray, TriangleRef corners, uint index, inout Hit hit) {
    const vec3 a = corners.a.xyz, b = corners.b.xyz, c = corners.c.xyz;
    const vec3 e1 = b - a, e2 = c - a;
    const vec3 p = cross(ray.direction, e2);
    const float det = dot(e1, p);
    if (det == 0.0) return;  // parallel to the plane, or a degenerate triangle
    const float inv_det = 1.0 / det;
    const vec3 s = ray.origin - a;
    const float b1 = dot(s, p) * inv_det;
    if (b1 < 0.0 || b1 > 1.0) return;
    const vec3 q = cross(s, e1);
    const float b2 = dot(ray.direction, q) * inv_det;
    if (b2 < 0.0 || b1 + b2 > 1.0) return;
    const float t = dot(e2, q) * inv_det;
    if (t < params.near_plane || t >= hit.t) return;
    hit = Hit(t, index, vec2(b1, b2));
}

// The traversal stack, private to each invocation (a global, not a parameter: GLSL would
// copy an array argument in and out): entries and where the ray enters their boxes.
uint stack[BATCHSIM_BVH_MAX_DEPTH];
float stack_t[BATCHSIM_BVH_MAX_DEPTH];
uint stack_top;

void push(uint entry, float t) {
    stack[stack_top] = entry, stack_t[stack_top] = t;
    ++stack_top;
}

// The top entry still in reach, dropping those a hit since has put beyond it; or kNoNode.
uint pop(float reach) {
    while (stack_top > 0u) {
        --stack_top;
        if (stack_t[stack_top] <= reach) return stack[stack_top];
    }
    return kNoNode;
}

// The children of node `node` the ray enters, sorted by entry distance, go on the stack
// farthest first but for the nearest: returned, to be visited next (else the top of the stack).
uint visit_node(Ray ray, uint64_t nodes, uint node, float reach) {
    Children c = enter_children(ray, node, NodeRef(nodes + (uint64_t(node) << 7)), reach);
    sort(c);
    uint next = kNoNode;
    float next_t = 0.0;
    [[unroll]] for (int k = 3; k >= 0; --k) {
        if (c.t[k] > reach) continue;
        if (next != kNoNode) push(next, next_t);
        next = c.entry[k], next_t = c.t[k];
    }
    return next != kNoNode ? next : pop(reach);
}

// Intersects the leaf of a stack entry: slot entry % 4 of node entry / 4.
void visit_leaf(Ray ray, TraceScene scene, uint entry, inout Hit hit) {
    const uint slot = entry & 3u;
    NodeRef node = NodeRef(scene.nodes + (uint64_t((entry & ~kBvh4LeafEntry) >> 2u) << 7));
    const uint first = floatBitsToUint(node.items[kChildItem][slot]);
    const uint end = first + (floatBitsToUint(node.items[kCountItem][slot]) & ~kBvhLeaf);
    for (uint i = first; i < end; ++i)
        intersect_triangle(ray, TriangleRef(scene.triangles + uint64_t(i) * 48ul), i, hit);
}

// Stack traversal of the 4-wide nodes, nearest child first, in the while-while shape (Aila &
// Laine 2009): inner nodes until a leaf comes up, then that leaf, so the rays of a warp that
// reach leaves intersect them together. The collapse keeps the stack within
// BATCHSIM_BVH_MAX_DEPTH entries (assets::collapse_bvh4).
Hit closest_hit(Ray ray, TraceScene scene) {
    Hit hit = Hit(params.far_plane, kTraceMiss, vec2(0.0));
    stack_top = 0u;
    uint entry = 0u;  // the root
    while (entry != kNoNode) {
        while ((entry & kBvh4LeafEntry) == 0u)
            entry = visit_node(ray, scene.nodes, entry, hit.t * kReach);
        if (entry == kNoNode) break;
        visit_leaf(ray, scene, entry, hit);
        entry = pop(hit.t * kReach);
    }
    return hit;
}

Ray world_ray(CameraPose pose, uvec2 pixel) {
    const vec3 camera = camera_ray(pixel, uvec2(params.width, params.height),
                                   vec2(params.tan_half_x, params.tan_half_y));
    const vec3 direction = rotate(vec4(pose.qx, pose.qy, pose.qz, pose.qw), camera);
    // A zero component would make 0 * inf = NaN in the slab test; 1e-30 keeps it finite.
    const vec3 safe = mix(direction, vec3(1e-30), lessThan(abs(direction), vec3(1e-30)));
    const vec3 origin = vec3(pose.x, pose.y, pose.z), inverse = 1.0 / safe;
    const uvec3 near_item = uvec3(0, 2, 4) + uvec3(lessThan(inverse, vec3(0.0)));
    return Ray(origin, direction, inverse, -origin * inverse, near_item, near_item ^ 1u);
}

void main() {
    const uvec2 pixel = gl_GlobalInvocationID.xy;
    if (pixel.x >= params.width || pixel.y >= params.height) return;
    const uint view = params.first_view + gl_WorkGroupID.z;
    const CameraPose pose = PoseArray(params.poses).items[view];
    const TraceScene scene = TraceSceneArray(params.scenes).items[pose.resident_scene];
    Hit hit = Hit(0.0, kTraceMiss, vec2(0.0));
    if (scene.nodes != 0ul) hit = closest_hit(world_ray(pose, pixel), scene);
    const uint index = (view * params.height + pixel.y) * params.width + pixel.x;
    const bool missed = hit.triangle == kTraceMiss;
    if (params.depth != 0ul) FloatOutput(params.depth).items[index] = missed ? 0.0 : hit.t;
    if (params.hits != 0ul) {
        TraceHitArray(params.hits).items[index] =
            TraceHit(hit.triangle, packUnorm2x16(hit.barycentrics), hit.t, 0u);
        if (missed) ColorOutput(params.rgb).items[index] = kOpaqueBlack;
    }
}
