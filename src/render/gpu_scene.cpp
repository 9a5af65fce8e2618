#include "render/gpu_scene.hpp"

#include <iomanip>
#include <span>
#include <vector>

#include "assets/bvh_wide.hpp"
#include "assets/texture_compression.hpp"
#include "core/check.hpp"
#include "core/strings.hpp"
#include "vk/sync.hpp"

namespace batchsim::render {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

template <typename T>
std::span<const std::uint8_t> as_bytes(std::span<const T> items) {
    return {reinterpret_cast<const std::uint8_t*>(items.data()), items.size_bytes()};
}

std::string mib(VkDeviceSize bytes) {
    return str(std::fixed, std::setprecision(1), static_cast<double>(bytes) / kMiB);
}

// Whether the device samples `format` as it is stored; if not, textures are decoded to RGBA8
// on upload.
bool samples_natively(const vk::Device& device, assets::TextureFormat format) {
    return format == assets::TextureFormat::Rgba8Srgb || device.features.texture_compression_bc;
}

VkFormat image_format(assets::TextureFormat format) {
    return format == assets::TextureFormat::Bc1Srgb ? VK_FORMAT_BC1_RGB_SRGB_BLOCK
                                                    : VK_FORMAT_R8G8B8A8_SRGB;
}

// Device-local bytes of everything but the BVH nodes.
VkDeviceSize data_bytes_but_nodes(const assets::PackedScene& scene, bool bvh, bool decode_bc) {
    VkDeviceSize total = scene.vertices().size_bytes() + scene.indices().size_bytes() +
                         scene.chunks().size_bytes() + scene.materials().size_bytes();
    if (bvh) total += scene.bvh_triangles().size_bytes();
    for (std::size_t i = 0; i < scene.texture_count(); ++i) {
        const assets::TextureView t = scene.texture(i);
        total +=
            decode_bc ? assets::mip_chain_bytes(t.width, t.height, t.mip_count) : t.pixels.size();
    }
    return total;
}

// `nodes`: the 4-wide BVH that will be uploaded (empty without the BVH).
void check_fits(const vk::Device& device, const assets::PackedScene& scene,
                const GpuSceneOptions& options, std::span<const gpu::Bvh4Node> nodes) {
    const bool decode_bc = !device.features.texture_compression_bc;
    const VkDeviceSize needed =
        data_bytes_but_nodes(scene, options.bvh, decode_bc) + nodes.size_bytes();
    const VkDeviceSize available = options.available_bytes > 0
                                       ? options.available_bytes
                                       : vk::device_local_budget(device).available;
    BATCHSIM_CHECK(needed <= available, Unsupported,
                   str("scene ", scene.source(), " needs ", mib(needed),
                       " MiB of device memory; the device has ", mib(available), " MiB free"));
}

// A device-local buffer holding `bytes` (none when empty).
vk::Buffer make_buffer(const vk::Device& device, vk::Uploader& uploader,
                       std::span<const std::uint8_t> bytes, VkBufferUsageFlags usage) {
    if (bytes.empty()) return {};
    vk::Buffer buffer = vk::create_buffer(
        device, {.size = bytes.size(),
                 .usage = usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                          VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                 .location = vk::MemoryLocation::DeviceLocal});
    try {
        vk::upload_buffer(device, uploader, buffer, bytes);
    } catch (...) {
        // A copy still running (a timed-out wait) writes into it: left to create_gpu_scene.
        if (!vk::uploader_busy(device, uploader)) vk::destroy_buffer(device, buffer);
        throw;
    }
    return buffer;
}

// The mip levels of a packed chain, which holds them back to back, tightly packed: views
// into it, or (`decoded` non-null) levels decoded to RGBA8 and kept in `decoded`.
void append_levels(const assets::TextureView& texture,
                   std::vector<std::span<const std::uint8_t>>& levels,
                   std::vector<std::vector<std::uint8_t>>* decoded) {
    std::size_t offset = 0;
    for (std::uint32_t level = 0; level < texture.mip_count; ++level) {
        const VkExtent2D size = vk::mip_extent({texture.width, texture.height}, level);
        const std::size_t bytes = assets::level_bytes(size.width, size.height, texture.format);
        const auto stored = texture.pixels.subspan(offset, bytes);
        offset += bytes;
        if (decoded == nullptr) {
            levels.push_back(stored);
            continue;
        }
        decoded->push_back(assets::decode_level(stored, size.width, size.height, texture.format));
        levels.emplace_back(decoded->back());
    }
}

// The 2D array image of texture group `g`: its textures' chains, layer by layer.
vk::Image make_group_image(const vk::Device& device, vk::Uploader& uploader,
                           const assets::PackedScene& scene, const assets::TextureGroups& groups,
                           std::uint32_t g) {
    const assets::TextureSize size = groups.sizes[g];
    BATCHSIM_CHECK(
        groups.count[g] <= device.features.max_image_array_layers, Unsupported,
        str("scene ", scene.source(), " has ", groups.count[g], " textures of ", size.width, "x",
            size.height, "; device '", device.info.name, "' holds at most ",
            device.features.max_image_array_layers, " layers in an image"));
    const bool native = samples_natively(device, size.format);
    vk::Image image = vk::create_image(
        device, {.format = image_format(native ? size.format : assets::TextureFormat::Rgba8Srgb),
                 .extent = {size.width, size.height},
                 .mip_levels = size.mip_count,
                 .layers = groups.count[g],
                 .array_view = true,
                 .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                          VK_IMAGE_USAGE_TRANSFER_SRC_BIT});
    try {
        std::vector<std::span<const std::uint8_t>> levels;  // textures in layer order
        std::vector<std::vector<std::uint8_t>> decoded;     // what they point to, if decoded
        for (std::size_t t = 0; t < groups.group.size(); ++t)
            if (groups.group[t] == g)
                append_levels(scene.texture(t), levels, native ? nullptr : &decoded);
        vk::upload_image_mips(device, uploader, image, levels);
    } catch (...) {
        if (!vk::uploader_busy(device, uploader)) vk::destroy_image(device, image);  // as above
        throw;
    }
    return image;
}

assets::TextureGroups scene_texture_groups(const assets::PackedScene& scene) {
    std::vector<assets::TextureSize> sizes;
    for (std::size_t i = 0; i < scene.texture_count(); ++i) {
        const assets::TextureView texture = scene.texture(i);
        sizes.push_back({texture.width, texture.height, texture.mip_count, texture.format});
    }
    assets::TextureGroups groups = assets::group_textures(sizes);
    // The packed scene validator guarantees this; a bug if not.
    BATCHSIM_CHECK(groups.sizes.size() <= assets::kMaxTextureGroups, Internal,
                   str("scene ", scene.source(), " has ", groups.sizes.size(), " texture sizes"));
    return groups;
}

// The packed materials with each texture index turned into its group slot and layer.
std::vector<gpu::Material> gpu_materials(const assets::PackedScene& scene,
                                         const assets::TextureGroups& groups) {
    std::vector<gpu::Material> materials(scene.materials().begin(), scene.materials().end());
    for (gpu::Material& m : materials) {
        if (m.base_color_texture == gpu::kNoTexture) continue;
        m.base_color_layer = groups.layer[m.base_color_texture];
        m.base_color_texture = groups.group[m.base_color_texture];
    }
    return materials;
}

void fill_gpu_scene(const vk::Device& device, const assets::PackedScene& scene, bool bvh,
                    std::span<const gpu::Bvh4Node> nodes, vk::Uploader& uploader, GpuScene& out) {
    out.vertices = make_buffer(device, uploader, as_bytes(scene.vertices()),
                               VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    out.indices =
        make_buffer(device, uploader, as_bytes(scene.indices()), VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
    out.chunks = make_buffer(device, uploader, as_bytes(scene.chunks()), 0);
    const assets::TextureGroups groups = scene_texture_groups(scene);
    const std::vector<gpu::Material> materials = gpu_materials(scene, groups);
    out.materials =
        make_buffer(device, uploader, as_bytes(std::span<const gpu::Material>(materials)), 0);
    for (std::uint32_t g = 0; g < groups.sizes.size(); ++g)
        out.textures.push_back(make_group_image(device, uploader, scene, groups, g));
    out.sampler = vk::create_sampler(device, {});
    if (!bvh) return;
    out.bvh_nodes = make_buffer(device, uploader, as_bytes(nodes), 0);
    out.bvh_triangles = make_buffer(device, uploader, as_bytes(scene.bvh_triangles()), 0);
}

}  // namespace

VkDeviceSize GpuScene::bytes() const {
    return vertices.allocation_size + indices.allocation_size + chunks.allocation_size +
           materials.allocation_size + bvh_nodes.allocation_size + bvh_triangles.allocation_size +
           texture_bytes();
}

VkDeviceSize gpu_scene_data_bytes(const assets::PackedScene& scene, bool bvh, bool decode_bc) {
    const std::size_t nodes = bvh ? assets::collapse_bvh4(scene.bvh_nodes()).size() : 0;
    return data_bytes_but_nodes(scene, bvh, decode_bc) + nodes * sizeof(gpu::Bvh4Node);
}

VkDeviceSize GpuScene::texture_bytes() const {
    VkDeviceSize total = 0;
    for (const vk::Image& texture : textures) total += texture.bytes;
    return total;
}

GpuScene create_gpu_scene(const vk::Device& device, const assets::PackedScene& scene,
                          const GpuSceneOptions& options) {
    // The compute renderer traces a 4-wide BVH, collapsed here from the stored BVH2.
    const std::vector<gpu::Bvh4Node> nodes =
        options.bvh ? assets::collapse_bvh4(scene.bvh_nodes()) : std::vector<gpu::Bvh4Node>{};
    check_fits(device, scene, options, nodes);
    GpuScene out;
    out.vertex_count = static_cast<std::uint32_t>(scene.vertices().size());
    out.index_count = static_cast<std::uint32_t>(scene.indices().size());
    out.chunk_count = static_cast<std::uint32_t>(scene.chunks().size());
    out.material_count = static_cast<std::uint32_t>(scene.materials().size());
    out.source = scene.source();
    vk::Uploader uploader = vk::create_uploader(device, options.staging_bytes);
    try {
        fill_gpu_scene(device, scene, options.bvh, nodes, uploader, out);
    } catch (...) {
        // After a timed-out wait the upload may still write into the scene's buffers.
        if (vk::uploader_busy(device, uploader))
            vk::abandon_to_running_work(device, "a scene being uploaded");
        else
            destroy_gpu_scene(device, out);
        vk::destroy_uploader(device, uploader);
        throw;
    }
    vk::destroy_uploader(device, uploader);
    return out;
}

void destroy_gpu_scene(const vk::Device& device, GpuScene& scene) {
    vk::destroy_buffer(device, scene.vertices);
    vk::destroy_buffer(device, scene.indices);
    vk::destroy_buffer(device, scene.chunks);
    vk::destroy_buffer(device, scene.materials);
    vk::destroy_buffer(device, scene.bvh_nodes);
    vk::destroy_buffer(device, scene.bvh_triangles);
    for (vk::Image& texture : scene.textures) vk::destroy_image(device, texture);
    vk::destroy_sampler(device, scene.sampler);
    scene = GpuScene{};
}

}  // namespace batchsim::render
