// Every view of the batch draws into its own tile of one atlas: the projection is scaled
// into the tile and four clip distances keep triangles inside it. Depth is reversed and
// infinite (z_ndc = near / w): clipping at z = w is the near plane.
// A variant defines WRITE_RGB (1 or 0): only colour needs texture coordinates and material.

layout(push_constant) uniform Push {
    RasterParams params;
};

#if WRITE_RGB
layout(location = 0) out vec2 out_uv;
layout(location = 1) flat out uint out_material;
layout(location = 2) out vec3 out_vertex_color;  // linear: interpolated as light, like texels
#endif

out float gl_ClipDistance[4];

void main() {
    const DrawInfo info = DrawInfoArray(params.draw_infos).items[gl_DrawID];
    const Vertex vertex = VertexArray(params.vertices).items[gl_VertexIndex];
    const CameraPose pose = PoseArray(params.poses).items[info.view];
    const vec3 p = to_camera(pose, vec3(vertex.px, vertex.py, vertex.pz));
    const float w = -p.z;
    const float x = p.x / params.view.tan_half_x;
    const float y = -p.y / params.view.tan_half_y;  // image rows run downwards
    const uint tile_x = info.view % params.view.tiles_x;
    const uint tile_y = info.view / params.view.tiles_x;
    const float sx = float(params.view.tile_width) / float(params.view.atlas_width);
    const float sy = float(params.view.tile_height) / float(params.view.atlas_height);
    const float ox = float(2u * tile_x + 1u) * sx - 1.0;
    const float oy = float(2u * tile_y + 1u) * sy - 1.0;
    gl_Position = vec4(sx * x + ox * w, sy * y + oy * w, params.view.near_plane, w);
    gl_ClipDistance[0] = w - x;
    gl_ClipDistance[1] = w + x;
    gl_ClipDistance[2] = w - y;
    gl_ClipDistance[3] = w + y;
#if WRITE_RGB
    out_uv = vec2(vertex.u, vertex.v);
    out_material = info.material;
    out_vertex_color = vertex_color(vertex.color);
#endif
}
