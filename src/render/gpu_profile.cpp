#include "render/gpu_profile.hpp"

#include <array>
#include <vector>

#include "core/check.hpp"

namespace batchsim::render {
namespace {

constexpr auto kMarks = static_cast<std::uint32_t>(TimerMark::Count);

// In the order Vulkan writes results: increasing bit value.
constexpr VkQueryPipelineStatisticFlags kStatistics =
    VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_PRIMITIVES_BIT |
    VK_QUERY_PIPELINE_STATISTIC_VERTEX_SHADER_INVOCATIONS_BIT |
    VK_QUERY_PIPELINE_STATISTIC_CLIPPING_INVOCATIONS_BIT |
    VK_QUERY_PIPELINE_STATISTIC_CLIPPING_PRIMITIVES_BIT |
    VK_QUERY_PIPELINE_STATISTIC_FRAGMENT_SHADER_INVOCATIONS_BIT;
constexpr std::size_t kStatisticCount = 5;

std::uint32_t timestamp_bits(const vk::Device& device) {
    std::uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device.info.handle, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(device.info.handle, &count, families.data());
    return device.queue_family < count ? families[device.queue_family].timestampValidBits : 0;
}

VkQueryPool create_pool(const vk::Device& device, VkQueryType type, std::uint32_t count,
                        VkQueryPipelineStatisticFlags statistics) {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = type;
    info.queryCount = count;
    info.pipelineStatistics = statistics;
    VkQueryPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateQueryPool(device.handle, &info, nullptr, &pool));
    return pool;
}

// False where the results are not there (the batch never ran); throws on device errors.
template <std::size_t N>
bool read_results(const vk::Device& device, VkQueryPool pool, std::uint32_t first,
                  std::uint32_t count, std::array<std::uint64_t, N>& out) {
    const VkResult result = vkGetQueryPoolResults(
        device.handle, pool, first, count, sizeof(out), out.data(),
        count == 1 ? sizeof(out) : sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT);
    if (result == VK_NOT_READY) return false;
    VK_CHECK(result);
    return true;
}

}  // namespace

GpuProfile create_gpu_profile(const vk::Device& device, std::uint32_t batches) {
    GpuProfile profile;
    profile.batches = batches;
    try {
        if (const std::uint32_t bits = timestamp_bits(device); bits > 0) {
            VkPhysicalDeviceProperties properties{};
            vkGetPhysicalDeviceProperties(device.info.handle, &properties);
            profile.nanoseconds_per_tick = properties.limits.timestampPeriod;
            profile.valid_mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
            profile.timestamps = create_pool(device, VK_QUERY_TYPE_TIMESTAMP, batches * kMarks, 0);
        }
        if (device.features.pipeline_statistics && device.features.graphics_queue)
            profile.statistics =
                create_pool(device, VK_QUERY_TYPE_PIPELINE_STATISTICS, batches, kStatistics);
    } catch (...) {
        destroy_gpu_profile(device, profile);
        throw;
    }
    return profile;
}

void destroy_gpu_profile(const vk::Device& device, GpuProfile& profile) {
    for (VkQueryPool pool : {profile.timestamps, profile.statistics})
        if (pool != VK_NULL_HANDLE) vkDestroyQueryPool(device.handle, pool, nullptr);
    profile = GpuProfile{};
}

void record_profile_reset(VkCommandBuffer commands, const GpuProfile& profile,
                          std::uint32_t batch) {
    if (profile.timestamps != VK_NULL_HANDLE)
        vkCmdResetQueryPool(commands, profile.timestamps, batch * kMarks, kMarks);
    if (profile.statistics != VK_NULL_HANDLE)
        vkCmdResetQueryPool(commands, profile.statistics, batch, 1);
}

void record_timer_mark(VkCommandBuffer commands, const GpuProfile& profile, std::uint32_t batch,
                       TimerMark mark) {
    if (profile.timestamps == VK_NULL_HANDLE) return;
    vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, profile.timestamps,
                        batch * kMarks + static_cast<std::uint32_t>(mark));
}

void record_statistics_begin(VkCommandBuffer commands, const GpuProfile& profile,
                             std::uint32_t batch) {
    if (profile.statistics != VK_NULL_HANDLE)
        vkCmdBeginQuery(commands, profile.statistics, batch, 0);
}

void record_statistics_end(VkCommandBuffer commands, const GpuProfile& profile,
                           std::uint32_t batch) {
    if (profile.statistics != VK_NULL_HANDLE) vkCmdEndQuery(commands, profile.statistics, batch);
}

std::optional<PassTimes> read_pass_times(const vk::Device& device, const GpuProfile& profile,
                                         std::uint32_t batch) {
    std::array<std::uint64_t, kMarks> ticks{};
    if (profile.timestamps == VK_NULL_HANDLE || batch >= profile.batches ||
        !read_results(device, profile.timestamps, batch * kMarks, kMarks, ticks))
        return std::nullopt;
    auto ms = [&](TimerMark from, TimerMark to) {
        const std::uint64_t a = ticks[static_cast<std::size_t>(from)];
        const std::uint64_t b = ticks[static_cast<std::size_t>(to)];
        const std::uint64_t elapsed = (b - a) & profile.valid_mask;  // survives one wrap
        return static_cast<double>(elapsed) * profile.nanoseconds_per_tick * 1e-6;
    };
    auto clock_ms = [&](TimerMark mark) {
        const std::uint64_t tick = ticks[static_cast<std::size_t>(mark)] & profile.valid_mask;
        return static_cast<double>(tick) * profile.nanoseconds_per_tick * 1e-6;
    };
    return PassTimes{ms(TimerMark::Start, TimerMark::Uploaded),
                     ms(TimerMark::Uploaded, TimerMark::Culled),
                     ms(TimerMark::Culled, TimerMark::Drawn),
                     ms(TimerMark::Drawn, TimerMark::Copied),
                     clock_ms(TimerMark::Start),
                     clock_ms(TimerMark::Copied)};
}

std::optional<DrawStatistics> read_draw_statistics(const vk::Device& device,
                                                   const GpuProfile& profile, std::uint32_t batch) {
    std::array<std::uint64_t, kStatisticCount> counts{};
    if (profile.statistics == VK_NULL_HANDLE || batch >= profile.batches ||
        !read_results(device, profile.statistics, batch, 1, counts))
        return std::nullopt;
    return DrawStatistics{counts[0], counts[1], counts[2], counts[3], counts[4]};
}

}  // namespace batchsim::render
