// Shared by both renderers' shaders: buffer references, camera transforms, colour encoding.
// Conventions (tests/python/raycast_reference.py): the camera looks along its -z, +y up,
// +x right; CameraPose's quaternion maps the camera frame to the world.

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer PoseArray {
    CameraPose items[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer ChunkArray {
    MeshChunk items[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer VertexArray {
    Vertex items[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer MaterialArray {
    Material items[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) buffer DrawCommandArray {
    DrawCommand items[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) buffer DrawInfoArray {
    DrawInfo items[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Counter {
    uint value;
};

// q v q* for a unit quaternion q = (x, y, z, w).
vec3 rotate(vec4 q, vec3 v) {
    const vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// A world point in the camera frame of `pose`.
vec3 to_camera(CameraPose pose, vec3 world) {
    const vec4 inverse = vec4(-pose.qx, -pose.qy, -pose.qz, pose.qw);
    return rotate(inverse, world - vec3(pose.x, pose.y, pose.z));
}

// A vertex's colour (RGBA8, sRGB-encoded RGB) as linear RGB.
vec3 vertex_color(uint packed) {
    const vec3 c = unpackUnorm4x8(packed).rgb;
    return mix(pow((c + 0.055) / 1.055, vec3(2.4)), c / 12.92, lessThanEqual(c, vec3(0.04045)));
}

// Linear colour to the sRGB encoding the colour output holds.
vec3 srgb_encode(vec3 linear) {
    const vec3 low = linear * 12.92;
    const vec3 high = 1.055 * pow(linear, vec3(1.0 / 2.4)) - 0.055;
    return mix(high, low, lessThanEqual(linear, vec3(0.0031308)));
}
