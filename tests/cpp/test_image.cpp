#include "vk/image.hpp"

#include <catch2/catch.hpp>

#include <functional>

#include "core/check.hpp"
#include "vk/command.hpp"
#include "vk/instance.hpp"
#include "vk/sync.hpp"
#include "vk_test_device.hpp"

using batchsim::Error;
using namespace batchsim::vk;

namespace {

// A validated device (vk_test_device.hpp).
struct Fixture : batchsim::test::ValidatedDevice {};

Error::Kind kind_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const Error& error) {
        return error.kind();
    }
    return Error::Kind::Internal;
}

}  // namespace

TEST_CASE("mip chains halve each dimension down to 1x1", "[image]") {
    CHECK(mip_levels_for({1, 1}) == 1);
    CHECK(mip_levels_for({37, 19}) == 6);
    CHECK(mip_levels_for({64, 64}) == 7);
    CHECK(mip_levels_for({1, 1000}) == 10);
    CHECK(mip_extent({37, 19}, 1).width == 18);
    CHECK(mip_extent({37, 19}, 1).height == 9);
    CHECK(mip_extent({37, 19}, 5).width == 1);
    CHECK(mip_extent({37, 19}, 5).height == 1);
}

TEST_CASE_METHOD(Fixture, "images own memory and a view of every level", "[image]") {
    Image image = create_image(device, {.extent = {37, 19}, .mip_levels = 6});
    CHECK(image.handle != VK_NULL_HANDLE);
    CHECK(image.view != VK_NULL_HANDLE);
    CHECK(image.memory != VK_NULL_HANDLE);
    CHECK(image.format == VK_FORMAT_R8G8B8A8_SRGB);
    CHECK(image.mip_levels == 6);
    CHECK(image.layers == 1);
    CHECK(image.bytes >= VkDeviceSize{37} * 19 * 4);
    destroy_image(device, image);
    CHECK(image.handle == VK_NULL_HANDLE);
    CHECK(image.view == VK_NULL_HANDLE);

    Image array = create_image(device, {.format = VK_FORMAT_R8G8B8A8_UNORM,
                                        .extent = {16, 8},
                                        .layers = 3,
                                        .usage = VK_IMAGE_USAGE_SAMPLED_BIT});
    CHECK(array.layers == 3);
    CHECK(array.bytes >= VkDeviceSize{16} * 8 * 4 * 3);
    destroy_image(device, array);
}

TEST_CASE_METHOD(Fixture, "bad image requests fail with clear errors", "[image]") {
    CHECK(kind_of([&] {
              create_image(device, {.extent = {0, 4}});
          }) == Error::Kind::InvalidArgument);
    CHECK_THROWS_WITH(create_image(device, {.extent = {8, 4}, .mip_levels = 5}),
                      Catch::Contains("1 to 4 mip levels, got 5"));
    CHECK(kind_of([&] {
              create_image(device, {.extent = {1u << 20, 4}});
          }) == Error::Kind::Unsupported);
}

TEST_CASE_METHOD(Fixture, "samplers use anisotropy when the device enables it", "[image]") {
    VkSampler sampler = create_sampler(device, {});
    CHECK(sampler != VK_NULL_HANDLE);
    destroy_sampler(device, sampler);
    CHECK(sampler == VK_NULL_HANDLE);
    VkSampler plain = create_sampler(device, {.max_anisotropy = 1.0f});
    destroy_sampler(device, plain);
    if (device.features.sampler_anisotropy) CHECK(device.features.max_sampler_anisotropy >= 1.0f);
}

TEST_CASE_METHOD(Fixture, "image barriers record layout transitions", "[image]") {
    REQUIRE(device.features.synchronization2);
    Image image = create_image(
        device, {.extent = {8, 8},
                 .mip_levels = 4,
                 .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT});
    CommandRing ring = create_command_ring(device, 1);
    VkSemaphore timeline = create_timeline_semaphore(device, false);
    VkCommandBuffer commands = begin_commands(device, ring, timeline);
    record_image_barrier(device, commands, image,
                         {.old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
                          .new_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          .dst_stage = VK_PIPELINE_STAGE_2_CLEAR_BIT,
                          .dst_access = VK_ACCESS_2_TRANSFER_WRITE_BIT});
    const VkClearColorValue red{{1.0f, 0.0f, 0.0f, 1.0f}};
    const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 4, 0, 1};
    vkCmdClearColorImage(commands, image.handle, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &red, 1,
                         &all);
    record_image_barrier(device, commands, image,
                         {.old_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          .new_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                          .src_stage = VK_PIPELINE_STAGE_2_CLEAR_BIT,
                          .src_access = VK_ACCESS_2_TRANSFER_WRITE_BIT,
                          .dst_stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                          .dst_access = VK_ACCESS_2_SHADER_READ_BIT});
    submit_commands(device, ring, {.timeline = timeline, .signal_value = 1});
    wait_timeline(device, timeline, 1, "the test's copy");
    destroy_semaphore(device, timeline);
    destroy_command_ring(device, ring);
    destroy_image(device, image);
}
