#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "shared.h"

layout(local_size_x = BATCHSIM_FILL_PATTERN_GROUP_SIZE) in;

layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer FloatArray {
    float values[];
};

layout(push_constant) uniform Push {
    FillPatternParams params;
};

void main() {
    FloatArray target = FloatArray(params.address);
    const uint stride = gl_NumWorkGroups.x * BATCHSIM_FILL_PATTERN_GROUP_SIZE;
    for (uint i = gl_GlobalInvocationID.x; i < params.count; i += stride) {
        const uint mixed = i * kFillPatternIndexStride + params.seed * kFillPatternSeedStride;
        target.values[i] = float(mixed % kFillPatternModulus);
    }
}
