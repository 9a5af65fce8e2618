// One packed scene resident on the GPU: geometry, chunks and materials in device-local
// buffers that shaders reach by device address, and its textures as sampled images.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "assets/packed_scene.hpp"
#include "assets/texture_groups.hpp"
#include "vk/buffer.hpp"
#include "vk/device.hpp"
#include "vk/image.hpp"
#include "vk/upload.hpp"

namespace batchsim::render {

struct GpuSceneOptions {
    VkDeviceSize staging_bytes = vk::kDefaultStagingBytes;  // upload chunk size
    // Device-local bytes the scene may take; 0 asks the device (vk::device_local_budget).
    // Tests set it to reach the too-large error without allocating gigabytes.
    VkDeviceSize available_bytes = 0;
    bool bvh = false;  // upload the BVH too (the compute renderer traces it)
};

// Buffers also allow TRANSFER_SRC so tools and tests can read them back.
struct GpuScene {
    vk::Buffer vertices;  // shared.h Vertex[vertex_count]; storage and vertex buffer
    vk::Buffer indices;   // uint32[index_count], 3 per triangle; storage and index buffer
    vk::Buffer chunks;    // shared.h MeshChunk[chunk_count]; storage buffer
    // shared.h Material[material_count], texture index turned into group slot and layer
    // (texture_groups.hpp); storage buffer (none if 0).
    vk::Buffer materials;
    // shared.h Bvh4Node[], collapsed from the stored BVH2 (assets/bvh_wide.hpp); only with
    // GpuSceneOptions::bvh.
    vk::Buffer bvh_nodes;
    vk::Buffer bvh_triangles;  // shared.h BvhTriangle[]; only with GpuSceneOptions::bvh
    // One per texture group (Material::base_color_texture indexes it): a 2D array image
    // (R8G8B8A8_SRGB, or BC1_RGB_SRGB_BLOCK where the device samples BC1 and the scene stores
    // it; decoded to RGBA8 elsewhere) with a layer per texture of that size
    // (Material::base_color_layer), each
    // with its whole mip chain, in SHADER_READ_ONLY_OPTIMAL, owned by the main queue.
    // Groups are numbered in the order of their first texture, layers in texture order.
    std::vector<vk::Image> textures;
    VkSampler sampler = VK_NULL_HANDLE;  // linear, mip linear, repeat: for every texture
    std::uint32_t vertex_count = 0;
    std::uint32_t index_count = 0;
    std::uint32_t chunk_count = 0;
    std::uint32_t material_count = 0;
    std::string source;  // the scene's source name, for messages

    // Device memory held by the buffers and images, and by the images alone.
    [[nodiscard]] VkDeviceSize bytes() const;
    [[nodiscard]] VkDeviceSize texture_bytes() const;
};

// Device-local bytes a scene's data takes (before allocation alignment), with or without
// its BVH (nodes 4-wide, as uploaded), with BC1 textures as stored or decoded to RGBA8: what
// create_gpu_scene compares with the free device memory.
VkDeviceSize gpu_scene_data_bytes(const assets::PackedScene& scene, bool bvh = false,
                                  bool decode_bc = false);

// Uploads `scene` and waits for the copies. Throws Error(Unsupported) "scene X needs N MiB of
// device memory; the device has M MiB free" before allocating anything when it does not fit:
// the scene is valid, this device cannot hold it (like a missing feature), and the user's
// remedy is a larger device or fewer resident scenes.
GpuScene create_gpu_scene(const vk::Device& device, const assets::PackedScene& scene,
                          const GpuSceneOptions& options = {});
void destroy_gpu_scene(const vk::Device& device, GpuScene& scene);

}  // namespace batchsim::render
