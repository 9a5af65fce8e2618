#include "render/texture_table.hpp"

#include <array>
#include <cassert>

#include "core/check.hpp"
#include "shared.h"
#include "vk/upload.hpp"

namespace batchsim::render {
namespace {

constexpr std::uint32_t kSlots = BATCHSIM_MAX_TEXTURE_GROUPS;

VkDescriptorSetLayout set_layout(const vk::Device& device) {
    VkDescriptorSetLayoutBinding binding{};
    binding.binding = 0;
    binding.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    binding.descriptorCount = kSlots;
    binding.stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT;
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = 1;
    info.pBindings = &binding;
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorSetLayout(device.handle, &info, nullptr, &layout));
    return layout;
}

VkDescriptorPool descriptor_pool(const vk::Device& device, std::uint32_t places) {
    const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, kSlots * places};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = places;
    info.poolSizeCount = 1;
    info.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorPool(device.handle, &info, nullptr, &pool));
    return pool;
}

vk::Image white_texture(const vk::Device& device) {
    vk::Image image = vk::create_image(device, {.extent = {1, 1}, .array_view = true});
    const std::array<std::uint8_t, 4> white{255, 255, 255, 255};
    const std::array<std::span<const std::uint8_t>, 1> levels{std::span(white)};
    vk::upload_image_mips(device, image, levels);
    return image;
}

}  // namespace

TextureTable create_texture_table(const vk::Device& device, std::uint32_t places) {
    TextureTable table;
    try {
        table.layout = set_layout(device);
        table.pool = descriptor_pool(device, places);
        table.blank = white_texture(device);
        table.sampler = vk::create_sampler(device, {});
        const std::vector<VkDescriptorSetLayout> layouts(places, table.layout);
        VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        info.descriptorPool = table.pool;
        info.descriptorSetCount = places;
        info.pSetLayouts = layouts.data();
        table.sets.resize(places);
        VK_CHECK(vkAllocateDescriptorSets(device.handle, &info, table.sets.data()));
        for (std::uint32_t place = 0; place < places; ++place)
            bind_scene_textures(device, table, place, nullptr);
    } catch (...) {
        destroy_texture_table(device, table);
        throw;
    }
    return table;
}

void destroy_texture_table(const vk::Device& device, TextureTable& table) {
    if (table.pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(device.handle, table.pool, nullptr);
    if (table.layout != VK_NULL_HANDLE)
        vkDestroyDescriptorSetLayout(device.handle, table.layout, nullptr);
    vk::destroy_sampler(device, table.sampler);
    vk::destroy_image(device, table.blank);
    table = TextureTable{};
}

void bind_scene_textures(const vk::Device& device, TextureTable& table, std::uint32_t place,
                         const GpuScene* scene) {
    const std::size_t count = scene ? scene->textures.size() : 0;
    assert(count <= kSlots);  // packed scenes never have more texture groups
    std::array<VkDescriptorImageInfo, kSlots> images{};
    for (std::uint32_t i = 0; i < kSlots; ++i) {
        const bool own = i < count;
        images[i].sampler = own ? scene->sampler : table.sampler;
        images[i].imageView = own ? scene->textures[i].view : table.blank.view;
        images[i].imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    }
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = table.sets.at(place);
    write.descriptorCount = kSlots;
    write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    write.pImageInfo = images.data();
    vkUpdateDescriptorSets(device.handle, 1, &write, 0, nullptr);
}

}  // namespace batchsim::render
