#include "vk/upload.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "core/check.hpp"
#include "vk/instance.hpp"
#include "vk_test_device.hpp"

using batchsim::Error;
using namespace batchsim::vk;

namespace {

// A validated device (vk_test_device.hpp).
struct Fixture : batchsim::test::ValidatedDevice {
    [[nodiscard]] Buffer make_buffer(VkDeviceSize size) const {
        return create_buffer(
            device, {.size = size,
                     .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                     .location = MemoryLocation::DeviceLocal});
    }
    [[nodiscard]] Image make_image(VkExtent2D extent, std::uint32_t mips) const {
        return create_image(device,
                            {.extent = extent,
                             .mip_levels = mips,
                             .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                      VK_IMAGE_USAGE_TRANSFER_SRC_BIT});
    }
};

std::vector<std::uint8_t> random_bytes(std::size_t size, std::uint32_t seed) {
    std::mt19937 random(seed);
    std::vector<std::uint8_t> bytes(size);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(random());
    return bytes;
}

// Random tightly packed RGBA8 levels of a mip chain.
std::vector<std::vector<std::uint8_t>> random_levels(VkExtent2D extent, std::uint32_t mips) {
    std::vector<std::vector<std::uint8_t>> levels;
    for (std::uint32_t level = 0; level < mips; ++level) {
        const VkExtent2D size = mip_extent(extent, level);
        levels.push_back(random_bytes(std::size_t{size.width} * size.height * 4, 100 + level));
    }
    return levels;
}

std::vector<std::span<const std::uint8_t>> spans(const std::vector<std::vector<std::uint8_t>>& v) {
    return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE_METHOD(Fixture, "the device has a main queue and a transfer queue", "[upload]") {
    CHECK(device.queue != VK_NULL_HANDLE);
    CHECK(device.transfer_queue != VK_NULL_HANDLE);
    CHECK(device.dedicated_transfer() == (device.transfer_queue != device.queue));
    if (device.dedicated_transfer()) CHECK(device.transfer_family != device.queue_family);
    CHECK(device.features.synchronization2);
    CHECK(device.functions.cmd_pipeline_barrier2 != nullptr);
    CHECK((device.features.dynamic_rendering == (device.functions.cmd_begin_rendering != nullptr)));
    const HeapBudget budget = device_local_budget(device);
    CHECK(budget.size > 0);
    CHECK(budget.available <= budget.size);
    CHECK(budget.measured == device.features.memory_budget);
}

TEST_CASE("missing_features names what a wanted feature set lacks", "[upload]") {
    DeviceFeatures have;
    have.graphics_queue = true;
    have.dynamic_rendering = true;
    DeviceFeatures want = have;
    want.runtime_descriptor_array = true;
    want.synchronization2 = true;
    CHECK(missing_features(have, want) ==
          std::vector<std::string>{"synchronization2", "runtimeDescriptorArray"});
    CHECK(missing_features(want, have).empty());
}

TEST_CASE_METHOD(Fixture, "buffers round-trip bit-exactly through small staging chunks",
                 "[upload]") {
    constexpr VkDeviceSize kChunk = 1000;  // tiny, so most sizes take several chunks
    Uploader uploader = create_uploader(device, kChunk);
    for (const VkDeviceSize size : {VkDeviceSize{1}, VkDeviceSize{3}, VkDeviceSize{999},
                                    VkDeviceSize{1000}, VkDeviceSize{1001}, VkDeviceSize{4321}}) {
        INFO("size " << size);
        const auto bytes = random_bytes(size, static_cast<std::uint32_t>(size));
        Buffer buffer = make_buffer(size);
        upload_buffer(device, uploader, buffer, bytes);
        CHECK(download_buffer(device, uploader, buffer, 0, size) == bytes);
        destroy_buffer(device, buffer);
    }
    destroy_uploader(device, uploader);
}

TEST_CASE_METHOD(Fixture, "partial uploads keep the bytes around them", "[upload]") {
    Uploader uploader = create_uploader(device, 64);
    Buffer buffer = make_buffer(777);
    auto expected = random_bytes(777, 1);
    upload_buffer(device, uploader, buffer, expected);
    const auto patch = random_bytes(201, 2);
    upload_buffer(device, uploader, buffer, patch, 13);
    std::copy(patch.begin(), patch.end(), expected.begin() + 13);
    CHECK(download_buffer(device, uploader, buffer, 0, 777) == expected);
    const auto middle = download_buffer(device, uploader, buffer, 5, 100);
    CHECK(std::equal(middle.begin(), middle.end(), expected.begin() + 5));
    CHECK_THROWS_WITH(upload_buffer(device, uploader, buffer, patch, 700),
                      Catch::Contains("cannot upload 201 bytes at offset 700"));
    CHECK_THROWS_AS(download_buffer(device, uploader, buffer, 700, 78), Error);
    destroy_buffer(device, buffer);
    destroy_uploader(device, uploader);
}

TEST_CASE_METHOD(Fixture, "one-off uploads make their own staging buffer", "[upload]") {
    const auto bytes = random_bytes(12345, 7);
    Buffer buffer = make_buffer(bytes.size());
    upload_buffer(device, buffer, bytes);
    CHECK(download_buffer(device, buffer, 0, bytes.size()) == bytes);
    destroy_buffer(device, buffer);

    const auto levels = random_levels({5, 3}, 3);
    Image image = make_image({5, 3}, 3);
    upload_image_mips(device, image, spans(levels));
    for (std::uint32_t level = 0; level < 3; ++level)
        CHECK(download_image_level(device, image, level) == levels[level]);
    destroy_image(device, image);
}

TEST_CASE_METHOD(Fixture, "mip chains round-trip bit-exactly, split by rows", "[upload]") {
    struct Case {
        VkExtent2D extent;
        std::uint32_t mips;
        VkDeviceSize staging;
    };
    // Non-power-of-two sizes; staging from less than one level (rows split across passes)
    // to the whole chain (every level in one pass).
    for (const Case& c : {Case{{37, 19}, 6, 512}, Case{{37, 19}, 6, 1 << 16},
                          Case{{100, 3}, 7, 400}, Case{{1, 1}, 1, 4}, Case{{64, 48}, 3, 1000}}) {
        INFO(c.extent.width << "x" << c.extent.height << " staging " << c.staging);
        Uploader uploader = create_uploader(device, c.staging);
        const auto levels = random_levels(c.extent, c.mips);
        Image image = make_image(c.extent, c.mips);
        upload_image_mips(device, uploader, image, spans(levels));
        for (std::uint32_t level = 0; level < c.mips; ++level) {
            INFO("level " << level);
            CHECK(download_image_level(device, uploader, image, level) == levels[level]);
        }
        destroy_image(device, image);
        destroy_uploader(device, uploader);
    }
}

TEST_CASE_METHOD(Fixture, "bad image uploads fail with clear errors", "[upload]") {
    Uploader uploader = create_uploader(device, 64);
    Image wide = make_image({17, 2}, 1);  // 68-byte rows
    const auto wide_levels = random_levels({17, 2}, 1);
    CHECK_THROWS_WITH(upload_image_mips(device, uploader, wide, spans(wide_levels)),
                      Catch::Contains("does not fit the 64-byte staging buffer"));
    destroy_image(device, wide);

    Image image = make_image({8, 4}, 2);
    const auto levels = random_levels({8, 4}, 2);
    const auto level_spans = spans(levels);
    CHECK_THROWS_WITH(upload_image_mips(device, uploader, image, std::span(level_spans).first(1)),
                      Catch::Contains("image needs 2 levels (1 layers x 2 mips), got 1"));
    auto short_levels = levels;
    short_levels[1].pop_back();
    CHECK_THROWS_WITH(upload_image_mips(device, uploader, image, spans(short_levels)),
                      Catch::Contains("mip level 1 needs 32 bytes, got 31"));
    upload_image_mips(device, uploader, image, spans(levels));
    CHECK_THROWS_WITH(download_image_level(device, uploader, image, 2),
                      Catch::Contains("asked for level 2"));
    destroy_image(device, image);
    destroy_uploader(device, uploader);
}
