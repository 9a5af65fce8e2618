#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

// Sorts a batch's views by resident place before shading (shade.comp runs one dispatch per
// place, whose textures are bound per place): each place's dispatch then covers only its
// own views, so shading costs one pass over the batch's pixels whatever the number of
// places. The order within a place's list does not matter: every view is shaded once.

#include "shared.h"
#include "render_common.glsl"

layout(local_size_x = BATCHSIM_SHADE_BIN_GROUP_SIZE) in;

layout(push_constant) uniform Push {
    ShadeBinParams params;
};

layout(buffer_reference, std430, buffer_reference_align = 4) buffer DispatchArray {
    ShadeDispatch items[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) buffer UintArray {
    uint items[];
};

void main() {
    const uint i = gl_GlobalInvocationID.x;
    DispatchArray dispatches = DispatchArray(params.dispatches);
    // Every dispatch's tile counts; z was zeroed before and only grows here, atomically.
    if (i < params.place_count * params.chunk_count) {
        dispatches.items[i].x = params.tiles_x;
        dispatches.items[i].y = params.tiles_y;
    }
    if (i >= params.view_count) return;
    const uint view = params.first_view + i;
    const uint place = PoseArray(params.poses).items[view].resident_scene;
    const uint slot = atomicAdd(UintArray(params.counts).items[place], 1u);
    UintArray(params.lists).items[place * params.views + params.first_view + slot] = view;
    atomicAdd(dispatches.items[place * params.chunk_count + slot / kMaxViewsPerDispatch].z, 1u);
}
