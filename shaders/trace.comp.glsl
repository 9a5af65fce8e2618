#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

// The compute renderer's trace pass: one thread per pixel of every view of the batch walks
// the BVH of its view's resident scene for the closest hit between the near and far planes
// (double-sided, like the raster pipeline, which culls nothing). It writes depth (0 for a
// miss), and for colour the hit for shade.comp and black for a miss.

#include "shared.h"
#include "render_common.glsl"
#include "trace_common.glsl"

layout(local_size_x = BATCHSIM_TRACE_TILE, local_size_y = BATCHSIM_TRACE_TILE) in;

layout(push_constant) uniform Push {
    TraceParams params;
};

struct Ray {
    vec3 origin;
    vec3 direction;
    vec3 inverse;  // 1 / direction, with zero components nudged to stay finite
};

struct Hit {
    float t;  // the far plane while nothing is hit
    uint triangle;
    vec2 barycentrics;
};

// Entry distance of the ray into a box, or a value > t_max when it misses it in [t_min, t_max].
float enter_box(Ray ray, vec3 lo, vec3 hi, float t_min, float t_max) {
    const vec3 t0 = (lo - ray.origin) * ray.inverse;
    const vec3 t1 = (hi - ray.origin) * ray.inverse;
    const vec3 near = min(t0, t1), far = max(t0, t1);
    const float enter = max(max(near.x, near.y), max(near.z, t_min));
    const float leave = min(min(far.x, far.y), min(far.z, t_max));
    return enter <= leave ? enter : t_max + 1.0;
}

// Moller-Trumbore, both faces; updates `hit` when closer and beyond the near plane.
void intersect_triangle(Ray ray, Vec4Array triangles, uint index, inout Hit hit) {
    const vec4 w0 = triangles.items[3u * index];
    const vec4 w1 = triangles.items[3u * index + 1u];
    const vec4 w2 = triangles.items[3u * index + 2u];
    const vec3 e1 = w1.xyz - w0.xyz, e2 = w2.xyz - w0.xyz;
    const vec3 p = cross(ray.direction, e2);
    const float det = dot(e1, p);
    if (det == 0.0) return;  // parallel to the plane, or a degenerate triangle
    const float inv_det = 1.0 / det;
    const vec3 s = ray.origin - w0.xyz;
    const float b1 = dot(s, p) * inv_det;
    if (b1 < 0.0 || b1 > 1.0) return;
    const vec3 q = cross(s, e1);
    const float b2 = dot(ray.direction, q) * inv_det;
    if (b2 < 0.0 || b1 + b2 > 1.0) return;
    const float t = dot(e2, q) * inv_det;
    if (t < params.near_plane || t >= hit.t) return;
    hit = Hit(t, index, vec2(b1, b2));
}

void intersect_leaf(Ray ray, Vec4Array triangles, uint first, uint count, inout Hit hit) {
    for (uint i = first; i < first + count; ++i) intersect_triangle(ray, triangles, i, hit);
}

// Stack traversal of the two-box nodes: leaves are intersected as soon as their box is hit,
// the nearer inner child is visited next and the other one pushed.
Hit closest_hit(Ray ray, TraceScene scene) {
    Vec4Array nodes = Vec4Array(scene.nodes);
    Vec4Array triangles = Vec4Array(scene.triangles);
    Hit hit = Hit(params.far_plane, kTraceMiss, vec2(0.0));
    uint stack[BATCHSIM_BVH_MAX_DEPTH];
    uint top = 0u, node = 0u;
    while (true) {
        const vec4 l0 = nodes.items[4u * node], l1 = nodes.items[4u * node + 1u];
        const vec4 r0 = nodes.items[4u * node + 2u], r1 = nodes.items[4u * node + 3u];
        const uint left = floatBitsToUint(l0.w), left_count = floatBitsToUint(l1.w);
        const uint right = floatBitsToUint(r0.w), right_count = floatBitsToUint(r1.w);
        const float t_left = enter_box(ray, l0.xyz, l1.xyz, params.near_plane, hit.t);
        const float t_right = enter_box(ray, r0.xyz, r1.xyz, params.near_plane, hit.t);
        bool go_left = t_left <= hit.t, go_right = t_right <= hit.t;
        if (go_left && (left_count & kBvhLeaf) != 0u) {
            intersect_leaf(ray, triangles, left, left_count & ~kBvhLeaf, hit);
            go_left = false;
        }
        go_right = go_right && t_right <= hit.t;  // the left leaf may have come closer
        if (go_right && (right_count & kBvhLeaf) != 0u) {
            intersect_leaf(ray, triangles, right, right_count & ~kBvhLeaf, hit);
            go_right = false;
        }
        if (go_left && go_right) {
            const bool left_first = t_left <= t_right;
            if (top < BATCHSIM_BVH_MAX_DEPTH) stack[top++] = left_first ? right : left;
            node = left_first ? left : right;
        } else if (go_left || go_right) {
            node = go_left ? left : right;
        } else {
            if (top == 0u) break;
            node = stack[--top];
        }
    }
    return hit;
}

Ray world_ray(CameraPose pose, uvec2 pixel) {
    const vec3 camera = camera_ray(pixel, uvec2(params.width, params.height),
                                   vec2(params.tan_half_x, params.tan_half_y));
    const vec3 direction = rotate(vec4(pose.qx, pose.qy, pose.qz, pose.qw), camera);
    // A zero component would make 0 * inf = NaN in the slab test; 1e-30 keeps it finite.
    const vec3 safe = mix(direction, vec3(1e-30), lessThan(abs(direction), vec3(1e-30)));
    return Ray(vec3(pose.x, pose.y, pose.z), direction, 1.0 / safe);
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
