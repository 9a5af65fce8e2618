#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

// The compute renderer's shading pass, one dispatch per resident place (texture groups are
// bound per place: drivers without descriptor indexing select them by constant index only)
// over that place's views, which shade_bin.comp listed. Each thread whose ray hit something
// writes the unlit base colour there: the material's factor times the interpolated vertex
// colour times its texture at the hit's interpolated texture coordinates, at a mip level
// chosen from the ray cone's footprint (Akenine-Moller et al. 2019, "Texture Level of Detail
// Strategies for Real-Time Ray Tracing"), in place of the raster pipeline's screen-space
// derivatives.

#include "shared.h"
#include "render_common.glsl"
#include "trace_common.glsl"

layout(local_size_x = BATCHSIM_TRACE_TILE, local_size_y = BATCHSIM_TRACE_TILE) in;

layout(push_constant) uniform Push {
    ShadeParams params;
};

layout(set = 0, binding = 0) uniform sampler2DArray textures[BATCHSIM_MAX_TEXTURE_GROUPS];

// Layer `layer` of texture group `group` at `uv`, `lod_bias` levels above the level whose
// texels match one unit of uv area (so the group's texture size is added here, per group:
// every layer of a group has the same size).
vec4 sample_texture(uint group, uint layer, vec2 uv, float lod_bias) {
    const vec3 p = vec3(uv, float(layer));
#define BATCHSIM_SAMPLE(i)                                                          \
    case i: {                                                                       \
        const vec2 size = vec2(textureSize(textures[i], 0).xy);                     \
        return textureLod(textures[i], p, lod_bias + 0.5 * log2(size.x * size.y)); \
    }
    switch (group) {
        BATCHSIM_SAMPLE(0) BATCHSIM_SAMPLE(1) BATCHSIM_SAMPLE(2) BATCHSIM_SAMPLE(3)
        BATCHSIM_SAMPLE(4) BATCHSIM_SAMPLE(5) BATCHSIM_SAMPLE(6) BATCHSIM_SAMPLE(7)
        BATCHSIM_SAMPLE(8) BATCHSIM_SAMPLE(9) BATCHSIM_SAMPLE(10) BATCHSIM_SAMPLE(11)
        BATCHSIM_SAMPLE(12) BATCHSIM_SAMPLE(13) BATCHSIM_SAMPLE(14) BATCHSIM_SAMPLE(15)
    }
#undef BATCHSIM_SAMPLE
    return vec4(1.0);
}

// The mip level of a unit-uv-area texture for the cone of one pixel hitting the triangle
// (corners a, b, c with texture coordinates ta, tb, tc) where the cone, of unit direction
// `direction`, is `width` wide: texel-to-surface density, cone width, and the slant of the
// surface.
float cone_lod(vec3 a, vec3 b, vec3 c, vec2 ta, vec2 tb, vec2 tc, vec3 direction, float width) {
    const vec3 normal = cross(b - a, c - a);
    const float world_area = length(normal);
    const vec2 du = tb - ta, dv = tc - ta;
    const float uv_area = abs(du.x * dv.y - du.y * dv.x);
    const float density = 0.5 * log2(max(uv_area, 1e-20) / max(world_area, 1e-20));
    const float slant = abs(dot(normal / max(world_area, 1e-20), direction));
    return density + log2(max(width, 1e-20)) - log2(max(slant, 1e-4));
}

uint shade(CameraPose pose, uvec2 pixel, TraceHit hit) {
    Vec4Array triangles = Vec4Array(params.triangles);
    const vec4 w0 = triangles.items[3u * hit.triangle];
    const vec4 w1 = triangles.items[3u * hit.triangle + 1u];
    const vec4 w2 = triangles.items[3u * hit.triangle + 2u];
    const uint first = 3u * floatBitsToUint(w0.w);
    IndexArray indices = IndexArray(params.indices);
    VertexArray vertices = VertexArray(params.vertices);
    const Vertex va = vertices.items[indices.items[first]];
    const Vertex vb = vertices.items[indices.items[first + 1u]];
    const Vertex vc = vertices.items[indices.items[first + 2u]];
    const vec2 b = unpackUnorm2x16(hit.barycentrics);
    const vec2 ta = vec2(va.u, va.v), tb = vec2(vb.u, vb.v), tc = vec2(vc.u, vc.v);
    const vec2 uv = ta * (1.0 - b.x - b.y) + tb * b.x + tc * b.y;

    const Material material = MaterialArray(params.materials).items[floatBitsToUint(w1.w)];
    const vec3 vertex_rgb = vertex_color(va.color) * (1.0 - b.x - b.y) +
                            vertex_color(vb.color) * b.x + vertex_color(vc.color) * b.y;
    vec3 color = vec3(material.base_r, material.base_g, material.base_b) * vertex_rgb;
    if (material.base_color_texture != kNoTexture) {
        const vec3 camera = camera_ray(pixel, uvec2(params.width, params.height),
                                       vec2(params.tan_half_x, params.tan_half_y));
        const vec3 direction = rotate(vec4(pose.qx, pose.qy, pose.qz, pose.qw), camera);
        // A pinhole's pixels subtend less off-axis: by cos^2 of the angle to the view axis
        // (1 / |camera| here), which makes the cone as wide as the raster pipeline's
        // screen-space footprint at the hit (depth * spread for a surface facing the camera).
        const float ray_length = hit.depth * length(camera);
        const float width = params.pixel_spread * ray_length / dot(camera, camera);
        const float lod = cone_lod(w0.xyz, w1.xyz, w2.xyz, ta, tb, tc, normalize(direction), width);
        const uint layer = material.base_color_layer;
        color *= sample_texture(material.base_color_texture, layer, uv, lod).rgb;
    }
    const vec3 encoded = srgb_encode(clamp(color, 0.0, 1.0));
    return packUnorm4x8(vec4(encoded, 1.0));
}

void main() {
    const uvec2 pixel = gl_GlobalInvocationID.xy;
    if (pixel.x >= params.width || pixel.y >= params.height) return;
    const uint view = IndexArray(params.view_list).items[gl_WorkGroupID.z];
    const CameraPose pose = PoseArray(params.poses).items[view];
    const uint index = (view * params.height + pixel.y) * params.width + pixel.x;
    const TraceHit hit = TraceHitArray(params.hits).items[index];
    if (hit.triangle == kTraceMiss) return;  // trace.comp wrote black
    ColorOutput(params.rgb).items[index] = shade(pose, pixel, hit);
}
