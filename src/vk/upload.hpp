// Staged copies between host memory and device-local buffers and images, through a
// host-visible staging buffer of bounded size, so a 1 GB scene never needs 1 GB of staging.
//
// Queues: uploads that replace a whole buffer or image run on the device's dedicated
// transfer queue when it has one (the copy engines run beside rendering), and end with a
// queue family ownership transfer: a release barrier on the transfer queue, then an
// acquire barrier on the main queue that waits for it through a timeline semaphore. So
// resources stay VK_SHARING_MODE_EXCLUSIVE, which some drivers compress or place better
// than CONCURRENT ones. Partial buffer updates and downloads run on the main queue: the
// bytes they leave alone keep their owner, and no ownership round trip is needed.
//
// Every call waits for its copies to finish before it returns. The caller guarantees the
// GPU no longer uses the destination, and that no other thread submits to the device's
// queues meanwhile (queues are externally synchronised in Vulkan).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "vk/buffer.hpp"
#include "vk/device.hpp"
#include "vk/image.hpp"

namespace batchsim::vk {

// Staging buffer size: large enough that the per-submission cost (tens of microseconds) is
// small against the copy (~3 ms for 32 MiB over PCIe 4), small enough to keep next to a scene.
inline constexpr VkDeviceSize kDefaultStagingBytes = VkDeviceSize{32} << 20;

// A staging buffer and one command buffer on each of the transfer and main queues, reused
// by every copy made through it.
struct Uploader {
    Buffer staging;  // host-visible, mapped
    VkCommandPool transfer_pool = VK_NULL_HANDLE;
    VkCommandPool main_pool = VK_NULL_HANDLE;
    VkCommandBuffer transfer_commands = VK_NULL_HANDLE;
    VkCommandBuffer main_commands = VK_NULL_HANDLE;
    VkSemaphore timeline = VK_NULL_HANDLE;
    std::uint64_t last_value = 0;  // the timeline value the last submission signalled
};

// Throws Unsupported if the device lacks synchronization2; staging_bytes must be >= 4.
Uploader create_uploader(const Device& device, VkDeviceSize staging_bytes = kDefaultStagingBytes);
// Frees the uploader; or, while its last submission still runs (a wait for it timed out),
// leaks it (abandon_to_running_work): the device would read freed memory.
void destroy_uploader(const Device& device, Uploader& uploader);
// True while the uploader's last submission has not finished (only after a timed-out wait:
// every call waits for its work). What that submission copies into must not be freed.
[[nodiscard]] bool uploader_busy(const Device& device, const Uploader& uploader) noexcept;

// Copies `bytes` into `dst` at `offset`. dst needs VK_BUFFER_USAGE_TRANSFER_DST_BIT.
void upload_buffer(const Device& device, Uploader& uploader, const Buffer& dst,
                   std::span<const std::uint8_t> bytes, VkDeviceSize offset = 0);

// Fills every mip level of every layer of an RGBA8 or BC1 image (UNORM or SRGB) from
// `levels`, layer by layer (levels[layer * mip_levels + level]), each level tightly packed
// (texels, or 4x4 blocks for BC1), rows top first;
// small levels and layers share staging copies. The image ends in SHADER_READ_ONLY_OPTIMAL, owned
// by the main queue family. The image needs VK_IMAGE_USAGE_TRANSFER_DST_BIT, and one row
// of level 0 must fit in the staging buffer.
void upload_image_mips(const Device& device, Uploader& uploader, const Image& image,
                       std::span<const std::span<const std::uint8_t>> levels);

// Reads `size` bytes of `src` from `offset` (src needs VK_BUFFER_USAGE_TRANSFER_SRC_BIT).
std::vector<std::uint8_t> download_buffer(const Device& device, Uploader& uploader,
                                          const Buffer& src, VkDeviceSize offset,
                                          VkDeviceSize size);

// Reads one tightly packed mip level of one layer of an image that upload_image_mips filled
// (in SHADER_READ_ONLY_OPTIMAL, where it stays); it needs VK_IMAGE_USAGE_TRANSFER_SRC_BIT.
std::vector<std::uint8_t> download_image_level(const Device& device, Uploader& uploader,
                                               const Image& image, std::uint32_t level,
                                               std::uint32_t layer = 0);

// One-off forms: each makes and destroys an Uploader with at most kDefaultStagingBytes.
void upload_buffer(const Device& device, const Buffer& dst, std::span<const std::uint8_t> bytes,
                   VkDeviceSize offset = 0);
void upload_image_mips(const Device& device, const Image& image,
                       std::span<const std::span<const std::uint8_t>> levels);
std::vector<std::uint8_t> download_buffer(const Device& device, const Buffer& src,
                                          VkDeviceSize offset, VkDeviceSize size);
std::vector<std::uint8_t> download_image_level(const Device& device, const Image& image,
                                               std::uint32_t level, std::uint32_t layer = 0);

}  // namespace batchsim::vk
