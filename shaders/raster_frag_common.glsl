// The raster renderer's fragment stage, written once for its three output sets. Before
// including this, a variant defines WRITE_DEPTH and WRITE_RGB (1 or 0): each output it
// writes takes the next colour location, depth first. Depth is the view-axis distance
// (linear metres); colour is the unlit base colour factor times the vertex colour times the
// sRGB texture (sampled in linear space), encoded to sRGB here because the colour target is UNORM (so its bytes
// can be copied out as they are).

layout(push_constant) uniform Push {
    RasterParams params;
};

#if WRITE_RGB
layout(location = 0) in vec2 in_uv;
layout(location = 1) flat in uint in_material;
layout(location = 2) in vec3 in_vertex_color;
#endif

#if WRITE_DEPTH
layout(location = 0) out float out_depth;
#endif
#if WRITE_RGB
layout(location = WRITE_DEPTH) out vec4 out_color;
#endif

#if WRITE_RGB
layout(set = 0, binding = 0) uniform sampler2D textures[BATCHSIM_MAX_SCENE_TEXTURES];

// Constant indices only: drivers without descriptor indexing allow nothing else. The
// material is the same for a whole draw, so derivatives stay well defined; they are taken
// outside the switch anyway.
vec4 sample_texture(uint index, vec2 uv, vec2 dx, vec2 dy) {
    switch (index) {
        case 0: return textureGrad(textures[0], uv, dx, dy);
        case 1: return textureGrad(textures[1], uv, dx, dy);
        case 2: return textureGrad(textures[2], uv, dx, dy);
        case 3: return textureGrad(textures[3], uv, dx, dy);
        case 4: return textureGrad(textures[4], uv, dx, dy);
        case 5: return textureGrad(textures[5], uv, dx, dy);
        case 6: return textureGrad(textures[6], uv, dx, dy);
        case 7: return textureGrad(textures[7], uv, dx, dy);
        case 8: return textureGrad(textures[8], uv, dx, dy);
        case 9: return textureGrad(textures[9], uv, dx, dy);
        case 10: return textureGrad(textures[10], uv, dx, dy);
        case 11: return textureGrad(textures[11], uv, dx, dy);
        case 12: return textureGrad(textures[12], uv, dx, dy);
        case 13: return textureGrad(textures[13], uv, dx, dy);
        case 14: return textureGrad(textures[14], uv, dx, dy);
        case 15: return textureGrad(textures[15], uv, dx, dy);
    }
    return vec4(1.0);
}
#endif

void main() {
    const float depth = 1.0 / gl_FragCoord.w;
    if (depth > params.view.far_plane) discard;
#if WRITE_DEPTH
    out_depth = depth;
#endif
#if WRITE_RGB
    const Material material = MaterialArray(params.materials).items[in_material];
    const vec3 factor = vec3(material.base_r, material.base_g, material.base_b);
    vec4 color = vec4(factor * in_vertex_color, 1.0);
    const vec2 dx = dFdx(in_uv), dy = dFdy(in_uv);
    if (material.base_color_texture != kNoTexture)
        color.rgb *= sample_texture(material.base_color_texture, in_uv, dx, dy).rgb;
    out_color = vec4(srgb_encode(clamp(color.rgb, 0.0, 1.0)), 1.0);
#endif
}
