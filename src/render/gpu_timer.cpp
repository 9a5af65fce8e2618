#include "render/gpu_timer.hpp"

#include <array>
#include <vector>

#include "core/check.hpp"

namespace batchsim::render {
namespace {

constexpr auto kMarks = static_cast<std::uint32_t>(TimerMark::Count);

std::uint32_t timestamp_bits(const vk::Device& device) {
    std::uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device.info.handle, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(device.info.handle, &count, families.data());
    return device.queue_family < count ? families[device.queue_family].timestampValidBits : 0;
}

}  // namespace

GpuTimer create_gpu_timer(const vk::Device& device, std::uint32_t batches) {
    GpuTimer timer;
    timer.batches = batches;
    const std::uint32_t bits = timestamp_bits(device);
    if (bits == 0) return timer;
    VkPhysicalDeviceProperties properties{};
    vkGetPhysicalDeviceProperties(device.info.handle, &properties);
    timer.nanoseconds_per_tick = properties.limits.timestampPeriod;
    timer.valid_mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = batches * kMarks;
    VK_CHECK(vkCreateQueryPool(device.handle, &info, nullptr, &timer.pool));
    return timer;
}

void destroy_gpu_timer(const vk::Device& device, GpuTimer& timer) {
    if (timer.pool != VK_NULL_HANDLE) vkDestroyQueryPool(device.handle, timer.pool, nullptr);
    timer = GpuTimer{};
}

void record_timer_reset(VkCommandBuffer commands, const GpuTimer& timer, std::uint32_t batch) {
    if (timer.pool != VK_NULL_HANDLE)
        vkCmdResetQueryPool(commands, timer.pool, batch * kMarks, kMarks);
}

void record_timer_mark(VkCommandBuffer commands, const GpuTimer& timer, std::uint32_t batch,
                       TimerMark mark) {
    if (timer.pool == VK_NULL_HANDLE) return;
    vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timer.pool,
                        batch * kMarks + static_cast<std::uint32_t>(mark));
}

std::optional<PassTimes> read_pass_times(const vk::Device& device, const GpuTimer& timer,
                                         std::uint32_t batch) {
    if (timer.pool == VK_NULL_HANDLE || batch >= timer.batches) return std::nullopt;
    std::array<std::uint64_t, kMarks> ticks{};
    const VkResult result =
        vkGetQueryPoolResults(device.handle, timer.pool, batch * kMarks, kMarks, sizeof(ticks),
                              ticks.data(), sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT);
    if (result == VK_NOT_READY) return std::nullopt;  // never submitted
    VK_CHECK(result);
    auto ms = [&](TimerMark from, TimerMark to) {
        const std::uint64_t a = ticks[static_cast<std::size_t>(from)] & timer.valid_mask;
        const std::uint64_t b = ticks[static_cast<std::size_t>(to)] & timer.valid_mask;
        const std::uint64_t elapsed = (b - a) & timer.valid_mask;  // survives one wrap
        return static_cast<double>(elapsed) * timer.nanoseconds_per_tick * 1e-6;
    };
    return PassTimes{
        ms(TimerMark::Start, TimerMark::Uploaded), ms(TimerMark::Uploaded, TimerMark::Culled),
        ms(TimerMark::Culled, TimerMark::Drawn), ms(TimerMark::Drawn, TimerMark::Copied)};
}

}  // namespace batchsim::render
