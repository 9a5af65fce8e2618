// Shared by the compute renderer's passes (trace.comp, shade.comp): buffer references to the
// BVH and the per-pixel arrays, and each pixel's primary ray. Conventions as the raster
// renderer's (render_common.glsl): row 0 is the top of the image, rays go through pixel
// centres, and a ray's direction has camera-frame z = -1, so its parameter t is the
// view-axis distance the depth output holds.

// Nodes and triangles are read as vec4s: one 16-byte load each, instead of a load per field.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Vec4Array {
    vec4 items[];
};
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer TraceSceneArray {
    TraceScene items[];
};
layout(buffer_reference, std430, buffer_reference_align = 16) buffer TraceHitArray {
    TraceHit items[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer FloatOutput {
    float items[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer ColorOutput {
    uint items[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer IndexArray {
    uint items[];
};

// The camera-frame direction through the centre of pixel `pixel` (x right, y down).
vec3 camera_ray(uvec2 pixel, uvec2 size, vec2 tan_half) {
    const vec2 ndc = (vec2(pixel) + 0.5) / vec2(size) * 2.0 - 1.0;
    return vec3(ndc.x * tan_half.x, -ndc.y * tan_half.y, -1.0);
}

// Opaque black, the colour of pixels that see nothing (as the raster renderer clears).
const uint kOpaqueBlack = 0xff000000u;
