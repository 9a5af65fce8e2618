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
layout(set = 0, binding = 0) uniform sampler2DArray textures[BATCHSIM_MAX_TEXTURE_GROUPS];

// Layer `layer` of texture group `group`. Constant group indices only: drivers without
// descriptor indexing allow nothing else. The material is the same for a whole draw, so
// derivatives stay well defined; they are taken outside the switch anyway.
vec4 sample_texture(uint group, uint layer, vec2 uv, vec2 dx, vec2 dy) {
    const vec3 p = vec3(uv, float(layer));
#define BATCHSIM_SAMPLE(i) \
    case i: return textureGrad(textures[i], p, dx, dy);
    switch (group) {
        BATCHSIM_SAMPLE(0) BATCHSIM_SAMPLE(1) BATCHSIM_SAMPLE(2) BATCHSIM_SAMPLE(3)
        BATCHSIM_SAMPLE(4) BATCHSIM_SAMPLE(5) BATCHSIM_SAMPLE(6) BATCHSIM_SAMPLE(7)
        BATCHSIM_SAMPLE(8) BATCHSIM_SAMPLE(9) BATCHSIM_SAMPLE(10) BATCHSIM_SAMPLE(11)
        BATCHSIM_SAMPLE(12) BATCHSIM_SAMPLE(13) BATCHSIM_SAMPLE(14) BATCHSIM_SAMPLE(15)
    }
#undef BATCHSIM_SAMPLE
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
        color.rgb *= sample_texture(material.base_color_texture, material.base_color_layer,
                                    in_uv, dx, dy).rgb;
    out_color = vec4(srgb_encode(clamp(color.rgb, 0.0, 1.0)), 1.0);
#endif
}
