#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

// Frustum culling: one thread per (view, chunk) of the scene at one resident place, for the
// views of one batch. A chunk whose box lies entirely outside one frustum plane is dropped;
// every other chunk of a view that sees this place becomes an indexed draw.

#include "shared.h"
#include "render_common.glsl"

layout(local_size_x = BATCHSIM_CULL_GROUP_SIZE) in;

layout(push_constant) uniform Push {
    CullParams params;
};

bool outside(CameraPose pose, MeshChunk chunk) {
    const vec3 lo = vec3(chunk.min_x, chunk.min_y, chunk.min_z);
    const vec3 hi = vec3(chunk.max_x, chunk.max_y, chunk.max_z);
    // Per plane, how many of the 8 corners lie outside it.
    int left = 0, right = 0, below = 0, above = 0, behind = 0, beyond = 0;
    for (int corner = 0; corner < 8; ++corner) {
        const vec3 world = vec3((corner & 1) != 0 ? hi.x : lo.x, (corner & 2) != 0 ? hi.y : lo.y,
                                (corner & 4) != 0 ? hi.z : lo.z);
        const vec3 p = to_camera(pose, world);
        const float depth = -p.z;
        left += int(p.x < -depth * params.view.tan_half_x);
        right += int(p.x > depth * params.view.tan_half_x);
        below += int(p.y < -depth * params.view.tan_half_y);
        above += int(p.y > depth * params.view.tan_half_y);
        behind += int(depth < params.view.near_plane);
        beyond += int(depth > params.view.far_plane);
    }
    return left == 8 || right == 8 || below == 8 || above == 8 || behind == 8 || beyond == 8;
}

void main() {
    const uint index = gl_GlobalInvocationID.x;
    if (params.chunk_count == 0 || index >= params.view.view_count * params.chunk_count) return;
    const uint view = params.first_view + index / params.chunk_count;
    const uint chunk_index = index % params.chunk_count;
    const CameraPose pose = PoseArray(params.poses).items[view];
    if (pose.resident_scene != params.place) return;
    const MeshChunk chunk = ChunkArray(params.chunks).items[chunk_index];
    if (outside(pose, chunk)) return;
    const uint slot = atomicAdd(Counter(params.draw_count).value, 1u);
    if (slot >= params.max_draws) return;
    DrawCommandArray(params.draws).items[slot] =
        DrawCommand(chunk.index_count, 1u, chunk.first_index, 0, 0u);
    DrawInfoArray(params.draw_infos).items[slot] = DrawInfo(view, chunk.material);
}
