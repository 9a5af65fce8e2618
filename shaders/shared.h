// GPU-visible structs and constants, declared once: included by GLSL shaders and by C++.
// C++ checks every size and offset below against std430/push-constant layout rules.
#ifndef BATCHSIM_SHADERS_SHARED_H
#define BATCHSIM_SHADERS_SHARED_H

#ifdef __cplusplus
#include <array>
#include <cstddef>
#include <cstdint>
namespace batchsim::gpu {
using uint = std::uint32_t;
using std::uint64_t;
#define BATCHSIM_GPU_CONST(type, name, value) inline constexpr type name = value
// A struct member's default in C++ (GLSL structs have none): brace-initialised structs that
// leave the member out still get the value.
#define BATCHSIM_GPU_DEFAULT(value) = value
// GLSL's 16-byte vectors, as std430 lays them out.
using vec4 = std::array<float, 4>;
using uvec4 = std::array<uint, 4>;
#else
#define BATCHSIM_GPU_CONST(type, name, value) const type name = value
#define BATCHSIM_GPU_DEFAULT(value)
#endif

// ---- fill_pattern.comp: writes a reproducible pattern (self-tests of export and sync) ----

// Threads per workgroup: 256 fills a warp/wavefront multiple on every vendor.
#define BATCHSIM_FILL_PATTERN_GROUP_SIZE 256
// Most workgroups per dispatch; larger buffers are covered by a grid-stride loop.
BATCHSIM_GPU_CONST(uint, kFillPatternMaxGroups, 65535u);
// value[i] = float(((i * kFillPatternIndexStride + seed * kFillPatternSeedStride) mod 2^32)
//                  mod kFillPatternModulus). Odd strides and a prime modulus (< 2^24, so
// exact in float32) make neighbouring elements and consecutive seeds all differ.
BATCHSIM_GPU_CONST(uint, kFillPatternIndexStride, 131u);
BATCHSIM_GPU_CONST(uint, kFillPatternSeedStride, 7919u);
BATCHSIM_GPU_CONST(uint, kFillPatternModulus, 1000003u);

struct FillPatternParams {
    uint64_t address;  // device address of a float32 array
    uint count;        // number of elements to write
    uint seed;
};

// ---- scene geometry: stored as-is in packed scene files and read by the renderers ----

// Vertex colour of a model without one (opaque white: the base colour alone).
BATCHSIM_GPU_CONST(uint, kWhiteVertex, 0xffffffffu);

// One mesh vertex: position in metres (y up), unit normal, texture coordinates and colour.
// The colour (glTF COLOR_0) multiplies the material's base colour and texture; it is RGBA8
// with sRGB-encoded RGB like the textures (8 linear bits would band in the dark), red in the
// low byte (unpackUnorm4x8 order).
struct Vertex {
    float px, py, pz;
    float nx, ny, nz;
    float u, v;
    uint color BATCHSIM_GPU_DEFAULT(kWhiteVertex);
};

// A run of triangles of one material inside a small spatial box: the unit of GPU culling.
// first_index/index_count address the scene's uint32 index array (3 per triangle).
struct MeshChunk {
    float min_x, min_y, min_z;
    uint first_index;
    float max_x, max_y, max_z;
    uint index_count;
    uint material;
    uint pad0, pad1, pad2;
};

// Marks a material without a base-colour texture.
BATCHSIM_GPU_CONST(uint, kNoTexture, 0xffffffffu);

// glTF-style metallic-roughness base colour: factor (linear RGBA) times the texture (sRGB).
// In a packed file base_color_texture is the scene's texture index and base_color_layer is 0;
// on the GPU (gpu_scene.cpp rewrites them) they are the texture's group slot, an index into
// the texture table's arrays, and its layer in that group's array image.
struct Material {
    float base_r, base_g, base_b, base_a;
    uint base_color_texture;  // texture index (packed) or group slot (GPU), or kNoTexture
    uint base_color_layer;    // 0 (packed) or the layer in the group's array image (GPU)
    uint pad1, pad2;
};

// ---- simulator -> renderer: one camera per environment, written every step ----

// Camera position in metres (world frame, y up), the resident scene it sees (0 .. 2K-1:
// two per scene slot, so a slot's next scene can be resident while the old one is in use),
// and its orientation as a unit quaternion (x, y, z, w) that maps the camera's -z axis to
// the view direction (Habitat's convention).
struct CameraPose {
    float x, y, z;
    uint resident_scene;
    float qx, qy, qz, qw;
};

// ---- raster renderer: chunk culling (cull.comp) and drawing (raster.vert/frag) ----

// Threads per culling workgroup; one thread tests one (view, chunk) pair.
#define BATCHSIM_CULL_GROUP_SIZE 64
// Texture groups one scene may have: textures of one size (width, height, mips) share a 2D
// array image, and shaders select the group with constant indices (drivers without
// descriptor indexing, lavapipe among them, allow nothing else). Packing resamples textures
// of rarer sizes so that no scene has more (assets/texture_groups.hpp).
#define BATCHSIM_MAX_TEXTURE_GROUPS 16

// VkDrawIndexedIndirectCommand, written by the culling pass.
struct DrawCommand {
    uint index_count;
    uint instance_count;
    uint first_index;
    int vertex_offset;
    uint first_instance;
};

// What a draw needs besides its indices: the view it belongs to and its material.
struct DrawInfo {
    uint view;
    uint material;
};

// Camera intrinsics and the atlas layout: view v renders into tile
// (v mod tiles_x, v / tiles_x) of tile_width x tile_height pixels.
struct ViewParams {
    float tan_half_x;  // tan(hfov / 2)
    float tan_half_y;  // tan(hfov / 2) * height / width
    float near_plane;
    float far_plane;
    uint tiles_x;
    uint tile_width;
    uint tile_height;
    uint atlas_width;
    uint atlas_height;
    uint view_count;
    uint pad0, pad1;
};

struct CullParams {
    uint64_t poses;       // CameraPose[view_count]
    uint64_t chunks;      // MeshChunk[chunk_count] of the scene at resident place `place`
    uint64_t draws;       // DrawCommand[max_draws]
    uint64_t draw_infos;  // DrawInfo[max_draws]
    uint64_t draw_count;  // uint, zeroed before the pass
    uint chunk_count;
    uint place;
    uint max_draws;
    uint first_view;  // of the batch; view.view_count is the batch's view count
    ViewParams view;
};

struct RasterParams {
    uint64_t poses;       // CameraPose[view_count]
    uint64_t vertices;    // Vertex[] of the place's scene
    uint64_t materials;   // Material[] of the place's scene
    uint64_t draw_infos;  // DrawInfo[] written by the culling pass
    ViewParams view;
};

// ---- compute renderer: ray casting over per-scene BVHs (trace.comp, shade.comp) ----

// A BVH2 node that holds both children's boxes (Aila & Laine 2009): one 64-byte fetch tests
// both. A child is a leaf when its count has kBvhLeaf set; then `left`/`right` is its first
// BvhTriangle and count & ~kBvhLeaf its triangle count (0 for the empty child of a scene
// with one leaf: a ray may enter its box, min 1 > max -1, but finds nothing). Otherwise the
// child is the index of its node, always greater than its parent's (nodes are in depth-first
// order). Node 0 is the root.
BATCHSIM_GPU_CONST(uint, kBvhLeaf, 0x80000000u);
// Deepest node level the builder produces and the loader accepts: the traversal stack of
// trace.comp holds one entry per level.
#define BATCHSIM_BVH_MAX_DEPTH 64
struct BvhNode {
    float left_min_x, left_min_y, left_min_z;
    uint left;
    float left_max_x, left_max_y, left_max_z;
    uint left_count;
    float right_min_x, right_min_y, right_min_z;
    uint right;
    float right_max_x, right_max_y, right_max_z;
    uint right_count;
};

// A 4-wide node the renderer makes at upload by collapsing the stored BVH2 (bvh_wide.hpp):
// its four children's boxes as structure of arrays (lane i of each vector is child i), so
// one node is eight 16-byte loads and the four slab tests run side by side. Child i is
// inner when count[i] is 0: child[i] is then its node index, greater than its parent's.
// Otherwise it is a leaf: child[i] its first BvhTriangle, count[i] kBvhLeaf | triangles.
// An unused slot is an empty leaf whose box is the point at +infinity, which no ray with a
// finite t_max enters. Node 0 is the root. Traversal needs at most BATCHSIM_BVH_MAX_DEPTH
// stack entries (the collapse keeps to that).
//
// A traversal stack entry is a node index, or for a leaf kBvh4LeafEntry | node * 4 + slot:
// the leaf's triangles are then read from that node's child and count.
BATCHSIM_GPU_CONST(uint, kBvh4LeafEntry, 0x80000000u);
// Most nodes: node * 4 + slot fits in 31 bits, and no leaf entry is all ones (no entry).
BATCHSIM_GPU_CONST(uint, kBvh4MaxNodes, 0x1fffffffu);
struct Bvh4Node {
    vec4 lo_x, hi_x, lo_y, hi_y, lo_z, hi_z;
    uvec4 child;
    uvec4 count;
};

// A triangle in BVH leaf order: its corners copied from the scene, so a leaf's triangles
// are one contiguous read; the scene triangle it is (indices[3 * triangle ..]) for texture
// coordinates, and its material.
struct BvhTriangle {
    float ax, ay, az;
    uint triangle;
    float bx, by, bz;
    uint material;
    float cx, cy, cz;
    uint pad0;
};

// Threads per trace/shade workgroup: an 8 x 8 pixel tile of one view, so neighbouring rays
// of a warp walk the same nodes.
#define BATCHSIM_TRACE_TILE 8

// Per resident place, what trace.comp reads; zero addresses for an empty place.
struct TraceScene {
    uint64_t nodes;      // Bvh4Node[]
    uint64_t triangles;  // BvhTriangle[]
};

// The closest hit of one pixel's ray, for the shading pass: triangle kTraceMiss where the
// ray hit nothing between the near and far planes.
BATCHSIM_GPU_CONST(uint, kTraceMiss, 0xffffffffu);
struct TraceHit {
    uint triangle;      // BvhTriangle index in the place's scene
    uint barycentrics;  // (b1, b2) of the hit as two unorm16 (packUnorm2x16)
    float depth;        // view-axis distance in metres
    uint pad0;
};

// Pixel p of view v (v counted from the batch's first view) is element
// (first_view + v) * width * height + p of the depth, hit and colour arrays.
struct TraceParams {
    uint64_t poses;   // CameraPose[]: all views of the renderer
    uint64_t scenes;  // TraceScene[place_count]
    uint64_t depth;   // float32[views][height][width], or 0 when depth is not an output
    uint64_t hits;    // TraceHit[views][height][width], or 0 when rgb is not an output
    uint64_t rgb;     // uint32 (RGBA8)[views][height][width]: misses written black here
    uint first_view;
    uint view_count;
    uint width;
    uint height;
    float tan_half_x;
    float tan_half_y;
    float near_plane;
    float far_plane;
    uint place_count;
    uint pad0;
};

// Views per compute dispatch: the z workgroup count every Vulkan device supports.
BATCHSIM_GPU_CONST(uint, kMaxViewsPerDispatch, 65535u);
// Threads per workgroup of shade_bin.comp.
#define BATCHSIM_SHADE_BIN_GROUP_SIZE 64

// A VkDispatchIndirectCommand: workgroups along x, y and z.
struct ShadeDispatch {
    uint x;
    uint y;
    uint z;
};

// shade_bin.comp sorts a batch's views by place so that each place's shading dispatch covers
// its own views only: view first_view + i goes to lists[place * views + first_view + slot],
// slot counted in counts[place], and chunk slot / kMaxViewsPerDispatch of the place's
// dispatches gets one more z workgroup. dispatches and counts are zero before it runs.
struct ShadeBinParams {
    uint64_t poses;       // CameraPose[]: all views of the renderer
    uint64_t dispatches;  // ShadeDispatch[place_count][chunk_count] of this batch
    uint64_t counts;      // uint[place_count] of this batch
    uint64_t lists;       // uint[place_count][views]
    uint first_view;
    uint view_count;
    uint views;  // of the renderer: each place's list stride
    uint place_count;
    uint chunk_count;
    uint tiles_x;
    uint tiles_y;
    uint pad0;
};

// Workgroup z of a shading dispatch shades view view_list[z] (all of them of this place).
struct ShadeParams {
    uint64_t poses;      // CameraPose[]: all views of the renderer
    uint64_t hits;       // TraceHit[views][height][width] from trace.comp
    uint64_t rgb;        // uint32 (RGBA8)[views][height][width]
    uint64_t triangles;  // BvhTriangle[] of the place's scene
    uint64_t indices;    // uint32[] of the place's scene
    uint64_t vertices;   // Vertex[] of the place's scene
    uint64_t materials;  // Material[] of the place's scene
    uint64_t view_list;  // uint[]: this dispatch's views, from ShadeBinParams::lists
    uint width;
    uint height;
    float tan_half_x;
    float tan_half_y;
    float pixel_spread;  // ray cone spread angle per pixel (radians)
    uint pad0;
};

#ifdef __cplusplus
static_assert(sizeof(BvhNode) == 64 && offsetof(BvhNode, right_min_x) == 32);
static_assert(offsetof(BvhNode, left_count) == 28 && offsetof(BvhNode, right_count) == 60);
static_assert(sizeof(Bvh4Node) == 128 && offsetof(Bvh4Node, child) == 96);
static_assert(sizeof(BvhTriangle) == 48 && offsetof(BvhTriangle, material) == 28);
static_assert(sizeof(TraceScene) == 16 && sizeof(TraceHit) == 16);
static_assert(sizeof(TraceParams) == 80 && offsetof(TraceParams, first_view) == 40);
static_assert(sizeof(ShadeParams) == 88 && offsetof(ShadeParams, width) == 64);
static_assert(sizeof(ShadeBinParams) == 64 && sizeof(ShadeDispatch) == 12);
#endif

#ifdef __cplusplus
static_assert(sizeof(DrawCommand) == 20 && sizeof(DrawInfo) == 8);
static_assert(sizeof(ViewParams) == 48);
static_assert(sizeof(CullParams) == 104 && offsetof(CullParams, view) == 56);
static_assert(sizeof(RasterParams) == 80 && offsetof(RasterParams, view) == 32);
#endif

#ifdef __cplusplus
static_assert(sizeof(CameraPose) == 32 && offsetof(CameraPose, qx) == 16);
static_assert(sizeof(Vertex) == 36);
static_assert(offsetof(Vertex, nx) == 12 && offsetof(Vertex, u) == 24);
static_assert(offsetof(Vertex, color) == 32);
static_assert(sizeof(MeshChunk) == 48);
static_assert(offsetof(MeshChunk, first_index) == 12 && offsetof(MeshChunk, index_count) == 28);
static_assert(offsetof(MeshChunk, material) == 32);
static_assert(sizeof(Material) == 32 && offsetof(Material, base_color_texture) == 16);
static_assert(offsetof(Material, base_color_layer) == 20);
#endif

#ifdef __cplusplus
static_assert(sizeof(FillPatternParams) == 16);
static_assert(offsetof(FillPatternParams, address) == 0);
static_assert(offsetof(FillPatternParams, count) == 8);
static_assert(offsetof(FillPatternParams, seed) == 12);
}  // namespace batchsim::gpu
#endif

#endif  // BATCHSIM_SHADERS_SHARED_H
